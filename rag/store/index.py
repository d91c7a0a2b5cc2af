"""The paper index: chunks and vectors in Chroma, paper records beside them."""

from __future__ import annotations

import fcntl
import hashlib
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection

from rag.models import Chunk, IngestReport, Paper
from rag.protocols import Embedder
from rag.settings import Settings
from rag.store.chroma import (
    IndexBusyError,
    IndexError_,
    IndexMismatchError,
    IndexUnavailableError,
    ServerGuard,
    chroma_client,
    collection_name,
    is_timeout,
    unavailable,
)
from rag.store.chunking import chunk_paper, embed_text, split_sentences
from rag.store.derived import PAPERS, DerivedMissing, DerivedStore, PaperTable
from rag.store.embeddings import embedder_key

SCHEMA = 1
BATCH_PAPERS = 128
STATE_PAGE = 5000
# (stage, done, total): "embed" counts texts, "write" counts papers.
IngestProgress = Callable[[str, int, int], None]


def _fingerprint(paper: Paper) -> str:
    """Hash of the record and of its sentence split: either changing means re-chunking."""
    # Stored chunks carry sentence indices; a splitter fix must rebuild the papers it affects.
    sentences = "\x1e".join(split_sentences(paper.abstract))
    payload = f"{paper.fingerprint()}\x1f{sentences}"
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


def _paper_meta(paper: Paper, status: str) -> dict[str, Any]:
    return {
        "paper_id": paper.id,
        "key": paper.key,
        "fingerprint": _fingerprint(paper),
        "status": status,
        "title": paper.title,
        "primary_area": paper.primary_area,
        "decision": paper.decision,
        "record": paper.model_dump_json(exclude={"abstract"}),
    }


def _paper_from(meta: dict[str, Any], abstract: str) -> Paper:
    return Paper.model_validate({**json.loads(meta["record"]), "abstract": abstract})


