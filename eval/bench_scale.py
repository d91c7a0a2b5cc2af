"""Scale benchmark: retrieval latency at ~50,000 chunks, and scale-out on a Chroma server.

Part 1 (index size). The 4,302-paper corpus is indexed as is (about 34,000 sentence chunks),
then again with replicas (distinct ids, same texts) added until the index holds --chunks
chunks. Replicas reuse the originals' vectors through the embedding cache, so building the big
index costs Chroma writes, not model time. Each eval/scale.jsonl question is then searched in
hybrid, dense and bm25 mode at both sizes (query embedding included, never cached) and p50/p95
are printed.

Part 2 (scale-out). A `chroma run` server is started on a free loopback port, the corpus is
ingested into it, and for every question the top-5 paper ids from the server must equal those
of the embedded index. Then two app processes (`paperchat serve` on two ports) are started
against the same server and must answer the same questions identically (and like embedded).

    python eval/bench_scale.py                  # full: whole corpus, 50k chunks
    python eval/bench_scale.py --limit 300      # quick: 300 papers, 3x replicated

Exits 0 with a message when the corpus is absent; 1 when a scale-out check fails.
The indexes and the embedding cache live under --data-dir (default .paperchat/bench-scale), so
only the first run pays for embedding the corpus.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from eval.metrics import percentile  # noqa: E402
from eval.procs import App, ChromaServer, clean_env  # noqa: E402
from rag.app.pipeline import Pipeline  # noqa: E402
from rag.models import Paper  # noqa: E402
from rag.protocols import Embedder  # noqa: E402
from rag.retrieval.hybrid import HybridRetriever, KeywordIndex  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.store.chunking import chunk_paper  # noqa: E402
from rag.store.embeddings import CachedEmbedder, LocalEmbedder  # noqa: E402
from rag.store.index import PaperIndex  # noqa: E402
from rag.store.loaders import load_paths  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "iclr2026_accepted.jsonl"
SCALE_SET = REPO / "eval" / "scale.jsonl"
MODES = ("hybrid", "dense", "bm25")
TOP = 5
AGREEMENT = 0.95  # share of questions whose server results must equal the embedded ones


def settings_for(data_dir: Path, **overrides: Any) -> Settings:
    """Default settings (no .env) with this data directory."""
    return Settings(_env_file=None, data_dir=data_dir, **overrides)  # type: ignore[call-arg]


def questions() -> list[str]:
    """The scale set's questions."""
    with SCALE_SET.open(encoding="utf-8") as fh:
        return [json.loads(line)["question"] for line in fh if line.strip()]


def seed_cache(source: Path, target: Path) -> int:
    """Merge another index's embedding cache into ours (same model, same texts): nothing that
    was embedded there is embedded again. Returns the number of vectors added."""
    if not source.is_file() or source.resolve() == target.resolve():
        return 0
    target.parent.mkdir(parents=True, exist_ok=True)
    # uri=True lets the source be attached read-only.
    db = sqlite3.connect(f"file:{target}", timeout=60, uri=True)
    try:
        db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT, digest TEXT, vector BLOB,"
            " PRIMARY KEY (model, digest))"
        )
        before = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
        db.execute("ATTACH DATABASE ? AS src", (f"file:{source}?mode=ro",))
        with db:
            db.execute(
                "INSERT OR IGNORE INTO vectors SELECT model, digest, vector FROM src.vectors"
            )
        db.execute("DETACH DATABASE src")
        return int(db.execute("SELECT count(*) FROM vectors").fetchone()[0] - before)
    finally:
        db.close()


def replicas(papers: Sequence[Paper], plain_chunks: int, target: int, settings: Settings) -> list:
    """Copies of the papers with distinct ids and keys (same texts) until `target` chunks."""
    out: list[Paper] = []
    total, r = plain_chunks, 0
    while total < target:
        r += 1
        for p in papers:
            if total >= target:
                break
            # Same title and abstract, so the same chunk texts: every vector is a cache hit.
            out.append(p.model_copy(update={"id": f"{p.id}~r{r}", "key": f"{p.key}r{r}"}))
            total += len(chunk_paper(p, settings.chunking))
    return out


