"""The `paperchat` command line: a thin layer over Pipeline, with a plugin seam.

Built-in commands (ingest, stats, search, ask, chat) live here. Other packages add theirs
through the `paperchat.commands` entry-point group: each entry point names a
`register_commands(subparsers, common)` function that adds its parsers and sets
`handler=` on them (as simonw/llm's `register_commands` hook does). `ui` registers `serve`
and `eval` registers `eval` that way, from pyproject.toml.

Start-up stays light: the heavy libraries (chromadb, llama_index, onnxruntime, gradio) are
imported inside the commands that need them, so `paperchat --help` costs no model imports.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.app.options import AskOptions
    from rag.app.pipeline import Pipeline
    from rag.models import Answer, Filters
    from rag.settings import Settings

ENTRY_POINT_GROUP = "paperchat.commands"

Handler = Callable[[argparse.Namespace, "Settings"], int]


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


def _pipeline(settings: Settings) -> Pipeline:
    from rag.app.pipeline import Pipeline

    return Pipeline(settings)


class NoIndex(Exception):
    """The data directory or collection holds no papers to answer from."""


def _answering_pipeline(settings: Settings) -> Pipeline:
    """A pipeline over an existing, non-empty index; never creates the data directory."""
    where = f"{settings.chroma.host}:{settings.chroma.port}" if settings.chroma.host else None
    if where is None and not (settings.data_dir / "chroma").is_dir():
        raise NoIndex(
            f"no index in {settings.data_dir}: run `paperchat ingest PATH --data-dir "
            f"{settings.data_dir}` first"
        )
    pipe = _pipeline(settings)
    # The paper records only (stored with the derived indexes): counting chunks costs more.
    if not pipe.catalog():
        place = f"the Chroma server at {where}" if where else str(settings.data_dir)
        raise NoIndex(f"the index in {place} holds no papers: run `paperchat ingest PATH` first")
    return pipe


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Load abstracts from files or folders and index them."""
    pipe = _pipeline(settings)
    if args.if_empty and pipe.catalog():
        emit(args, {"skipped": "index not empty"}, "index not empty: nothing to do")
        return 0
    # The bar goes to stderr, so even `--json` runs show that a long ingest is moving.
    progress = None if args.quiet else _bar("ingest")
    loaded, report = pipe.ingest(args.paths, prune=args.prune, progress=progress)
    if not args.json:
        for err in report.errors:
            print(f"rejected {err}", file=sys.stderr)
    emit(
        args,
        report.model_dump(),
        f"added {report.added}, updated {report.updated}, unchanged {report.unchanged}, "
        f"removed {report.removed}, rejected {len(report.errors)}",
    )
    if loaded.fatal:
        return 2
    return 1 if report.errors else 0


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    """Show what the index holds."""
    pipe = _pipeline(settings)
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
    """Metadata filter flags shared by search, ask and chat."""
    p.add_argument("--area", help="primary area contains this text")
    p.add_argument("--keyword", help="a keyword contains this text")
    p.add_argument("--decision", help="decision, e.g. Oral or Poster")
    p.add_argument("--title", dest="title_filter", help="title contains this text")
    p.add_argument(
        "--min-rating",
        type=float,
        metavar="X",
        help="average reviewer rating at least X (papers without a rating are left out)",
    )


def filters_from(args: argparse.Namespace) -> Filters:
    """Filters from parsed flags."""
    from rag.models import Filters

    return Filters(
        area=args.area,
        keyword=args.keyword,
        decision=args.decision,
        title=args.title_filter,
        min_rating=args.min_rating,
    )


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    """Find the papers that best match a query."""
    pipe = _pipeline(settings)
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
                "avg_rating": h.paper.avg_rating,
                "n_ratings": h.paper.n_ratings,
            }
            for h in hits
        ],
    }
    lines = [
        f"{i}. {h.paper.title}  [{h.paper.id}]  score {h.score:.4f}" for i, h in enumerate(hits, 1)
    ]
    emit(args, payload, "\n".join(lines) or "no results")
    return 0


def _ask_options(args: argparse.Namespace) -> AskOptions:
    from rag.app.options import AskOptions

    return AskOptions(
        k=args.k,
        filters=filters_from(args),
        retrieval=args.mode,
        answerer=args.answerer,
        show_weak=getattr(args, "show_weak", False),
    )


