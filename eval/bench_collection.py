"""Latency of list and count questions over the whole scale index (target: p95 ≤ 500 ms offline).

    python -m eval.bench_collection --data-dir /work/idx/eval-scale [--repeat 3]

Asks every list, count and filter question of eval/collection.jsonl through Pipeline.ask
(planner, whole-collection match, quotes, answer object). The catalog view and the keyword
index are built once per index revision, before the timed runs, as a running app has them;
their build time is printed apart. Query embeddings are not cached between runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from rag.app.pipeline import Pipeline
from rag.settings import Settings
from rag.store.embeddings import make_embedder

from .collection import read, warm
from .metrics import percentile
from .runner import PerQuestionEmbedder


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", type=Path, default=Path("/work/idx/eval-scale"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    settings = Settings(data_dir=args.data_dir)
    cached = make_embedder(settings)
    embedder = PerQuestionEmbedder(cached.inner, getattr(cached, "cache_key", None))
    pipe = Pipeline(settings, embedder=embedder)  # type: ignore[arg-type]
    papers = len(pipe.catalog())
    start = time.perf_counter()
    warm(pipe)
    built = time.perf_counter() - start
    questions = [i["question"] for i in read() if i["kind"] in ("list", "count", "filter")]
    pipe.ask(questions[0])  # first query loads the ONNX session
    times: list[float] = []
    load_before = os.getloadavg()
    cpu = time.process_time()
    wall = time.perf_counter()
    for _ in range(args.repeat):
        for q in questions:
            embedder.clear()
            t = time.perf_counter()
            pipe.ask(q)
            times.append((time.perf_counter() - t) * 1000)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    load_after = os.getloadavg()
    print(f"papers in index: {papers}")
    print(f"catalog view + keyword index build (once per revision): {built * 1000:.0f} ms")
    print(f"questions: {len(questions)} x {args.repeat} runs = {len(times)} answers")
    print(
        f"latency ms: p50 {percentile(times, 50):.0f}  p95 {percentile(times, 95):.0f}  "
        f"max {max(times):.0f}  mean {statistics.mean(times):.0f}"
    )
    # The machine is shared: latency means little without the load it was measured under.
    print(
        f"timed runs: wall {wall:.1f} s, process CPU {cpu:.1f} s "
        f"({cpu / len(times) * 1000:.0f} ms CPU per answer); load average 1 min "
        f"{load_before[0]:.1f} before, {load_after[0]:.1f} after"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
