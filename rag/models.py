"""Typed objects that cross module boundaries: papers, chunks, citations, answers."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, Field

_WS = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Collapse whitespace and apply NFKC so equal abstracts compare equal across sources."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


def content_key(abstract: str) -> str:
    """Stable key of an abstract's content: survives re-indexing, re-ordering and re-formatting."""
    digest = hashlib.sha256(normalize_text(abstract).lower().encode("utf-8")).hexdigest()
    return digest[:16]


class Paper(BaseModel):
    """One paper: an abstract plus whatever metadata its source had."""

    id: str = Field(description="Source id (e.g. OpenReview id) or 'h-' + content key.")
    key: str = Field(description="Content key of the abstract (see content_key).")
    title: str = Field(description="Title from the source, or a display title derived from it.")
    title_is_derived: bool = Field(default=False, description="True when the source had no title.")
    abstract: str
    authors: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    primary_area: str = ""
    venue: str = ""
    decision: str = ""
    url: str = ""
    source: str = Field(default="", description="File the record came from, with its line.")

    def richness(self) -> int:
        """How much metadata this record carries; the richer duplicate wins."""
        return (
            (0 if self.title_is_derived else 4)
            + (2 if self.id and not self.id.startswith("h-") else 0)
            + len(self.keywords)
            + sum(bool(x) for x in (self.primary_area, self.venue, self.decision, self.url))
            + len(self.authors)
        )

    def fingerprint(self) -> str:
        """Hash of everything indexed for this paper: a change means its chunks are rebuilt."""
        payload = self.model_dump_json(exclude={"source"})
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class LoadError(BaseModel):
    """A record or file that could not be loaded, located by file and line."""

    file: str
    line: int | None = None
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.message}"


class Chunk(BaseModel):
    """A run of consecutive sentences of one abstract, the unit that is embedded."""

    id: str
    paper_id: str
    position: int = Field(description="Index of this chunk within its paper.")
    sentence_start: int
    sentence_end: int = Field(description="Exclusive end sentence index.")
    text: str


class IngestReport(BaseModel):
    """What an ingest did: counts per outcome, and the records it rejected."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    errors: list[LoadError] = Field(default_factory=list)


class SearchHit(BaseModel):
    """One paper found by retrieval, with its fused score and best-matching chunks."""

    paper: Paper
    score: float
    chunks: list[Chunk] = Field(default_factory=list)
    ranks: dict[str, int] = Field(default_factory=dict, description="Rank per retriever, 1-based.")
    dense: float | None = Field(default=None, description="Best chunk cosine similarity.")
    bm25: float | None = Field(default=None, description="BM25 score of the paper.")


class Citation(BaseModel):
    """A citation marker [n] in an answer and the paper and sentence(s) behind it."""

    n: int
    paper_id: str
    title: str
    url: str = ""
    quote: str = Field(description="Supporting sentence(s), verbatim from the abstract.")


class AnswerSentence(BaseModel):
    """One sentence of an answer, the citations it carries and how well they support it."""

    text: str
    citations: list[int] = Field(default_factory=list)
    support: float | None = Field(default=None, description="0..1; None when nothing is cited.")
    supported: bool = True


class Usage(BaseModel):
    """Tokens spent on model calls for one answer."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


class Answer(BaseModel):
    """The answer object that the CLI, UI and evaluation all consume."""

    question: str
    standalone_question: str = ""
    text: str
    refused: bool = False
    mode: Literal["extractive", "model"] = "extractive"
    model: str = ""
    citations: list[Citation] = Field(default_factory=list)
    sources: list[SearchHit] = Field(default_factory=list)
    sentences: list[AnswerSentence] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")
    usage: Usage | None = None
    error: str = Field(default="", description="User-facing message when answering failed.")
    complete: bool = Field(default=True, description="False when generation stopped midway.")

    def citation(self, n: int) -> Citation | None:
        """The citation numbered n, if any."""
        return next((c for c in self.citations if c.n == n), None)

    def payload(self) -> dict[str, Any]:
        """The stable JSON shape of `paperchat ask --json` and the app's API."""
        return {
            "question": self.question,
            "answer": self.text,
            "refused": self.refused,
            "citations": [
                c.model_dump(include={"n", "paper_id", "title", "url", "quote"})
                for c in self.citations
            ],
            "sources": [
                {"paper_id": s.paper.id, "title": s.paper.title, "score": s.score}
                for s in self.sources
            ],
            "mode": self.mode,
            "timings": self.timings,
            "error": self.error,
            "complete": self.complete,
            "unsupported": [s.text for s in self.sentences if not s.supported],
        }


class Turn(BaseModel):
    """One question and its answer in a conversation."""

    question: str
    answer: Answer


class Conversation(BaseModel):
    """One user's chat history; never shared between users."""

    turns: list[Turn] = Field(default_factory=list)

    def add(self, question: str, answer: Answer) -> None:
        """Record a finished turn."""
        self.turns.append(Turn(question=question, answer=answer))

    @property
    def last(self) -> Turn | None:
        """The most recent turn."""
        return self.turns[-1] if self.turns else None
