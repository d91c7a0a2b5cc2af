"""The style-split report (issue 27, item 3): the labelled question corpus, answered by the
pipeline, scored per style and on styles a fit never saw.

    python -m eval.style_report --data-dir /work/idx [--fit-styles formal casual ...]
        [--reverse] [--limit N] [--styles S ...] [--kinds K ...] [--out results.json]
        [--router-fit-only]

Every item of eval/questions/*.jsonl is asked on the scale index (`<data-dir>/eval-scale`, the
4,302 papers plus the sample; `--index-dir` names another index) through the same `Pipeline`
the CLI builds, follow-ups as a conversation of their `turns`. The index is only read. Styles
split into fit (default: formal, casual, search, lowercase, paraphrase) and unseen (the rest);
`--reverse` swaps them. The unseen side is checked against issue 27's targets (TARGETS in
eval/style_metrics.py); the metric definitions are in that module. The shipped router learned
from every style, so its kind accuracy is in-sample; `--router-fit-only` routes with one fitted
on the fit side alone (eval/train_router.py), which makes the unseen side held out.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .datasets import REPO, SEED
from .questions.schema import CORPUS_FILES as CORPUS_NAMES
from .questions.schema import QUESTIONS_DIR, Item, QuestionKind, Style, split_by_style
from .style_metrics import TARGETS, aggregate, confusion, score_item, verdicts

CORPUS_FILES = tuple(QUESTIONS_DIR / name for name in CORPUS_NAMES)
DEFAULT_FIT = ("formal", "casual", "search", "lowercase", "paraphrase")
HEAD_CHARS = 240
# Columns of the per-style table: (metric key, header).
COLUMNS = (
    ("items", "n"),
    ("kind_accuracy", "kind acc"),
    ("list_recall", "list R"),
    ("list_precision", "list P"),
    ("count_within", "count ok"),
    ("false_refusals", "false ref"),
    ("fact_recall", "facts"),
    ("refusal_recall", "refusal R"),
    ("refusal_precision", "refusal P"),
    ("near_miss_refusal_recall", "near-miss R"),
    ("false_no_match", "search no-match"),
    ("language_detected", "lang detected"),
    ("whole_question_topic", "whole-q topic"),
)


class CorpusError(ValueError):
    """A corpus file is missing or holds an invalid item (the message names file and line)."""


def read_items(paths: Iterable[Path] = CORPUS_FILES) -> list[Item]:
    """Every item of the corpus files; fields the schema does not know are ignored.

    Unlike `schema.load_questions` this reads a file written against a newer schema (a field
    the other writer's branch has added, e.g. `top_rating`): the report needs none of them.
    """
    items: list[Item] = []
    seen: set[str] = set()
    known = set(Item.model_fields)
    for path in paths:
        if not path.is_file():
            raise CorpusError(f"{path}: corpus file not found")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                item = Item.model_validate({k: v for k, v in raw.items() if k in known})
            except (ValueError, AttributeError, ValidationError) as exc:
                raise CorpusError(f"{path}:{n}: not a valid item: {exc}") from exc
            if item.id in seen:
                raise CorpusError(f"{path}:{n}: duplicate id {item.id!r}")
            seen.add(item.id)
            items.append(item)
    return items


def select(
    items: Sequence[Item],
    styles: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    limit: int | None = None,
) -> list[Item]:
    """The items of these styles and kinds; `limit` keeps the first N of each style."""
    chosen = [
        i
        for i in items
        if (not styles or i.style.value in styles) and (not kinds or i.kind.value in kinds)
    ]
    if limit is None:
        return chosen
    per: dict[str, int] = {}
    out = []
    for i in chosen:
        per[i.style.value] = per.get(i.style.value, 0) + 1
        if per[i.style.value] <= limit:
            out.append(i)
    return out


def ask_item(pipe: Any, item: Item) -> Any:
    """The pipeline's answer to the item's question, after its earlier turns (follow-ups)."""
    from rag.models import Conversation

    conversation = Conversation()
    for turn in item.turns or []:
        pipe.ask(turn, conversation)
    return pipe.ask(item.question, conversation)


def run_items(
    pipe: Any,
    items: Sequence[Item],
    sample_keys: Iterable[str],
    say: Callable[[str], None] | None = None,
) -> list[dict[str, Any]]:
    """Ask every item and score it; an item whose ask raises is recorded with the error."""
    from rag.models import Answer

    keys = set(sample_keys)
    catalog = pipe.catalog()
    rows = []
    for n, item in enumerate(items, 1):
        start = time.perf_counter()
        try:
            answer = ask_item(pipe, item)
            error = answer.error
        except Exception as exc:  # noqa: BLE001 - one bad item must not lose the run
            answer = Answer(question=item.question, text="")
            error = f"{type(exc).__name__}: {exc}"
        row = score_item(item, answer, catalog, keys)
        row["ms"] = round((time.perf_counter() - start) * 1000, 1)
        row["head"] = answer.text[:HEAD_CHARS]
        row["plan"] = answer.plan.model_dump(mode="json") if answer.plan else None
        if error:
            row["error"] = error
        rows.append(row)
        if say and n % 100 == 0:
            say(f"{n}/{len(items)} items")
    return rows


def split_report(rows: Sequence[dict[str, Any]], fit: Sequence[str]) -> dict[str, Any]:
    """Aggregates per style, for the fit and unseen sides, the unseen verdicts, the confusion."""
    styles = [s.value for s in Style if any(r["style"] == s.value for r in rows)]
    fit_rows = [r for r in rows if r["style"] in fit]
    unseen_rows = [r for r in rows if r["style"] not in fit]
    unseen = aggregate(unseen_rows)
    return {
        "fit_styles": [s for s in styles if s in fit],
        "unseen_styles": [s for s in styles if s not in fit],
        "per_style": {s: aggregate([r for r in rows if r["style"] == s]) for s in styles},
        "fit": aggregate(fit_rows),
        "unseen": unseen,
        "all": aggregate(list(rows)),
        "targets": {k: f"{op} {bound}" for k, (op, bound) in TARGETS.items()},
        "unseen_verdicts": verdicts(unseen),
        "confusion": confusion(rows),
        "confusion_unseen": confusion(unseen_rows),
    }


def _cell(value: Any) -> str:
    if value is None:
        return "—"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def style_table(report: dict[str, Any]) -> list[str]:
    """Markdown: one row per style, then the fit and unseen sides."""
    head = "| style | " + " | ".join(h for _, h in COLUMNS) + " |"
    lines = [head, "|---|" + "---:|" * len(COLUMNS)]
    groups = [(s, a) for s, a in report["per_style"].items()]
    groups += [("**fit**", report["fit"]), ("**unseen**", report["unseen"])]
    for name, agg in groups:
        lines.append(f"| {name} | " + " | ".join(_cell(agg[k]) for k, _ in COLUMNS) + " |")
    return lines


def summary_table(report: dict[str, Any]) -> list[str]:
    """Markdown: each target metric on the fit and unseen sides, with the unseen verdict."""
    lines = [
        "| metric | target | fit | unseen | unseen items | verdict |",
        "|---|---|---:|---:|---:|---|",
    ]
    sizes = {
        "kind_accuracy": "items",
        "list_recall": "list_items",
        "list_precision": "list_items",
        "count_within": "count_items",
        "false_refusals": "single_paper_items",
        "refusal_recall": "off_topic_items",
        "refusal_precision": "refusals",
        "fact_recall": "fact_items",
    }
    for key in TARGETS:
        fit, unseen = report["fit"][key], report["unseen"][key]
        lines.append(
            f"| {key} | {report['targets'][key]} | {_cell(fit)} | {_cell(unseen)} | "
            f"{report['unseen'][sizes[key]]} | {report['unseen_verdicts'][key]} |"
        )
    return lines


def confusion_table(matrix: dict[str, dict[str, int]]) -> list[str]:
    """Markdown: label kind (rows) × predicted kind (columns)."""
    preds = [k.value for k in QuestionKind if any(k.value in r for r in matrix.values())]
    if any("none" in r for r in matrix.values()):
        preds.append("none")
    lines = [
        "| label \\ pred | " + " | ".join(p[:6] for p in preds) + " | acc |",
        "|---|" + "---:|" * (len(preds) + 1),
    ]
    for label, row in matrix.items():
        total = sum(row.values())
        acc = row.get(label, 0) / total if total else 0.0
        cells = [str(row.get(p, "")) for p in preds]
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {acc:.2f} |")
    return lines


def sample_content_keys() -> list[str]:
    """Content keys of the 19 sample abstracts (the papers `corpus: sample` items ask over)."""
    from rag.store.loaders import load_paths

    return [p.key for p in load_paths([SEED]).papers]


def open_pipeline(index_dir: Path, router_path: Path | None = None) -> Any:
    """The CLI's pipeline (settings from PAPERCHAT_* and .env) over an existing index; with
    `router_path`, routed by those weights instead of the shipped ones."""
    from rag.app.pipeline import Pipeline
    from rag.questions.router import Router
    from rag.settings import Settings
    from rag.store.embeddings import make_embedder

    if not (index_dir / "chroma").is_dir():
        raise CorpusError(
            f"no index in {index_dir}: build it with `python -m eval --dataset scale "
            f"--data-dir {index_dir.parent}`"
        )
    settings = Settings(data_dir=index_dir)
    embedder = make_embedder(settings)
    router = Router(embedder, router_path) if router_path else None
    pipe = Pipeline(settings, embedder=embedder, router=router)
    if not pipe.stats()["papers"]:
        raise CorpusError(f"the index in {index_dir} holds no papers")
    return pipe


def build_parser() -> argparse.ArgumentParser:
    """The command line of `python -m eval.style_report`."""
    p = argparse.ArgumentParser(
        prog="python -m eval.style_report", description=__doc__.split("\n")[0]
    )
    p.add_argument(
        "--data-dir", type=Path, help="eval data dir; the index is <data-dir>/eval-scale"
    )
    p.add_argument("--index-dir", type=Path, help="the index's data dir itself (overrides)")
    p.add_argument("--fit-styles", nargs="+", default=list(DEFAULT_FIT), metavar="STYLE")
    p.add_argument("--reverse", action="store_true", help="report on the fit styles instead")
    p.add_argument("--styles", nargs="+", metavar="STYLE", help="only these styles")
    p.add_argument("--kinds", nargs="+", metavar="KIND", help="only these label kinds")
    p.add_argument("--limit", type=int, help="at most N items per style")
    p.add_argument("--corpus", nargs="+", type=Path, default=list(CORPUS_FILES), metavar="JSONL")
    p.add_argument(
        "--router-fit-only",
        action="store_true",
        help="route with a router fitted on the fit styles alone (trained first, ~1 min), so "
        "kind accuracy on the other styles is held out, not in-sample",
    )
    p.add_argument("--out", type=Path, default=REPO / "eval" / "runs" / "style_report.json")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report; print the tables; write the JSON results."""
    args = build_parser().parse_args(argv)
    known = {s.value for s in Style}
    bad = [s for s in [*args.fit_styles, *(args.styles or [])] if s not in known]
    bad += [k for k in args.kinds or [] if k not in {q.value for q in QuestionKind}]
    if bad:
        print(f"style_report: unknown style or kind: {', '.join(bad)}", file=sys.stderr)
        return 2
    if args.index_dir is None and args.data_dir is None:
        print("style_report: give --data-dir (or --index-dir)", file=sys.stderr)
        return 2
    index_dir = args.index_dir or args.data_dir / "eval-scale"

    def say(s: str) -> None:
        print(s, file=sys.stderr, flush=True)

    try:
        items = select(read_items(args.corpus), args.styles, args.kinds, args.limit)
        split = split_by_style(items, args.fit_styles)
        fit = [s.value for s in (split.held_styles if args.reverse else split.fit_styles)]
        router_path = None
        if args.router_fit_only:
            from .train_router import train

            router_path = args.out.parent / "router_fit_only.npz"
            say(train(router_path, fit))
        pipe = open_pipeline(index_dir, router_path)
    except (CorpusError, ValueError) as exc:
        print(f"style_report: {exc}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    pipe.warm()
    warm_s = time.perf_counter() - start
    say(f"{len(items)} items on {pipe.stats()['papers']} papers in {index_dir}")
    rows = run_items(pipe, items, sample_content_keys(), say)
    wall = time.perf_counter() - start
    report = split_report(rows, fit)
    print(
        f"## Style report: {len(rows)} items, fit = {', '.join(report['fit_styles'])}; "
        f"unseen = {', '.join(report['unseen_styles'])}\n"
    )
    print("\n".join(style_table(report)))
    print("\n## Unseen vs fit, issue 27 targets\n")
    print("\n".join(summary_table(report)))
    print("\n## Kinds: label × prediction (all items)\n")
    print("\n".join(confusion_table(report["confusion"])))
    errors = sum(1 for r in rows if r.get("error"))
    print(
        f"\nwall {wall:.0f} s (warm-up {warm_s:.0f} s); {errors} items with an error",
        file=sys.stderr,
    )
    meta = {
        "index_dir": str(index_dir),
        "papers": pipe.stats()["papers"],
        "argv": list(sys.argv[1:] if argv is None else argv),
        "wall_seconds": round(wall, 1),
        "reverse": args.reverse,
        "router": "fitted on the fit styles only" if args.router_fit_only else "shipped",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(
        json.dumps({"meta": meta, **report, "items": rows}, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    say(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
