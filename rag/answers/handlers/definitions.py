"""What a concept is, in the abstracts' own defining sentences."""

from __future__ import annotations

import re

from rag.answers.handlers.context import Context
from rag.answers.handlers.quoting import cite, list_answer, paper_match
from rag.models import Answer, Plan, SearchHit
from rag.retrieval.matching import Match
from rag.store.catalog import SMALL_WORDS, acronym_tail

# Definitions shown for "What is X?": a few say it; the rest are in the results table.
DEFINITIONS_SHOWN = 3


def define(ctx: Context, question: str, plan: Plan) -> Answer | None:
    """What a concept is, in the abstracts' sentences that say it ("Reward hacking, where a
    model exploits …"); None when no abstract does (the caller looks the question up)."""
    cat = ctx.cat
    terms = tuple(cat.terms(plan.topic))
    if not terms:
        return None
    # "What does RLHF stand for?": "Reinforcement learning from human feedback (RLHF)".
    acronym = plan.topic.removesuffix("s") if _ACRONYM.fullmatch(plan.topic) else ""
    defining = _defining(plan.topic)
    # Only papers holding every word of the concept can hold a sentence writing it.
    candidates = set.intersection(*(cat.postings.get(t, set()) for t in terms))
    found: list[tuple[tuple[bool, bool, int], int, str]] = []
    for i in sorted(candidates):
        if plan.filters.active() and not plan.filters.match(cat.papers[i]):
            continue
        for sentence in cat.sentences[i]:
            m = defining.search(sentence)
            at = m.start() if m else _expansion(sentence, acronym) if acronym else None
            if at is not None:
                # A defining form first, then a sentence opening with the concept; shorter
                # ones say it plainer.
                weak = bool(m and m["weak"])
                found.append(((weak, at > 0, len(sentence)), i, sentence))
                break
    if not found:
        return None
    found.sort()
    shown = max(1, min(DEFINITIONS_SHOWN, plan.shown or DEFINITIONS_SHOWN))
    papers = []
    for _rank, i, sentence in found:
        match = paper_match(ctx, Match(i, 1.0, "abstract", terms))
        match.quote = sentence
        papers.append(match)
    citations = cite(papers[:shown])
    k = len(found)
    rule = (
        "abstracts with a sentence saying what it is (“X, where …”, “X is a …”, “X refers "
        "to …”) or the words an acronym stands for"
    )
    defines = "abstract defines or spells out" if k == 1 else "abstracts define or spell out"
    lead = f"{k} {defines} “{plan.topic}”" + (f"; {shown} follow:" if k > shown else ":")
    return list_answer(
        question,
        lead,
        citations,
        refused=False,
        sources=[SearchHit(paper=cat.papers[i], score=1.0) for _r, i, _s in found[:50]],
        plan=plan,
        papers=papers,
        count=k,
        rule=rule,
    )


def _defining(concept: str) -> re.Pattern[str]:
    """A concept written as what a sentence says it is: "Reward hacking, where …", "catastrophic
    forgetting, which …", "X is a …", "X refers to …", "X (Y) occurs when …", "… in so-called
    X"."""
    written = r"[\s-]+".join(re.escape(w) for w in re.split(r"[\s-]+", concept.strip()))
    return re.compile(
        # "representing features non-orthogonally in so-called *superposition*": what it is
        # comes first.
        rf"(?:so[\s-]called|known\s+as|termed|referred\s+to\s+as|dubbed)\s+[*_\"“']*{written}"
        rf"(?![\w-])|"
        rf"(?<![\w-]){written}(?:e?s)?(?:\s*\([^)]{{1,40}}\))?(?:,\s*(?:where|i\.e\.,?|that\s+is,?)\s|"
        r"\s+(?:is|are)\s+(?:an?|the|defined|characteri[sz]ed)\b|\s+refers?\s+to\b|"
        r"\s+occurs?\s+when\b|\s+describes?\b|\s+denotes?\b|\s*[—–]\s|"
        # "… pretrained diffusion models, which unlock …" says what they do here, not what
        # they are: found, but after the forms above.
        r"(?P<weak>,\s*(?:which|in\s+which)\s|\s+(?:is|are)\s+when\b))",
        re.IGNORECASE,
    )


def _expansion(sentence: str, acronym: str) -> int | None:
    """Where the words an acronym stands for start in the sentence ("Group Relative Policy
    Optimization (GRPO)": their initials spell it, small words skipped); None if nowhere."""
    for m in re.finditer(rf"\(\s*{re.escape(acronym)}s?\s*\)", sentence):
        words = list(re.finditer(r"[A-Za-z][A-Za-z0-9]*", sentence[: m.start()]))
        # The word just before "(" spells the last letter: a small word there spells none.
        if not words or words[-1].group().lower() in SMALL_WORDS:
            continue
        tail = acronym_tail([w.group() for w in words], acronym, SMALL_WORDS)
        if tail:
            return words[-len(tail)].start()
    return None


_ACRONYM = re.compile(r"[A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*")

