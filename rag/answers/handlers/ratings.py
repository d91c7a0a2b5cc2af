"""Reviewer ratings answered from the plan (kind RATING): the matched papers by rating, each
area's mean rating (group_by "area"), or the spread of their ratings (aspect "distribution").

Ratings are shown with two decimals, and papers whose averages agree to them are a tie, said as
one; a paper rated by few reviewers is marked (rag/answers/wording.py: rating_said).
"""

from __future__ import annotations

import statistics
from collections import Counter
from itertools import groupby
from typing import Any

from rag.answers.handlers.context import Context
from rag.answers.handlers.listing import matched
from rag.answers.handlers.quoting import SHOWN, cite, paper_match
from rag.answers.wording import FEW_RATINGS, rating_said
from rag.models import Answer, AnswerSentence, PaperMatch, Plan, QuestionKind, SearchHit
from rag.store.catalog import Catalog
from rag.store.markup import bold, readable

PLACES = 2  # decimals a rating is shown with, and the unit of a tie


def unrated_index(cat: Catalog, question: str, plan: Plan) -> Answer | None:
    """A refusal when the question is about ratings (or filters by one) and the index holds
    none."""
    asks = plan.kind == QuestionKind.RATING or plan.filters.min_rating
    if not asks or any(p.avg_rating is not None for p in cat.papers):
        return None
    text = (
        "The index holds no reviewer ratings: none of its records has an average rating "
        "(avg_rating or rating, with n_ratings), so papers cannot be ordered or filtered by one."
    )
    return Answer(question=question, text=text, refused=True, count=0, plan=plan)


def ratings(ctx: Context, question: str, plan: Plan) -> Answer | None:
    """"Which diffusion papers were rated best?", "which area has the best-rated papers?",
    "the rating distribution of RL papers"; None when a topic matches nothing (the caller
    answers from the best-matching abstracts). An index without ratings was refused before
    (unrated_index)."""
    found = matched(ctx, question, plan)
    if isinstance(found, Answer):
        return found
    if not found.matches and not (plan.group_by or plan.aspect == "distribution"):
        return None
    papers = [paper_match(ctx, m) for m in found.matches]
    shown = max(1, min(SHOWN, plan.shown or SHOWN))
    return _ratings_answer(question, plan, ctx.cat, papers, found.rule, shown)


def _r(p: PaperMatch) -> float:
    """A rated paper's rating as shown, the unit of a tie."""
    return round(p.avg_rating or 0.0, PLACES)


def _said(p: PaperMatch) -> str:
    return rating_said(p.avg_rating, p.n_ratings)


def _answer(
    question: str, plan: Plan, cat: Catalog, lines: list[str], ordered: list[PaperMatch],
    papers: list[PaperMatch], count: int, rule: str, **fields: Any,
) -> Answer:  # fmt: skip
    # The table lists every matched paper, rated ones in rating order, then the unrated.
    rest = [p for p in papers if p.avg_rating is None]
    return Answer(
        question=question,
        text="\n".join(lines),
        sources=[SearchHit(paper=cat.by_id[p.paper_id], score=p.score) for p in ordered[:50]],
        plan=plan,
        papers=[*ordered, *rest],
        count=count,
        rule=rule,
        **fields,
    )


