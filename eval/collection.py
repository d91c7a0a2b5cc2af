"""Collection-question evaluation: list precision/recall, counts, comparisons, planner accuracy.

    paperchat collection-eval --data-dir /work/idx [--split report|tune|all] [--compare]

Runs eval/collection.jsonl on the scale index (corpus from ../shared/data; skipped when absent).
`--compare` adds the top-k baseline: the single-paper answer path (plan forced to `lookup`),
whose cited papers are its list and which gives no count.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .datasets import EVAL_DIR, CorpusMissing, resolve

# `paperchat --help` registers this command's parser: keep pydantic models out of start-up.
if TYPE_CHECKING:
    from rag.models import Answer, Plan
    from rag.settings import Settings

PATH = EVAL_DIR / "collection.jsonl"
# A topic count is right when within this share of the gold set's size (the gold rule and the
# matcher's rule differ in wording, not in kind); metadata counts must be exact.
COUNT_TOLERANCE = 0.2


def read(path: Path = PATH) -> list[dict[str, Any]]:
    """The items, each checked for the fields its kind needs."""
    items = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            need = {
                "list": "gold_ids",
                "filter": "gold_ids",
                "count": "count",
                "compare": "gold_ids",
            }
            item[need[item["kind"]]]
            item["question"], item["intent"], item["split"]
        except (ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"{path}:{n}: not a valid collection item ({exc!r})") from exc
        items.append(item)
    return items


class LookupPlanner:
    """The baseline's planner: every question takes the single-paper top-k path."""

    def plan(self, question: str, conversation: Any = None, use_model: bool = True) -> Plan:
        """Always a lookup."""
        from rag.models import Plan, QuestionKind

        return Plan(kind=QuestionKind.LOOKUP, topic=question)


def _count_in_text(text: str) -> int | None:
    m = re.search(r"\b(\d[\d,]*)\b", text)
    return int(m.group(1).replace(",", "")) if m else None


def intent_of(plan: Plan) -> str:
    """The set's intent label (list, count, compare) a plan's kind falls under."""
    if plan.kind == "compare":
        return "compare"
    if plan.kind.counts:
        return "count"
    return "list" if plan.kind.collection else "lookup"


def score_item(item: dict[str, Any], answer: Answer, baseline: bool) -> dict[str, Any]:
    """Per-item outcome: precision/recall, count right, compare success, planner right."""
    out: dict[str, Any] = {"id": item["id"], "kind": item["kind"], "split": item["split"]}
    gold = set(item.get("gold_ids") or [])
    cited = [c.paper_id for c in answer.citations]
    if item["kind"] in ("list", "filter"):
        got = set(cited) if baseline else {p.paper_id for p in answer.papers}
        dropped = "filter is not applied" in answer.rule
        if gold:
            tp = len(got & gold)
            out["precision"] = tp / len(got) if got else 0.0
            out["recall"] = tp / len(gold)
        else:
            # Nothing matches: right when the answer says so (and offers the unfiltered set).
            out["empty_ok"] = (not got) or dropped
        if item["filters"]["decision"] or item["filters"]["area"]:
            want = item["filters"]
            outside = [
                p
                for p in answer.papers
                if (want["decision"] and p.decision != want["decision"])
                or (want["area"] and p.primary_area != want["area"])
            ]
            out["outside_filter"] = 0 if dropped or baseline else len(outside)
    elif item["kind"] == "count":
        said = answer.count if answer.count is not None else _count_in_text(answer.text)
        truth = item["count"]
        if said is None:
            out["count_ok"] = False
        elif item["exact"]:
            out["count_ok"] = said == truth
        else:
            out["count_ok"] = abs(said - truth) <= COUNT_TOLERANCE * max(truth, 1)
        out["said"], out["truth"] = said, truth
    elif item["kind"] == "compare":
        need = gold or set()
        out["compare_ok"] = (
            not answer.refused and need <= set(cited) and len(set(cited)) >= max(2, len(need))
        )
    if not baseline and answer.plan is not None:
        f = answer.plan.filters
        want = item["filters"]
        out["intent_ok"] = intent_of(answer.plan) == item["intent"]
        out["filters_ok"] = (f.decision, f.area, f.keyword) == (
            want["decision"],
            want["area"],
            want["keyword"],
        )
    return out


