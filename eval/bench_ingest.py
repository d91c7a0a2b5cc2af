"""Ingest benchmark: pipeline vs. bare embedding model, and re-ingest of an unchanged corpus.

Run `make bench-ingest` (or `python eval/bench_ingest.py --corpus FILE [--limit N]`). Each run
uses a fresh temporary index and a fresh embedding cache, so nothing is reused from earlier runs.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

# Run as a script from anywhere: make the repository importable without installing it.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.models import Paper  # noqa: E402
from rag.protocols import Embedder, Progress  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.store.chunking import chunk_paper, embed_text  # noqa: E402
from rag.store.embeddings import (  # noqa: E402
    CachedEmbedder,
    LocalEmbedder,
    embedder_key,
    make_embedder,
)
from rag.store.index import PaperIndex  # noqa: E402
from rag.store.loaders import load_paths  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2026_accepted.jsonl"
TARGET_RATIO = 1.3
# A whole conference (the 4,302 ICLR 2026 papers) indexed within six minutes (issue 12).
TARGET_FULL_INGEST_S = 360.0
TARGET_REINGEST = 0.05

T = TypeVar("T")


class Clock:
    """Wall and CPU seconds (all threads of this process) spent in timed calls."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def run(self, fn: Callable[[], T]) -> T:
        """Run fn, adding its wall and CPU time to this clock."""
        wall, cpu = time.perf_counter(), cpu_seconds()
        try:
            return fn()
        finally:
            self.wall += time.perf_counter() - wall
            self.cpu += cpu_seconds() - cpu


def cpu_seconds() -> float:
    """User + system CPU time of this process so far (counts ONNX Runtime's threads too)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def dir_size_mb(path: Path) -> float:
    """Total size of the files under path, in MiB."""
    if not path.exists():
        return 0.0
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def load_corpus(corpus: Path, limit: int | None) -> list[Paper]:
    """Papers of the corpus (first `limit` of them), as the CLI would load them."""
    loaded = load_paths([corpus])
    if loaded.errors:
        print(f"note: {len(loaded.errors)} records rejected, e.g. {loaded.errors[0]}")
    return loaded.papers[:limit] if limit else loaded.papers


def ingest_once(
    settings: Settings, corpus: Path, limit: int | None
) -> tuple[dict[str, int], Clock, Clock]:
    """Load and ingest the corpus with a fresh PaperIndex; return counts, load and index clocks."""
    load, index_clock = Clock(), Clock()
    papers = load.run(lambda: load_corpus(corpus, limit))
    embedder = make_embedder(settings)
    index = PaperIndex(settings, embedder)
    # Load the ONNX model before the clock starts: the bare run excludes it too.
    embedder.inner.embed(["warm up"])
    report = index_clock.run(lambda: index.ingest(papers))
    counts = report.model_dump(exclude={"errors"})
    counts["papers"] = len(index.catalog())
    counts["chunks"] = index.chunk_count()
    return counts, load, index_clock


def bare_embedding(settings: Settings, texts: Sequence[str]) -> Clock:
    """Time of the bare LocalEmbedder (no cache, same batch size) on these texts."""
    emb = settings.embedding
    model = LocalEmbedder(emb.max_tokens, emb.batch_size, emb.threads)
    model.embed(["warm up"])
    clock = Clock()
    clock.run(lambda: model.embed(list(texts)))
    return clock


class Refuse:
    """Stands in for a model that must not be called: every text should come from the cache."""

    def __init__(self, model: Embedder) -> None:
        self.name = model.name
        self.cache_key = embedder_key(model)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Fail: the cache missed."""
        raise RuntimeError(f"embedding cache missed {len(texts)} texts")


