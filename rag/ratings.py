"""Reviewer ratings: reading a rating question's words, and answering it over matched papers.

A question asks about ratings when it writes a word for the reviewers' judgement ("rated",
"ratings", "reviewer scores") near a word that orders papers by it ("best", "top", "well") or
asks for its spread ("distribution", "average"). The words are one lexicon (data, below); a
word of six letters or more also matches with one typing slip ("hihgest"), as people type.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import TYPE_CHECKING, Any

from .catalog import Catalog
from .markup import bold, readable
from .models import Answer, AnswerSentence, Citation, PaperMatch, Plan, SearchHit

if TYPE_CHECKING:
    from matplotlib.figure import Figure

RATINGS = "reviewer ratings: papers by rating, ratings by area, a rating distribution"
# An average of fewer than three ratings is marked: with one or two, a single reviewer makes
# half or all of it, and a venue that assigns three or more reviewers per paper (ICLR does)
# has missing reviews there. A property of averages, not a cut read off any question.
FEW_RATINGS = 3
# Ratings shown with two decimals; papers whose averages agree to them are a tie.
PLACES = 2

LEXICON: dict[str, tuple[str, ...]] = {
    # The reviewers' judgement of a paper. "review" alone is a survey ("a review of X").
    "judged": (
        *"rated rating ratings reviewed reviews reviewer reviewers".split(),
        "review score",
        "review scores",
    ),
    # Orders papers by it, best first ...
    "best": tuple("best highest top well highly high higher good better greatest most".split()),
    # ... or worst first.
    "worst": tuple("worst lowest low lower poorly least".split()),
    # Asks for its spread.
    "spread": tuple("distribution distributed spread histogram average mean median".split()),
    # A field a rating is grouped by, and the words asking for one value per group.
    "group": tuple("area areas track tracks field fields".split()),
    "per": tuple("which what per by each every".split()),
    # At least a number: "rated 7 or higher", "rating >= 7", "a rating of at least 7".
    "above": ("at least", "above", "over", "more than", "higher than", ">=", "≥", ">"),
    "or_more": ("or higher", "or above", "or more", "or better", "and up", "+"),
}
# Kinds whose words also match with one typing slip ("hihgest"): not the judgement words,
# whose near neighbours are other words ("rates" in "learning rates", "review").
SLIPS = frozenset({"best", "worst", "spread"})
NEAR = 3  # tokens between a judgement word and its ordering or spread word
_TOKEN = re.compile(r"\d+(?:\.\d+)?|\w+|[≥>]=?|\+", re.UNICODE)


def _slip(a: str, b: str) -> bool:
    """One typing slip apart (words of six letters or more): a letter changed, added or
    dropped, or two neighbours swapped."""
    if min(len(a), len(b)) < 6 or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
        return len(diff) == 1 or (swapped and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


@dataclass
class _Token:
    text: str
    start: int
    end: int


def _tokens(question: str) -> list[_Token]:
    return [_Token(m.group().lower(), m.start(), m.end()) for m in _TOKEN.finditer(question)]


def _find(tokens: list[_Token], kind: str) -> list[tuple[int, int]]:
    """Token ranges [i, j) where a phrase of the lexicon kind is written."""
    found = []
    for phrase in (tuple(p.split()) for p in LEXICON[kind]):
        for i in range(len(tokens) - len(phrase) + 1):
            words = [tokens[i + k].text for k in range(len(phrase))]
            if words == list(phrase) or (
                kind in SLIPS and len(phrase) == 1 and _slip(words[0], phrase[0])
            ):
                found.append((i, i + len(phrase)))
    return found


@dataclass
class RatingAsk:
    """What a question asks of the ratings, and where its words are (to leave the topic)."""

    order: str = ""  # "best", "worst" or "" (a spread only)
    spread: bool = False
    by_area: bool = False
    spans: list[tuple[int, int]] = field(default_factory=list)


def read_rating(question: str) -> RatingAsk | None:
    """The rating question a question asks, or None when it asks none."""
    tokens = _tokens(question)
    judged = _find(tokens, "judged")
    if not judged:
        return None
    # "rated 7 or higher" filters (min_rating); its "higher" orders nothing.
    taken = [(a, b) for a, b in min_rating(question)[1]]
    cues: dict[str, list[tuple[int, int]]] = {}
    for kind in ("best", "worst", "spread"):
        cues[kind] = [
            c
            for c in _find(tokens, kind)
            if any(c[0] - j[1] < NEAR and j[0] - c[1] < NEAR for j in judged)
            and not any(a <= tokens[c[0]].start < b for a, b in taken)
        ]
    if not any(cues.values()):
        return None
    ask = RatingAsk(
        order="worst" if cues["worst"] and not cues["best"] else "best" if cues["best"] else "",
        spread=bool(cues["spread"]),
    )
    per = {i for i, _ in _find(tokens, "per")}
    for i, _ in _find(tokens, "group"):
        # "which area", "which research area", "per area": one value per area.
        if per & {i - 1, i - 2}:
            ask.by_area = True
            ask.spans.append((tokens[i - 1].start, tokens[i].end))
    words = judged + [c for v in cues.values() for c in v]
    ask.spans.append(_stretch(tokens, min(i for i, _ in words), max(j for _, j in words)))
    return ask


# Words around the rating talk that belong to it, not to the topic: "papers [that were rated
# best] on X", "papers [with an avg rating of at least 7]", "[the best reviewer scores]".
_LINKING = frozenset(
    "is are was were be been has have had got get gets with the a an their its that of for "
    "on in among across by avg average mean score scores".split()
)


def _stretch(tokens: list[_Token], i: int, j: int) -> tuple[int, int]:
    """The characters of tokens [i, j) with the linking words on either side."""
    while i > 0 and tokens[i - 1].text in _LINKING:
        i -= 1
    while j < len(tokens) and tokens[j].text in _LINKING:
        j += 1
    return tokens[i].start, tokens[j - 1].end


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Between "rating" and its number: "a rating of at least 7", "avg rating score >= 7".
_BETWEEN = frozenset("of a an score scores average avg mean".split())


def min_rating(question: str) -> tuple[float | None, list[tuple[int, int]]]:
    """The least rating a question asks for ("rated 7 or higher") and where it is written."""
    tokens = _tokens(question)
    above = dict(_find(tokens, "above"))
    or_more = dict(_find(tokens, "or_more"))
    for i, j in _find(tokens, "judged"):
        k, compared = j, False
        while k < len(tokens) and (k in above or tokens[k].text in _BETWEEN):
            compared |= k in above
            k = above.get(k, k + 1)
        if k >= len(tokens) or not _NUMBER.fullmatch(tokens[k].text):
            continue
        tail = or_more.get(k + 1)
        if not compared and tail is None:
            continue  # "rated 7", "a rating of 7": no "at least" either way
        return float(tokens[k].text), [_stretch(tokens, i, tail or k + 1)]
    return None, []


# -- answers ----------------------------------------------------------------------------------


def no_ratings(question: str, plan: Plan, cat: Catalog) -> Answer | None:
    """A refusal when the question is about ratings and the index holds none."""
    asks = plan.note == RATINGS or plan.filters.min_rating
    if not asks or any(p.avg_rating is not None for p in cat.papers):
        return None
    text = (
        "The index holds no reviewer ratings: none of its records has an average rating "
        "(avg_rating or rating, with n_ratings), so papers cannot be ordered or filtered by one."
    )
    return Answer(question=question, text=text, refused=True, count=0, plan=plan)


def _r(p: PaperMatch) -> float:
    """A rated paper's rating as shown, the unit of a tie."""
    return round(p.avg_rating or 0.0, PLACES)


