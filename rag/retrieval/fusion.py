"""Fusing BM25 and dense evidence into one score per candidate paper.

Three fusions: `convex` (weighted normalised scores; the default, since the refusal model in
the refusal model is fitted on its scores), `rrf` (reciprocal ranks) and `learned` (opt-in,
`retrieval.fusion=learned`): a logistic model over both retrievers' standardised scores and
reciprocal ranks, applied to the union of both candidate lists. Its weights were fitted by
`python eval/fusion_lab.py --fit` on the *fit* half of the golden and scale sets only
(Item.split); the held-out halves report it. `with_latent` mixes a third list, latent
semantic analysis (rag/store/latent.py), into the convex fusion of a large collection.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Feature order: z(BM25), z(dense), 1/rank BM25, 1/rank dense, max(z BM25, z dense).
# A rank-1 paper of either list gains a lot (1/rank); a paper both lists like gains through
# both z terms; max(z) lets one confident retriever carry a paper the other missed.
LEARNED_WEIGHTS = (0.648, 0.133, 3.043, 3.937, 0.233)


@dataclass(frozen=True)
class Candidates:
    """Scores of the candidate papers under both retrievers, plus each retriever's top pool.

    `bm25`/`dense` hold every candidate's score (a paper only one list found is re-scored by
    the other retriever); `bm25_pool`/`dense_pool` are the scores of each retriever's own top
    candidates, which standardise the scores; ranks count from 1 over the whole collection.
    """

    ids: list[str]
    bm25: np.ndarray
    dense: np.ndarray
    bm25_rank: np.ndarray
    dense_rank: np.ndarray
    bm25_pool: np.ndarray
    dense_pool: np.ndarray


def _z(values: np.ndarray, pool: np.ndarray) -> np.ndarray:
    if len(pool) == 0:
        return np.zeros_like(values)
    spread = float(pool.std()) or 1.0
    return (values - float(pool.mean())) / spread


def features(c: Candidates) -> np.ndarray:
    """[candidates, 5] features of the learned combination (order as LEARNED_WEIGHTS)."""
    zb, zd = _z(c.bm25, c.bm25_pool), _z(c.dense, c.dense_pool)
    return np.stack([zb, zd, 1 / c.bm25_rank, 1 / c.dense_rank, np.maximum(zb, zd)], axis=1)


def learned(c: Candidates, weights: tuple[float, ...] = LEARNED_WEIGHTS) -> dict[str, float]:
    """The learned combination's score of each candidate (higher is better)."""
    scores = features(c) @ np.asarray(weights, dtype=np.float64)
    return {pid: float(s) for pid, s in zip(c.ids, scores, strict=True)}


def rrf(ranked: dict[str, list[str]], k: int) -> dict[str, float]:
    """Reciprocal rank fusion: each ranking adds 1 / (k + rank)."""
    fused: dict[str, float] = {}
    for order in ranked.values():
        for rank, pid in enumerate(order, start=1):
            fused[pid] = fused.get(pid, 0.0) + 1.0 / (k + rank)
    return fused


def with_latent(
    fused: dict[str, float], latent: dict[str, float], top: list[str], weight: float
) -> dict[str, float]:
    """The convex fusion mixed with LSA similarity, min-max scaled over LSA's own top papers.

    The candidates are the union of all three lists; a candidate below LSA's top (or without
    an LSA score) scores 0 there.
    """
    pool = [latent[pid] for pid in top] or [0.0]
    lo, hi = min(pool), max(pool)
    span = (hi - lo) or 1.0
    return {
        pid: (1 - weight) * fused.get(pid, 0.0)
        + weight * max(0.0, (latent.get(pid, lo) - lo) / span)
        for pid in set(fused) | set(top)
    }


def convex(bm25: dict[str, float], dense: dict[str, float], weight: float) -> dict[str, float]:
    """Weighted sum of normalised scores: BM25 over its best, cosine min-max over the candidates."""
    # Scores, unlike ranks, keep how far ahead the leader is: a paper that BM25 finds by a
    # wide margin stays first even when a dozen sentences elsewhere are semantically close.
    top_bm25 = max(bm25.values(), default=0.0) or 1.0
    lo, hi = min(dense.values(), default=0.0), max(dense.values(), default=0.0)
    span = (hi - lo) or 1.0
    return {
        pid: weight * bm25.get(pid, 0.0) / top_bm25
        + (1 - weight) * ((dense[pid] - lo) / span if pid in dense else 0.0)
        for pid in set(bm25) | set(dense)
    }
