"""Load benchmark: N concurrent simulated users drive the running app through gradio_client.

Starts `python -m rag serve` on a free loopback port over an index (the 19-paper sample by
default, built in a temporary directory), then for each N in --users runs N users at once, each
with its own gradio_client session asking --questions questions from eval/golden.jsonl through
the public `/ask` endpoint, offline (extractive answers). Prints throughput and p50/p95 latency
per N, the app's peak memory, failures, and cross-user mix-ups: every response must echo the
question its user sent, and the same question must always get the same answer.

    python eval/bench_load.py                      # N = 1, 4, 16; 5 questions per user
    python eval/bench_load.py --users 1 4 --questions 3 --json out.json

Exit status: 0 when no request failed or got another user's answer, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from eval.metrics import percentile  # noqa: E402
from eval.procs import App, clean_env  # noqa: E402

SAMPLE = REPO / "data" / "iclr2026_seed_abstracts.txt"
GOLDEN = REPO / "eval" / "golden.jsonl"


# -- processes ---------------------------------------------------------------------------------


def rss_mb(pid: int) -> tuple[float, float]:
    """(current, peak) resident set size of a process in MiB: psutil, else /proc."""
    try:
        import psutil  # type: ignore[import-untyped]

        info = psutil.Process(pid).memory_info()
        peak = getattr(info, "peak_wset", None) or _proc_status(pid).get("VmHWM", 0) / 1024
        return info.rss / 2**20, max(peak, info.rss / 2**20)
    except ImportError:
        status = _proc_status(pid)
        return status.get("VmRSS", 0) / 1024, status.get("VmHWM", 0) / 1024


def _proc_status(pid: int) -> dict[str, float]:
    """Numeric kB fields of /proc/<pid>/status."""
    out: dict[str, float] = {}
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return out
    for line in text.splitlines():
        key, _, value = line.partition(":")
        parts = value.split()
        if parts and parts[0].isdigit():
            out[key] = float(parts[0])
    return out


def build_sample_index(data_dir: Path) -> None:
    """Index the 19 sample abstracts (the corpus eval/golden.jsonl is written for)."""
    out = subprocess.run(
        [sys.executable, "-m", "rag", "ingest", str(SAMPLE), "--data-dir", str(data_dir), "-q"],
        cwd=data_dir.parent,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"ingest failed ({out.returncode}): {out.stderr[-2000:]}")


# -- load --------------------------------------------------------------------------------------


def golden_questions() -> list[str]:
    """Questions of the golden set, in file order (conversations contribute their last turn)."""
    with GOLDEN.open(encoding="utf-8") as fh:
        return [json.loads(line)["question"] for line in fh if line.strip()]


class Answers:
    """First answer seen per question: a later, different answer means responses got mixed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._first: dict[str, str] = {}

    def consistent(self, question: str, result: dict[str, Any]) -> bool:
        """Record the answer; False when this question already got another answer."""
        key = json.dumps([result.get("answer"), [s["paper_id"] for s in result["sources"]]])
        with self._lock:
            return self._first.setdefault(question, key) == key


def run_level(
    url: str,
    users: int,
    per_user: int,
    questions: Sequence[str],
    answers: Answers,
    deadline: float,
    auth: tuple[str, str] | None = None,
) -> dict[str, Any]:
    """N users at once, each with its own session asking its own questions; latencies and faults."""
    from gradio_client import Client

    latencies: list[float] = []
    failures: list[str] = []
    mixups: list[str] = []
    lock = threading.Lock()
    started: list[float] = []
    # Clients connect first; the clock starts when the last one is ready.
    start_gate = threading.Barrier(users, action=lambda: started.append(time.perf_counter()))

    def user(u: int) -> None:
        try:
            client = Client(url, auth=auth, verbose=False)
        except Exception as exc:  # a user who cannot even connect is a failure, not a crash
            with lock:
                failures.append(f"user {u}: connect: {type(exc).__name__}: {exc}"[:300])
            start_gate.abort()
            return
        try:
            start_gate.wait(timeout=120)
        except threading.BrokenBarrierError:
            pass
        try:
            for i in range(per_user):
                if time.monotonic() > deadline:
                    with lock:
                        failures.append(f"user {u}: time budget exhausted before question {i}")
                    return
                # Users ask different questions at the same moment: a mix-up cannot hide.
                q = questions[(u * per_user + i * 7 + u) % len(questions)]
                t0 = time.perf_counter()
                try:
                    result = client.predict(question=q, api_name="/ask")
                except Exception as exc:
                    with lock:
                        failures.append(f"user {u}: {type(exc).__name__}: {exc}"[:300])
                    continue
                took = time.perf_counter() - t0
                with lock:
                    latencies.append(took)
                    if not isinstance(result, dict) or result.get("question") != q:
                        got = result.get("question") if isinstance(result, dict) else result
                        mixups.append(f"user {u} asked {q[:60]!r}, got {str(got)[:60]!r}")
                    elif result.get("error"):
                        failures.append(f"user {u}: answer error: {result['error'][:200]}")
                    elif not answers.consistent(q, result):
                        mixups.append(f"user {u}: {q[:60]!r} got a different answer than before")
        finally:
            client.close()

    threads = [threading.Thread(target=user, args=(u,), daemon=True) for u in range(users)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, deadline - time.monotonic() + 30))
    wall = time.perf_counter() - (started[0] if started else t0)
    hung = sum(t.is_alive() for t in threads)
    if hung:
        failures.append(f"{hung} users still waiting at the deadline")
    return {
        "users": users,
        "requests": len(latencies),
        "failures": len(failures),
        "mixups": len(mixups),
        "examples": (failures + mixups)[:5],
        "wall_s": round(wall, 3),
        "throughput_rps": round(len(latencies) / wall, 3) if wall else 0.0,
        "p50_ms": round((percentile(latencies, 50) or 0.0) * 1000, 1),
        "p95_ms": round((percentile(latencies, 95) or 0.0) * 1000, 1),
        "max_ms": round(max(latencies, default=0.0) * 1000, 1),
    }


