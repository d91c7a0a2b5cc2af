"""Two questions in one: where a question is cut into parts, each answered in turn.

One rule for every phrasing: a part ends at a "?", a ";" or a coordinating "and" when the next
word opens a question (a question word of the lexicon, or a preposition before one): "What
does Qronos do and how much memory does it save?", "How many parameters does LaTo use, and
what does it do?", "What is it about, and for how many epochs is it trained?". The router
reads each part's answer type (rag/questions/planner.py `complete_plan`).
"""

from __future__ import annotations

from rag.lexicon import Lexicon
from rag.models import QuestionPart
from rag.questions.router import Router

# Words that join two questions; a comma before "and" belongs to the join.
_JOINS = ("and", "&")
# A part this short ("and?") asks nothing of its own.
MIN_WORDS = 2


def question_parts(question: str, lexicon: Lexicon) -> list[str]:
    """The parts of a question that asks several things, as written; [question] for one."""
    words = question.split()
    parts: list[list[str]] = [[]]
    bare = [w.lower().strip("\"'“‘(,") for w in words] + ["", ""]
    for i, word in enumerate(words):
        # "and how much …", "and for how many epochs …": a question word, or a preposition
        # before one, opens the next part.
        nxt, after = bare[i + 1], bare[i + 2]
        opens = nxt in lexicon.question_words or (
            nxt in lexicon.function_words and after in lexicon.question_words
        )
        if word.lower() in _JOINS and opens and parts[-1]:
            parts.append([])
            continue
        parts[-1].append(word)
        if word.endswith(("?", ";", "？")) and opens:
            parts.append([])
    cut = [" ".join(p).rstrip(" ,;") for p in parts]
    cut = [p if p.endswith(("?", "？")) else p.rstrip(".!") + "?" for p in cut if p]
    if len(cut) < 2 or any(len(p.split()) < MIN_WORDS for p in cut):
        return [question]
    return cut


def first_part(question: str, lexicon: Lexicon) -> str:
    """What the router reads of a question for its kind: its first part. A question asking two
    things is of its first part's kind (the later parts are answered in turn, after it)."""
    return question_parts(question, lexicon)[0]


def asked_parts(question: str, names: int, router: Router, lexicon: Lexicon) -> list[QuestionPart]:
    """The parts of a question asking two things, each routed for its answer type; [] when it
    asks one thing. Parts asking for the same kind of sentence are kept: each is answered by
    its own words ("Which paper combines …, and how are its two levels trained?")."""
    texts = question_parts(question, lexicon)
    if len(texts) < 2:
        return []
    routes = router.route_many(texts, [names] * len(texts))
    return [
        QuestionPart(text=t, answer_type=lexicon.aspect_asked(t) or r.answer_type)
        for t, r in zip(texts, routes, strict=True)
    ]
