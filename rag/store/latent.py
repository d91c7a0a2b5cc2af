"""Latent semantic analysis: papers and questions in the space of the corpus's own word usage.

A question in other words than the abstract's shares few terms with it, and MiniLM bridges only
part of the gap. LSA learns from the collection which terms occur together ("gated", "experts",
"routing"), so a question using some of them lands near papers using the others. It is the third
signal of the hybrid fusion (rag.retrieval.hybrid), built from the same catalog read as BM25.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from rag.models import Paper
from rag.store.derived import Artifact, DerivedMissing, Reader, Writer, in_order
from rag.text import content_terms

# Power iterations of the randomized SVD: enough that the leading directions no longer depend
# on the random start (with two, runs with other seeds ranked a few questions differently).
_POWER_ITERATIONS = 5
_BLOCK = 1024  # papers per dense block while multiplying: memory stays O(block x vocabulary)


class LatentIndex:
    """Truncated SVD of the papers' TF-IDF matrix (terms used by two or more papers)."""

    def __init__(self, papers: Sequence[Paper], dims: int, seed: int = 0) -> None:
        self.ids = [p.id for p in papers]
        self.position = {pid: i for i, pid in enumerate(self.ids)}
        counts = [Counter(content_terms(p.search_text)) for p in papers]
        df: Counter[str] = Counter()
        for c in counts:
            df.update(c.keys())
        # A term one paper uses relates nothing to anything else.
        self.vocab = {t: j for j, t in enumerate(sorted(t for t, d in df.items() if d >= 2))}
        n = len(papers)
        self.idf = np.zeros(len(self.vocab), dtype=np.float32)
        for t, j in self.vocab.items():
            self.idf[j] = math.log(n / df[t])
        rows = [self._weights(c) for c in counts]
        dims = min(dims, n - 1, len(self.vocab) - 1)
        if dims < 1:
            self.vectors = np.zeros((n, 0), dtype=np.float32)
            self.terms = np.zeros((0, len(self.vocab)), dtype=np.float32)
            return
        u, s, vt = _randomized_svd(rows, len(self.vocab), dims, np.random.default_rng(seed))
        vectors = u * s
        self.vectors = vectors / (np.linalg.norm(vectors, axis=1, keepdims=True) + 1e-9)
        self.terms = vt

    def _weights(self, counts: Counter[str]) -> tuple[np.ndarray, np.ndarray]:
        """A text's unit-length TF-IDF row (sublinear term frequency), as (columns, values)."""
        cols = [self.vocab[t] for t in counts if t in self.vocab]
        tf = np.array([1 + math.log(counts[t]) for t in counts if t in self.vocab], np.float32)
        values = tf * self.idf[cols] if cols else tf
        norm = float(np.linalg.norm(values))
        return np.array(cols, dtype=np.int64), (values / norm if norm else values)

    def scores(self, text: str) -> np.ndarray:
        """Cosine of the text to every paper in the latent space, aligned with `ids`."""
        cols, values = self._weights(Counter(content_terms(text)))
        if not len(cols) or not self.terms.size:
            return np.zeros(len(self.ids), dtype=np.float32)
        z = self.terms[:, cols] @ values
        norm = float(np.linalg.norm(z))
        return self.vectors @ (z / norm) if norm else np.zeros(len(self.ids), np.float32)


def _blocks(
    rows: Sequence[tuple[np.ndarray, np.ndarray]], width: int
) -> Iterator[tuple[slice, np.ndarray]]:
    """The sparse rows as dense blocks of at most _BLOCK rows."""
    for start in range(0, len(rows), _BLOCK):
        part = rows[start : start + _BLOCK]
        block = np.zeros((len(part), width), dtype=np.float32)
        for i, (cols, values) in enumerate(part):
            block[i, cols] = values
        yield slice(start, start + len(part)), block


def _randomized_svd(
    rows: Sequence[tuple[np.ndarray, np.ndarray]], width: int, dims: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The leading `dims` singular triplets of the sparse matrix (Halko et al., power scheme)."""

    def times(x: np.ndarray) -> np.ndarray:  # A @ x
        out = np.zeros((len(rows), x.shape[1]), dtype=np.float32)
        for where, block in _blocks(rows, width):
            out[where] = block @ x
        return out

    def transposed_times(y: np.ndarray) -> np.ndarray:  # A.T @ y
        out = np.zeros((width, y.shape[1]), dtype=np.float32)
        for where, block in _blocks(rows, width):
            out += block.T @ y[where]
        return out

    sketch = min(dims + 20, width, len(rows))
    y = times(rng.standard_normal((width, sketch)).astype(np.float32))
    for _ in range(_POWER_ITERATIONS):
        y, _r = np.linalg.qr(y)
        y = times(transposed_times(y))
    q, _r = np.linalg.qr(y)
    u_small, s, vt = np.linalg.svd(transposed_times(q).T, full_matrices=False)
    return (q @ u_small)[:, :dims], s[:dims], vt[:dims]


def latent_artifact(dims: int) -> Artifact[LatentIndex]:
    """The LSA factors at `dims` dimensions (recomputed whole: the SVD is collection-wide)."""

    def build(papers: Mapping[str, Paper], _previous: LatentIndex | None) -> LatentIndex:
        return LatentIndex(list(in_order(papers)), dims)

    def save(lsa: LatentIndex, out: Writer) -> None:
        out.json("ids", lsa.ids)
        out.json("vocab", list(lsa.vocab))
        out.array("idf", lsa.idf)
        out.array("vectors", lsa.vectors)
        out.array("terms", lsa.terms)

    def load(src: Reader, papers: Mapping[str, Paper]) -> LatentIndex:
        lsa = LatentIndex.__new__(LatentIndex)
        lsa.ids = src.json("ids")
        if papers and list(papers) != lsa.ids:
            raise DerivedMissing("latent: built from other papers")
        lsa.position = {pid: i for i, pid in enumerate(lsa.ids)}
        lsa.vocab = {t: j for j, t in enumerate(src.json("vocab"))}
        lsa.idf, lsa.vectors, lsa.terms = src.array("idf"), src.array("vectors"), src.array("terms")
        if lsa.vectors.shape[0] != len(lsa.ids) or len(lsa.idf) != len(lsa.vocab):
            raise DerivedMissing("latent: arrays do not match the papers")
        return lsa

    return Artifact(f"latent-{dims}", build, save, load)
