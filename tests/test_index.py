"""The paper index on embedded Chroma: incremental ingest, dedup, pruning, crashes and locks."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import CountingEmbedder, MakeSettings, SimulatedCrash
from openai_server import FakeOpenAIServer

import rag.store.index
from rag.app.pipeline import Pipeline
from rag.models import Paper
from rag.protocols import Progress
from rag.providers import ProviderError
from rag.settings import Settings
from rag.store.chroma import IndexBusyError, IndexMismatchError, collection_name
from rag.store.chunking import chunk_paper
from rag.store.embeddings import CachedEmbedder, LocalEmbedder, make_embedder
from rag.store.index import PaperIndex
from rag.store.loaders import load_paths

Counting = Callable[..., CountingEmbedder]

ALPHA = (
    "We introduce Alpha, a sparse attention scheme for long documents. Alpha routes each query "
    "to a few memory blocks chosen by a learned hash. On three long-context benchmarks it matches "
    "dense attention at a fifth of the cost. We release code and checkpoints."
)
ALPHA_V2 = (
    "We introduce Alpha, a routing method for retrieval-augmented decoding. It chooses which "
    "retrieved passages each layer reads."
)
BETA = (
    "Beta is a benchmark of 2,000 chemistry questions that require multi-step reasoning. "
    "Frontier models solve fewer than half of them. Errors concentrate on unit conversion."
)
GAMMA = (
    "We study how graph neural networks oversquash information on long paths. A spectral "
    "rewiring criterion removes the bottleneck. Node classification accuracy improves on "
    "heterophilous graphs."
)


def write_jsonl(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def record(pid: str, abstract: str, **extra: Any) -> dict[str, Any]:
    return {"openreview_id": pid, "title": f"Paper {pid}", "abstract": abstract, **extra}


def named(papers: Iterable[Paper], name: str) -> Paper:
    """The one paper whose abstract introduces `name` (titles are derived, so may change)."""
    (found,) = [p for p in papers if name in p.abstract]
    return found


def load(*paths: Path) -> list[Paper]:
    result = load_paths(paths)
    assert not result.errors, result.errors
    return result.papers


def chunk_rows(index: PaperIndex) -> list[tuple[str, dict[str, Any], str]]:
    """(id, metadata, document) of every chunk, read from the Chroma collection itself."""
    got = index.client.get_collection(index.name).get(include=["metadatas", "documents"])
    return list(zip(got["ids"], got["metadatas"] or [], got["documents"] or [], strict=True))


def expected_chunk_ids(papers: Sequence[Paper], settings: Settings) -> set[str]:
    return {c.id for p in papers for c in chunk_paper(p, settings.chunking)}


def assert_consistent(index: PaperIndex, papers: Sequence[Paper]) -> None:
    """Exactly these papers are ready, each with exactly its chunks: no stale or orphan chunk."""
    catalog = index.catalog()
    assert set(catalog) == {p.id for p in papers}
    rows = chunk_rows(index)
    ids = [r[0] for r in rows]
    assert len(ids) == len(set(ids))
    assert set(ids) == expected_chunk_ids(papers, index.settings)
    by_id = {p.id: p for p in papers}
    for cid, meta, doc in rows:
        paper = by_id[meta["paper_id"]]
        assert doc in paper.abstract, cid
    assert index.chunk_count() == len(ids)


@pytest.fixture(scope="module")
def sample_papers(sample_path: Path) -> list[Paper]:
    return load(sample_path)


@pytest.fixture
def sample_index(sample_data_dir: Path, make_settings: MakeSettings, embedder: CachedEmbedder):
    """A writable PaperIndex over a copy of the 19-paper sample index."""
    return PaperIndex(make_settings(data_dir=sample_data_dir), embedder)


# -- ingest ------------------------------------------------------------------------------------


def test_sample_ingest_gives_19_papers(
    make_settings: MakeSettings, embedder: CachedEmbedder, sample_papers: list[Paper]
) -> None:
    index = PaperIndex(make_settings(), embedder)
    assert index.stats()["papers"] == 0 and index.catalog() == {}
    stages: dict[str, tuple[int, int]] = {}
    report = index.ingest(sample_papers, progress=lambda s, d, t: stages.__setitem__(s, (d, t)))
    assert (report.added, report.updated, report.unchanged, report.removed) == (19, 0, 0, 0)
    stats = index.stats()
    assert stats["papers"] == 19
    assert stats["chunks"] == len(expected_chunk_ids(sample_papers, index.settings))
    assert stats["chroma"] == "embedded" and stats["collection"] == index.name
    assert stages["write"] == (19, 19)
    assert stages["embed"][0] == stages["embed"][1] == stats["chunks"]
    assert_consistent(index, sample_papers)
    assert index.catalog()[sample_papers[0].id] == sample_papers[0]


def test_reingest_embeds_nothing(
    sample_data_dir: Path,
    make_settings: MakeSettings,
    counting: Counting,
    sample_papers: list[Paper],
) -> None:
    inner = counting()
    index = PaperIndex(make_settings(data_dir=sample_data_dir), CachedEmbedder(inner, None))
    before = index.revision()
    report = index.ingest(sample_papers)
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 0, 19, 0)
    assert inner.texts == [] and inner.calls == 0
    # Nothing changed, so readers keep their caches (BM25, catalog).
    assert index.revision() == before
    assert_consistent(index, sample_papers)


def test_changed_abstract_replaces_its_chunks(
    tmp_path: Path, make_settings: MakeSettings, embedder: CachedEmbedder
) -> None:
    # One sentence per chunk, whatever the defaults: the shorter abstract has fewer chunks.
    index = PaperIndex(
        make_settings(chunking={"windows": "sentences", "sentences": 1, "overlap": 0}), embedder
    )
    first = load(write_jsonl(tmp_path / "a.jsonl", [record("A", ALPHA), record("B", BETA)]))
    index.ingest(first)
    old_ids = {r[0] for r in chunk_rows(index) if r[1]["paper_id"] == "A"}
    second = load(write_jsonl(tmp_path / "b.jsonl", [record("A", ALPHA_V2), record("B", BETA)]))
    report = index.ingest(second)
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 1, 1, 0)
    assert_consistent(index, second)
    rows = [r for r in chunk_rows(index) if r[1]["paper_id"] == "A"]
    # The new abstract has fewer sentences: the old tail chunks must be gone, not left behind.
    assert len(rows) < len(old_ids)
    assert all("memory blocks" not in doc and "checkpoints" not in doc for _, _, doc in rows)
    assert index.catalog()["A"].abstract == ALPHA_V2


def test_title_change_alone_updates_the_paper(
    tmp_path: Path, make_settings: MakeSettings, embedder: CachedEmbedder
) -> None:
    index = PaperIndex(make_settings(), embedder)
    index.ingest(load(write_jsonl(tmp_path / "a.jsonl", [record("A", ALPHA)])))
    renamed = load(write_jsonl(tmp_path / "b.jsonl", [record("A", ALPHA, title="Alpha v2")]))
    assert index.ingest(renamed).updated == 1
    assert {r[1]["title"] for r in chunk_rows(index)} == {"Alpha v2"}


def test_papers_indexed_with_another_sentence_split_are_rebuilt(
    sample_index: PaperIndex, sample_papers: list[Paper]
) -> None:
    # An index written before a splitter fix stored another fingerprint for the same record.
    old = sample_papers[5]
    papers_col = sample_index.client.get_collection(sample_index.name + ".papers")
    papers_col.update(ids=[old.id], metadatas=[{"fingerprint": old.fingerprint()}])
    report = sample_index.ingest(sample_papers)
    assert (report.updated, report.unchanged) == (1, 18)
    assert sample_index.ingest(sample_papers).unchanged == 19
    assert_consistent(sample_index, sample_papers)


def test_prune_removes_papers_missing_from_the_sources(
    sample_index: PaperIndex, sample_papers: list[Paper], sample_path: Path, tmp_path: Path
) -> None:
    qronos = named(sample_papers, "Qronos")
    kept = [p for p in sample_papers if p.id != qronos.id]
    report = sample_index.ingest(kept)
    assert (report.unchanged, report.removed) == (18, 0)
    assert qronos.id in sample_index.catalog()  # without --prune nothing is removed

    report = sample_index.ingest(kept, prune=True)
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 0, 18, 1)
    assert_consistent(sample_index, kept)
    assert not [r for r in chunk_rows(sample_index) if r[1]["paper_id"] == qronos.id]


def test_same_abstract_from_two_sources_stays_one_paper(
    sample_index: PaperIndex, sample_papers: list[Paper], tmp_path: Path
) -> None:
    seed = named(sample_papers, "MOBODY")
    rich = record(
        "ORID123", seed.abstract, title="MOBODY: Model-Based Off-Dynamics RL", keywords=["rl"]
    )
    richer = load(write_jsonl(tmp_path / "rich.jsonl", [rich]))
    report = sample_index.ingest(richer)
    # The richer record replaces the seed one: an update, not an add plus a removal.
    assert (report.added, report.updated, report.unchanged, report.removed) == (0, 1, 0, 0)
    catalog = sample_index.catalog()
    assert len(catalog) == 19 and seed.id not in catalog
    assert catalog["ORID123"].title == "MOBODY: Model-Based Off-Dynamics RL"
    assert_consistent(sample_index, [p for p in sample_papers if p.id != seed.id] + richer)

    # The poorer seed record coming back changes nothing, even with --prune.
    for prune in (False, True):
        report = sample_index.ingest(sample_papers, prune=prune)
        assert (report.added, report.updated, report.unchanged, report.removed) == (0, 0, 19, 0)
        assert len(sample_index.catalog()) == 19
        assert sample_index.catalog()["ORID123"].keywords == ["rl"]


def test_every_chunk_carries_paper_metadata(
    tmp_path: Path, make_settings: MakeSettings, embedder: CachedEmbedder
) -> None:
    extra = {
        "keywords": ["graphs", "oversquashing"],
        "primary_area": "learning on graphs",
        "url": "https://openreview.net/forum?id=G",
        "decision": "Oral",
    }
    papers = load(write_jsonl(tmp_path / "m.jsonl", [record("G", GAMMA, **extra)]))
    index = PaperIndex(
        make_settings(chunking={"windows": "sentences", "sentences": 1, "overlap": 0}), embedder
    )
    index.ingest(papers)
    rows = chunk_rows(index)
    assert len(rows) == len(chunk_paper(papers[0], index.settings.chunking)) > 1
    assert sorted(r[1]["position"] for r in rows) == list(range(len(rows)))
    for _, meta, _ in rows:
        assert meta["paper_id"] == "G"
        assert meta["title"] == "Paper G"
        assert meta["keywords"] == "graphs; oversquashing"
        assert meta["primary_area"] == "learning on graphs"
        assert meta["url"] == "https://openreview.net/forum?id=G"
        assert meta["decision"] == "Oral"
        assert isinstance(meta["position"], int)
        assert meta["ref_doc_id"] == "G"  # LlamaIndex sees the paper as the source document


def test_a_llamaindex_vector_store_reads_the_chunks_as_nodes_of_their_paper(
    sample_index: PaperIndex, embedder: CachedEmbedder
) -> None:
    """PaperChat writes Chroma directly, in LlamaIndex's stored node form: LlamaIndex's own
    ChromaVectorStore over the collection gets the chunks back as nodes of their paper."""
    from llama_index.core.vector_stores.types import VectorStoreQuery
    from llama_index.vector_stores.chroma import ChromaVectorStore

    store = ChromaVectorStore(
        chroma_collection=sample_index.client.get_collection(sample_index.name)
    )
    query = embedder.embed_query("post-training quantization error correction")
    got = store.query(VectorStoreQuery(query_embedding=query.tolist(), similarity_top_k=3))
    ours = sample_index.dense(query, 3)
    assert [n.node_id for n in got.nodes] == [c.id for c, _ in ours]
    for node, (chunk, _) in zip(got.nodes, ours, strict=True):
        assert node.ref_doc_id == chunk.paper_id
        assert node.get_content() == chunk.text
        assert node.metadata["sentence_start"] == chunk.sentence_start


def test_dense_search_finds_the_right_chunk(
    sample_index: PaperIndex, embedder: CachedEmbedder
) -> None:
    query = embedder.embed(["post-training quantization error correction"])[0]
    hits = sample_index.dense(query, 5)
    assert len(hits) == 5
    assert hits[0][0].paper_id == named(sample_index.catalog().values(), "Qronos").id
    sims = [s for _, s in hits]
    assert sims == sorted(sims, reverse=True) and all(-1.0 <= s <= 1.0 for s in sims)
    # The reported similarity is the cosine of the stored chunk vector.
    top = hits[0][0]
    stored = sample_index.chunk_vectors([top.paper_id])[top.paper_id]
    vec = next(v for s, e, v in stored if (s, e) == (top.sentence_start, top.sentence_end))
    assert sims[0] == pytest.approx(float(np.dot(query, vec)), abs=1e-4)
    # Restricting to some papers only returns their chunks.
    other = hits[-1][0].paper_id
    assert {c.paper_id for c, _ in sample_index.dense(query, 5, [other])} == {other}
    assert sample_index.dense(query, 5, []) == []


# -- vectors are never mixed -------------------------------------------------------------------


class RenamedEmbedder(CountingEmbedder):
    """The real model under another name: what a different embedding model looks like."""

    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner)
        self.name = self.cache_key = name


def test_another_embedding_model_is_refused(
    sample_data_dir: Path,
    make_settings: MakeSettings,
    local_model: LocalEmbedder,
    sample_papers: list[Paper],
) -> None:
    other = RenamedEmbedder(local_model, "some-other-model")
    index = PaperIndex(make_settings(data_dir=sample_data_dir), CachedEmbedder(other, None))
    with pytest.raises(IndexMismatchError) as info:
        index.catalog()
    message = str(info.value)
    assert "some-other-model" in message and "all-MiniLM-L6-v2-onnx-int8" in message
    with pytest.raises(IndexMismatchError):
        index.ingest(sample_papers[:1])
    assert other.texts == []


def test_collection_metadata_disagreeing_is_refused(
    sample_index: PaperIndex, make_settings: MakeSettings, embedder: CachedEmbedder
) -> None:
    col = sample_index.client.get_collection(sample_index.name)
    meta = dict(col.metadata or {})
    col.modify(metadata={**meta, "chunking": "s9o0"})
    fresh = PaperIndex(sample_index.settings, embedder, client=sample_index.client)
    with pytest.raises(IndexMismatchError, match="s9o0"):
        fresh.stats()
    with pytest.raises(IndexMismatchError):
        fresh.ingest([])
    # Opening for writing must not have quietly overwritten the recorded chunking.
    assert sample_index.client.get_collection(sample_index.name).metadata["chunking"] == "s9o0"


def test_other_settings_use_other_collections(
    sample_data_dir: Path, make_settings: MakeSettings, embedder: CachedEmbedder
) -> None:
    base = make_settings(data_dir=sample_data_dir)
    # 20-sentence windows without overlap: one per abstract, fewer chunks than the defaults.
    wider = {"windows": "sentences", "sentences": 20, "overlap": 0}
    variants = [
        make_settings(data_dir=sample_data_dir, chunking=wider),
        make_settings(data_dir=sample_data_dir, chunking={"title_prefix": False}),
        make_settings(data_dir=sample_data_dir, embedding={"max_tokens": 128}),
        make_settings(data_dir=sample_data_dir, embedding={"provider": "openai"}),
    ]
    names = {collection_name(base), *(collection_name(v) for v in variants)}
    assert len(names) == 5
    for name in names:
        assert 3 <= len(name) <= 500 and name[0].isalnum() and name[-1].isalnum()

    windows = PaperIndex(variants[0], embedder)
    assert windows.stats()["papers"] == 0
    assert windows.other_collections() == [collection_name(base)]
    papers = list(PaperIndex(base, embedder).catalog().values())
    windows.ingest(papers)
    assert windows.stats()["papers"] == 19
    assert windows.stats()["chunks"] < PaperIndex(base, embedder).stats()["chunks"]
    assert PaperIndex(base, embedder).stats()["papers"] == 19


def test_collection_name_is_always_valid_for_chroma(make_settings: MakeSettings) -> None:
    odd = make_settings(embedding={"provider": "openai", "model": "org/..model name..//v2"})
    name = collection_name(odd)
    assert ".." not in name and name[-1].isalnum()
    assert set(name) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


# -- failures never leave a half-written index -------------------------------------------------


def batch_texts(papers: Sequence[Paper], settings: Settings, size: int) -> list[int]:
    """Number of texts each ingest batch of `size` papers embeds."""
    per = [len(chunk_paper(p, settings.chunking)) for p in papers]
    return [sum(per[i : i + size]) for i in range(0, len(per), size)]


def test_interrupted_ingest_is_finished_by_a_rerun(
    make_settings: MakeSettings,
    counting: Counting,
    embedder: CachedEmbedder,
    sample_papers: list[Paper],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rag.store.index, "BATCH_PAPERS", 4)
    settings = make_settings()
    sizes = batch_texts(sample_papers, settings, 4)
    crashing = counting(fail_after=sizes[0] + sizes[1] + 1)  # dies inside the third batch
    with pytest.raises(SimulatedCrash):
        PaperIndex(settings, CachedEmbedder(crashing, None)).ingest(sample_papers)
    assert len(crashing.texts) == sizes[0] + sizes[1]

    # A new process sees a consistent index: the two finished batches, nothing else.
    survivor = PaperIndex(settings, embedder)
    assert_consistent(survivor, sample_papers[:8])

    inner = counting()
    report = PaperIndex(settings, CachedEmbedder(inner, None)).ingest(sample_papers)
    assert (report.added, report.updated, report.unchanged, report.removed) == (11, 0, 8, 0)
    assert len(inner.texts) == sum(sizes[2:])  # finished papers are not embedded again
    assert_consistent(PaperIndex(settings, embedder), sample_papers)


def test_failed_update_keeps_the_stored_version(
    tmp_path: Path,
    make_settings: MakeSettings,
    counting: Counting,
    embedder: CachedEmbedder,
) -> None:
    settings = make_settings()
    first = load(write_jsonl(tmp_path / "a.jsonl", [record("A", ALPHA), record("B", BETA)]))
    PaperIndex(settings, embedder).ingest(first)
    changed = load(write_jsonl(tmp_path / "b.jsonl", [record("A", ALPHA_V2), record("G", GAMMA)]))
    with pytest.raises(SimulatedCrash):
        PaperIndex(settings, CachedEmbedder(counting(fail_after=0), None)).ingest(changed)
    index = PaperIndex(settings, embedder)
    assert_consistent(index, first)
    assert index.catalog()["A"].abstract == ALPHA


def test_crash_while_writing_is_repaired(
    sample_index: PaperIndex, sample_papers: list[Paper]
) -> None:
    # Simulate a crash inside the write window: record marked "writing", chunks half gone.
    victim, stray = sample_papers[3], sample_papers[4]
    papers_col = sample_index.client.get_collection(sample_index.name + ".papers")
    chunks_col = sample_index.client.get_collection(sample_index.name)
    papers_col.update(ids=[victim.id, stray.id], metadatas=[{"status": "writing"}] * 2)
    chunks_col.delete(ids=[f"{victim.id}#0"])
    papers_col.modify(metadata={"revision": "crashed"})
    assert set(sample_index.catalog()) == {p.id for p in sample_papers} - {victim.id, stray.id}

    # The re-run rewrites the half-written paper and drops the one no longer in the sources.
    keep = [p for p in sample_papers if p.id != stray.id]
    report = sample_index.ingest(keep)
    assert (report.added, report.unchanged, report.removed) == (1, 17, 0)
    assert_consistent(sample_index, keep)


def test_bad_records_load_the_good_ones_and_keep_stored_papers(
    sample_data_dir: Path, make_settings: MakeSettings, embedder: CachedEmbedder, tmp_path: Path
) -> None:
    bad = tmp_path / "mixed.jsonl"
    bad.write_text(
        json.dumps(record("A", ALPHA))
        + "\n{not json\n"
        + json.dumps({"title": "no abstract"})
        + "\n"
        + json.dumps(record("B", BETA))
        + "\n"
        + json.dumps(record("Z", "too short"))
        + "\n",
        encoding="utf-8",
    )
    pipe = Pipeline(make_settings(data_dir=sample_data_dir), embedder)
    for prune in (True, False):
        _, report = pipe.ingest([bad], prune=prune)
        located = {(e.file, e.line) for e in report.errors if e.file != "-"}
        assert located == {(str(bad), 2), (str(bad), 3), (str(bad), 5)}
        assert report.removed == 0
        # Good records load; the 19 stored papers survive even when --prune was asked for.
        catalog = pipe.catalog()
        assert len(catalog) == 21 and {"A", "B"} <= set(catalog)


# -- one writer at a time ----------------------------------------------------------------------


class GatedEmbedder(CountingEmbedder):
    """Blocks inside embed() until released: an ingest caught in the middle of its work."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        self.entered.set()
        assert self.release.wait(30), "test never released the gate"
        return super().embed(texts, progress)


