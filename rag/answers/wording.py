"""The words of collection answers that several handlers share: filters, refusals, leads."""

from __future__ import annotations

from rag.models import Filters
from rag.retrieval.matching import describe_filters
from rag.store.catalog import Catalog


def decisions_note(filters: Filters, catalog: Catalog) -> str:
    """' The index's decisions are Oral and Poster.' when the filter asks for another one."""
    if not filters.decision or filters.decision in catalog.decisions:
        return ""
    if not catalog.decisions:
        return " The index records no decisions (oral, poster) for its papers."
    return f" The index's decisions are {' and '.join(catalog.decisions)}."


def nothing_passes(filters: Filters, catalog: Catalog) -> str:
    """A search no paper passes the filter of: that, not "no paper is close to it"."""
    return (
        f"No {describe_filters(filters)} are in the index, so nothing was searched; remove the "
        "filter to search every paper." + decisions_note(filters, catalog)
    )


# What a list answer's quotes are, for a question asking each paper for one kind of sentence.
ASPECT_SAID = {
    "problem": "a problem or limitation",
    "finding": "a finding",
    "contribution": "its contribution",
}
RECORDS = "its records have titles, abstracts, keywords, areas, decisions and links"


# What a named paper's abstract does not state, one fixed phrase per answer type: "The abstract
# of X does not state the models, datasets or tools asked about." The question is not restated.
_UNSTATED = {
    "number": "the number asked about",
    "entities": "the models, datasets or tools asked about",
    "finding": "the result asked about",
    "problem": "the problem asked about",
    "contribution": "what it contributes",
    "general": "the detail asked about",
}


def unstated(answer_type: str, *titles: str) -> str:
    """'The abstract of X does not state the number asked about.' ('The abstract …' untitled;
    'The abstracts of X; Y do not state …' of several)."""
    what = _UNSTATED.get(answer_type, _UNSTATED["general"])
    if len(titles) > 1:
        return f"The abstracts of {'; '.join(titles)} do not state {what}."
    whose = f"The abstract of {titles[0]}" if titles and titles[0] else "The abstract"
    return f"{whose} does not state {what}."


# An average of fewer than three ratings is marked: with one or two, a single reviewer makes
# half or all of it, and a venue that assigns three or more reviewers per paper (ICLR does)
# has missing reviews there. A property of averages, not a cut read off any question.
FEW_RATINGS = 3


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


def in_english(language: str) -> str:
    """The line above an offline answer to a question in another language (ISO code)."""
    return (
        f"Your question looks like it is in another language ({language}). Offline answers "
        "are in English, quoted from the abstracts; a configured model answers in your "
        "language (set PAPERCHAT_LLM__PROVIDER=openai).\n"
    )
