"""The seams between PaperChat's parts: what the pipeline needs of an embedder, a retriever and
an answerer. Tests and the evaluation inject anything that fits."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, Protocol

import numpy as np

from rag.models import Answer, Conversation, Filters, SearchHit

Progress = Callable[[int], None]
Mode = Literal["hybrid", "dense", "bm25"]


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors."""

    name: str

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query (models such as bge and e5 prefix queries)."""
        ...


class Retriever(Protocol):
    """Finds the papers for a question, best first, one hit per paper."""

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: Mode | None = None,
        filters: Filters | None = None,
        within: Sequence[str] | None = None,
    ) -> list[SearchHit]: ...


class Answerer(Protocol):
    """Writes an answer over numbered sources (best first): text deltas, then the Answer.

    The pipeline asks it only when the collection answers the question; the offline answer
    (rag.answers.extractive.decide) is what it gives otherwise.
    """

    def stream(self, question: str, hits: Sequence[SearchHit]) -> Iterator[str | Answer]: ...


class Asker(Protocol):
    """What LlamaIndex's faces (rag/app/llama.py) need of PaperChat: its retriever, and `ask`."""

    @property
    def retriever(self) -> Retriever: ...

    def ask(
        self, question: str, conversation: Conversation | None = None, options: Any = None
    ) -> Answer:
        """The finished answer of a question (options: the pipeline's AskOptions)."""
        ...
