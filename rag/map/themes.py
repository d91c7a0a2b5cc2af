"""Themes of a collection: papers clustered by their vectors, labelled by distinctive terms.

Clusters are k-means over the papers' normalised vectors (cosine geometry), sqrt(n/2) of
them unless configured. Labels are each cluster's
most distinctive words and two-word phrases by class-based TF-IDF (c-TF-IDF, as BERTopic
weighs them): a term's frequency in the cluster times log(1 + A / f), A the average number of
terms per cluster and f the term's frequency over all clusters. Terms are counted stemmed
(rag/text.py) and shown as the papers write them most often.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field

from rag.models import Paper
from rag.text import STOPWORDS, _stem, content_terms, words

# Words every abstract writes: they say how a paper argues, not what it is about. c-TF-IDF
# already weighs them down; in a label they only crowd out the topic.
GENERIC = frozenset(
    """achieve achieves achieving across address addresses allow allows art benchmark
    benchmarks better challenge challenges code demonstrate demonstrates effective effectively
    efficient enable enables evaluate evaluation existing experiment experiments extensive
    furthermore however improve improved improvement improvements improves including key
    large leverage leverages limited making model models outperform outperforms performance
    previous prior problem problems provide provides range real recent remains require requires
    result results show significant significantly sota specific state strong substantially
    superior task tasks framework various well world wide widely yet available publicly github
    com https http www available open source release propose""".split()
)
MAX_THEMES = 30
LABEL_TERMS = 3


class Theme(BaseModel):
    """One theme: its label, its distinctive terms, and its papers, most central first."""

    id: int
    label: str = Field(description="The theme's top distinctive terms, as papers write them.")
    terms: list[str] = Field(description="Distinctive terms, most distinctive first.")
    size: int
    paper_ids: list[str] = Field(description="Its papers, nearest the theme's centre first.")


def theme_count(n: int, cap: int = MAX_THEMES) -> int:
    """Themes for n papers when none is configured: sqrt(n/2), at most `cap`.

    The count is a reading choice, not a property of the vectors: the rule of thumb sqrt(n/2)
    (46 at 4,303 papers) capped at what a legend shows; settings.map.themes overrides it.
    """
    return max(1, min(cap, round((n / 2) ** 0.5))) if n else 0


def cluster(vectors: np.ndarray, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """k-means of the rows of `vectors` (unit length): labels and unit centroids."""
    n = len(vectors)
    k = max(1, min(k, n))
    if k == 1:
        labels = np.zeros(n, dtype=int)
    else:
        from sklearn.cluster import KMeans

        labels = KMeans(n_clusters=k, n_init=2, random_state=seed).fit(vectors).labels_
    # Clusters k-means left empty are dropped: theme ids stay 0..k'-1.
    _, labels = np.unique(labels, return_inverse=True)
    return labels, _centroids(vectors, labels, int(labels.max()) + 1 if n else 0)


def _centroids(vectors: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
    out = np.zeros((k, vectors.shape[1]), dtype=np.float32)
    np.add.at(out, labels, vectors)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.where(norms == 0, 1, norms)


def assign(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    """The nearest centroid (cosine) of each vector: where new papers go."""
    if len(vectors) == 0:
        return np.zeros(0, dtype=int)
    return np.asarray(vectors @ centroids.T).argmax(axis=1)


def _keyword_terms(paper: Paper, surface: dict[str, Counter[str]]) -> set[str]:
    """A paper's keywords (stemmed keys), noting how each is written."""
    out = set()
    for k in (k.strip() for k in paper.keywords):
        key = " ".join(content_terms(k))
        if key:
            surface.setdefault(key, Counter())[k] += 1
            out.add(key)
    return out


def _text_terms(paper: Paper, surface: dict[str, Counter[str]]) -> set[str]:
    """A paper's title and abstract words and two-word phrases (stemmed keys)."""
    out: set[str] = set()
    for text in (paper.title, paper.abstract):
        kept = [w for w in words(text) if w not in STOPWORDS and len(w) > 2 and not w.isdigit()]
        stems = [_stem(w) for w in kept]
        for i, (w, s) in enumerate(zip(kept, stems, strict=True)):
            if w in GENERIC:
                continue
            out.add(s)
            surface.setdefault(s, Counter())[w] += 1
            if i and kept[i - 1] not in GENERIC:
                key = f"{stems[i - 1]} {s}"
                out.add(key)
                surface.setdefault(key, Counter())[f"{kept[i - 1]} {w}"] += 1
    return out


def ctfidf_terms(
    papers: Sequence[Paper], labels: np.ndarray, k: int, top: int = 10
) -> list[list[str]]:
    """Each cluster's most distinctive terms by c-TF-IDF, as the papers write them.

    Authors' keywords when the papers have them (they name topics as people say them:
    "3d gaussian splatting"); else the words and two-word phrases of titles and abstracts.
    """
    use_keywords = sum(bool(p.keywords) for p in papers) >= len(papers) / 2
    extract = _keyword_terms if use_keywords else _text_terms
    surface: dict[str, Counter[str]] = {}
    per: list[Counter[str]] = [Counter() for _ in range(k)]
    for paper, label in zip(papers, labels, strict=True):
        # A term counts once per paper: one abstract repeating a word is not a theme.
        per[int(label)].update(extract(paper, surface))
    total: Counter[str] = Counter()
    for c in per:
        total.update(c)
    avg = sum(total.values()) / max(k, 1)
    floor = 3 if len(papers) >= 100 else 1  # a term of one or two papers names a paper
    out: list[list[str]] = []
    for c in per:
        size = sum(c.values()) or 1
        weight = {t: (n / size) * np.log(1 + avg / total[t]) for t, n in c.items() if n >= floor}
        ranked = sorted(weight, key=lambda t: (-weight[t], t))
        chosen: list[str] = []
        for t in ranked:
            if not use_keywords and " " not in t:
                # "language" ranks above "language models": the phrase says more.
                t = next((b for b in ranked[: 3 * top] if t in b.split() and " " in b), t)
            parts = set(t.split())
            # "gaussian splatting" beside "3d gaussian splatting" says nothing more.
            if any(parts <= set(x.split()) or set(x.split()) <= parts for x in chosen):
                continue
            chosen.append(t)
            if len(chosen) == top:
                break
        out.append([surface[t].most_common(1)[0][0] for t in chosen])
    return out


def build_themes(
    papers: Sequence[Paper],
    vectors: np.ndarray,
    labels: np.ndarray,
    centroids: np.ndarray,
) -> list[Theme]:
    """Themes from a clustering: label, terms, size and papers ordered by centrality."""
    k = len(centroids)
    terms = ctfidf_terms(papers, labels, k)
    sims = np.einsum("ij,ij->i", vectors, centroids[labels]) if len(vectors) else np.zeros(0)
    themes = []
    for c in range(k):
        members = np.flatnonzero(labels == c)
        order = members[np.argsort(-sims[members], kind="stable")]
        themes.append(
            Theme(
                id=c,
                label=" · ".join(terms[c][:LABEL_TERMS]) or f"theme {c + 1}",
                terms=terms[c],
                size=len(members),
                paper_ids=[papers[i].id for i in order],
            )
        )
    return themes
