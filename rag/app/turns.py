"""A question asking the collection two things, answered as two turns of one conversation.

"How many papers use LoRA, and how do they split between orals and posters?" is a count and
a breakdown of the counted papers: the first part is answered alone, the second as its
follow-up (so "they" are the first answer's papers), and the two answers become one. The
parts are cut by rag/questions/parts.py; one-paper questions asking two things are answered
part by part from one abstract instead (rag/answers/extractive.py).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator

from rag.lexicon import Lexicon
from rag.models import Answer, Conversation
from rag.questions.parts import question_parts
from rag.questions.planner import Planner

Stream = Callable[[str, Conversation], Iterator[str | Answer]]


def collection_parts(
    question: str, conversation: Conversation | None, planner: Planner, lexicon: Lexicon
) -> list[str]:
    """The parts of a question asking the collection two things ("How many papers use LoRA,
    and how do they split between orals and posters?"); [] when it asks one."""
    parts = question_parts(question, lexicon)
    first = planner.plan(parts[0], conversation, False) if len(parts) > 1 else None
    # A named paper's parts are answered from its abstract (plan.parts), in one answer.
    return parts if first and first.kind.collection and not first.paper_ids else []


def answered_in_turn(
    parts: list[str], conversation: Conversation | None, stream: Stream
) -> Generator[str, None, Answer]:
    """Each part answered in turn over a copy of the conversation (the user's records the
    whole question once); yields text, returns the joined Answer."""
    scratch = Conversation(turns=list(conversation.turns) if conversation else [])
    answers: list[Answer] = []
    for i, part in enumerate(parts):
        answer: Answer | None = None
        for piece in stream(part, scratch):
            if isinstance(piece, Answer):
                answer = piece
            elif not i:
                yield piece  # a later part is yielded whole, its citations renumbered
        assert answer is not None
        if i:
            # The later part's citations follow the earlier ones': its [1] is [n + 1].
            shift = sum(len(a.citations) for a in answers)
            text = f"\n\n**{part}**\n\n" + _shifted(answer, shift)
            yield text
            cited = [c.model_copy(update={"n": c.n + shift}) for c in answer.citations]
            answer = answer.model_copy(update={"text": text, "citations": cited})
        answers.append(answer)
    return _joined(answers)


def _shifted(answer: Answer, by: int) -> str:
    """The answer's text with each citation marker [n] made [n + by]."""
    text = answer.text
    # Highest first, through a mark no text writes, so [1] -> [3] is not then read as [3].
    for c in sorted(answer.citations, key=lambda c: -c.n):
        text = text.replace(f"[{c.n}]", f"[\0{c.n + by}]")
    return text.replace("[\0", "[")


def _joined(answers: list[Answer]) -> Answer:
    """The first part's answer (its plan, count and papers stand for the question), with the
    later parts' text, citations and sources after it."""
    first, rest = answers[0], answers[1:]
    return first.model_copy(
        update={
            "text": first.text + "".join(a.text for a in rest),
            "citations": [c for a in answers for c in a.citations],
            "sources": [s for a in answers for s in a.sources],
            "refused": all(a.refused for a in answers),
            "error": next((a.error for a in answers if a.error), first.error),
        }
    )
