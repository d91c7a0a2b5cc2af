"""The one pipeline object that the CLI, UI, evaluation and tests all build."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from .embeddings import CachedEmbedder, make_embedder
from .index import IngestProgress, PaperIndex
from .loaders import LoadResult, load_paths
from .models import IngestReport, LoadError, SearchHit
from .retrieval import Filters, Mode, Retriever
from .settings import Settings


class Pipeline:
    """Index, retriever and answerer wired from one Settings; parts can be injected."""

    def __init__(
        self,
        settings: Settings,
        embedder: CachedEmbedder | None = None,
        index: PaperIndex | None = None,
    ) -> None:
        self.settings = settings
        self.index = index or PaperIndex(settings, embedder or make_embedder(settings))
        self.retriever = Retriever(self.index, settings)

    def ingest(
        self,
        paths: Iterable[str | Path],
        prune: bool = False,
        progress: IngestProgress | None = None,
    ) -> tuple[LoadResult, IngestReport]:
        """Load files and index their papers; prune only when every input loaded cleanly."""
        loaded = load_paths(paths)
        errors = list(loaded.errors)
        if prune and errors:
            # A file that failed to load must not make its papers look deleted.
            prune = False
            errors.append(LoadError(file="-", message="not pruning: some inputs had errors"))
        if not loaded.papers and not prune:
            return loaded, IngestReport(errors=errors)
        report = self.index.ingest(loaded.papers, prune=prune, progress=progress)
        report.errors = errors
        return loaded, report

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: Mode | None = None,
        filters: Filters | None = None,
    ) -> list[SearchHit]:
        """Best papers for a query."""
        return self.retriever.search(query, k=k, mode=mode, filters=filters)
