"""What every collection handler is given: the catalog, the topic matcher, the sentence cues, the
model writer."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import Catalog
from ..cues import Cues
from ..matching import TopicMatcher
from ..protocols import Answerer


@dataclass(frozen=True)
class Context:
    """The parts a handler answers with, built once per question (the catalog of that moment)."""

    cat: Catalog
    matcher: TopicMatcher
    cues: Cues
    writer: Answerer | None = None
