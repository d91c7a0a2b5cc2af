"""Conference-map benchmark: layout and themes time and memory, placement, share of ingest.

    python eval/bench_map.py --data-dir DIR [--data-dir DIR2 ...] [--compare]
    python eval/bench_map.py --ingest --corpus ../shared/data/iclr2026_accepted.jsonl

For each index (a data dir holding one collection, read only: nothing is written to it) it
prints the seconds and the peak memory added by the layout (openTSNE) and the themes (k-means,
c-TF-IDF), the 10-nearest-neighbour preservation of the layout, and the seconds to place 1% of
the papers into the layout of the others (the incremental path). `--compare` adds openTSNE at
its default iterations and UMAP on the same vectors. `--ingest` ingests the corpus into a
fresh temporary index (fresh embedding cache: every abstract embedded) and then builds the
map, side by side in one process: the map's share of the ingest time (target <= 25%).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.map.conference_map import MapStore, build, layout, place  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.store.embeddings import make_embedder  # noqa: E402
from rag.store.index import PaperIndex  # noqa: E402
from rag.store.loaders import load_paths  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "data" / "iclr2026_accepted.jsonl"
TARGET_SHARE = 0.25
NEIGHBOURS = 10
T = TypeVar("T")


def peak_mb() -> float:
    """Peak resident memory of this process so far, MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(fn: Callable[[], T]) -> tuple[T, float, float]:
    """fn's result, its wall seconds and the peak memory it added (MiB) over the peak before."""
    before, clock = peak_mb(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - clock, max(0.0, peak_mb() - before)


def preserved(
    vectors: np.ndarray, xy: np.ndarray, k: int = NEIGHBOURS, sample: int = 2000
) -> float:
    """Mean share of each paper's k nearest neighbours (cosine) that stay its k nearest in 2D."""
    from sklearn.neighbors import NearestNeighbors

    rows = np.random.default_rng(0).choice(len(vectors), min(sample, len(vectors)), replace=False)
    high = NearestNeighbors(n_neighbors=k + 1, metric="cosine").fit(vectors)
    low = NearestNeighbors(n_neighbors=k + 1).fit(xy)
    a = high.kneighbors(vectors[rows], return_distance=False)[:, 1:]
    b = low.kneighbors(xy[rows], return_distance=False)[:, 1:]
    return float(np.mean([len(set(x) & set(y)) / k for x, y in zip(a, b, strict=True)]))


def settings_for(data_dir: Path) -> Settings:
    """Settings for data_dir, ignoring any .env."""
    return Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]


def bench_index(data_dir: Path, compare: bool) -> None:
    """Time and memory of the map of the index in data_dir (nothing written)."""
    settings = settings_for(data_dir)
    index = PaperIndex(settings, make_embedder(settings, cache=False))
    (ids, vectors), read_s, _ = timed(index.paper_vectors)
    catalog = index.catalog()
    rows = [i for i, pid in enumerate(ids) if pid in catalog]
    papers = [catalog[ids[i]] for i in rows]
    vectors = np.ascontiguousarray(vectors[rows])
    n = len(papers)
    print(f"\n== {data_dir}: {n:,} papers, {vectors.shape[1]} dims")
    print(f"read paper vectors from Chroma      {read_s:8.1f} s")
    cmap, build_s, build_mb = timed(lambda: build(papers, vectors))
    xy = np.column_stack([cmap.x, cmap.y])
    print(
        f"build (layout + themes)             {build_s:8.1f} s   +{build_mb:6.0f} MiB peak"
        f"   layout {cmap.seconds['layout']:.1f} s, themes {cmap.seconds['themes']:.1f} s"
    )
    print(f"themes                              {len(cmap.themes):8d}")
    print(f"{NEIGHBOURS}-NN preserved (2,000 sampled)     {preserved(vectors, xy):8.3f}")
    held = np.random.default_rng(1).choice(n, max(1, n // 100), replace=False)
    kept = np.setdiff1d(np.arange(n), held)
    _, place_s, place_mb = timed(lambda: place(vectors[kept], xy[kept], vectors[held]))
    print(
        f"place {len(held):,} papers (1%) into the rest   {place_s:8.1f} s   +{place_mb:6.0f} MiB"
    )
    print(f"peak memory of this process          {peak_mb():8.0f} MiB")
    if compare:
        from openTSNE import TSNE

        default, s, _ = timed(
            lambda: np.asarray(
                TSNE(metric="cosine", n_jobs=2, random_state=0, verbose=False).fit(vectors)
            )
        )
        print(
            f"openTSNE defaults (750 iterations)  {s:8.1f} s   "
            f"{NEIGHBOURS}-NN {preserved(vectors, default):.3f}"
        )
        try:
            import umap
        except ImportError:
            print("UMAP skipped: umap-learn is not installed (pip install umap-learn)")
            return
        reducer = umap.UMAP(metric="cosine", random_state=0, n_jobs=1)
        u, s, _ = timed(lambda: np.asarray(reducer.fit_transform(vectors)))
        print(
            f"UMAP (cosine, 15 neighbours)        {s:8.1f} s   "
            f"{NEIGHBOURS}-NN {preserved(vectors, u):.3f}"
        )
        _, s, _ = timed(lambda: layout(vectors))
        print(f"ours again (layout only)            {s:8.1f} s")


def bench_ingest(corpus: Path, limit: int | None) -> None:
    """Cold ingest of the corpus, then the map, in a fresh temporary index: the map's share."""
    papers = load_paths([corpus]).papers
    papers = papers[:limit] if limit else papers
    work = Path(tempfile.mkdtemp(prefix="bench-map-"))
    try:
        settings = settings_for(work / "data")
        embedder = make_embedder(settings)
        embedder.inner.embed(["warm up"])  # the model's load is not the ingest's
        index = PaperIndex(settings, embedder)
        report, ingest_s, _ = timed(lambda: index.ingest(papers))
        store = MapStore(settings, index, embedder)
        cmap, map_s, map_mb = timed(store.current)
        print(f"\n== ingest of {len(papers):,} papers from {corpus.name} (fresh index and cache)")
        print(f"ingest (load excluded, embed all)   {ingest_s:8.1f} s   added {report.added:,}")
        print(
            f"map at ingest (vectors, layout,     {map_s:8.1f} s   +{map_mb:6.0f} MiB peak\n"
            f"  themes, save)                     {len(cmap):,} papers, {len(cmap.themes)} themes"
        )
        share = map_s / ingest_s
        verdict = "meets" if share <= TARGET_SHARE else "MISSES"
        print(
            f"map / ingest                        {share:8.1%}   ({verdict} <= {TARGET_SHARE:.0%})"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, action="append", default=[])
    parser.add_argument("--compare", action="store_true", help="also openTSNE defaults and UMAP")
    parser.add_argument("--ingest", action="store_true", help="the map's share of a cold ingest")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    if not args.data_dir and not args.ingest:
        parser.error("give --data-dir and/or --ingest")
    for d in args.data_dir:
        bench_index(d, args.compare)
    if args.ingest:
        if not args.corpus.is_file():
            print(f"skipped the ingest share: {args.corpus} not found")
        else:
            bench_ingest(args.corpus, args.limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
