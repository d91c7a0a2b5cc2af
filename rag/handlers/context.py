"""What every collection handler is given: the catalog, the topic matcher, the model writer."""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import Catalog
from ..matching import TopicMatcher
from ..protocols import Answerer


@dataclass(frozen=True)
class Context:
    """The parts a handler answers with, built once per question (the catalog of that moment)."""

    cat: Catalog
    matcher: TopicMatcher
    writer: Answerer | None = None
