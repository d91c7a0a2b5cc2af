"""Hybrid retrieval: BM25 over papers plus dense chunk vectors from Chroma, fused per paper."""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from rag.models import Chunk, Filters, Paper, SearchHit
from rag.protocols import Embedder, Mode
from rag.retrieval.fusion import Candidates, convex, learned, rrf, with_latent
from rag.settings import Settings
from rag.store.derived import (
    Artifact,
    Current,
    DerivedMissing,
    DerivedStore,
    Reader,
    Writer,
    in_order,
)
from rag.store.index import PaperIndex
from rag.store.latent import LatentIndex, latent_artifact
from rag.text import bm25_tokens, bm25s_module, content_terms


class TermWeights:
    """Inverse document frequency of content terms over the indexed papers."""

    def __init__(self, df: Counter[str], n: int) -> None:
        self.df, self.n = df, n
        # A term no paper uses is the strongest sign the collection lacks the topic.
        self.unseen = math.log(1 + (n + 1) / 0.5)

    def __call__(self, term: str) -> float:
        d = self.df.get(term, 0)
        return math.log(1 + (self.n + 1) / (d + 0.5)) if d else self.unseen

    def unused(self, text: str) -> list[str]:
        """Content terms of the text that no indexed paper uses."""
        return [t for t in dict.fromkeys(content_terms(text)) if not self.df.get(t)]


def term_weights(papers: Sequence[Paper]) -> TermWeights:
    """IDF weights from the papers' titles, keywords and abstracts."""
    df: Counter[str] = Counter()
    for p in papers:
        df.update(set(content_terms(p.search_text)))
    return TermWeights(df, len(papers))


class _Bm25:
    def __init__(self, papers: list[Paper]) -> None:
        self.ids = [p.id for p in papers]
        self.idf = term_weights(papers)
        self.model: Any = None  # bm25s.BM25, imported on first use
        if papers:
            tokens = bm25_tokens([p.search_text for p in papers])
            self.model = bm25s_module().BM25()
            self.model.index(tokens, show_progress=False)

    def scores(self, query: str) -> np.ndarray:
        if self.model is None:
            return np.zeros(0, dtype=np.float32)
        tokens = bm25_tokens([query], ids=False)[0]
        vocab = self.model.vocab_dict
        known = [t for t in tokens if t in vocab]
        if not known:
            return np.zeros(len(self.ids), dtype=np.float32)
        return self.model.get_scores(known)


def _build_bm25(papers: Mapping[str, Paper], _previous: _Bm25 | None) -> _Bm25:
    # bm25s has no incremental update: its IDF and document lengths are collection-wide.
    return _Bm25(list(in_order(papers)))


def _save_bm25(index: _Bm25, out: Writer) -> None:
    out.json("ids", index.ids)
    out.json("weights", {"n": index.idf.n, "df": index.idf.df})
    if index.model is not None:
        index.model.save(str(out.path("bm25s")), show_progress=False)


def _load_bm25(src: Reader, papers: Mapping[str, Paper]) -> _Bm25:
    index = _Bm25.__new__(_Bm25)
    index.ids = src.json("ids")
    if papers and list(papers) != index.ids:
        raise DerivedMissing("bm25: built from other papers")
    weights = src.json("weights")
    index.idf = TermWeights(Counter(weights["df"]), weights["n"])
    index.model = None
    if src.path("bm25s").exists():
        bm25 = bm25s_module().BM25
        index.model = bm25.load(str(src.path("bm25s")), mmap=True, show_progress=False)
    elif index.ids:
        raise DerivedMissing("bm25: index files missing")
    return index


BM25: Artifact[_Bm25] = Artifact("bm25", _build_bm25, _save_bm25, _load_bm25)


