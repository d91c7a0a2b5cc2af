"""`paperchat ask` and `paperchat chat`: questions from the terminal."""

from __future__ import annotations

import argparse
import sys
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


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    """Answer one question with citations."""
    pipe = Pipeline(settings)
    answer = pipe.ask(args.question, options=_options(args))
    emit(args, answer.payload(), render_text(answer))
    return 1 if answer.error else 0


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