class PaperIndex:
    """Reads and writes one collection of papers; shared by CLI, UI, eval and tests."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder,
        client: ClientAPI | None = None,
        derived: DerivedStore | None = None,
    ) -> None:
        self.settings = settings
        self.name = collection_name(settings)
        # Paper records are kept with the derived indexes too: reading every record from
        # Chroma costs seconds at thousands of papers, once per revision is enough.
        self.derived = derived
        # Private: the index embeds what it stores; other parts get the embedder from the
        # pipeline, never through the index.
        self._embedder = embedder
        self.client = client or chroma_client(settings)
        self.mode = "server" if settings.chroma.host else "embedded"
        self._lock = threading.Lock()
        self._chunks: Collection | None = None
        self._papers: Collection | None = None
        self._catalog: Mapping[str, Paper] = {}
        self._revision: str | None = None

    # -- collections ---------------------------------------------------------

    def _expected_meta(self) -> dict[str, Any]:
        return {
            "embedding_model": self._embedder.name,
            "chunking": self.settings.chunking.signature,
            "schema": SCHEMA,
            # Model name plus what else changes its vectors (truncation, server).
            "embedder": embedder_key(self._embedder),
        }

    def _open(self, create: bool) -> bool:
        """Open (or create) the collections; False when they don't exist and create is off."""
        if self._chunks is not None:
            return True
        try:
            if create:
                chunks = self.client.get_or_create_collection(
                    self.name,
                    metadata=self._expected_meta(),
                    # A wide search beam makes the approximate graph agree between embedded
                    # Chroma and a server (measured in eval/bench_scale.py) for ~ms per query.
                    configuration={"hnsw": {"space": "cosine", "ef_search": 500}},
                    embedding_function=None,
                )
                papers = self.client.get_or_create_collection(
                    self.name + ".papers",
                    metadata={"revision": "new"},
                    embedding_function=None,
                )
            else:
                names = {c.name for c in self.client.list_collections()}
                if self.name not in names or self.name + ".papers" not in names:
                    return False
                chunks = self.client.get_collection(self.name, embedding_function=None)
                papers = self.client.get_collection(self.name + ".papers", embedding_function=None)
        except IndexError_:
            raise
        except Exception as exc:
            if self.mode == "server":
                raise IndexUnavailableError(unavailable(self.settings, is_timeout(exc))) from exc
            raise
        self._check_meta(chunks.metadata or {})
        self._chunks, self._papers = chunks, papers
        return True

    def _check_meta(self, meta: dict[str, Any]) -> None:
        want = self._expected_meta()
        got = {k: meta.get(k) for k in want}
        if "embedder" not in meta:
            # Collections built before the key existed are judged on the rest.
            got["embedder"] = want["embedder"]
        if got != want:
            differ = ", ".join(
                f"{k} {got[k]!r} (settings: {want[k]!r})" for k in want if got[k] != want[k]
            )
            raise IndexMismatchError(
                f"Collection {self.name!r} was built with another embedding model or chunking: "
                f"{differ}. Vectors are never mixed: re-ingest into a new collection "
                "(PAPERCHAT_CHROMA__COLLECTION) or restore the settings that built it."
            )

    def other_collections(self) -> list[str]:
        """PaperChat collections built with other settings (to explain an empty index)."""
        prefix = self.settings.chroma.collection + "-"
        try:
            names = [c.name for c in self.client.list_collections()]
        except Exception as exc:
            raise IndexUnavailableError(unavailable(self.settings)) from exc
        return sorted(
            n
            for n in names
            if n.startswith(prefix) and not n.endswith(".papers") and n != self.name
        )

    # -- reading -------------------------------------------------------------

    def _guard(self) -> ServerGuard:
        """Context that turns a lost Chroma server into IndexUnavailableError."""
        return ServerGuard(self.settings, self._drop_handles)

    def _drop_handles(self) -> None:
        # The next call reopens the collections once the server is back.
        self._chunks = self._papers = None

    def catalog(self) -> Mapping[str, Paper]:
        """All ready papers by id, reloaded when another process has changed the index."""
        return self.snapshot()[0]

    def snapshot(self) -> tuple[Mapping[str, Paper], str | None]:
        """The catalog and the revision it was read at, from one read of the index."""
        with self._lock, self._guard():
            if not self._open(create=False):
                self._catalog, self._revision = {}, None
                return self._catalog, self._revision
            assert self._papers is not None
            # Another process (a CLI ingest beside the UI, another server client) may have
            # written since: the Collection object's metadata is a snapshot, so re-read it.
            fresh = self.client.get_collection(self.name + ".papers", embedding_function=None)
            revision = str((fresh.metadata or {}).get("revision"))
            if revision != self._revision or not self._catalog:
                self._catalog, self._revision = self._read_papers(revision), revision
            return self._catalog, self._revision

    def _read_papers(self, revision: str) -> Mapping[str, Paper]:
        """The ready papers at this revision: the stored copy, else read from Chroma (and
        stored for the next process)."""
        if self.derived is not None:
            try:
                return self.derived.load(PAPERS, revision, {})
            except DerivedMissing:
                pass
        assert self._papers is not None
        catalog: dict[str, Paper] = {}
        # Paged: one get of every paper fails past ~32k ("too many SQL variables" in
        # Chroma's SQLite), and a large collection never needs one huge response.
        for offset in range(0, self._papers.count(), STATE_PAGE):
            got = self._papers.get(
                include=["metadatas", "documents"], limit=STATE_PAGE, offset=offset
            )
            for m, d in zip(got["metadatas"] or [], got["documents"] or [], strict=True):
                if m.get("status") == "ready":
                    catalog[str(m["paper_id"])] = _paper_from(m, d)
        if self.derived is not None:
            self.derived.save(PAPERS, revision, catalog)
        return PaperTable.of(catalog)

    def revision(self) -> str | None:
        """Identifier of the index state the catalog was read at."""
        return self.snapshot()[1]

    def chunk_count(self) -> int:
        """Number of chunks stored."""
        with self._guard():
            if not self._open(create=False):
                return 0
            assert self._chunks is not None
            return self._chunks.count()

    def stats(self) -> dict[str, Any]:
        """Counts and configuration, in the shape `paperchat stats --json` prints."""
        return {
            "papers": len(self.catalog()),
            "chunks": self.chunk_count(),
            "embedding_model": self._embedder.name,
            "collection": self.name,
            "chroma": self.mode,
        }

    def dense(
        self, query_vector: Sequence[float], k: int, paper_ids: Sequence[str] | None = None
    ) -> list[tuple[Chunk, float]]:
        """Nearest chunks to a query vector (cosine similarity), optionally within some papers."""
        with self._guard():
            if not self._open(create=False):
                return []
            assert self._chunks is not None
            where = None
            if paper_ids is not None:
                if not paper_ids:
                    return []
                where = {"paper_id": {"$in": list(paper_ids)}}
            got = self._chunks.query(
                query_embeddings=[[float(x) for x in query_vector]],
                n_results=k,
                where=where,
                include=["metadatas", "documents", "distances"],
            )
        ids = got["ids"][0]
        metas = (got["metadatas"] or [[]])[0]
        texts = (got["documents"] or [[]])[0]
        dists = (got["distances"] or [[]])[0]
        return [
            (
                Chunk(
                    id=cid,
                    paper_id=str(m["paper_id"]),
                    position=int(m["position"]),
                    sentence_start=int(m["sentence_start"]),
                    sentence_end=int(m["sentence_end"]),
                    text=text or "",
                ),
                # A cosine-space collection: distance is 1 - cosine similarity.
                1.0 - float(d),
            )
            for cid, m, text, d in zip(ids, metas, texts, dists, strict=True)
        ]

    def nearest_chunks(self, query_vector: Sequence[float], k: int) -> list[tuple[str, float]]:
        """(paper id, cosine similarity) of the k nearest chunks: ids and distances only."""
        # No texts or node objects: a whole-collection pass asks for hundreds of chunks.
        with self._guard():
            if not self._open(create=False):
                return []
            assert self._chunks is not None
            got = self._chunks.query(
                query_embeddings=[[float(x) for x in query_vector]],
                n_results=k,
                include=["metadatas", "distances"],
            )
        metas = (got["metadatas"] or [[]])[0]
        dists = (got["distances"] or [[]])[0]
        return [(str(m["paper_id"]), 1.0 - float(d)) for m, d in zip(metas, dists, strict=True)]

    def chunk_vectors(self, paper_ids: Sequence[str]) -> dict[str, list[tuple[int, int, Any]]]:
        """Stored chunk vectors of some papers: (sentence_start, sentence_end, vector) each."""
        with self._guard():
            if not paper_ids or not self._open(create=False):
                return {}
            assert self._chunks is not None
            got = self._chunks.get(
                where={"paper_id": {"$in": list(paper_ids)}}, include=["embeddings", "metadatas"]
            )
        out: dict[str, list[tuple[int, int, Any]]] = {}
        vectors = got["embeddings"] if got["embeddings"] is not None else []
        for meta, vec in zip(got["metadatas"] or [], vectors, strict=True):
            out.setdefault(str(meta["paper_id"]), []).append(
                (int(meta["sentence_start"]), int(meta["sentence_end"]), vec)
            )
        return out

    def paper_vectors(self) -> tuple[list[str], np.ndarray]:
        """Every paper's vector, the normalised mean of its stored chunk vectors (by id)."""
        with self._guard():
            if not self._open(create=False):
                return [], np.zeros((0, 0), dtype=np.float32)
            assert self._chunks is not None
            total = self._chunks.count()
            ids: list[str] = []
            parts: list[np.ndarray] = []
            # Paged like _state: one read of the whole collection, never one huge response.
            for offset in range(0, total, STATE_PAGE):
                got = self._chunks.get(
                    include=["embeddings", "metadatas"], limit=STATE_PAGE, offset=offset
                )
                ids += [str(m["paper_id"]) for m in got["metadatas"] or []]
                if got["embeddings"] is not None and len(got["embeddings"]):
                    parts.append(np.asarray(got["embeddings"], dtype=np.float32))
        if not ids:
            return [], np.zeros((0, 0), dtype=np.float32)
        papers, which = np.unique(np.asarray(ids), return_inverse=True)
        sums = np.zeros((len(papers), parts[0].shape[1]), dtype=np.float32)
        np.add.at(sums, which, np.vstack(parts))
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        return [str(p) for p in papers], sums / np.where(norms == 0, 1, norms)

    # -- writing -------------------------------------------------------------

    @contextmanager
    def writing(self, wait: float = 30.0) -> Iterator[None]:
        """Hold the index's ingest lock; a second writer waits, then is refused clearly."""
        self.settings.data_dir.mkdir(parents=True, exist_ok=True)
        path = self.settings.data_dir / f"{self.name}.lock"
        with open(path, "w") as fh:
            deadline = time.monotonic() + wait
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise IndexBusyError(
                            f"Another ingest is writing to {self.name!r}; waited {wait:.0f} s. "
                            "Try again when it has finished."
                        ) from None
                    time.sleep(0.2)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def ingest(
        self,
        papers: Sequence[Paper],
        prune: bool = False,
        progress: IngestProgress | None = None,
        wait: float = 30.0,
    ) -> IngestReport:
        """Add new papers, replace changed ones, skip unchanged ones; prune the rest if asked."""
        report = IngestReport()
        with self.writing(wait), self._guard():
            self._open(create=True)
            assert self._papers is not None
            # The record JSON in each metadata is parsed only for twins, never for every paper.
            state = self._state()
            by_key = {m["key"]: pid for pid, m in state.items() if m["status"] == "ready"}

            todo: list[Paper] = []
            drop: set[str] = set()
            keep: set[str] = set()
            for paper in papers:
                keep.add(paper.id)
                old = state.get(paper.id)
                twin = by_key.get(paper.key)
                replaces_twin = False
                if twin and twin != paper.id:
                    # The same abstract under another id: keep the richer record.
                    if _paper_richness(state[twin]) >= paper.richness():
                        keep.add(twin)  # still in the sources: --prune must not remove it
                        report.unchanged += 1
                        continue
                    drop.add(twin)
                    replaces_twin = True
                if old and old["status"] == "ready" and old["fingerprint"] == _fingerprint(paper):
                    report.unchanged += 1
                    continue
                if (old and old["status"] == "ready") or replaces_twin:
                    report.updated += 1
                else:
                    report.added += 1
                todo.append(paper)

            # Records an interrupted run left behind are finished (re-added) or removed.
            stale = {pid for pid, m in state.items() if m["status"] != "ready" and pid not in keep}
            if prune:
                pruned = {pid for pid in state if pid not in keep}
                report.removed = sum(state[pid]["status"] == "ready" for pid in pruned - drop)
                drop |= pruned
            if drop or stale or todo:
                # A new revision before the first write as well as after the last: a run
                # killed halfway leaves a revision no stored derived index was built at.
                self._papers.modify(metadata={"revision": uuid.uuid4().hex})
                self._remove(sorted(drop | stale))
                self._write(todo, progress)
                self._papers.modify(metadata={"revision": uuid.uuid4().hex})
        return report

    def _state(self) -> dict[str, dict[str, Any]]:
        """paper_id -> stored metadata (status, key, fingerprint, record) of every paper."""
        assert self._papers is not None
        state: dict[str, dict[str, Any]] = {}
        total = self._papers.count()
        # Paged, so a large collection never needs one huge response.
        for offset in range(0, total, STATE_PAGE):
            got = self._papers.get(include=["metadatas"], limit=STATE_PAGE, offset=offset)
            for m in got["metadatas"] or []:
                state[str(m["paper_id"])] = dict(m)
        return state

    def _remove(self, ids: Sequence[str]) -> None:
        assert self._papers is not None and self._chunks is not None
        for start in range(0, len(ids), 500):
            part = list(ids[start : start + 500])
            # Mark first, so a crash between the two deletes is finished by the next run.
            self._papers.update(ids=part, metadatas=[{"status": "deleting"}] * len(part))
            self._chunks.delete(where={"paper_id": {"$in": part}})
            self._papers.delete(ids=part)

    def _write(self, papers: Sequence[Paper], progress: IngestProgress | None) -> None:
        """Embed each batch first, then swap its chunks in: a failed embedding changes nothing."""
        # Writing is the one index job that needs LlamaIndex (the stored node form); reading
        # does not, so a question never pays for its import.
        from rag.nodes import chunk_record

        assert self._papers is not None and self._chunks is not None
        cfg = self.settings.chunking
        plan = [(p, chunk_paper(p, cfg)) for p in papers]
        total_texts = sum(len(c) for _, c in plan)
        step = self.client.get_max_batch_size()  # Chroma refuses larger writes
        done_texts = 0
        for start in range(0, len(plan), BATCH_PAPERS):
            batch = plan[start : start + BATCH_PAPERS]
            ids = [p.id for p, _ in batch]
            texts = [embed_text(p, c, cfg) for p, cs in batch for c in cs]

            def tick(n: int, base: int = done_texts) -> None:
                tick.done += n  # type: ignore[attr-defined]
                if progress:
                    progress("embed", base + tick.done, total_texts)  # type: ignore[attr-defined]

            tick.done = 0  # type: ignore[attr-defined]
            # The slow, failure-prone step (model, API, Ctrl-C) runs before anything is touched,
            # so an interruption leaves every stored paper as it was.
            vectors = self._embedder.embed(texts, tick)
            stored = [(p, c) for p, cs in batch for c in cs]
            # "writing" marks the short window where old chunks are gone and new ones not yet
            # all in: a crash there hides the paper until the next run rewrites it.
            self._papers.upsert(
                ids=ids,
                documents=[p.abstract for p, _ in batch],
                metadatas=[_paper_meta(p, "writing") for p, _ in batch],
                embeddings=[[0.0]] * len(batch),
            )
            self._chunks.delete(where={"paper_id": {"$in": ids}})
            for lo in range(0, len(stored), step):
                part = stored[lo : lo + step]
                self._chunks.add(
                    ids=[c.id for _, c in part],
                    embeddings=vectors[lo : lo + step],
                    documents=[c.text for _, c in part],
                    metadatas=[chunk_record(p, c) for p, c in part],
                )
            self._papers.update(ids=ids, metadatas=[{"status": "ready"}] * len(ids))
            done_texts += len(texts)
            if progress:
                progress("write", min(start + BATCH_PAPERS, len(plan)), len(plan))


def _paper_richness(meta: dict[str, Any]) -> int:
    return Paper.model_validate({**json.loads(meta["record"]), "abstract": "-"}).richness()
