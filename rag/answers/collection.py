"""Answers over the whole collection: one handler per QuestionKind (handlers/), routed here."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from rag.answers.handlers import (
    comparison,
    counting,
    definitions,
    listing,
    ratings,
    results,
    similar,
)
from rag.answers.handlers.context import Context
from rag.cues import Cues
from rag.models import Answer, Plan, QuestionKind
from rag.protocols import Answerer, Embedder
from rag.retrieval.matching import DISTINCTIVE_MIN_PAPERS, TopicMatcher
from rag.store.catalog import Catalog
from rag.store.index import PaperIndex

K = QuestionKind
Handler = Callable[[Context, str, Plan], Answer | None]

# The handler of each kind answered over the collection; COMPARE streams (see `compare`).
# THEMES is answered by its own handler where that is installed (the pipeline installs
# rag/answers/handlers/themes.py over its conference map); until then it is a list.
HANDLERS: dict[QuestionKind, Handler] = {
    K.SEARCH: listing.listing,
    K.LIST: listing.listing,
    K.COUNT: listing.listing,
    K.SHARE: listing.listing,
    K.AUTHORS: listing.authors,
    K.CITATIONS: listing.no_citations,
    K.BREAKDOWN: counting.breakdown,
    K.MORE: counting.more,
    K.RESULTS: results.results,
    K.DEFINE: definitions.define,
    K.SIMILAR: similar.similar,
    K.RATING: ratings.ratings,
    K.THEMES: listing.listing,
}


class CollectionAnswerer:
    """Answers the collection's kinds of question (lists, counts, comparisons, …) by handler."""

    def __init__(
        self,
        catalog: Callable[[], Catalog],
        index: PaperIndex,
        embedder: Embedder,
        bm25: Callable[[str], np.ndarray],
        cues: Cues,
        writer: Answerer | None = None,
        distinctive_min_papers: int = DISTINCTIVE_MIN_PAPERS,
        handlers: dict[QuestionKind, Handler] | None = None,
    ) -> None:
        self.catalog = catalog
        self.matcher = TopicMatcher(catalog, index, embedder, bm25, distinctive_min_papers)
        self.cues = cues
        self.writer = writer
        self.handlers = {**HANDLERS, **(handlers or {})}

    def context(self) -> Context:
        """What a handler answers with, over the catalog of this moment."""
        return Context(self.catalog(), self.matcher, self.cues, self.writer)

    def answer(self, question: str, plan: Plan) -> Answer | None:
        """The plan's kind answered by its handler; None when the collection has no answer (a
        topic no paper matches: the caller answers from the best-matching abstracts)."""
        ctx = self.context()
        # "Papers rated 7 or higher" of any kind, on an index without ratings, says so.
        if (refusal := ratings.unrated_index(ctx.cat, question, plan)) is not None:
            return refusal
        handler = self.handlers.get(plan.kind)
        return handler(ctx, question, plan) if handler else None

    def compare(self, question: str, plan: Plan, use_model: bool = False) -> Iterator[str | Answer]:
        """Named papers side by side; yields text, then the Answer."""
        return comparison.compare(self.context(), question, plan, use_model)