def test_concurrent_ingest_waits_or_is_refused(
    make_settings: MakeSettings,
    embedder: CachedEmbedder,
    sample_papers: list[Paper],
) -> None:
    settings = make_settings()
    gate = GatedEmbedder(embedder)
    first = PaperIndex(settings, CachedEmbedder(gate, None))
    errors: list[BaseException] = []

    def run_first() -> None:
        try:
            first.ingest(sample_papers)
        except BaseException as exc:  # surfaced to the main thread below
            errors.append(exc)

    worker = threading.Thread(target=run_first)
    worker.start()
    try:
        assert gate.entered.wait(30)
        second = PaperIndex(settings, embedder)
        started = time.monotonic()
        with pytest.raises(IndexBusyError, match="Another ingest"):
            second.ingest(sample_papers, wait=0.5)
        assert time.monotonic() - started >= 0.4

        # A writer with patience gets in once the first one is done.
        threading.Timer(0.5, gate.release.set).start()
        report = second.ingest(sample_papers, wait=60)
        assert report.unchanged == 19 and report.added == 0
    finally:
        gate.release.set()
        worker.join(60)
    assert not errors
    assert_consistent(PaperIndex(settings, embedder), sample_papers)


# -- the OpenAI embedding provider -------------------------------------------------------------


