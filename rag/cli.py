"""The `paperchat` command line: a thin layer over Pipeline."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from .index import IndexError_
from .pipeline import Pipeline
from .providers import ProviderError
from .retrieval import Filters
from .settings import Settings

Command = Callable[[argparse.Namespace, Settings], int]
COMMANDS: dict[str, Command] = {}


def command(name: str) -> Callable[[Command], Command]:
    """Register a subcommand handler (other modules add theirs: ask, chat, serve, eval)."""

    def register(fn: Command) -> Command:
        COMMANDS[name] = fn
        return fn

    return register


def emit(args: argparse.Namespace, payload: Any, text: str) -> None:
    """Print JSON for scripts or text for people."""
    if args.json:
        print(json.dumps(payload, ensure_ascii=False, indent=2))
    else:
        print(text)


def _bar(total_label: str) -> Callable[[str, int, int], None]:
    from tqdm import tqdm

    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage not in bars:
            unit = "texts" if stage == "embed" else "papers"
            bars[stage] = tqdm(
                total=total, desc=f"{total_label} {stage}", unit=unit, file=sys.stderr
            )
        bar = bars[stage]
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return progress


@command("ingest")
def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Load abstracts from files or folders and index them."""
    pipe = Pipeline(settings)
    if args.if_empty and pipe.catalog():
        emit(args, {"skipped": "index not empty"}, "index not empty: nothing to do")
        return 0
    progress = None if args.json or args.quiet else _bar("ingest")
    loaded, report = pipe.ingest(args.paths, prune=args.prune, progress=progress)
    payload = report.model_dump()
    for err in report.errors:
        if not args.json:
            print(f"rejected {err}", file=sys.stderr)
    emit(
        args,
        payload,
        f"added {report.added}, updated {report.updated}, unchanged {report.unchanged}, "
        f"removed {report.removed}, rejected {len(report.errors)}",
    )
    if loaded.fatal:
        return 2
    return 1 if report.errors else 0


@command("stats")
def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    """Show what the index holds."""
    pipe = Pipeline(settings)
    stats = pipe.stats()
    text = "\n".join(f"{k}: {v}" for k, v in stats.items())
    if not stats["papers"]:
        others = pipe.other_collections()
        if others:
            text += (
                "\nThis index is empty for the current embedding/chunking settings; "
                f"collections built with other settings: {', '.join(others)}"
            )
    emit(args, stats, text)
    return 0


def add_filter_args(p: argparse.ArgumentParser) -> None:
    """Metadata filter flags shared by search and ask."""
    p.add_argument("--area", help="primary area contains this text")
    p.add_argument("--keyword", help="a keyword contains this text")
    p.add_argument("--decision", help="decision, e.g. Oral or Poster")
    p.add_argument("--title", dest="title_filter", help="title contains this text")


def filters_from(args: argparse.Namespace) -> Filters:
    """Filters from parsed flags."""
    return Filters(
        area=args.area, keyword=args.keyword, decision=args.decision, title=args.title_filter
    )


@command("search")
def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    """Find the papers that best match a query."""
    pipe = Pipeline(settings)
    hits = pipe.search(args.query, k=args.k, mode=args.mode, filters=filters_from(args))
    if not hits and not pipe.stats()["papers"]:
        print("The index is empty: run `paperchat ingest PATH` first.", file=sys.stderr)
    payload = {
        "query": args.query,
        "results": [
            {
                "paper_id": h.paper.id,
                "title": h.paper.title,
                "score": h.score,
                "abstract": h.paper.abstract,
                "url": h.paper.url,
                "keywords": h.paper.keywords,
            }
            for h in hits
        ],
    }
    lines = [
        f"{i}. {h.paper.title}  [{h.paper.id}]  score {h.score:.4f}" for i, h in enumerate(hits, 1)
    ]
    emit(args, payload, "\n".join(lines) or "no results")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--data-dir", help="index directory (PAPERCHAT_DATA_DIR)")
    common.add_argument("--json", action="store_true", help="print JSON for scripts")
    parser = argparse.ArgumentParser(
        prog="paperchat", description="Ask research-paper abstracts questions, with citations."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", parents=[common], help="index abstracts from files or folders")
    p.add_argument("paths", nargs="+", help="TXT, JSONL, JSON or CSV files, or folders of them")
    p.add_argument("--prune", action="store_true", help="remove papers not in the given sources")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--if-empty", action="store_true", help="only when the index has no papers")

    sub.add_parser("stats", parents=[common], help="show what the index holds")

    p = sub.add_parser("search", parents=[common], help="find papers matching a query")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5, help="number of papers")
    p.add_argument("--mode", choices=["hybrid", "dense", "bm25"], default=None)
    add_filter_args(p)

    for extend in _EXTENSIONS:
        extend(sub, common)
    return parser


# Modules that add subcommands register a parser builder here (ask/chat, serve, eval).
_EXTENSIONS: list[Callable[[Any, argparse.ArgumentParser], None]] = []


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `paperchat` and `python -m rag`."""
    _load_extensions()
    args = build_parser().parse_args(argv)
    overrides: dict[str, Any] = {}
    if args.data_dir:
        overrides["data_dir"] = args.data_dir
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        print(f"paperchat: invalid settings:\n{exc}", file=sys.stderr)
        return 2
    try:
        return COMMANDS[args.command](args, settings)
    except (IndexError_, ProviderError) as exc:
        print(f"paperchat: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _load_extensions() -> None:
    # Imported lazily so `paperchat ingest` does not pay for Gradio's import time.
    import importlib

    for module in ("rag.chat_cli", "ui.cli", "eval.cli"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
