"""Lists and counts of the papers on a topic and/or filters, and what the index cannot tell."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rag.answers.handlers.context import Context
from rag.answers.handlers.quoting import SHOWN, cite, list_answer, paper_match
from rag.answers.wording import ASPECT_SAID, RECORDS, decisions_note
from rag.models import Answer, Filters, Plan, QuestionKind, SearchHit
from rag.retrieval.matching import Match, describe_filters
from rag.store.catalog import Catalog
from rag.text import content_terms

K = QuestionKind
Scores = dict[tuple[str, Catalog], tuple[np.ndarray, np.ndarray]]


def no_citations(ctx: Context, question: str, plan: Plan) -> Answer:
    """"Which paper is the most cited?": the index holds no citation counts, and says so."""
    text = (
        f"The index holds no citation counts: {RECORDS}, and an abstract never says how "
        "often the paper is cited."
    )
    return Answer(question=question, text=text, refused=True, count=0, plan=plan)


def authors(ctx: Context, question: str, plan: Plan) -> Answer | None:
    """"Who works on scaling laws?": the papers on it; "Which papers were published by
    Google?": refused, who wrote them being nowhere in the index."""
    if plan.aspect == "authorship":
        text = (
            f"The index holds no authors or affiliations: {RECORDS}, and abstracts rarely "
            "name who wrote them."
        )
        return Answer(question=question, text=text, refused=True, count=0, plan=plan)
    return listing(ctx, question, plan)


@dataclass
class Matched:
    """The papers a plan's topic and filters match, the rule in words, the filter dropped
    because it matched nothing (in words, or ""), and the topic's scores (kept for reuse)."""

    matches: list[Match]
    rule: str
    dropped: str = ""
    scored: Scores = field(default_factory=dict)


def matched(ctx: Context, question: str, plan: Plan) -> Matched | Answer:
    """The plan's matched papers; an Answer when a follow-up's papers match none."""
    filters = plan.filters
    # A follow-up narrowing the last answer ("which of those use a draft model?") keeps
    # to its papers.
    # "Which one is faster?" after a comparison: the compared papers' results.
    within = plan.within
    # Filters first: "the orals on X" where no oral writes X but posters do says so,
    # before any paper merely using X's words stands in for it.
    scored: Scores = {}
    # A topic typed alone that no paper writes is answered from the closest papers, not
    # from every paper using its words somewhere.
    loose = not filters.active() and plan.kind != K.SEARCH
    matches, rule = ctx.matcher.match(plan.topic, filters, within, loose=loose, scored=scored)
    if (
        not matches
        and filters.active()
        and not ctx.matcher.match(plan.topic, Filters(), within, loose=False, scored=scored)[0]
    ):
        matches, rule = ctx.matcher.match(plan.topic, filters, within, scored=scored)
    dropped = ""
    if within and not matches:
        under = f" among {describe_filters(filters)}" if filters.active() else ""
        which = (
            "The paper of the previous answer does not"
            if len(within) == 1
            else f"None of the {len(within)} papers of the previous answer"
        )
        text = (
            f"{which} match “{plan.topic}”{under}."
            if plan.topic
            # "Which of those are orals?" after a comparison: only the filter narrows.
            else f"{which} {'is' if len(within) == 1 else 'are'} {describe_filters(filters)}."
        )
        return Answer(question=question, text=text, refused=True, count=0, plan=plan)
    if not matches and filters.active():
        # Say the filter matched nothing, and offer what the collection has without it.
        dropped = describe_filters(filters)
        matches, rule = ctx.matcher.match(plan.topic, Filters(), scored=scored)
        rule += f" (no {dropped} match, so the filter is not applied)"
    kind = plan.resource if plan.group_by != "name" else ""
    if kind and matches:
        # "Which papers propose a new benchmark?": its title or keywords name one, or a
        # sentence saying what the paper contributes does.
        stems = set(content_terms(kind))
        matches = [m for m in matches if _introduces(ctx, m.index, stems)]
        rule += (
            f"; of them, {len(matches)} introduce a {kind.removesuffix('s')} (their title "
            "or keywords name one, or the sentence stating their contribution does)"
        )
    return Matched(matches, rule, dropped, scored)