def test_openai_embeddings_ingest_into_their_own_collection(
    openai_server: FakeOpenAIServer,
    make_settings: MakeSettings,
    embedder: CachedEmbedder,
    sample_papers: list[Paper],
    sample_data_dir: Path,
) -> None:
    settings = make_settings(
        data_dir=sample_data_dir,
        openai_base_url=openai_server.base_url,
        embedding={"provider": "openai"},
    )
    index = PaperIndex(settings, make_embedder(settings))
    local = PaperIndex(make_settings(data_dir=sample_data_dir), embedder)
    assert index.name != local.name
    report = index.ingest(sample_papers)
    assert report.added == 19
    stats = index.stats()
    assert stats["papers"] == 19 and stats["embedding_model"] == "text-embedding-3-small"
    assert openai_server.requests_to("/embeddings")
    stored = index.chunk_vectors([sample_papers[0].id])[sample_papers[0].id]
    assert len(stored[0][2]) == openai_server.embedding_dim
    # The local collection in the same data dir is untouched.
    assert local.stats()["papers"] == 19
    assert local.other_collections() == [index.name]


def test_openai_auth_error_is_clear_and_changes_nothing(
    openai_server: FakeOpenAIServer, make_settings: MakeSettings, sample_papers: list[Paper]
) -> None:
    secret = "sk-wrong-key-never-print-me"
    openai_server.api_key = "sk-right"
    settings = make_settings(
        openai_base_url=openai_server.base_url,
        openai_api_key=secret,
        embedding={"provider": "openai"},
    )
    index = PaperIndex(settings, make_embedder(settings))
    with pytest.raises(ProviderError) as info:
        index.ingest(sample_papers)
    assert "401" in str(info.value) and secret not in str(info.value)
    assert index.stats()["papers"] == 0 and index.chunk_count() == 0
