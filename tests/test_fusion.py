"""Fusion of BM25 and dense evidence (rag.retrieval.fusion) and the retriever that applies it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import MakeSettings

from rag.app.pipeline import Pipeline
from rag.models import Filters, Paper
from rag.retrieval.fusion import Candidates, features, learned, with_latent
from rag.retrieval.hybrid import HybridRetriever, KeywordIndex
from rag.store.embeddings import CachedEmbedder
from rag.store.index import PaperIndex
from rag.store.latent import LatentIndex


def cands(bm25: list[float], dense: list[float], brank: list[int], drank: list[int]) -> Candidates:
    return Candidates(
        ids=[f"p{i}" for i in range(len(bm25))],
        bm25=np.array(bm25, dtype=float),
        dense=np.array(dense, dtype=float),
        bm25_rank=np.array(brank, dtype=float),
        dense_rank=np.array(drank, dtype=float),
        bm25_pool=np.array(sorted(bm25, reverse=True), dtype=float),
        dense_pool=np.array(sorted(dense, reverse=True), dtype=float),
    )


def test_paper_both_retrievers_rank_first_wins() -> None:
    c = cands([9.0, 5.0, 4.0, 1.0], [0.7, 0.5, 0.6, 0.3], [1, 2, 3, 4], [1, 4, 2, 5])
    scores = learned(c)
    assert max(scores, key=scores.get) == "p0"
    assert scores["p3"] == min(scores.values())


def test_a_clear_bm25_leader_beats_a_slightly_closer_vector() -> None:
    # p0: far ahead on BM25, second on dense; p1: first on dense by a hair, weak on BM25.
    c = cands([12.0, 2.0, 1.8, 1.5], [0.60, 0.61, 0.40, 0.35], [1, 6, 7, 8], [2, 1, 3, 4])
    scores = learned(c)
    assert scores["p0"] > scores["p1"]


def test_features_are_standardised_by_each_retrievers_pool() -> None:
    c = cands([4.0, 2.0, 0.0], [0.5, 0.4, 0.3], [1, 2, 3], [1, 2, 3])
    f = features(c)
    assert f.shape == (3, 5)
    assert np.allclose(f[:, 0].mean(), 0) and np.allclose(f[:, 1].mean(), 0)
    assert np.allclose(f[:, 4], np.maximum(f[:, 0], f[:, 1]))


@pytest.mark.parametrize("fusion", ["learned", "convex", "rrf"])
def test_every_fusion_finds_the_named_paper(
    fusion: str, make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    settings = make_settings(data_dir=sample_data_dir, retrieval={"fusion": fusion})
    index = PaperIndex(settings, embedder)
    retriever = HybridRetriever(index, embedder, KeywordIndex(index), settings)
    hits = retriever.search("post-training quantization that corrects accumulated errors", k=5)
    assert hits and "Qronos" in hits[0].paper.title
    assert len({h.paper.id for h in hits}) == len(hits) == 5


def test_learned_fusion_rescores_papers_only_bm25_found(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    # Few dense candidates: most BM25 candidates must be re-scored from their stored vectors.
    settings = make_settings(data_dir=sample_data_dir, retrieval={"candidates": 5})
    index = PaperIndex(settings, embedder)
    retriever = HybridRetriever(index, embedder, KeywordIndex(index), settings)
    query = "language models reasoning benchmark"
    vec = embedder.embed_query(query)
    ranked = {
        "dense": [],
        "bm25": [h.paper.id for h in retriever.search(query, k=5, mode="bm25")],
    }
    scores = retriever.keywords.bm25().scores(query)
    c = retriever._candidates(vec, ranked, {}, scores)
    exact = {
        pid: max(float(np.dot(vec, v)) for _s, _e, v in rows)
        for pid, rows in index.chunk_vectors(ranked["bm25"]).items()
    }
    assert c.ids == ranked["bm25"]
    assert np.allclose(c.dense, [exact[pid] for pid in c.ids])
    assert list(c.bm25_rank) == sorted(c.bm25_rank) and c.bm25_rank[0] == 1


def test_every_hybrid_hit_has_its_closeness_by_meaning(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    # Few dense candidates: hits only BM25 found read their stored vectors, never a missing
    # value the refusal model would take for zero.
    settings = make_settings(
        data_dir=sample_data_dir, retrieval={"candidates": 5, "fusion": "convex"}
    )
    index = PaperIndex(settings, embedder)
    retriever = HybridRetriever(index, embedder, KeywordIndex(index), settings)
    query = "language models reasoning benchmark"
    hits = retriever.search(query, k=8)
    vec = embedder.embed_query(query)
    exact = {
        pid: max(float(np.dot(vec, v)) for _s, _e, v in rows)
        for pid, rows in index.chunk_vectors([h.paper.id for h in hits]).items()
    }
    assert len(hits) > 5 and all(h.dense is not None for h in hits)
    assert [h.dense for h in hits] == pytest.approx([exact[h.paper.id] for h in hits], abs=1e-4)


def _paper(i: int, abstract: str) -> Paper:
    return Paper(key=f"k{i}", id=f"p{i}", title=f"Paper {i}", abstract=abstract)


def test_lsa_relates_words_that_occur_together() -> None:
    # "gating" and "experts" always appear together; the query says "gating" only, and the
    # paper it should find says "experts" only: no shared word, yet LSA puts it first.
    papers = [_paper(i, "sparse gating routes tokens among experts in layers") for i in range(6)]
    papers += [_paper(10 + i, "convolution filters for image denoising tasks") for i in range(6)]
    papers.append(_paper(99, "we scale experts to many layers"))
    papers.append(_paper(98, "image filters and convolution layers"))
    lsa = LatentIndex(papers, dims=2)  # two topics in this collection
    near = dict(zip(lsa.ids, lsa.scores("gating"), strict=True))
    assert near["p99"] > near["p98"] and near["p99"] > 0.5
    assert not lsa.scores("words nobody wrote").any()


def test_with_latent_mixes_a_third_list_into_the_fusion() -> None:
    fused = {"a": 1.0, "b": 0.5}
    latent = {"a": 0.1, "b": 0.2, "c": 0.9}
    mixed = with_latent(fused, latent, ["c", "b", "a"], weight=0.5)
    assert set(mixed) == {"a", "b", "c"}
    assert mixed["c"] == pytest.approx(0.5) and mixed["a"] == pytest.approx(0.5)
    assert with_latent(fused, latent, ["c", "b", "a"], weight=0.0) == {**fused, "c": 0.0}


def test_lsa_joins_the_hybrid_fusion_only_in_a_large_collection(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    query = "post-training quantization that corrects accumulated errors"
    small = make_settings(data_dir=sample_data_dir)  # 19 papers, under lsa_min_papers
    index = PaperIndex(small, embedder)
    keywords = KeywordIndex(index)
    hits = HybridRetriever(index, embedder, keywords, small).search(query, k=5)
    assert all("lsa" not in h.ranks for h in hits)
    forced = make_settings(
        data_dir=sample_data_dir, retrieval={"lsa_min_papers": 10, "lsa_dims": 8}
    )
    hits = HybridRetriever(index, embedder, keywords, forced).search(query, k=5)
    assert "Qronos" in hits[0].paper.title and hits[0].ranks["lsa"] == 1
    # A filter holds for the third list too.
    only = Filters(decision="Oral")
    assert not HybridRetriever(index, embedder, keywords, forced).search(query, filters=only)


def test_warm_builds_the_keyword_and_latent_indexes(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    settings = make_settings(
        data_dir=sample_data_dir, retrieval={"lsa_min_papers": 10, "lsa_dims": 8}
    )
    pipeline = Pipeline(settings, embedder=embedder)
    assert pipeline.keywords.built() == {"bm25": False, "latent": False}
    pipeline.warm()
    # What `paperchat serve` builds in the background before the first question.
    assert pipeline.keywords.built() == {"bm25": True, "latent": True}