def listing(ctx: Context, question: str, plan: Plan) -> Answer | None:
    """A list or count answer; None when a topic matches nothing (the caller answers top-k)."""
    found = matched(ctx, question, plan)
    if isinstance(found, Answer):
        return found
    cat, filters, within = ctx.cat, plan.filters, plan.within
    matches, rule, dropped, scored = found.matches, found.rule, found.dropped, found.scored
    counting = plan.kind.counts
    if not matches and not counting:
        return None
    # "What challenges do papers on X address?": each paper's sentence of that kind.
    asked = plan.aspect if plan.aspect in ASPECT_SAID else None
    papers = [paper_match(ctx, m, asked) for m in matches]  # type: ignore[arg-type]
    # "Give me three papers on model merging": three shown, all of them counted.
    shown = max(1, min(SHOWN, plan.shown or SHOWN))
    share = plan.kind == K.SHARE
    citations = cite(papers[:shown])
    topic = plan.topic or ""
    n = len(matches)
    noun = "paper" if n == 1 else "papers"
    verb = "matches" if n == 1 else "match"
    if dropped:
        about = f" “{topic}”" if topic else ""
        lead = (
            f"No {dropped} match{about}.{decisions_note(filters, cat)} "
            f"Without the filter, {n} {noun} {verb}."
        )
    elif counting and not topic and within and filters.active():
        # "How many of them are posters?" after an answer citing five papers.
        k, what = len(within), describe_filters(filters)
        lead = (
            f"All {n} papers of the previous answer are {what}."
            if n == k > 1
            else f"Of the {k} papers of the previous answer, {n} "
            f"{'matches' if n == 1 else 'match'}: {what}."
        )
    elif counting and not topic:
        what = describe_filters(filters) if filters.active() else "papers"
        lead = f"The index holds {n} {what if filters.active() else noun} ({rule})."
        if share and filters.active():
            lead = (
                f"{n} of the index's {len(cat)} papers are {what}: "
                f"{100 * n / max(len(cat), 1):.1f}% ({rule})."
            )
    elif share and filters.active():
        # "What percentage of diffusion model papers are orals?": of the topic's papers.
        on_topic = len(ctx.matcher.match(plan.topic, Filters(), within, scored=scored)[0])
        lead = (
            f"{n} of the {on_topic} papers matching “{topic}” are "
            f"{describe_filters(filters)}: {100 * n / max(on_topic, 1):.1f}% ({rule})."
        )
    elif share and not within:
        # "What fraction of papers are about LLMs?": of the whole index.
        lead = (
            f"{n} of the index's {len(cat)} papers {verb if n == 1 else 'match'} “{topic}”: "
            f"{100 * n / max(len(cat), 1):.1f}% ({rule})."
        )
    elif counting:
        lead = f"{n} {noun} {verb} “{topic}”: {rule}."
    else:
        lead = (
            f"{n} {noun} {verb} “{topic}” ({rule})."
            if topic
            else f"{n} {noun} ({rule})."
            if filters.active() or within
            # "What are these papers about?": the whole index.
            else f"The index holds {n} {noun} ({rule})."
        )
    if plan.kind == K.AUTHORS and not any(p.authors for p in cat.papers):
        # "Who works on scaling laws?": the papers are what the index can tell.
        lead = f"The index holds no authors or affiliations, only the papers: {lead}"
    if n > shown:
        which = f"{shown} most relevant" if topic else f"first {shown}"
        lead += (
            f" The {which} follow; all {n} are in "
            'the results table and in the JSON answer ("papers").'
        )
    if asked:
        lead += f" Each quote states {ASPECT_SAID[asked]} where the abstract has one."
    hits = [
        SearchHit(paper=cat.papers[m.index], score=m.score) for m in matches[: max(SHOWN, 50)]
    ]
    return list_answer(
        question,
        lead,
        citations,
        refused=n == 0,
        sources=hits,
        plan=plan,
        papers=papers,
        # "How many orals on X?" with no oral on X: the count asked for is 0, whatever
        # unfiltered papers are offered with it.
        count=(0 if dropped else n) if counting else len(papers),
        rule=rule,
    )

def _introduces(ctx: Context, i: int, stems: set[str]) -> bool:
    """Whether paper i's title or keywords name the kind, or a contribution sentence does."""
    cat = ctx.cat
    if stems & set(cat.title_terms[i]) or any(stems & set(k) for k in cat.keyword_terms[i]):
        return True
    return any(
        stems & set(terms) and ctx.cues.contributes(sentence)
        for sentence, terms in zip(cat.sentences[i], cat.sentence_terms[i], strict=True)
    )
