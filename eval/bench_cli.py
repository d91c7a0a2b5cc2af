"""CLI start-up benchmark: `paperchat --help` and a first offline `ask` on the sample, wall clock.

Run `python eval/bench_cli.py` (or `make bench-cli`). Each measurement is a new process, as a
user typing the command gets: `--help` must not pay for the heavy libraries, and the first
`ask` pays for everything a cold process needs (imports, opening Chroma, loading the ONNX
model, embedding the question, answering). The sample index is built once in a temporary
directory before timing. Also prints which heavy libraries each command imported.

Modules are byte-compiled as an installed package's are (`pip install` compiles them): the
untimed runs before timing write the bytecode cache even when PYTHONDONTWRITEBYTECODE is set
in the caller's environment; `--no-bytecode` times compiling every module from source instead.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "data" / "iclr2026_seed_abstracts.txt"
TARGET_HELP_S = 0.5
TARGET_ASK_S = 1.5
HEAVY = ("chromadb", "gradio", "onnxruntime", "llama_index", "openai", "matplotlib")
# Not asked anywhere else: no cache of the question's embedding exists when it is timed.
QUESTIONS = [
    "How does Qronos correct quantization error?",
    "Which paper proposes SHAPO?",
    "What do the abstracts say about speculative decoding?",
]

# Prints the heavy top-level packages a command imported, after it ran (at interpreter exit).
_PROBE = """
import atexit, sys
def _report():
    heavy = sorted({m.split('.')[0] for m in sys.modules} & set(%r))
    sys.stderr.write('HEAVY=' + ','.join(heavy) + '\\n')
atexit.register(_report)
sys.argv = ['paperchat', *sys.argv[1:]]
from rag.app.cli import main
raise SystemExit(main())
"""


def run(
    args: list[str], cwd: Path, probe: bool = False, bytecode: bool = True
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall-clock seconds of one `paperchat ARGS` process (the same interpreter as this one)."""
    if probe:
        cmd = [sys.executable, "-c", _PROBE % (HEAVY,), *args]
    else:
        cmd = [sys.executable, "-m", "rag", *args]
    env = {**os.environ, "PYTHONPATH": str(REPO), "GRADIO_ANALYTICS_ENABLED": "False"}
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    elapsed = time.perf_counter() - start
    CPU.append(_children_cpu() - sum(CPU))
    if done.returncode != 0:
        raise SystemExit(f"`paperchat {' '.join(args)}` failed ({done.returncode}):\n{done.stderr}")
    return elapsed, done


# CPU seconds (user + system) of each finished child, in order: on a shared, busy machine the
# wall clock includes waiting for a core, CPU time does not.
CPU: list[float] = []


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def heavy_of(done: subprocess.CompletedProcess[str]) -> str:
    """The HEAVY= line the probe wrote."""
    for line in done.stderr.splitlines():
        if line.startswith("HEAVY="):
            return line.removeprefix("HEAVY=") or "none"
    return "?"


def summary(
    name: str, times: list[float], cpu: list[float], target: float
) -> dict[str, float | str]:
    """Min, median and max of the runs (wall clock), median CPU time, against the target."""
    med = statistics.median(times)
    return {
        "command": name,
        "runs": len(times),
        "min_s": round(min(times), 3),
        "median_s": round(med, 3),
        "max_s": round(max(times), 3),
        "cpu_median_s": round(statistics.median(cpu), 3),
        "target_s": target,
        "meets_target": "yes" if med <= target else "NO",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="processes per command (default 5)")
    parser.add_argument("--json", action="store_true", help="print the table as JSON")
    parser.add_argument(
        "--no-bytecode",
        action="store_true",
        help="never write or read cached bytecode: every module compiles from source each run",
    )
    args = parser.parse_args()
    bytecode = not args.no_bytecode

    work = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    try:
        data = work / "data"
        run(["ingest", "-q", "--data-dir", str(data), str(SAMPLE)], cwd=work, bytecode=bytecode)
        _, probe_help = run(["--help"], cwd=work, probe=True, bytecode=bytecode)
        ask = ["ask", "--data-dir", str(data), QUESTIONS[0]]
        _, probe_ask = run(ask, cwd=work, probe=True, bytecode=bytecode)
        first = len(CPU)
        help_times = [run(["--help"], cwd=work, bytecode=bytecode)[0] for _ in range(args.runs)]
        help_cpu = CPU[first:]
        ask_times = []
        for i in range(args.runs):
            # A fresh copy of the index each run: no embedding cache entry for the question.
            fresh = work / f"data-{i}"
            shutil.copytree(data, fresh)
            question = QUESTIONS[i % len(QUESTIONS)]
            ask = ["ask", "--data-dir", str(fresh), question]
            ask_times.append(run(ask, cwd=work, bytecode=bytecode)[0])
        ask_cpu = CPU[-args.runs :]
    finally:
        shutil.rmtree(work, ignore_errors=True)

    rows = [
        {
            **summary("paperchat --help", help_times, help_cpu, TARGET_HELP_S),
            "heavy": heavy_of(probe_help),
        },
        {
            **summary("paperchat ask (first, offline, sample)", ask_times, ask_cpu, TARGET_ASK_S),
            "heavy": heavy_of(probe_ask),
        },
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"CLI start-up, {args.runs} new processes each, {os.cpu_count()} cores, wall clock (s)")
    print(f"load average (1 min): {os.getloadavg()[0]:.1f}; wall clock includes waiting for a core")
    print(f"bytecode cache: {'on (as installed)' if bytecode else 'off (compiled from source)'}")
    print(
        f"{'command':40} {'min':>6} {'median':>7} {'max':>6} {'cpu':>6} {'target':>7}  ok   "
        "heavy imports"
    )
    for r in rows:
        print(
            f"{r['command']:40} {r['min_s']:6.3f} {r['median_s']:7.3f} {r['max_s']:6.3f} "
            f"{r['cpu_median_s']:6.3f} {r['target_s']:7.2f}  {r['meets_target']:4} {r['heavy']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