def with_ef_search(index: PaperIndex, ef: int | None) -> PaperIndex:
    """What-if: collections this index creates get HNSW ef_search=ef (None: the app's default).

    Chroma fixes a collection's HNSW configuration when it is created, so this only affects new
    indexes; it exists to measure a proposed change to rag/store/index.py without editing it.
    """
    if ef:
        create = index.client.get_or_create_collection

        def create_with_ef(name: str, **kw: Any) -> Any:
            if "configuration" in kw:
                kw["configuration"] = {"hnsw": {**kw["configuration"]["hnsw"], "ef_search": ef}}
            return create(name, **kw)

        index.client.get_or_create_collection = create_with_ef  # type: ignore[method-assign]
    return index


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    """fn's result and its wall time in seconds."""
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def measure(
    indexes: dict[str, tuple[PaperIndex, Settings]],
    model: Embedder,
    qs: Sequence[str],
    rounds: int = 2,
) -> dict[str, dict[str, Any]]:
    """p50/p95 search latency per index and mode; the query embedder never caches.

    The indexes take turns on every question, so both sizes see the same CPU contention.
    """
    retrievers: dict[str, HybridRetriever] = {}
    out: dict[str, dict[str, Any]] = {}
    for name, (index, settings) in indexes.items():
        queries = CachedEmbedder(model, None, memory_items=0)
        reader = PaperIndex(settings, queries, index.client)
        keywords = KeywordIndex(reader)
        retriever = HybridRetriever(reader, queries, keywords, settings)
        _, bm25_build = timed(keywords.bm25)
        retriever.search(qs[0], k=TOP, mode="dense")  # warm-up: HNSW pages, model session
        retrievers[name] = retriever
        out[name] = {
            "chunks": reader.chunk_count(),
            "papers": len(reader.catalog()),
            "bm25_build_ms": round(bm25_build * 1000, 1),
        }
    lat: dict[tuple[str, str], list[float]] = {(n, m): [] for n in indexes for m in MODES}
    for _ in range(rounds):
        for mode in MODES:
            for q in qs:
                for name, retriever in retrievers.items():
                    _, took = timed(lambda r=retriever, q=q, m=mode: r.search(q, k=TOP, mode=m))
                    lat[(name, mode)].append(took)
    for (name, mode), values in lat.items():
        out[name][mode] = {
            "p50_ms": round((percentile(values, 50) or 0.0) * 1000, 1),
            "p95_ms": round((percentile(values, 95) or 0.0) * 1000, 1),
        }
    return out


def top_ids(pipe: Pipeline, qs: Sequence[str], mode: str) -> list[list[str]]:
    """Top-5 paper ids per question."""
    return [[h.paper.id for h in pipe.search(q, k=TOP, mode=mode)] for q in qs]  # type: ignore[arg-type]


def scale_out(
    papers: Sequence[Paper],
    embedded: Pipeline,
    embedder: CachedEmbedder,
    qs: Sequence[str],
    apps: int,
    app_questions: int,
    say: Callable[[str], None],
    ef_search: int | None = None,
) -> dict[str, Any]:
    """Ingest into a Chroma server; compare its results with embedded mode; serve N apps."""
    from gradio_client import Client

    work = Path(tempfile.mkdtemp(prefix="paperchat-scaleout-"))
    server = ChromaServer(work / "chroma").start()
    out: dict[str, Any] = {"port": server.port}
    try:
        ssettings = settings_for(work / "client", chroma={"host": "127.0.0.1", "port": server.port})
        sindex = with_ef_search(PaperIndex(ssettings, embedder), ef_search)
        spipe = Pipeline(ssettings, index=sindex)
        say(f"ingesting {len(papers)} papers into chroma run on 127.0.0.1:{server.port}…")
        report, took = timed(lambda: spipe.index.ingest(papers))
        out["ingest_s"] = round(took, 1)
        out["chunks"] = spipe.index.chunk_count()
        out["papers"] = len(spipe.index.catalog())
        for mode in MODES:
            a, b = top_ids(embedded, qs, mode), top_ids(spipe, qs, mode)
            same = sum(x == y for x, y in zip(a, b, strict=True))
            out[f"top5_match_{mode}"] = f"{same}/{len(qs)}"
            first = sum(x[:1] == y[:1] for x, y in zip(a, b, strict=True))
            out[f"top1_match_{mode}"] = f"{first}/{len(qs)}"
            out.setdefault("mismatches", []).extend(
                {"mode": mode, "question": q, "embedded": x, "server": y}
                for q, x, y in zip(qs, a, b, strict=True)
                if x != y
            )
        env = clean_env(
            PAPERCHAT_CHROMA__HOST="127.0.0.1",
            PAPERCHAT_CHROMA__PORT=str(server.port),
            GRADIO_TEMP_DIR=str(work / "gradio-tmp"),
        )
        say(f"starting {apps} app processes against the same server…")
        running: list[App] = []
        try:
            for i in range(apps):
                running.append(App(work / f"app{i}", work / f"run{i}", env=env))
            asked = list(qs[:app_questions])
            replies: list[list[dict[str, Any]]] = []
            for app in running:
                client = Client(app.url, verbose=False)
                replies.append([client.predict(question=q, api_name="/ask") for q in asked])
                client.close()
            reference = [embedded.ask(q).payload() for q in asked]
            same_as_embedded = sum(
                _answer(a) == _answer(b) for a, b in zip(replies[0], reference, strict=True)
            )
            out["apps"] = apps
            out["app_questions"] = len(asked)
            # Two processes over one server must agree exactly (timings aside).
            out["apps_identical"] = all(
                [_untimed(x) for x in r] == [_untimed(x) for x in replies[0]] for r in replies
            )
            out["apps_match_embedded"] = f"{same_as_embedded}/{len(asked)}"
        finally:
            for app in running:
                app.stop()
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    return out


