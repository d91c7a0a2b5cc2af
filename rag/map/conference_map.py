"""The conference map: every paper placed in 2D from its stored vectors, grouped into themes.

A paper's vector is the normalised mean of its chunk vectors in Chroma (no re-embedding).
The layout is openTSNE's t-SNE (cosine affinities, perplexity 30, PCA start): it keeps each
paper's neighbours better than UMAP on these vectors and needs no JIT compiler
(eval/bench_map.py prints both). Themes are rag/map/themes.py's clusters.

The map is a derived index (rag/store/derived.py: `data_dir/derived/<collection>/map/`, written
atomically, keyed by the collection's revision): a stale map is brought up to date on use.
When only a few papers were added, they are placed among the papers already laid out
(`TSNEEmbedding.transform`) and join their nearest theme, so the map people know does not
move; more changes rebuild it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping

import numpy as np
from pydantic import BaseModel, Field

from rag.map.themes import Theme, assign, build_themes, cluster, theme_count
from rag.models import Paper
from rag.protocols import Embedder
from rag.settings import Settings
from rag.store.derived import Artifact, Current, DerivedMissing, DerivedStore, Reader, Writer
from rag.store.embeddings import embedder_key
from rag.store.index import PaperIndex

FORMAT = 1
PERPLEXITY = 30
# openTSNE's early-exaggeration phase and half its default second phase: on the 4,303
# papers, 10-NN preservation equals the default's (0.38) at a third of its time.
EXAGGERATION_ITER = 250
ITER = 250
SEED = 0


class ConferenceMap(BaseModel):
    """Positions and themes of every paper at one index revision."""

    format: int = FORMAT
    revision: str | None = None
    collection: str = ""
    embedder: str = Field(default="", description="The embedder whose vectors were laid out.")
    themes_asked: int = Field(default=0, description="settings.map.themes when built.")
    ids: list[str] = Field(default_factory=list)
    keys: list[str] = Field(default_factory=list, description="Content key of each paper.")
    x: list[float] = Field(default_factory=list)
    y: list[float] = Field(default_factory=list)
    theme: list[int] = Field(default_factory=list, description="Theme id of each paper.")
    themes: list[Theme] = Field(default_factory=list)
    centroids: list[list[float]] = Field(default_factory=list, exclude=False)
    method: str = ""
    placed: int = Field(default=0, description="Papers placed into the layout since it was built.")
    seconds: dict[str, float] = Field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.ids)

    def theme_of(self) -> dict[str, Theme]:
        """Each paper's theme, by paper id."""
        by_id = {t.id: t for t in self.themes}
        return {pid: by_id[t] for pid, t in zip(self.ids, self.theme, strict=True)}

    def positions(self) -> dict[str, tuple[float, float]]:
        """Each paper's (x, y), by paper id."""
        return {pid: (x, y) for pid, x, y in zip(self.ids, self.x, self.y, strict=True)}

    def themes_payload(self) -> list[dict[str, object]]:
        """Themes as `paperchat themes --json` prints them, largest first."""
        return [t.model_dump() for t in sorted(self.themes, key=lambda t: (-t.size, t.id))]


def layout(vectors: np.ndarray) -> tuple[np.ndarray, str]:
    """2D positions of unit vectors (t-SNE; PCA or fixed points for a handful)."""
    n = len(vectors)
    if n < 5:
        # t-SNE needs neighbours; a handful of papers sit on a line in PCA order.
        if n < 2:
            return np.zeros((n, 2)), "single"
        from sklearn.decomposition import PCA

        pcs = PCA(n_components=min(2, n - 1)).fit_transform(vectors)
        return np.pad(pcs, ((0, 0), (0, 2 - pcs.shape[1]))), "pca"
    from openTSNE import TSNE

    tsne = TSNE(
        perplexity=min(PERPLEXITY, (n - 1) / 3),
        metric="cosine",
        initialization="pca",
        early_exaggeration_iter=EXAGGERATION_ITER,
        n_iter=ITER,
        n_jobs=2,
        random_state=SEED,
        verbose=False,
    )
    return np.asarray(tsne.fit(vectors)), f"openTSNE perplexity {min(PERPLEXITY, (n - 1) / 3):g}"


def place(reference: np.ndarray, positions: np.ndarray, new: np.ndarray) -> np.ndarray:
    """Positions of new vectors in an existing layout, the layout itself unchanged."""
    if len(new) == 0:
        return np.zeros((0, 2))
    if len(reference) < 5:
        # Too few to learn affinities from: beside the nearest laid-out paper.
        nearest = np.asarray(new @ reference.T).argmax(axis=1)
        return positions[nearest] + 0.01
    from openTSNE import TSNEEmbedding, affinity

    aff = affinity.PerplexityBasedNN(
        reference,
        perplexity=min(PERPLEXITY, (len(reference) - 1) / 3),
        metric="cosine",
        n_jobs=2,
        random_state=SEED,
        verbose=False,
    )
    embedding = TSNEEmbedding(positions, aff, n_jobs=2, random_state=SEED)
    return np.asarray(embedding.transform(new, n_iter=100))


