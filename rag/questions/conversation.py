"""What a follow-up refers back to: the papers of the conversation's recent answers."""

from __future__ import annotations

from rag.models import Answer, Citation, Conversation, Plan, QuestionKind, Turn

# How many recent exchanges a follow-up may reach back through.
HISTORY_TURNS = 3


def _recent(conversation: Conversation | None) -> list[Turn]:
    """The recent turns, latest first."""
    return list(reversed(conversation.turns[-2 * HISTORY_TURNS :] if conversation else []))


def last_cited(conversation: Conversation | None) -> list[Citation]:
    """Citations of the latest recent answer that cited papers.

    A refusal in between ("Compare both." unresolved, a detail the abstract lacks) leaves the
    papers talked about as they were."""
    for turn in _recent(conversation):
        if not turn.answer.refused and turn.answer.citations:
            return list(turn.answer.citations)
    return []


def last_list(conversation: Conversation | None, several: bool = False) -> list[Citation]:
    """Citations of the latest recent answer that listed papers: several, or (unless
    `several`) a list of one ("Which of them are orals?" answered by one paper)."""
    # "the third one" counts through a list, which a one-paper answer in between
    # ("and the second one?") does not replace.
    for turn in _recent(conversation):
        answer = turn.answer
        listed = len(answer.citations) > 1 or (answer.papers and not several)
        if not answer.refused and answer.citations and listed:
            return list(turn.answer.citations)
    return []


def shown_ids(answer: Answer) -> list[str]:
    """The papers an answer gave: those it matched (a list or count), else those it cites."""
    return [p.paper_id for p in answer.papers] or [c.paper_id for c in answer.citations]


def narrows(plan: Plan) -> bool:
    """Whether a plan narrows an earlier answer's list ("how many of them are orals?")."""
    return plan.follow_up and plan.kind in (
        QuestionKind.LIST,
        QuestionKind.COUNT,
        QuestionKind.SHARE,
    )


def listed_turn(conversation: Conversation | None) -> Turn | None:
    """The latest turn that listed papers: a list, count or comparison, or an answer citing
    several. A one-paper answer in between ("What does the third one propose?") does not
    replace it: "which of those are orals?" still means the list."""
    for turn in reversed(conversation.turns if conversation else []):
        plan = turn.answer.plan
        if turn.answer.refused and not (plan and narrows(plan)):
            continue
        if plan and plan.kind.collection:
            return turn
        if len(turn.answer.citations) > 1:
            return turn
    return None