def render_text(answer: Answer) -> str:
    """An answer for the terminal: text, then numbered references with their quotes."""
    if answer.error:
        return f"Error: {answer.error}"
    from rag.store.markup import plain

    # Rendered for people (18×, α); --json keeps the stored text, which quotes match verbatim.
    lines = [plain(answer.text), ""]
    for c in answer.citations:
        lines.append(f"[{c.n}] {plain(c.title)}" + (f" <{c.url}>" if c.url else ""))
        lines.append(f'    "{plain(c.quote)}"')
    attributed = [s for s in answer.sentences if s.attributed]
    if attributed:
        lines.append("")
        lines.append("Attributed (the model cited nothing; the best-supporting source is shown):")
        lines.extend(
            f"  ~ {plain(s.text)} [{', '.join(map(str, s.citations))}]" for s in attributed
        )
    if answer.refused and not answer.weak and answer.sources:
        lines.append("")
        lines.append("(--show-weak shows the closest evidence anyway, marked weak)")
    flagged = [s.text for s in answer.sentences if not s.supported]
    if flagged:
        lines.append("")
        lines.append("Not backed by the cited abstracts:")
        lines.extend(f"  ! {t}" for t in flagged)
    return "\n".join(lines).rstrip()


def _export_path(value: str) -> str:
    from rag.answers.export import ExportError, export_format

    try:
        export_format(value)
    except ExportError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _write_outputs(args: argparse.Namespace, answer: Answer) -> None:
    """The --export file and --chart PNG of an answer's papers (imported only when asked)."""
    if not (args.export or args.chart):
        return
    from rag.answers.export import answer_matches, render_export

    matches = answer_matches(answer)
    if args.export:
        Path(args.export).write_text(render_export(matches, args.export), encoding="utf-8")
        print(f"exported {len(matches)} papers to {args.export}", file=sys.stderr)
    if args.chart:
        from rag.answers import charts

        fig = charts.answer_chart(matches, answer.plan) or charts.area_decision_chart(matches)
        charts.write_png(fig, args.chart)
        print(f"chart of {len(matches)} papers written to {args.chart}", file=sys.stderr)


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    """Answer one question with citations."""
    pipe = _answering_pipeline(settings)
    answer = pipe.ask(args.question, options=_ask_options(args))
    emit(args, answer.payload(), render_text(answer))
    if answer.error:
        return 1
    try:
        _write_outputs(args, answer)
    except OSError as exc:
        print(f"paperchat: {exc}", file=sys.stderr)
        return 1
    return 0


def cmd_chat(args: argparse.Namespace, settings: Settings) -> int:
    """A terminal conversation; follow-up questions refer to earlier answers.

    With --json, each turn prints one JSON object on one line (no streaming, no banner on
    stdout), so a script can read the answers line by line.
    """
    from rag.models import Answer, Conversation
    from rag.store.markup import plain

    pipe = _answering_pipeline(settings)
    banner = f"PaperChat — {pipe.mode_info()['detail']} Type 'new' for a new chat, 'quit' to leave."
    print(banner, file=sys.stderr if args.json else sys.stdout)
    conversation = Conversation()
    options = _ask_options(args)
    while True:
        try:
            question = input("" if args.json else "\nyou> ").strip()
        except EOFError:
            return 0
        if question in {"quit", "exit"}:
            return 0
        if question == "new":
            conversation = Conversation()
            if not args.json:
                print("(new chat)")
            continue
        if not question:
            continue
        answer: Answer | None = None
        for part in pipe.stream(question, conversation, options):
            if isinstance(part, Answer):
                answer = part
            elif not args.json:
                sys.stdout.write(plain(part))
                sys.stdout.flush()
        assert answer is not None
        if args.json:
            print(json.dumps(answer.payload(), ensure_ascii=False), flush=True)
            continue
        print()
        print(
            render_text(answer).removeprefix(plain(answer.text)).strip("\n")
            if not answer.error
            else f"Error: {answer.error}"
        )


def cmd_map(args: argparse.Namespace, settings: Settings) -> int:
    """Write the conference map as one self-contained HTML page."""
    from rag.map.figure import write_html

    pipe = _answering_pipeline(settings)
    cmap = pipe.conference_map()
    highlight: list[str] = []
    if args.question:
        answer = pipe.ask(args.question, options=_ask_options(args))
        highlight = answer.paper_ids()
    path = write_html(args.out, cmap, pipe.catalog(), highlight)
    payload = {"out": str(path), "papers": len(cmap), "themes": len(cmap.themes)}
    emit(
        args,
        {**payload, "highlighted": len(highlight)},
        f"map of {len(cmap)} papers in {len(cmap.themes)} themes written to {path}"
        + (f" ({len(highlight)} papers of the answer ringed)" if highlight else ""),
    )
    return 0


