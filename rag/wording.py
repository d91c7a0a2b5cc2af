"""The words of collection answers that several handlers share: filters, refusals, leads."""

from __future__ import annotations

from collections.abc import Sequence

from .catalog import Catalog
from .models import Filters


def among(within: Sequence[str]) -> str:
    """'; among the 5 papers of the previous answer' when a follow-up narrows them."""
    return f"; among the {len(within)} papers of the previous answer" if within else ""


def describe_filters(filters: Filters) -> str:
    """Filters in words: 'Oral papers in the reinforcement learning area with keyword X'."""
    bits = []
    if filters.area:
        bits.append(f"in the {filters.area} area")
    if filters.keyword:
        bits.append(f"with the keyword “{filters.keyword}”")
    if filters.title:
        bits.append(f"with “{filters.title}” in the title")
    head = f"{filters.decision} papers" if filters.decision else "papers"
    return " ".join([head, *bits])


def decisions_note(filters: Filters, catalog: Catalog) -> str:
    """' The index's decisions are Oral and Poster.' when the filter asks for another one."""
    if not filters.decision or filters.decision in catalog.decisions:
        return ""
    if not catalog.decisions:
        return " The index records no decisions (oral, poster) for its papers."
    return f" The index's decisions are {' and '.join(catalog.decisions)}."


# What a list answer's quotes are, for a question asking each paper for one kind of sentence.
ASPECT_SAID = {
    "problem": "a problem or limitation",
    "finding": "a finding",
    "contribution": "its contribution",
}
RECORDS = "its records have titles, abstracts, keywords, areas, decisions and links"