def build(
    papers: list[Paper],
    vectors: np.ndarray,
    themes: int = 0,
) -> ConferenceMap:
    """A fresh map of these papers (vectors row by row)."""
    clock = time.perf_counter()
    xy, method = layout(vectors)
    laid = time.perf_counter()
    labels, centroids = cluster(vectors, themes or theme_count(len(papers)))
    found = build_themes(papers, vectors, labels, centroids)
    done = time.perf_counter()
    return ConferenceMap(
        ids=[p.id for p in papers],
        keys=[p.key for p in papers],
        x=[round(float(v), 3) for v in xy[:, 0]],
        y=[round(float(v), 3) for v in xy[:, 1]],
        theme=[int(t) for t in labels],
        themes=found,
        centroids=np.round(centroids, 5).tolist(),
        method=method,
        seconds={"layout": round(laid - clock, 2), "themes": round(done - laid, 2)},
    )


def update(old: ConferenceMap, papers: list[Paper], vectors: np.ndarray) -> ConferenceMap:
    """The old map with removed papers gone and new ones placed and given their nearest theme."""
    clock = time.perf_counter()
    at = {pid: i for i, pid in enumerate(old.ids)}
    kept = [i for i, p in enumerate(papers) if p.id in at and old.keys[at[p.id]] == p.key]
    fresh = [i for i, p in enumerate(papers) if i not in set(kept)]
    xy = np.zeros((len(papers), 2))
    labels = np.zeros(len(papers), dtype=int)
    for i in kept:
        j = at[papers[i].id]
        xy[i] = (old.x[j], old.y[j])
        labels[i] = old.theme[j]
    centroids = np.asarray(old.centroids, dtype=np.float32)
    if fresh:
        xy[fresh] = place(vectors[kept], xy[kept], vectors[fresh])
        labels[fresh] = assign(vectors[fresh], centroids)
    themes = build_themes(papers, vectors, labels, centroids)
    return old.model_copy(
        update={
            "ids": [p.id for p in papers],
            "keys": [p.key for p in papers],
            "x": [round(float(v), 3) for v in xy[:, 0]],
            "y": [round(float(v), 3) for v in xy[:, 1]],
            "theme": [int(t) for t in labels],
            "themes": themes,
            "placed": old.placed + len(fresh),
            "seconds": {"placed": round(time.perf_counter() - clock, 2)},
        }
    )


class MapStore:
    """The map of one index, kept with its derived indexes (store/derived.py): loaded when stored
    at the index's revision, else updated from the stored older map or built, then saved."""

    def __init__(
        self,
        settings: Settings,
        index: PaperIndex,
        embedder: Embedder,
        derived: DerivedStore | None = None,
    ) -> None:
        self.settings = settings
        self.index = index
        self.embedder_key = embedder_key(embedder)
        self.artifact: Artifact[ConferenceMap] = Artifact("map", self._build, _save_map, self._load)
        self._current = Current(self.artifact, derived)
        if derived is not None and settings.map.at_ingest:
            # Built with the other derived indexes at the end of an ingest that changed the
            # index, so the first look at the map does not wait for a layout.
            derived.register(self.artifact)

    def current(self) -> ConferenceMap:
        """The map of the index as it is now: kept, stored, updated, or built."""
        papers, revision = self.index.snapshot()
        cmap = self._current.get(papers, revision)
        cmap.revision = revision  # the store's manifest keeps it; the value says it too
        return cmap

    def _load(self, reader: Reader, _papers: Mapping[str, Paper]) -> ConferenceMap:
        stored = ConferenceMap.model_validate(reader.json("map"))
        if (
            stored.format != FORMAT
            or stored.embedder != self.embedder_key
            or stored.themes_asked != self.settings.map.themes
        ):
            raise DerivedMissing("map: built with other settings")
        return stored

    def _build(self, catalog: Mapping[str, Paper], old: ConferenceMap | None) -> ConferenceMap:
        ids, vectors = self.index.paper_vectors()
        rows = [i for i, pid in enumerate(ids) if pid in catalog]
        papers = [catalog[ids[i]] for i in rows]
        vectors = vectors[rows] if rows else np.zeros((0, 0), dtype=np.float32)
        stamp = {
            "collection": self.index.name,
            "embedder": self.embedder_key,
            "themes_asked": self.settings.map.themes,
        }
        if old is not None and old.embedder == self.embedder_key and old.ids and papers:
            known = {pid: key for pid, key in zip(old.ids, old.keys, strict=True)}
            new = sum(known.get(p.id) != p.key for p in papers)
            if (
                old.themes_asked == self.settings.map.themes
                and new <= self.settings.map.place_share * len(papers)
                and len(papers) - new >= 2
            ):
                return update(old, papers, vectors).model_copy(update=stamp)
        return build(papers, vectors, self.settings.map.themes).model_copy(update=stamp)


def _save_map(cmap: ConferenceMap, out: Writer) -> None:
    out.json("map", cmap.model_dump())


def themes_text(cmap: ConferenceMap) -> str:
    """Themes for people: size and label, largest first."""
    total = max(len(cmap), 1)
    return "\n".join(
        f"{t.size:5d}  {100 * t.size / total:4.1f}%  {t.label}"
        for t in sorted(cmap.themes, key=lambda t: (-t.size, t.id))
    )


def dump(cmap: ConferenceMap) -> str:
    """The themes as JSON for scripts (`paperchat themes --json`)."""
    return json.dumps(
        {"papers": len(cmap), "revision": cmap.revision, "themes": cmap.themes_payload()},
        ensure_ascii=False,
        indent=2,
    )