class KeywordIndex:
    """BM25 and term weights over the catalog, rebuilt whenever the index has changed.

    Shared by the hybrid retriever (keyword ranking) and the scorer (IDF of shared words), so
    both read one copy and whichever retriever answers, the scores weigh words alike.
    """

    def __init__(self, index: PaperIndex, store: DerivedStore | None = None) -> None:
        self.index = index
        self.store = store
        self._bm25 = Current(BM25, store)
        self._latent: dict[int, Current[LatentIndex]] = {}
        self._lock = threading.Lock()

    def bm25(self, snapshot: tuple[dict[str, Paper], str | None] | None = None) -> _Bm25:
        """The keyword index of the current catalog (or of `snapshot`, one already read)."""
        # One read: a revision fetched apart from the catalog could be newer than it, and the
        # keyword index would then be tagged fresh while built from stale papers.
        catalog, revision = snapshot or self.index.snapshot()
        return self._bm25.get(catalog, revision)

    def weights(self) -> TermWeights:
        """IDF weights of the current index, for weighting shared words."""
        return self.bm25().idf

    def latent(
        self, dims: int, snapshot: tuple[dict[str, Paper], str | None] | None = None
    ) -> LatentIndex:
        """The latent semantic index of the current catalog (built on first use)."""
        catalog, revision = snapshot or self.index.snapshot()
        with self._lock:
            current = self._latent.setdefault(dims, Current(latent_artifact(dims), self.store))
        return current.get(catalog, revision)

    def built(self) -> dict[str, bool]:
        """Which of the keyword-side indexes this process holds (loaded or built)."""
        return {
            "bm25": self._bm25.value is not None,
            "latent": any(c.value is not None for c in self._latent.values()),
        }


