"""`paperchat ask` and `paperchat chat`: questions from the terminal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .cli import _EXTENSIONS, COMMANDS, add_filter_args, emit, filters_from
from .models import Answer, Conversation
from .pipeline import AskOptions, Pipeline
from .settings import Settings


def _options(args: argparse.Namespace) -> AskOptions:
    return AskOptions(
        k=args.k, filters=filters_from(args), retrieval=args.mode, answerer=args.answerer
    )


def render_text(answer: Answer) -> str:
    """An answer for the terminal: text, then numbered references with their quotes."""
    if answer.error:
        return f"Error: {answer.error}"
    lines = [answer.text, ""]
    for c in answer.citations:
        ref = f"[{c.n}] {c.title}" + (f" <{c.url}>" if c.url else "")
        lines.append(ref)
        lines.append(f'    "{c.quote}"')
    flagged = [s.text for s in answer.sentences if not s.supported]
    if flagged:
        lines.append("")
        lines.append("Not backed by the cited abstracts:")
        lines.extend(f"  ! {t}" for t in flagged)
    return "\n".join(lines).rstrip()


def _export_path(value: str) -> str:
    from .export import ExportError, export_format

    try:
        export_format(value)
    except ExportError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def _write_outputs(args: argparse.Namespace, answer: Answer) -> None:
    """The --export file and --chart PNG of an answer's papers (imported only when asked)."""
    if not (args.export or args.chart):
        return
    from .export import answer_matches, render_export

    matches = answer_matches(answer)
    if args.export:
        Path(args.export).write_text(render_export(matches, args.export), encoding="utf-8")
        print(f"exported {len(matches)} papers to {args.export}", file=sys.stderr)
    if args.chart:
        from . import charts

        charts.write_png(charts.area_decision_chart(matches), args.chart)
        print(f"chart of {len(matches)} papers written to {args.chart}", file=sys.stderr)


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    """Answer one question with citations."""
    pipe = Pipeline(settings)
    answer = pipe.ask(args.question, options=_options(args))
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
    """A terminal conversation; follow-up questions refer to earlier answers."""
    pipe = Pipeline(settings)
    info = pipe.mode_info()
    print(f"PaperChat — {info['detail']} Type 'new' for a new chat, 'quit' to leave.")
    conversation = Conversation()
    options = _options(args)
    while True:
        try:
            question = input("\nyou> ").strip()
        except EOFError:
            return 0
        if question in {"quit", "exit"}:
            return 0
        if question == "new":
            conversation = Conversation()
            print("(new chat)")
            continue
        if not question:
            continue
        answer = None
        for part in pipe.stream(question, conversation, options):
            if isinstance(part, Answer):
                answer = part
            else:
                sys.stdout.write(part)
                sys.stdout.flush()
        assert answer is not None
        print()
        print(
            render_text(answer).removeprefix(answer.text).strip("\n")
            if not answer.error
            else f"Error: {answer.error}"
        )


def _parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    for name, help_text in (("ask", "answer one question"), ("chat", "chat in the terminal")):
        p = sub.add_parser(name, parents=[common], help=help_text)
        if name == "ask":
            p.add_argument("question")
            p.add_argument(
                "--export",
                metavar="FILE",
                type=_export_path,
                help="write the answer's papers to FILE (.csv, .bib or .jsonl)",
            )
            p.add_argument(
                "--chart",
                metavar="PATH",
                help="write a PNG bar chart of the answer's papers per primary area",
            )
        p.add_argument("-k", type=int, default=None, help="papers to retrieve")
        p.add_argument("--mode", choices=["hybrid", "dense", "bm25"], default=None)
        p.add_argument(
            "--answerer",
            choices=["auto", "extractive", "model"],
            default="auto",
            help="auto: the model when configured, else extractive",
        )
        add_filter_args(p)


COMMANDS["ask"] = cmd_ask
COMMANDS["chat"] = cmd_chat
_EXTENSIONS.append(_parsers)
