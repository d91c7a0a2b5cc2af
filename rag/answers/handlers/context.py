"""What every collection handler is given: the catalog, the topic matcher, the sentence cues, the
model writer."""

from __future__ import annotations

from dataclasses import dataclass

from rag.cues import Cues
from rag.protocols import Answerer
from rag.retrieval.matching import TopicMatcher
from rag.store.catalog import Catalog


@dataclass(frozen=True)
class Context:
    """The parts a handler answers with, built once per question (the catalog of that moment)."""

    cat: Catalog
    matcher: TopicMatcher
    cues: Cues
    writer: Answerer | None = None