def _untimed(payload: dict[str, Any]) -> dict[str, Any]:
    """An answer without its timings (which differ run to run)."""
    return {k: v for k, v in payload.items() if k != "timings"}


def _answer(payload: dict[str, Any]) -> tuple[str, list[str]]:
    """What the user reads: the text and the cited papers (scores may differ in the last bits)."""
    return payload["answer"], [c["paper_id"] for c in payload["citations"]]


def run(
    corpus: Path = DEFAULT_CORPUS,
    limit: int | None = None,
    chunks: int | None = None,
    data_dir: Path | None = None,
    cache_from: Path | None = None,
    server: bool = True,
    apps: int = 2,
    app_questions: int = 5,
    say: Callable[[str], None] = print,
    ef_search: int | None = None,
) -> dict[str, Any] | None:
    """The whole benchmark; None when the corpus is absent."""
    if not corpus.is_file():
        return None
    name = "bench-scale" + (f"-{limit}" if limit else "") + (f"-ef{ef_search}" if ef_search else "")
    data_dir = data_dir or REPO / ".paperchat" / name
    cache = data_dir / "embed_cache.sqlite"
    if cache_from:
        seeded = seed_cache(cache_from, cache)
        if seeded:
            say(f"embedding cache seeded with {seeded} vectors from {cache_from}")
    loaded = load_paths([corpus])
    papers = loaded.papers[:limit] if limit else loaded.papers
    plain_s = settings_for(data_dir / "plain")
    embedder = CachedEmbedder(LocalEmbedder(), cache, memory_items=200_000)
    qs = questions()
    result: dict[str, Any] = {"corpus_papers": len(papers), "ef_search": ef_search or "default"}

    plain = with_ef_search(PaperIndex(plain_s, embedder), ef_search)
    say(f"indexing {len(papers)} papers (first run embeds them; later runs reuse the cache)…")
    _, took = timed(lambda: plain.ingest(papers))
    result["plain_ingest_s"] = round(took, 1)
    plain_chunks = plain.chunk_count()
    target = chunks or (50_000 if not limit else 3 * plain_chunks)

    big_s = settings_for(data_dir / "big")
    copies = replicas(papers, plain_chunks, target, plain_s)
    big = with_ef_search(PaperIndex(big_s, embedder), ef_search)
    say(f"writing {len(copies)} replicas (cached vectors) to reach {target:,} chunks…")
    _, took = timed(lambda: big.ingest([*papers, *copies]))
    result["big_ingest_s"] = round(took, 1)

    say(f"measuring {len(qs)} questions x {len(MODES)} modes x 2 rounds at two index sizes…")
    result.update(measure({"plain": (plain, plain_s), "big": (big, big_s)}, embedder.inner, qs))
    big.client.close()
    if server:
        embedded = Pipeline(plain_s, embedder, PaperIndex(plain_s, embedder, client=plain.client))
        result["scale_out"] = scale_out(
            papers, embedded, embedder, qs, apps, app_questions, say, ef_search
        )
    return result