def run(
    users: Sequence[int] = (1, 4, 16),
    per_user: int = 5,
    data_dir: Path | None = None,
    max_seconds: float = 600,
    say: Any = print,
) -> dict[str, Any]:
    """The whole benchmark; returns per-level results and the app's memory."""
    work = Path(tempfile.mkdtemp(prefix="paperchat-load-"))
    try:
        if data_dir is None:
            data_dir = work / "data"
            say("building the sample index (19 papers)…")
            build_sample_index(data_dir)
        say(f"starting the app over {data_dir}…")
        t0 = time.monotonic()
        app = App(data_dir, work / "app")
        startup = time.monotonic() - t0
        try:
            _, idle_peak = rss_mb(app.proc.pid)
            questions = golden_questions()
            answers = Answers()
            deadline = time.monotonic() + max_seconds
            run_level(app.url, 1, 1, questions, answers, deadline)  # warm-up: model, BM25
            levels = []
            for n in users:
                level = run_level(app.url, n, per_user, questions, answers, deadline)
                level["rss_mb"], level["peak_rss_mb"] = (round(x, 1) for x in rss_mb(app.proc.pid))
                levels.append(level)
                say(
                    f"  N={n:>2}: {level['requests']} requests, "
                    f"{level['throughput_rps']:.2f} req/s, p50 {level['p50_ms']:.0f} ms, "
                    f"p95 {level['p95_ms']:.0f} ms, failures {level['failures']}, "
                    f"mix-ups {level['mixups']}"
                )
            _, peak = rss_mb(app.proc.pid)
            alive = app.proc.poll() is None
        finally:
            app.stop()
        return {
            "app_startup_s": round(startup, 1),
            "idle_peak_rss_mb": round(idle_peak, 1),
            "peak_rss_mb": round(peak, 1),
            "app_alive": alive,
            "questions_per_user": per_user,
            "levels": levels,
            "failures": sum(lv["failures"] for lv in levels),
            "mixups": sum(lv["mixups"] for lv in levels),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def table(result: dict[str, Any]) -> str:
    """The results as a text table."""
    head = f"{'users':>5} | {'requests':>8} | {'req/s':>6} | {'p50 ms':>7} | {'p95 ms':>7} | "
    head += f"{'max ms':>7} | {'RSS MiB':>7} | {'failures':>8} | {'mix-ups':>7}"
    lines = [head, "-" * len(head)]
    for lv in result["levels"]:
        lines.append(
            f"{lv['users']:>5} | {lv['requests']:>8} | {lv['throughput_rps']:>6.2f} | "
            f"{lv['p50_ms']:>7.0f} | {lv['p95_ms']:>7.0f} | {lv['max_ms']:>7.0f} | "
            f"{lv['rss_mb']:>7.0f} | {lv['failures']:>8} | {lv['mixups']:>7}"
        )
    lines.append(
        f"app peak RSS {result['peak_rss_mb']:.0f} MiB (idle {result['idle_peak_rss_mb']:.0f} "
        f"MiB), startup {result['app_startup_s']:.1f} s"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--users", type=int, nargs="+", default=[1, 4, 16], help="concurrency levels")
    ap.add_argument("--questions", type=int, default=5, help="questions per user per level")
    ap.add_argument("--data-dir", type=Path, help="an existing index (default: the sample)")
    ap.add_argument("--max-seconds", type=float, default=600, help="time budget for all levels")
    ap.add_argument("--json", type=Path, help="also write the results as JSON here")
    args = ap.parse_args(argv)
    if any(n < 1 for n in args.users) or args.questions < 1:
        ap.error("--users and --questions must be at least 1")
    result = run(args.users, args.questions, args.data_dir, args.max_seconds)
    print(table(result))
    for lv in result["levels"]:
        for example in lv["examples"]:
            print(f"  ! N={lv['users']}: {example}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    ok = result["failures"] == 0 and result["mixups"] == 0 and result["app_alive"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