def table(rows: list[tuple[str, str, str]]) -> str:
    """A plain fixed-width table."""
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = []
    for n, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="JSONL/JSON/CSV file")
    parser.add_argument("--limit", type=int, default=None, help="only the first N papers")
    parser.add_argument("--keep", action="store_true", help="keep the temporary index")
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        print(f"bench-ingest: corpus {args.corpus} not found; nothing to benchmark (skipped).")
        return 0
    if args.limit is not None and args.limit < 1:
        parser.error("--limit must be at least 1")

    tmp = Path(tempfile.mkdtemp(prefix="paperchat-bench-"))
    try:
        # Embedded Chroma in a fresh directory; the developer's .env must not redirect it.
        settings = Settings(_env_file=None, data_dir=tmp)  # type: ignore[call-arg]
        settings = settings.model_copy(
            update={
                "chroma": settings.chroma.model_copy(update={"host": None}),
                "embedding": settings.embedding.model_copy(
                    update={"provider": "local", "model": ""}
                ),
            }
        )
        threads = settings.embedding.threads or os.cpu_count()
        print(
            f"corpus {args.corpus} (limit {args.limit or 'none'}), index {tmp}, "
            f"batch {settings.embedding.batch_size}, threads {threads}, "
            f"chunking {settings.chunking.signature}",
            flush=True,
        )

        first, load1, index1 = ingest_once(settings, args.corpus, args.limit)
        rss_after_ingest = peak_rss_mb()
        chroma_mb = dir_size_mb(tmp / "chroma")
        cache_mb = dir_size_mb(tmp) - chroma_mb
        wall1 = load1.wall + index1.wall
        print(f"first ingest: {wall1:.1f} s ({first})", flush=True)

        papers = load_corpus(args.corpus, args.limit)
        cfg = settings.chunking
        texts = [embed_text(p, c, cfg) for p in papers for c in chunk_paper(p, cfg)]
        bare = bare_embedding(settings, texts)
        print(f"bare model: {bare.wall:.1f} s for {len(texts)} texts", flush=True)
        # The floor of any chunking: each abstract embedded once, whole (truncated by the model).
        whole = bare_embedding(settings, [p.abstract for p in papers])
        print(f"bare model, whole abstracts: {whole.wall:.1f} s for {len(papers)}", flush=True)

        second, load2, index2 = ingest_once(settings, args.corpus, args.limit)
        wall2 = load2.wall + index2.wall
        print(f"re-ingest: {wall2:.2f} s ({second})", flush=True)

        # A new embedder on the same cache file must answer from disk, embedding nothing.
        model = make_embedder(settings, cache=False).inner
        cached = CachedEmbedder(Refuse(model), settings.data_dir / "embed_cache.sqlite")
        cache_read = Clock()
        cache_read.run(lambda: cached.embed(texts[:1000]))

        ratio = index1.wall / bare.wall
        reingest = wall2 / wall1
        full = first["papers"] >= 4302  # the six-minute target is for a whole conference
        rows = [
            ("measure", "value", "target"),
            ("papers", str(first["papers"]), ""),
            ("chunks (texts embedded)", f"{first['chunks']} ({len(texts)})", ""),
            ("load: parse files", f"{load1.wall:.1f} s", ""),
            ("index: chunk+embed+write", f"{index1.wall:.1f} s (cpu {index1.cpu:.0f} s)", ""),
            (
                "first ingest wall time",
                f"{wall1:.1f} s",
                f"<= {TARGET_FULL_INGEST_S:.0f} s" if full else "",
            ),
            ("papers/s", f"{first['papers'] / wall1:.1f}", ""),
            ("peak RSS", f"{rss_after_ingest:.0f} MiB", ""),
            ("index size on disk (chroma)", f"{chroma_mb:.1f} MiB", ""),
            ("embedding cache on disk", f"{cache_mb:.1f} MiB", ""),
            ("bare model, same texts", f"{bare.wall:.1f} s (cpu {bare.cpu:.0f} s)", ""),
            ("pipeline / bare (index, wall)", f"{ratio:.2f}", f"<= {TARGET_RATIO}"),
            ("bare model, whole abstracts", f"{whole.wall:.1f} s (cpu {whole.cpu:.0f} s)", ""),
            ("first ingest / bare whole abstracts", f"{wall1 / whole.wall:.2f}", ""),
            ("pipeline / bare (index, cpu)", f"{index1.cpu / bare.cpu:.2f}", ""),
            ("pipeline / bare (load+index)", f"{wall1 / bare.wall:.2f}", ""),
            ("re-ingest unchanged", f"{wall2:.2f} s", ""),
            ("re-ingest / first ingest", f"{reingest:.1%}", f"<= {TARGET_REINGEST:.0%}"),
            ("re-ingest counts", f"unchanged {second['unchanged']}, added {second['added']}", ""),
            ("cache read, 1000 texts (no model)", f"{cache_read.wall * 1000:.0f} ms", ""),
            ("load average (1 min)", f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", ""),
        ]
        print()
        print(table(rows))
        ok = ratio <= TARGET_RATIO and reingest <= TARGET_REINGEST
        ok = ok and (not full or wall1 <= TARGET_FULL_INGEST_S)
        print(f"\ntargets {'met' if ok else 'NOT met'}")
        return 0
    finally:
        if args.keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
