"""`paperchat eval` (also `python -m eval`): datasets in, results, report and charts out."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.settings import Settings

DESCRIPTION = """\
Score retrieval and answers on a question set. Offline and deterministic by default
(extractive answerer); --answerer model adds token/cost numbers and judge metrics.
The golden set runs on the sample corpus, the scale set on ../shared/data (skipped when absent).
Writes results.json, report.md, metrics.png and latency.png to --out."""


def _gate(text: str) -> tuple[str, float]:
    """Parse METRIC=VALUE."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected METRIC=VALUE, got {text!r}")
    try:
        return name.strip(), float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number") from None


def register_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add the `eval` subcommand to the paperchat parser (entry point `paperchat.commands`)."""
    p = sub.add_parser(
        "eval",
        parents=[common],
        help="evaluate retrieval and answers on a dataset",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--dataset", help="golden (default), scale, or a path to a dataset JSONL")
    p.add_argument(
        "--corpus",
        type=Path,
        action="append",
        help="corpus file for the dataset's index (repeatable; default: the dataset's own)",
    )
    p.add_argument(
        "--retriever",
        choices=["hybrid", "dense", "bm25"],
        default="hybrid",
        help="retrieval of the primary configuration (default hybrid)",
    )
    p.add_argument(
        "--answerer",
        choices=["extractive", "model"],
        default="extractive",
        help="extractive (offline, default) or the configured chat model",
    )
    p.add_argument(
        "--compare",
        action="store_true",
        help="also run the other retrievers and the textbook LlamaIndex baseline",
    )
    p.add_argument("--out", type=Path, help="output directory (default eval/runs/DATASET)")
    p.add_argument(
        "--min",
        dest="minimums",
        type=_gate,
        nargs="+",
        action="extend",
        default=[],
        metavar="METRIC=VALUE",
        help="exit 1 when a metric of the primary configuration is below VALUE",
    )
    p.add_argument(
        "--max",
        dest="maximums",
        type=_gate,
        nargs="+",
        action="extend",
        default=[],
        metavar="METRIC=VALUE",
        help="exit 1 when a metric is above VALUE (e.g. answer_p95_ms=300)",
    )
    p.add_argument("--limit", type=int, help="evaluate only the first N items")
    p.add_argument(
        "--split",
        choices=["all", "fit", "heldout"],
        default="all",
        help="items of one half: 'heldout' never fitted the refusal model (eval/fit_refusal.py)",
    )
    p.add_argument("--no-judge", action="store_true", help="skip model-judge metrics")
    p.add_argument("--no-charts", action="store_true", help="skip the PNG charts")
    p.add_argument(
        "--write-baseline",
        action="store_true",
        help="store this run's golden-set numbers in eval/baseline.json (deliberate update)",
    )
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="sweep retrieval.min_evidence (golden, plus scale when present) and suggest a value",
    )
    p.add_argument("--thresholds", help="comma-separated min_evidence values for --calibrate")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    p.set_defaults(handler=cmd_eval)
    from .collection import add_parser as add_collection

    add_collection(sub, common)


def _command_line() -> str:
    """How this run was started, for the record (`paperchat eval …` or `python -m eval …`)."""
    argv = list(sys.argv[1:])
    if argv[:1] == ["eval"]:
        return " ".join(["paperchat", *argv])
    return " ".join(["python -m eval", *argv])


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    """Run the evaluation (or the calibration) and apply the gates."""
    from .datasets import DatasetError
    from .runner import GATE_NAMES, EvalError

    unknown = [n for n, _ in [*args.minimums, *args.maximums] if n not in GATE_NAMES]
    if unknown:
        _say(f"paperchat eval: unknown metric(s) {unknown}; known: {', '.join(GATE_NAMES)}")
        return 2
    if args.limit is not None and args.limit < 1:
        _say("paperchat eval: --limit must be at least 1")
        return 2
    try:
        if args.calibrate:
            return _calibrate(args, settings)
        return _evaluate(args, settings)
    except (DatasetError, EvalError) as exc:
        _say(f"paperchat eval: {exc}")
        return 2


def _evaluate(args: argparse.Namespace, settings: Settings) -> int:
    from . import baseline as B
    from .datasets import EVAL_DIR, CorpusMissing, resolve
    from .report import main_tables, write_outputs
    from .runner import (
        check_gates,
        compare_configs,
        flat_metrics,
        open_pipeline,
        primary_config,
        run_dataset,
    )

    name = args.dataset or "golden"
    if args.write_baseline and (
        name != "golden"
        or args.answerer != "extractive"
        or args.limit
        or args.corpus
        or args.split != "all"
    ):
        _say(
            "paperchat eval: --write-baseline records the full offline golden set: use it with "
            "--dataset golden, the extractive answerer, no --limit and no --corpus"
        )
        return 2
    try:
        dataset = resolve(name, args.corpus)
    except CorpusMissing as exc:
        _say(f"skipped: {exc}")
        return 0
    progress = not args.quiet
    workspace = open_pipeline(settings, dataset, progress=progress, say=_say)
    primary = primary_config(args.retriever, args.answerer)
    configs = compare_configs(primary) if args.compare else [primary]
    items = [i for i in dataset.items if args.split in ("all", i.split)]
    items = items[: args.limit] if args.limit else items
    results = run_dataset(
        workspace, dataset, configs, items, judge=not args.no_judge, progress=progress
    )
    results["provenance"]["run"] = {
        "command": _command_line(),
        "compare": args.compare,
        "limit": args.limit,
        "split": args.split,
        "judge": not args.no_judge,
    }
    out = args.out or EVAL_DIR / "runs" / dataset.name
    written = write_outputs(results, out, charts=not args.no_charts)
    primary_agg = results["configurations"][0]
    if args.json:
        summary = {
            "out": str(out),
            "configurations": {
                c["config"]["name"]: flat_metrics(c) for c in results["configurations"]
            },
        }
        print(json.dumps(summary, indent=2))
    else:
        papers = results["provenance"]["corpus"]["papers"]
        print(f"{dataset.name} set: {len(items)} items, {papers} papers\n")
        print("\n".join(main_tables(results)))
        print("\nwrote " + ", ".join(str(p) for p in written))
    if args.write_baseline:
        doc = B.write_baseline(results)
        _say(f"baseline written to {B.BASELINE_PATH} ({len(doc['metrics'])} metrics)")
    failures = check_gates(flat_metrics(primary_agg), dict(args.minimums), dict(args.maximums))
    for failure in failures:
        _say(f"FAIL ({primary_agg['config']['label']}): {failure}")
    if failures:
        _say(f"paperchat eval: {len(failures)} threshold(s) not met")
        return 1
    return 0


def _calibrate(args: argparse.Namespace, settings: Settings) -> int:
    from .calibrate import DEFAULT_THRESHOLDS, format_table, suggest, sweep, write_calibration
    from .datasets import EVAL_DIR, CorpusMissing, resolve
    from .runner import git_info, open_pipeline

    thresholds = DEFAULT_THRESHOLDS
    if args.thresholds:
        try:
            thresholds = tuple(sorted(float(t) for t in args.thresholds.split(",") if t.strip()))
        except ValueError:
            _say(f"paperchat eval: --thresholds {args.thresholds!r} is not a list of numbers")
            return 2
    names = [args.dataset] if args.dataset else ["golden", "scale"]
    tables = {}
    provenance: dict[str, Any] = {"code": git_info(), "retriever": args.retriever, "datasets": {}}
    for name in names:
        try:
            dataset = resolve(name, args.corpus)
        except CorpusMissing as exc:
            _say(f"skipped: {exc}")
            continue
        pipeline = open_pipeline(settings, dataset, progress=not args.quiet, say=_say).pipeline
        items = dataset.items[: args.limit] if args.limit else dataset.items
        tables[dataset.name] = sweep(
            pipeline, items, thresholds, args.retriever, progress=not args.quiet
        )
        provenance["datasets"][dataset.name] = {
            "sha256": dataset.sha256,
            "items": len(items),
            "papers": len(pipeline.catalog()),
        }
    if not tables:
        _say("paperchat eval: no dataset to calibrate on")
        return 2
    current = settings.retrieval.min_evidence
    suggested = suggest(tables)
    out = args.out or EVAL_DIR / "runs" / "calibration"
    written = write_calibration(
        tables, current, suggested, out, provenance, charts=not args.no_charts
    )
    if args.json:
        print(json.dumps(json.loads(written[0].read_text(encoding="utf-8")), indent=2))
        return 0
    for name, rows in tables.items():
        print(
            f"\n{name} set ({provenance['datasets'][name]['items']} items, "
            f"{provenance['datasets'][name]['papers']} papers):\n"
        )
        print("\n".join(format_table(rows, current, suggested)))
    print(
        f"\nsuggested retrieval.min_evidence = {suggested:.3f} (current {current:.3f}): the best "
        "mean of answered-correctly rate and unanswerable-refused rate"
    )
    print("wrote " + ", ".join(str(p) for p in written))
    return 0
