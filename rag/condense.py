"""Turning a follow-up ("what dataset did it use?") into a standalone question."""

from __future__ import annotations

import re

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import LLM

from .models import Conversation
from .prompts import Prompt

_ORDINALS = {
    "first": 0,
    "1st": 0,
    "former": 0,
    "second": 1,
    "2nd": 1,
    "latter": 1,
    "third": 2,
    "3rd": 2,
    "fourth": 3,
    "4th": 3,
    "fifth": 4,
    "5th": 4,
    "last": -1,
}
_ORDINAL = re.compile(
    r"\b(?:the\s+)?(" + "|".join(_ORDINALS) + r")\b(?:\s+(?:one|paper|method|work|result))?",
    re.IGNORECASE,
)
_PLURAL = re.compile(r"\b(they|them|their|these|those|both|all of them|each)\b", re.IGNORECASE)
_SINGULAR = re.compile(
    r"\b(it|its|this|that|the (?:paper|method|model|approach|work|authors|same))\b|"
    r"^\s*(?:and|what about|how about)\b",
    re.IGNORECASE,
)
HISTORY_TURNS = 3


class Condensed:
    """A standalone question, and the papers a follow-up refers to (when known)."""

    def __init__(self, question: str, paper_ids: list[str] | None = None) -> None:
        self.question, self.paper_ids = question, paper_ids


def heuristic_condense(question: str, conversation: Conversation | None) -> Condensed:
    """Resolve references from the previous turn's cited papers, without a model."""
    last = conversation.last if conversation else None
    cites = last.answer.citations if last and not last.answer.refused else []
    if not cites:
        return Condensed(question)
    ordinal = _ORDINAL.search(question)
    if ordinal:
        i = _ORDINALS[ordinal.group(1).lower()]
        if -len(cites) <= i < len(cites):
            picked = [cites[i]]
        else:
            return Condensed(question)
    elif _PLURAL.search(question):
        picked = list(cites)
    elif _SINGULAR.search(question) or len(question.split()) <= 4:
        picked = [cites[0]]
    else:
        return Condensed(question)
    titles = "; ".join(c.title for c in picked)
    return Condensed(f"{question} (about: {titles})", [c.paper_id for c in picked])


def history_text(conversation: Conversation, turns: int = HISTORY_TURNS) -> str:
    """The recent conversation as plain text, with the papers each answer cited."""
    lines = []
    for turn in conversation.turns[-turns:]:
        lines.append(f"User: {turn.question}")
        cited = "; ".join(f"[{c.n}] {c.title}" for c in turn.answer.citations)
        summary = turn.answer.text if len(turn.answer.text) < 600 else turn.answer.text[:600] + "…"
        lines.append(f"Assistant: {summary}" + (f"\n(Cited papers: {cited})" if cited else ""))
    return "\n".join(lines)


def model_condense(
    llm: LLM, prompt: Prompt, question: str, conversation: Conversation | None
) -> Condensed:
    """Ask the model to rewrite a follow-up; a first question is used as it is."""
    if not conversation or not conversation.turns:
        return Condensed(question)
    text = prompt.render(history=history_text(conversation), question=question)
    reply = llm.chat([ChatMessage(role="user", content=text)]).message.content or ""
    standalone = reply.strip().strip('"').splitlines()[0].strip() if reply.strip() else ""
    return Condensed(standalone or question)
