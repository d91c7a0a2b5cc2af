"""The papers nearest a named one."""

from __future__ import annotations

import numpy as np

from rag.answers.handlers.context import Context
from rag.answers.handlers.quoting import SHOWN, cite, list_answer, paper_match
from rag.models import Answer, Plan, SearchHit
from rag.retrieval.matching import Match, describe_filters
from rag.store.markup import bold

# Words of a named paper's abstract that at most this share of papers use: what a similar
# paper's quoted sentence should share with it ("KV cache", not "model").
SHARED = 0.05


def similar(ctx: Context, question: str, plan: Plan) -> Answer | None:
    """The papers nearest a named one: its abstract as the query, by words and meaning."""
    cat = ctx.cat
    at = {pid: i for i, pid in enumerate(cat.ids)}
    if not plan.paper_ids or plan.paper_ids[0] not in at:
        return None
    me = at[plan.paper_ids[0]]
    paper = cat.papers[me]
    query = f"{paper.title}. {paper.abstract}"
    # Its own abstract would score highest: left out before scaling.
    combined = ctx.matcher.closest(query, cat, plan.filters, leave_out=me)
    shown = max(1, min(SHOWN, plan.shown or SHOWN))
    order = [int(i) for i in np.argsort(-combined)[:shown] if combined[i] > 0]
    matches = [Match(i, round(float(combined[i]), 4), "close") for i in order]
    # Each paper's line quotes its sentence sharing most of the named paper's rarer words.
    shared = {t for t in cat.abstract_terms[me] if cat.df(t) <= SHARED * len(cat)}
    papers = []
    for m in matches:
        found = paper_match(ctx, m)
        overlap = [len(shared & set(st)) for st in cat.sentence_terms[m.index]]
        if overlap and max(overlap) > 0:
            found.quote = cat.sentences[m.index][overlap.index(max(overlap))]
        papers.append(found)
    rule = "nearest by the words and the embedding of its abstract, combined"
    if plan.filters.active():
        rule += f"; only {describe_filters(plan.filters)}"
    citations = cite(papers)
    lead = f"The {len(papers)} papers closest to {bold(paper.title)} ({rule}):"
    return list_answer(
        question,
        lead,
        citations,
        refused=not papers,
        sources=[SearchHit(paper=cat.papers[m.index], score=m.score) for m in matches],
        plan=plan,
        papers=papers,
        count=len(papers),
        rule=rule,
    )