def tables(result: dict[str, Any]) -> str:
    """Latency table, and the scale-out checks."""
    lines = [
        f"{'index':>6} | {'papers':>6} | {'chunks':>7} | "
        + " | ".join(f"{m + ' p50':>11} | {m + ' p95':>11}" for m in MODES)
        + " | bm25 build",
    ]
    lines.append("-" * len(lines[0]))
    for name in ("plain", "big"):
        r = result[name]
        cells = " | ".join(f"{r[m]['p50_ms']:>8.1f} ms | {r[m]['p95_ms']:>8.1f} ms" for m in MODES)
        lines.append(
            f"{name:>6} | {r['papers']:>6} | {r['chunks']:>7,} | {cells} | "
            f"{r['bm25_build_ms']:.0f} ms"
        )
    lines.append(f"ingest: plain {result['plain_ingest_s']} s, replicas {result['big_ingest_s']} s")
    so = result.get("scale_out")
    if so:
        lines.append(
            f"scale-out: chroma server ingest {so['chunks']:,} chunks in {so['ingest_s']} s; "
            "equal to embedded, top-1 / top-5: "
            + ", ".join(f"{m} {so[f'top1_match_{m}']} / {so[f'top5_match_{m}']}" for m in MODES)
        )
        lines.append(
            f"scale-out: {so['apps']} app processes on one server answered "
            f"{so['app_questions']} questions identically: {so['apps_identical']}; "
            f"same as embedded: {so['apps_match_embedded']}"
        )
    return "\n".join(lines)


def _ratio(cell: str) -> float:
    if cell in ("True", "False"):
        return 1.0 if cell == "True" else 0.0
    done, total = cell.split("/")
    return int(done) / int(total) if int(total) else 1.0


def passed(result: dict[str, Any]) -> bool:
    """Scale-out holds: BM25 results identical; dense and hybrid top-1 and top-5 identical for
    at least 95% of questions; the app processes identical to each other and, for at least 95%
    of questions, to embedded mode.

    Dense retrieval is approximate (HNSW): the embedded index and the server build their own
    graphs, which can disagree at the edge of the candidate list and so reorder near-ties in
    the fused top-5. The agreement rates are printed; 95% is the bar.
    """
    so = result.get("scale_out")
    if not so:
        return True
    exact = _ratio(so["top5_match_bm25"]) == 1.0
    close = all(
        _ratio(so[f"top1_match_{m}"]) >= AGREEMENT and _ratio(so[f"top5_match_{m}"]) >= AGREEMENT
        for m in MODES
    )
    apps = so["apps_identical"] and _ratio(str(so["apps_match_embedded"])) >= AGREEMENT
    return exact and close and apps


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--limit", type=int, help="use only the first N papers (a quick version)")
    ap.add_argument("--chunks", type=int, help="chunks in the big index (default 50,000)")
    ap.add_argument("--data-dir", type=Path, help="indexes and cache (default .paperchat/...)")
    ap.add_argument("--cache-from", type=Path, help="seed the embedding cache from this sqlite")
    ap.add_argument("--no-server", action="store_true", help="skip the Chroma server part")
    ap.add_argument("--apps", type=int, default=2, help="app processes on the server")
    ap.add_argument(
        "--ef-search", type=int, help="what-if: build new collections with this HNSW ef_search"
    )
    ap.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    if not args.corpus.is_file():
        print(f"skipped: corpus {args.corpus} not found (set --corpus)")
        return 0
    result = run(
        args.corpus,
        args.limit,
        args.chunks,
        args.data_dir,
        args.cache_from,
        server=not args.no_server,
        apps=args.apps,
        ef_search=args.ef_search,
    )
    assert result is not None
    print(tables(result))
    for miss in (result.get("scale_out") or {}).get("mismatches", [])[:5]:
        print(
            f"  ! {miss['mode']}: {miss['question'][:70]!r}: {miss['embedded']} vs {miss['server']}"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0 if passed(result) else 1


if __name__ == "__main__":
    sys.exit(main())