def rating_said(avg_rating: float | None, n_ratings: int | None) -> str:
    """A rating as said: '7.50 from 4 ratings', '7.00 from only 2 ratings (few)'."""
    if avg_rating is None:
        return "no rating"
    n = n_ratings
    if n is None:
        return f"{avg_rating:.2f}"
    if n < FEW_RATINGS:
        return f"{avg_rating:.2f} from only {n} rating{'s' if n != 1 else ''} (few)"
    return f"{avg_rating:.2f} from {n} ratings"


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


def answer(
    question: str, plan: Plan, cat: Catalog, papers: list[PaperMatch], rule: str, shown: int
) -> Answer:
    """A rating answer over the matched papers (best matching first): the papers by rating,
    the areas by mean rating, or the distribution of their ratings."""
    ask = read_rating(question) or RatingAsk(order="best")
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
    if plan.intent == "count":
        return _distribution(question, plan, cat, rated, papers, f"{head}.{unrated}", rule)
    worst = ask.order == "worst"
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
    citations: list[Citation] = []
    sentences: list[AnswerSentence] = []
    for n, p in enumerate(top, 1):
        tied = [f"[{number[i]}]" for i in ties[_r(p)] if i in number and i != p.paper_id]
        tie = f", tied with {', '.join(tied)}" if 0 < len(tied) <= 3 else ""
        tie = tie or (f", tied with {len(tied)} others listed here" if tied else "")
        quote = f": {readable(p.quote)} [{n}]" if p.quote else ""
        lines.append(f"- {_said(p)}{tie}: {bold(p.title)} [{n}]{quote}")
        citations.append(
            Citation(n=n, paper_id=p.paper_id, title=p.title, url=p.url, quote=p.quote)
        )
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


def is_rating(plan: Plan | None) -> bool:
    """Whether an answer's plan asked about ratings (its chart is then a rating chart)."""
    return plan is not None and plan.note == RATINGS


def answer_chart(papers: Sequence[PaperMatch], plan: Plan | None) -> Figure | None:
    """The chart of a rating answer's papers: mean rating per area when grouped by area,
    else their rating histogram; None for other answers or papers without ratings."""
    if not is_rating(plan) or not any(p.avg_rating is not None for p in papers):
        return None
    # matplotlib is imported only when a chart is drawn: the planner imports this module.
    from . import charts

    n = sum(p.avg_rating is not None for p in papers)
    if plan and plan.group_by == "area":
        return charts.area_rating_chart(papers, f"Mean rating per area of {n:,} rated papers")
    return charts.rating_chart(papers, f"{n:,} rated papers per average rating")
