"""Item-by-item snapshots of what the pipeline answers, and their differences.

    python eval/snapshot.py --data-dir /work/idx-x --shared /work/shared/data --out snap.json
    python eval/snapshot.py --diff before.json after.json

Runs the golden set (sample index), the scale set and the collection set (scale index; skipped
without the shared corpus) through the offline pipeline, one conversation per item, and writes
per turn a canonical record: the plan (kind, topic, filters, named and referenced papers, group,
measure, metric), the answer text, the cited and matched paper ids, refused, count. `--diff`
prints every item whose record differs: a refactoring must print none.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

SETS = ("golden", "scale", "collection")


# The Plan before QuestionKind said a kind as intent + an English note; these notes' kinds.
_NOTES = {
    "papers nearest the named paper": "similar",
    "which of two topics more papers write": "more",
    "what a concept is, in the abstracts' own defining sentences": "define",
    "results stated on a named benchmark, or for an asked measure": "results",
    "who works on a topic: the papers, the index holding no authors": "authors",
    "how often papers are cited, which the index does not hold": "citations",
    "a topic typed without a question": "search",
}
_SPECIAL = frozenset(_NOTES.values())
_COUNTS = frozenset({"count", "breakdown", "share", "more"})


def plan_record(plan: dict[str, Any] | None) -> dict[str, Any] | None:
    """The plan's decisions in a form both Plan models (intent + note, or kind) can be
    compared in: the old intent, the special kind a note said, topic, filters, the papers
    named and referred to, group, measure, metric."""
    if plan is None:
        return None
    if "intent" in plan:
        intent, special = plan["intent"], _NOTES.get(plan.get("note", ""), "-")
        ids = plan["paper_ids"]
    else:
        kind = plan["kind"]
        if kind == "compare":
            intent = "compare"
        elif kind in _COUNTS:
            intent = "count"
        elif kind not in ("lookup", "detail", "metadata"):
            intent = "list"
        elif plan.get("follow_up"):
            intent = "follow-up"
        else:
            intent = "detail" if plan["paper_ids"] else "lookup"
        special = kind if kind in _SPECIAL and plan.get("aspect") != "authorship" else "-"
        ids = plan["paper_ids"] + plan.get("within", [])
    return {
        "intent": intent,
        "special": special,
        "topic": plan["topic"],
        "filters": {k: v for k, v in (plan.get("filters") or {}).items() if v is not None},
        "named": plan["named"],
        "ids": ids,
        "group_by": plan.get("group_by"),
        "measure": plan.get("measure", ""),
        "metric": plan.get("metric", ""),
    }


def answer_record(answer: Any) -> dict[str, Any]:
    """What an answer decided and said."""
    plan = answer.plan.model_dump(mode="json", exclude={"usage"}) if answer.plan else None
    return {
        "standalone": answer.standalone_question,
        "plan": plan,
        "text": answer.text,
        "cited": [c.paper_id for c in answer.citations],
        "quotes": [c.quote for c in answer.citations],
        "papers": [p.paper_id for p in answer.papers],
        "refused": answer.refused,
        "weak": answer.weak,
        "count": answer.count,
        "rule": answer.rule,
        "error": answer.error,
        "retrieved": answer.retrieved,
    }


def _run_items(workspace: Any, items: list[tuple[str, list[str]]]) -> dict[str, Any]:
    from eval.runner import RETRIEVAL_DEPTH
    from rag.app.options import AskOptions
    from rag.models import Conversation

    pipe = workspace.pipeline
    out: dict[str, Any] = {}
    for item_id, turns in items:
        conversation = Conversation()
        records = []
        for question in turns:
            if workspace.queries is not None:
                workspace.queries.clear()
            opts = AskOptions(retrieval="hybrid", answerer="extractive", depth=RETRIEVAL_DEPTH)
            records.append(answer_record(pipe.ask(question, conversation, opts)))
        out[item_id] = records
    return out


def snapshot(data_dir: Path, shared: Path, sets: list[str]) -> dict[str, Any]:
    """Every item of the chosen sets, answered: {set: {item id: [turn records]}}."""
    from eval import collection as C
    from eval.datasets import SEED, resolve
    from eval.runner import open_pipeline
    from rag.settings import Settings

    settings = Settings(data_dir=data_dir)
    corpus = shared / "iclr2026_accepted.jsonl"
    result: dict[str, Any] = {}
    if "golden" in sets:
        ds = resolve("golden")
        ws = open_pipeline(settings, ds)
        result["golden"] = _run_items(ws, [(i.id, list(i.all_turns)) for i in ds.items])
    if ("scale" in sets or "collection" in sets) and corpus.exists():
        ds = resolve("scale", [corpus, SEED])
        ws = open_pipeline(settings, ds)
        if "scale" in sets:
            result["scale"] = _run_items(ws, [(i.id, list(i.all_turns)) for i in ds.items])
        if "collection" in sets:
            items = [(i["id"], [i["question"]]) for i in C.read()]
            result["collection"] = _run_items(ws, items)
    return result


def _norm(record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    out["plan"] = plan_record(record.get("plan"))
    return out


def diff(a: dict[str, Any], b: dict[str, Any], fields: list[str] | None = None) -> list[str]:
    """One line per differing field of an item's turns (empty: the snapshots agree)."""
    lines: list[str] = []
    for name in sorted(set(a) | set(b)):
        left, right = a.get(name, {}), b.get(name, {})
        for item in sorted(set(left) | set(right)):
            if item not in left or item not in right:
                lines.append(f"{name}/{item}: only in {'after' if item in right else 'before'}")
                continue
            for t, (x, y) in enumerate(zip(left[item], right[item], strict=False)):
                x, y = _norm(x), _norm(y)
                for key in fields or sorted(set(x) | set(y)):
                    if x.get(key) != y.get(key):
                        lines.append(
                            f"{name}/{item} turn {t + 1} {key}:\n  - {x.get(key)!r}\n"
                            f"  + {y.get(key)!r}"
                        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Write a snapshot, or compare two."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data-dir", type=Path, help="directory holding eval-golden and eval-scale")
    p.add_argument("--shared", type=Path, default=Path("../shared/data"))
    p.add_argument("--sets", default=",".join(SETS))
    p.add_argument("--out", type=Path)
    p.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    p.add_argument("--fields", help="compare only these fields (comma-separated)")
    args = p.parse_args(argv)
    if args.diff:
        before, after = (json.loads(x.read_text(encoding="utf-8")) for x in args.diff)
        fields = args.fields.split(",") if args.fields else None
        lines = diff(before, after, fields)
        n = sum(len(v) for s in before.values() for v in s.values())
        print("\n".join(lines) if lines else f"no differences ({n} turns compared)")
        return 1 if lines else 0
    if not args.data_dir or not args.out:
        p.error("--data-dir and --out are needed to take a snapshot")
    os.environ.setdefault("PAPERCHAT_LLM__PROVIDER", "none")
    snap = snapshot(args.data_dir, args.shared, args.sets.split(","))
    args.out.write_text(json.dumps(snap, indent=1, ensure_ascii=False), encoding="utf-8")
    counts = {k: len(v) for k, v in snap.items()}
    print(f"wrote {args.out}: {counts}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