class HybridRetriever:
    """Finds papers for a question: dense, BM25 or both fused (see rag.retrieval.fusion)."""

    def __init__(
        self,
        index: PaperIndex,
        embedder: Embedder,
        keywords: KeywordIndex,
        settings: Settings,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.keywords = keywords
        self.settings = settings

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: Mode | None = None,
        filters: Filters | None = None,
        within: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """Best papers for a query, one hit per paper, best first; `within` limits the papers."""
        cfg = self.settings.retrieval
        k = k or cfg.top_k
        mode = mode or cfg.mode
        # One read of the index for the catalog and both keyword-side indexes.
        snapshot = self.index.snapshot()
        catalog = snapshot[0]
        if not catalog or not query.strip():
            return []
        allowed: set[str] | None = None
        if filters and filters.active():
            allowed = {pid for pid, p in catalog.items() if filters.match(p)}
        if within is not None:
            allowed = set(within) & (allowed if allowed is not None else set(catalog))
        if allowed is not None and not allowed:
            return []
        n = max(cfg.candidates, k)
        ranked: dict[str, list[str]] = {}
        dense_best: dict[str, float] = {}
        chunks: dict[str, list[Chunk]] = {}
        bm25_score: dict[str, float] = {}

        if mode in ("dense", "hybrid"):
            vec = self.embedder.embed_query(query)
            # Sentence chunks: a paper can hold several of the nearest chunks, so fetch a
            # few more chunks than papers wanted (fetching is most of dense latency).
            fetch = n + n // 5
            hits = self.index.dense(vec, fetch, sorted(allowed) if allowed is not None else None)
            order: list[str] = []
            for chunk, sim in hits:
                if chunk.paper_id not in catalog:
                    continue  # a paper mid-rewrite by a concurrent ingest
                if chunk.paper_id not in dense_best:
                    dense_best[chunk.paper_id] = sim
                    order.append(chunk.paper_id)
                chunks.setdefault(chunk.paper_id, []).append(chunk)
            ranked["dense"] = order[:n]

        lsa: LatentIndex | None = None
        if (
            mode == "hybrid"
            and cfg.fusion == "convex"
            and cfg.lsa_weight > 0
            and len(catalog) >= cfg.lsa_min_papers
        ):
            lsa = self.keywords.latent(cfg.lsa_dims, snapshot)
            near = lsa.scores(query)
            if allowed is not None:
                near = np.where([pid in allowed for pid in lsa.ids], near, -1.0)
            top_lsa = np.argpartition(-near, min(n, len(near) - 1))[:n]
            top_lsa = top_lsa[np.argsort(-near[top_lsa])]
            ranked["lsa"] = [lsa.ids[i] for i in top_lsa if near[i] > -1.0]

        if mode in ("bm25", "hybrid"):
            index = self.keywords.bm25(snapshot)
            scores = index.scores(query)
            if allowed is not None:
                mask = np.array([pid in allowed for pid in index.ids])
                scores = np.where(mask, scores, 0.0)
            top = np.argsort(-scores)[:n]
            ranked["bm25"] = [index.ids[i] for i in top if scores[i] > 0]
            bm25_score = {index.ids[i]: float(scores[i]) for i in top if scores[i] > 0}
            bm25_all = scores

        ranks: dict[str, dict[str, int]] = {}
        for name, order in ranked.items():
            for rank, pid in enumerate(order, start=1):
                ranks.setdefault(pid, {})[name] = rank
        if mode == "dense":
            fused = {pid: dense_best[pid] for pid in ranked["dense"]}
        elif mode == "bm25":
            fused = bm25_score
        elif cfg.fusion == "learned":
            fused = learned(self._candidates(vec, ranked, dense_best, bm25_all))
        elif cfg.fusion == "rrf":
            fused = rrf(ranked, cfg.rrf_k)
        else:
            dense_top = {pid: dense_best[pid] for pid in ranked["dense"]}
            fused = convex(bm25_score, dense_top, cfg.bm25_weight)
            if lsa is not None:
                # A paper added since the latent index was built has no score there yet.
                latent = {
                    pid: float(near[lsa.position[pid]])
                    for pid in {*fused, *ranked["lsa"]}
                    if pid in lsa.position
                }
                fused = with_latent(fused, latent, ranked["lsa"], cfg.lsa_weight)
        best = sorted(fused, key=lambda pid: (-fused[pid], pid))[:k]
        if mode == "hybrid":
            # A paper BM25 ranked but dense did not fetch still has a meaning's closeness: its
            # best chunk, from the stored vectors (the refusal model reads it, not a zero).
            unseen = [pid for pid in best if pid not in dense_best]
            for pid, rows in self.index.chunk_vectors(unseen).items() if unseen else ():
                dense_best[pid] = max(float(np.dot(vec, v)) for _s, _e, v in rows)
        return [
            SearchHit(
                paper=catalog[pid],
                score=round(fused[pid], 6),
                chunks=chunks.get(pid, [])[:3],
                ranks=ranks[pid],
                dense=dense_best.get(pid),
                bm25=bm25_score.get(pid),
            )
            for pid in best
            if pid in catalog
        ]

    def _candidates(
        self,
        query_vector: np.ndarray,
        ranked: dict[str, list[str]],
        dense_best: dict[str, float],
        bm25_all: np.ndarray,
    ) -> Candidates:
        """Both retrievers' scores for the union of their candidates (re-scoring the misses)."""
        index = self.keywords.bm25()
        dense_order, bm25_order = ranked["dense"], ranked["bm25"]
        ids = list(dict.fromkeys([*dense_order, *bm25_order]))
        # A paper BM25 found but dense did not: its best chunk, from the stored vectors.
        dense = {pid: dense_best[pid] for pid in dense_order}
        missing = [pid for pid in ids if pid not in dense]
        for pid, rows in self.index.chunk_vectors(missing).items():
            dense[pid] = max(float(np.dot(query_vector, v)) for _s, _e, v in rows)
        floor = min(dense.values(), default=0.0)
        at = {pid: i for i, pid in enumerate(index.ids)}
        bm = np.array([bm25_all[at[pid]] if pid in at else 0.0 for pid in ids])
        # Rank over the whole collection: 1 + how many papers score higher.
        ordered = np.sort(bm25_all)[::-1]
        bm_rank = 1 + np.searchsorted(-ordered, -bm, side="left")
        bm_rank = np.where(bm > 0, bm_rank, len(bm25_all))
        drank = {pid: r for r, pid in enumerate(dense_order, start=1)}
        return Candidates(
            ids=ids,
            bm25=bm.astype(np.float64),
            dense=np.array([dense.get(pid, floor) for pid in ids], dtype=np.float64),
            bm25_rank=bm_rank.astype(np.float64),
            dense_rank=np.array([drank.get(pid, len(dense_order) + 1) for pid in ids], float),
            bm25_pool=np.array([bm25_all[at[pid]] for pid in bm25_order], dtype=np.float64),
            dense_pool=np.array([dense_best[pid] for pid in dense_order], dtype=np.float64),
        )