def _ratings_answer(
    question: str, plan: Plan, cat: Catalog, papers: list[PaperMatch], rule: str, shown: int
) -> Answer:
    """A rating answer over the matched papers (best matching first): the papers by rating,
    the areas by mean rating, or the distribution of their ratings."""
    rated = [p for p in papers if p.avg_rating is not None]
    what = f"papers matching “{plan.topic}”" if plan.topic else "papers"
    head = f"{len(papers)} {what} ({rule})"
    missing = len(papers) - len(rated)
    unrated = (
        f" {missing} of them {'has' if missing == 1 else 'have'} no rating and "
        f"{'is' if missing == 1 else 'are'} not ranked (listed last in the results table)."
        if missing
        else ""
    )
    if not rated:
        n = len(papers)
        text = (
            f"{'The one paper' if n == 1 else f'None of the {n}'} {what.removeprefix('papers ')} "
            f"({rule}) {'has no' if n == 1 else 'has a'} reviewer rating."
        )
        return _answer(question, plan, cat, [text], [], papers, n, rule)
    if plan.group_by == "area":
        return _by_area(question, plan, cat, rated, papers, f"{head}.{unrated}", rule)
    if plan.aspect == "distribution":
        return _distribution(question, plan, cat, rated, papers, f"{head}.{unrated}", rule)
    worst = plan.aspect == "lowest"
    # Best first (worst first when asked); of equal ratings, the one more reviewers gave first.
    ordered = sorted(rated, key=lambda p: (_r(p) if worst else -_r(p), -(p.n_ratings or 0)))
    ties = {k: [p.paper_id for p in g] for k, g in groupby(ordered, key=_r)}
    top = ordered[:shown]
    number = {p.paper_id: n for n, p in enumerate(top, 1)}
    first = ties[_r(top[0])]
    if len(first) > 1:
        marks = ", ".join(f"[{number[i]}]" for i in first if i in number)
        extra = sum(i not in number for i in first)
        lead = (
            f"The {'lowest' if worst else 'top'} rating, {top[0].avg_rating:.2f}, is a tie "
            f"between {len(first)} papers: {marks}" + (f" and {extra} more" if extra else "") + "."
        )
    else:
        lead = f"The {'lowest' if worst else 'best'}-rated is [1], at {_said(top[0])}."
    lines = [
        f"{lead} Of {head}, by average reviewer rating, "
        f"{'lowest' if worst else 'highest'} first:{unrated}"
    ]
    citations = cite(top)
    sentences: list[AnswerSentence] = []
    for n, p in enumerate(top, 1):
        tied = [f"[{number[i]}]" for i in ties[_r(p)] if i in number and i != p.paper_id]
        tie = f", tied with {', '.join(tied)}" if 0 < len(tied) <= 3 else ""
        tie = tie or (f", tied with {len(tied)} others listed here" if tied else "")
        quote = f": {readable(p.quote)} [{n}]" if p.quote else ""
        lines.append(f"- {_said(p)}{tie}: {bold(p.title)} [{n}]{quote}")
        pieces = [x for x in p.quote.split(" … ") if x]
        sentences.extend(AnswerSentence(text=x, citations=[n], support=1.0) for x in pieces)
    beyond = sum(i not in number for i in ties[_r(top[-1])])
    if beyond:
        lines.append(f"{beyond} more are tied at {top[-1].avg_rating:.2f}.")
    if len(papers) > len(top):
        lines.append(f"All {len(papers)} are in the results table, by rating.")
    return _answer(
        question, plan, cat, lines, ordered, papers, len(papers), rule,
        citations=citations, sentences=sentences,
    )  # fmt: skip


def _by_area(
    question: str,
    plan: Plan,
    cat: Catalog,
    rated: list[PaperMatch],
    papers: list[PaperMatch],
    head: str,
    rule: str,
) -> Answer:
    """Each area's mean rating, best first, with its median and how many papers are rated."""
    per: dict[str, list[float]] = {}
    for p in rated:
        per.setdefault(p.primary_area or "(no area)", []).append(p.avg_rating or 0.0)
    means = {a: round(statistics.mean(v), PLACES) for a, v in per.items()}
    rows = sorted(per, key=lambda a: (-means[a], a))
    lines = []
    for area in rows:
        tied = [b for b in rows if b != area and means[b] == means[area]]
        lines.append(
            f"- {area}: mean {bold(f'{means[area]:.2f}')}, median "
            f"{statistics.median(per[area]):.2f}, {len(per[area])} rated "
            + ("paper" if len(per[area]) == 1 else "papers")
            + (f", tied with {'; '.join(tied)}" if tied else "")
        )
    spread = statistics.pstdev([p.avg_rating or 0.0 for p in rated])
    lead = (
        f"By mean reviewer rating, {rows[0]} comes first at {means[rows[0]]:.2f}. {head} "
        f"Each primary area's mean rating, highest first (over the {len(rated)} rated papers "
        f"the ratings' standard deviation is {spread:.2f}, so areas a few hundredths apart "
        "differ little):"
    )
    ordered = sorted(rated, key=lambda p: -_r(p))
    return _answer(question, plan, cat, [lead, "", *lines], ordered, papers, len(rated), rule)


def _distribution(
    question: str,
    plan: Plan,
    cat: Catalog,
    rated: list[PaperMatch],
    papers: list[PaperMatch],
    head: str,
    rule: str,
) -> Answer:
    """How the matched papers' ratings spread: summary figures and papers per whole point."""
    values = sorted(p.avg_rating or 0.0 for p in rated)
    q1, median, q3 = (
        statistics.quantiles(values, n=4, method="inclusive")
        if len(values) > 1
        else [values[0]] * 3
    )
    bands = Counter(int(v) for v in values)
    few = sum(p.n_ratings is not None and p.n_ratings < FEW_RATINGS for p in rated)
    lead = (
        f"{head} Of the {len(rated)} rated: mean {bold(f'{statistics.mean(values):.2f}')}, "
        f"median {median:.2f}, middle half {q1:.2f}–{q3:.2f}, range {values[0]:.2f}–"
        f"{values[-1]:.2f}"
        + (f"; {few} rest on fewer than {FEW_RATINGS} ratings" if few else "")
        + ". Papers per rating band:"
    )
    lines = [f"- {k}–{k + 1}: {bold(str(c))}" for k, c in sorted(bands.items(), reverse=True)]
    ordered = sorted(rated, key=lambda p: -_r(p))
    return _answer(question, plan, cat, [lead, "", *lines], ordered, papers, len(rated), rule)