def cmd_themes(args: argparse.Namespace, settings: Settings) -> int:
    """List the conference's themes: size, label and papers."""
    from rag.map.conference_map import dump, themes_text

    cmap = _answering_pipeline(settings).conference_map()
    if args.json:
        print(dump(cmap))
    else:
        print(themes_text(cmap))
    return 0


def _question(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("the question is empty")
    return text


def _add_builtin_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("ingest", parents=[common], help="index abstracts from files or folders")
    p.add_argument("paths", nargs="+", help="TXT, JSONL, JSON or CSV files, or folders of them")
    p.add_argument("--prune", action="store_true", help="remove papers not in the given sources")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--if-empty", action="store_true", help="only when the index has no papers")
    p.set_defaults(handler=cmd_ingest)

    p = sub.add_parser("stats", parents=[common], help="show what the index holds")
    p.set_defaults(handler=cmd_stats)

    p = sub.add_parser("search", parents=[common], help="find papers matching a query")
    p.add_argument("query")
    p.add_argument("-k", type=int, default=5, help="number of papers")
    p.add_argument("--mode", choices=["hybrid", "dense", "bm25"], default=None)
    add_filter_args(p)
    p.set_defaults(handler=cmd_search)

    p = sub.add_parser("map", parents=[common], help="write the conference map as an HTML page")
    p.add_argument("--out", default="map.html", metavar="FILE", help="page to write (map.html)")
    p.add_argument(
        "--question", default=None, help="ring the papers of this question's answer on the map"
    )
    p.set_defaults(handler=cmd_map, k=None, mode=None, answerer="extractive", area=None,
                   keyword=None, decision=None, title_filter=None, min_rating=None)  # fmt: skip

    p = sub.add_parser("themes", parents=[common], help="list the conference's themes")
    p.set_defaults(handler=cmd_themes)

    for name, help_text, handler in (
        ("ask", "answer one question", cmd_ask),
        ("chat", "chat in the terminal (--json: one JSON object per turn)", cmd_chat),
    ):
        p = sub.add_parser(name, parents=[common], help=help_text)
        if name == "ask":
            p.add_argument("question", type=_question)
            p.add_argument(
                "--export",
                metavar="FILE",
                type=_export_path,
                help="write the answer's papers to FILE (.csv, .bib or .jsonl)",
            )
            p.add_argument(
                "--chart",
                metavar="PATH",
                help="write a PNG bar chart of the answer's papers per primary area (a rating "
                "question's: their ratings)",
            )
        p.add_argument("-k", type=int, default=None, help="papers to retrieve")
        p.add_argument("--mode", choices=["hybrid", "dense", "bm25"], default=None)
        p.add_argument(
            "--answerer",
            choices=["auto", "extractive", "model"],
            default="auto",
            help="auto: the model when configured, else extractive",
        )
        p.add_argument(
            "--show-weak",
            action="store_true",
            help="instead of refusing, show the closest evidence (marked weak)",
        )
        add_filter_args(p)
        p.set_defaults(handler=handler)


def _global_options(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS on both the top parser and each subparser: the flag works before or after
    # the subcommand, and a subparser's default never overwrites a value given before it.
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=argparse.SUPPRESS,
        help="index directory (PAPERCHAT_DATA_DIR)",
    )
    parser.add_argument(
        "--json", action="store_true", default=argparse.SUPPRESS, help="print JSON for scripts"
    )


def plugin_registrations() -> list[Callable[[Any, argparse.ArgumentParser], None]]:
    """The `register_commands` functions that installed packages declare for paperchat."""
    return [ep.load() for ep in entry_points(group=ENTRY_POINT_GROUP)]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser: built-in subcommands plus every registered plugin's."""
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common)
    parser = argparse.ArgumentParser(
        prog="paperchat", description="Ask research-paper abstracts questions, with citations."
    )
    _global_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _add_builtin_commands(sub, common)
    for register in plugin_registrations():
        register(sub, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `paperchat` and `python -m rag`."""
    args = build_parser().parse_args(argv)
    args.json = getattr(args, "json", False)
    from pydantic import ValidationError

    from rag.settings import Settings

    overrides: dict[str, Any] = {}
    if getattr(args, "data_dir", None):
        overrides["data_dir"] = args.data_dir
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        print(f"paperchat: invalid settings:\n{exc}", file=sys.stderr)
        return 2
    try:
        return args.handler(args, settings)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if not _is_user_error(exc):
            raise
        print(f"paperchat: {exc}", file=sys.stderr)
        return 2


def _is_user_error(exc: Exception) -> bool:
    # Imported here, not at start-up: whoever raised these has already loaded their modules.
    from rag.providers import ProviderError
    from rag.store.chroma import IndexError_

    return isinstance(exc, IndexError_ | ProviderError | NoIndex)