def aggregate(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Means of the per-item outcomes."""

    def mean(key: str) -> float | None:
        vals = [float(r[key]) for r in rows if key in r]
        return round(sum(vals) / len(vals), 4) if vals else None

    return {
        "items": len(rows),
        "list_precision": mean("precision"),
        "list_recall": mean("recall"),
        "empty_filter_said": mean("empty_ok"),
        "cited_outside_filter": sum(r.get("outside_filter", 0) for r in rows),
        "count_accuracy": mean("count_ok"),
        "comparison_success": mean("compare_ok"),
        "planner_intent": mean("intent_ok"),
        "planner_filters": mean("filters_ok"),
        "latency_p50_ms": _p(rows, 50),
        "latency_p95_ms": _p(rows, 95),
    }


def _p(rows: list[dict[str, Any]], q: float) -> float | None:
    from .metrics import percentile

    v = percentile([r["ms"] for r in rows if r["kind"] in ("list", "count", "filter")], q)
    return round(v, 1) if v is not None else None


def warm(pipe: Any) -> None:
    """Build what a running app holds per index revision (catalog view, keyword index), so the
    timed questions do not pay for it."""
    pipe.catalog_view()
    pipe.keywords.bm25()


def run(pipe: Any, items: list[dict[str, Any]], baseline: bool) -> list[dict[str, Any]]:
    """Ask every item; one row of outcomes each."""
    rows = []
    for item in items:
        start = time.perf_counter()
        answer = pipe.ask(item["question"])
        ms = (time.perf_counter() - start) * 1000
        row = score_item(item, answer, baseline)
        row["ms"] = round(ms, 1)
        rows.append(row)
    return rows


def table(results: dict[str, dict[str, Any]]) -> list[str]:
    """A markdown table: one column per configuration."""
    names = list(results)
    keys = [k for k in next(iter(results.values())) if k != "items"]
    lines = ["| metric | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for k in keys:
        cells = ["—" if results[n][k] is None else str(results[n][k]) for n in names]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return lines


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """Register `paperchat collection-eval` (added by eval.cli.register_commands)."""
    p = sub.add_parser(
        "collection-eval", parents=[common], help="evaluate list/count/compare questions"
    )
    p.add_argument("--split", choices=["report", "tune", "all"], default="report")
    p.add_argument("--compare", action="store_true", help="also run the top-k baseline")
    p.add_argument("--out", type=Path, help="results JSON (default eval/runs/collection.json)")
    p.set_defaults(handler=cmd_collection)


def cmd_collection(args: argparse.Namespace, settings: Settings) -> int:
    """Run the collection set on the scale index and print the metrics table."""
    from rag.app.pipeline import Pipeline

    from .runner import open_pipeline

    try:
        dataset = resolve("scale")
    except CorpusMissing as exc:
        print(f"skipped: {exc}", file=sys.stderr)
        return 0
    items = [i for i in read() if args.split == "all" or i["split"] == args.split]
    workspace = open_pipeline(settings, dataset, say=lambda s: print(s, file=sys.stderr))
    pipe = workspace.pipeline
    warm(pipe)
    load, cpu, wall = os.getloadavg()[0], time.process_time(), time.perf_counter()
    results = {"collection": aggregate(run(pipe, items, baseline=False))}
    if args.compare:
        base = Pipeline(
            pipe.settings,
            index=pipe.index,
            llm=pipe.llm,
            planner=LookupPlanner(),  # type: ignore[arg-type]
        )
        results["top-k baseline"] = aggregate(run(base, items, baseline=True))
    out = args.out or EVAL_DIR / "runs" / "collection.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"split": args.split, "results": results}, indent=2))
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"collection set, split {args.split}: {len(items)} items\n")
        print("\n".join(table(results)))
    # Latency rows mean little on a shared machine without the load and CPU time behind them.
    print(
        f"\nall configurations: wall {time.perf_counter() - wall:.1f} s, process CPU "
        f"{time.process_time() - cpu:.1f} s; load average (1 min) {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end",
        file=sys.stderr,
    )
    return 0
