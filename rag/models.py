"""Typed objects that cross module boundaries: papers, chunks, citations, answers."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, Field


def normalize_text(text: str) -> str:
    """Collapse whitespace and apply NFKC so equal abstracts compare equal across sources."""
    return " ".join(unicodedata.normalize("NFKC", text).split())


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
    avg_rating: float | None = Field(
        default=None, description="Mean reviewer rating; None when the source has none (never 0)."
    )
    n_ratings: int | None = Field(default=None, description="How many ratings the mean is of.")
    source: str = Field(default="", description="File the record came from, with its line.")

    def richness(self) -> int:
        """How much metadata this record carries; the richer duplicate wins."""
        return (
            (0 if self.title_is_derived else 4)
            + (2 if self.id and not self.id.startswith("h-") else 0)
            + len(self.keywords)
            + sum(bool(x) for x in (self.primary_area, self.venue, self.decision, self.url))
            + (self.avg_rating is not None)
            + len(self.authors)
        )

    @property
    def search_text(self) -> str:
        """What keyword search and question coverage read: title, keywords and abstract."""
        return " ".join([self.title, " ".join(self.keywords), self.abstract])

    def fingerprint(self) -> str:
        """Hash of everything indexed for this paper: a change means its chunks are rebuilt."""
        # Unset fields (an unrated paper's rating) are left out, so adding a field keeps the
        # fingerprints of the records that do not use it: no re-chunking of every index.
        payload = self.model_dump_json(exclude={"source"}, exclude_none=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]


class Filters(BaseModel):
    """Metadata filters; each set field must match (case-insensitive)."""

    area: str | None = Field(default=None, description="Primary area contains this text.")
    keyword: str | None = Field(default=None, description="One keyword equals or contains this.")
    decision: str | None = Field(default=None, description="Decision equals this (Oral, Poster).")
    title: str | None = Field(default=None, description="Title contains this text.")
    min_rating: float | None = Field(
        default=None, description="Average reviewer rating at least this; unrated papers fail."
    )

    def active(self) -> bool:
        """True when any filter is set."""
        return any((self.area, self.keyword, self.decision, self.title, self.min_rating))

    def under(self, given: Filters, drop: Sequence[str]) -> Filters:
        """These filters (a plan's) under the user's controls: a filter set there wins, a
        dropped one goes, the rest stay."""
        return Filters(
            **{
                name: getattr(given, name) or (None if name in drop else getattr(self, name))
                for name in Filters.model_fields
            }
        )

    def match(self, paper: Paper) -> bool:
        """Whether a paper passes every set filter."""
        if self.area and self.area.lower() not in paper.primary_area.lower():
            return False
        if self.decision and self.decision.lower() != paper.decision.lower():
            return False
        if self.title and self.title.lower() not in paper.title.lower():
            return False
        if self.min_rating and (paper.avg_rating is None or paper.avg_rating < self.min_rating):
            return False
        if self.keyword:
            kw = self.keyword.lower()
            if not any(kw in k.lower() for k in paper.keywords):
                return False
        return True


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


GroupBy = Literal["area", "decision", "keyword", "name"]
# The kind of sentence a question asks an abstract for (the router reads it).
AnswerType = Literal["number", "contribution", "entities", "finding", "problem", "general"]


class QuestionKind(StrEnum):
    """What a question asks for; each kind has one handler (rag/answers.py routes by it).

    The string values are fixed: the labelled question corpus and the model planner use them.
    """

    LOOKUP = "lookup"  # the content of the paper(s) a description points at
    DETAIL = "detail"  # something about a named paper (answer_type says what)
    SEARCH = "search"  # a search-box fragment: the papers writing it, else the closest
    LIST = "list"  # every paper on a topic and/or filters
    COUNT = "count"  # how many papers on a topic and/or filters
    BREAKDOWN = "breakdown"  # a count grouped by a field (group_by)
    SHARE = "share"  # what fraction of the papers are on a topic (or pass the filters)
    MORE = "more"  # which of two topics has more papers (topic "A or B")
    COMPARE = "compare"  # named papers, or two topics' best papers, side by side
    DEFINE = "define"  # what a concept is, from the abstracts' defining sentences
    SIMILAR = "similar"  # the papers nearest a named paper
    RESULTS = "results"  # results stated on a benchmark, or the largest stated measure
    AUTHORS = "authors"  # who works on a topic / papers by someone (the index has no authors)
    CITATIONS = "citations"  # citation counts (the index holds none)
    RATING = "rating"  # reviewer ratings (handler: the ratings branch)
    THEMES = "themes"  # the conference's main themes (handler: the map branch)
    METADATA = "metadata"  # a catalog fact of a named paper (decision, area, link)

    @property
    def counts(self) -> bool:
        """Whether the answer is a number of papers (its `count` is that number)."""
        return self in _COUNTING

    @property
    def collection(self) -> bool:
        """Whether the whole collection answers it (else the best-matching abstracts do)."""
        return self not in _ONE_PAPER


_COUNTING = frozenset({QuestionKind.COUNT, QuestionKind.BREAKDOWN, QuestionKind.SHARE,
                       QuestionKind.MORE})
_ONE_PAPER = frozenset({QuestionKind.LOOKUP, QuestionKind.DETAIL, QuestionKind.METADATA})


class Usage(BaseModel):
    """Tokens spent on model calls for one answer."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


class QuestionPart(BaseModel):
    """One part of a question that asks two things, with the kind of sentence answering it."""

    text: str = Field(description="The part as written ('how much memory does it save?').")
    answer_type: AnswerType = Field(description="The router's answer type of this part alone.")


class Plan(BaseModel):
    """What a question asks for, read from its words: everything an answerer needs.

    The rules planner and the model planner fill the same fields (the model's JSON schema is
    this model's, see rag/questions/planner.py): an answerer reads the plan, never the question.
    """

    kind: QuestionKind = Field(default=QuestionKind.LOOKUP, description="What is asked.")
    answer_type: AnswerType | None = Field(
        default=None, description="lookup/detail: the kind of sentence that answers."
    )
    topic: str = Field(
        default="",
        description="The topic's content words as written, filter and frame words removed; "
        "for `more`, the two topics joined by ' or '.",
    )
    filters: Filters = Field(
        default_factory=Filters, description="Filters the planner found in the words."
    )
    named: list[str] = Field(
        default_factory=list, description="Paper titles or method names as written."
    )
    paper_ids: list[str] = Field(
        default_factory=list, description="Named papers resolved to catalog ids."
    )
    within: list[str] = Field(
        default_factory=list,
        description="Ids of the papers of an earlier answer that a follow-up narrows ('which "
        "of those are orals?'); the answer looks only among them.",
    )
    follow_up: bool = Field(
        default=False,
        description="The question refers to the conversation ('what do they propose?'): it is "
        "rewritten with the earlier answer's papers before it is looked up.",
    )
    group_by: GroupBy | None = Field(
        default=None,
        description="breakdown: a count grouped by a catalog field ('Which areas have the most "
        "papers?', 'Which keywords are most common?'), or by the names the abstracts write "
        "('Which benchmarks are most used for LLM reasoning?').",
    )
    measure: str = Field(
        default="",
        description="results: the quantity a superlative asks the topic's papers for ('the "
        "largest speedup for LLM inference'), ordered by the number each states.",
    )
    metric: str = Field(
        default="",
        description="results: the metric asked on a named benchmark ('the lowest FID on "
        "ImageNet'): the sentences quoted state that metric, not any result.",
    )
    aspect: str = Field(
        default="",
        description="list: the kind of sentence quoted for each paper ('problem', 'finding', "
        "'contribution': 'What challenges do papers on X address?'); authors: 'authorship' when "
        "the question asks for papers by someone ('published by Google'); rating: "
        "'distribution' for the spread of the ratings, 'lowest' for the papers worst first.",
    )
    shown: int | None = Field(
        default=None,
        description="How many papers the user asked to see ('give me six papers' -> 6); "
        "compare: how many papers to set side by side.",
    )
    resource: str = Field(
        default="",
        description="list/count: the kind of resource the papers must introduce ('benchmarks' "
        "for 'papers that propose a new benchmark'); breakdown by name: the kind of names "
        "counted ('datasets', 'models').",
    )
    sides: list[list[str]] = Field(
        default_factory=list,
        description="compare without named papers: each side's topic, as its wordings to try "
        "in turn ('compare Mamba and Transformers on long context').",
    )
    answer_type_p: float | None = Field(
        default=None,
        description="The router's probability of answer_type (None when a model or an aspect "
        "noun of the lexicon set it): an abstract is said not to state the asked detail only "
        "when that type is likely.",
    )
    parts: list[QuestionPart] = Field(
        default_factory=list,
        description="lookup/detail asking two things ('What does Qronos do and how much memory "
        "does it save?'): each part with its answer type, answered in turn; empty for one.",
    )
    language: str = Field(default="", description="ISO code of the question when not English.")
    english: str = Field(
        default="",
        description="A question not in English rewritten in English (names and terms as "
        "written), for retrieval; '' for an English question.",
    )
    source: Literal["rules", "model", "fallback"] = Field(
        default="rules",
        description="Who planned: rules (offline, or AskOptions chose them), the model, or "
        "fallback: the model was asked but its reply was not a valid plan, so the rules planned.",
    )
    rejected: str = Field(default="", description="Why the model's plan was rejected (fallback).")
    usage: Usage | None = Field(
        default=None, exclude=True, description="Tokens the model's planning call cost."
    )


# The fields a model planner fills: the Plan itself, less what only the catalog knows (paper ids,
# the conversation's papers) and the bookkeeping (source, rejected, usage).
MODEL_FIELDS = (
    "kind",
    "answer_type",
    "topic",
    "filters",
    "named",
    "follow_up",
    "group_by",
    "measure",
    "metric",
    "aspect",
    "shown",
    "resource",
    "sides",
    "language",
    "english",
)


def plan_schema() -> dict[str, Any]:
    """The JSON schema of the model planner's reply: the Plan's own fields (MODEL_FIELDS), in
    the strict form OpenAI's structured output takes (every field required, no extras)."""
    full = Plan.model_json_schema()
    defs = full.get("$defs", {})

    def strict(node: Any) -> Any:
        if isinstance(node, list):
            return [strict(x) for x in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return strict(defs[node["$ref"].rsplit("/", 1)[-1]])
        out = {k: strict(v) for k, v in node.items() if k not in ("default", "title")}
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out

    props = {name: strict(full["properties"][name]) for name in MODEL_FIELDS}
    return {
        "type": "object",
        "properties": props,
        "required": list(MODEL_FIELDS),
        "additionalProperties": False,
    }


class PaperMatch(BaseModel):
    """One matched paper of a list or count answer (answers keep them best first)."""

    paper_id: str
    title: str
    score: float
    quote: str = Field(default="", description="One sentence of the abstract, verbatim.")
    primary_area: str = ""
    decision: str = ""
    url: str = ""
    keywords: list[str] = Field(default_factory=list)
    avg_rating: float | None = None
    n_ratings: int | None = None

    @classmethod
    def of(cls, paper: Paper, score: float = 0.0, quote: str = "") -> PaperMatch:
        """A paper's row (model_construct: thousands per answer, from validated papers)."""
        return cls.model_construct(
            paper_id=paper.id,
            title=paper.title,
            score=score,
            quote=quote,
            primary_area=paper.primary_area,
            decision=paper.decision,
            url=paper.url,
            keywords=paper.keywords,
            avg_rating=paper.avg_rating,
            n_ratings=paper.n_ratings,
        )


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
    attributed: bool = Field(
        default=False,
        description="The model cited nothing here; `citations` name the source that supports it.",
    )


_PAPER_FIELDS = {
    "paper_id",
    "title",
    "score",
    "quote",
    "primary_area",
    "decision",
    "url",
    "avg_rating",
    "n_ratings",
}


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
    retrieved: list[str] = Field(
        default_factory=list,
        description="Ids of the papers ranked for the standalone question, best first "
        "(AskOptions.depth of them): the k the answer read, ordered by their evidence as the "
        "sources are, then the rest in retrieval order.",
    )
    sentences: list[AnswerSentence] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per stage.")
    usage: Usage | None = None
    error: str = Field(default="", description="User-facing message when answering failed.")
    complete: bool = Field(default=True, description="False when generation stopped midway.")
    plan: Plan | None = Field(default=None, description="How the question was read.")
    papers: list[PaperMatch] = Field(
        default_factory=list, description="Every matched paper of a list/count answer."
    )
    count: int | None = Field(default=None, description="The number a count answer gives.")
    rule: str = Field(default="", description="How the matched set was decided, for people.")
    confidence: float | None = Field(
        default=None, description="P(the collection answers this), from the refusal model."
    )
    absent: list[str] = Field(
        default_factory=list,
        description="The topic's words no indexed paper writes, when the answer says so.",
    )
    signals: dict[str, float] = Field(
        default_factory=dict, description="Retrieval signals the refusal decision read."
    )
    weak: bool = Field(
        default=False, description="Closest evidence shown although the decision was to refuse."
    )
    named: list[str] = Field(default_factory=list, description="Ids of papers the question names.")
    chart: dict[str, int] = Field(
        default_factory=dict,
        description="Counts the answer charts, label -> count in order (papers per theme).",
    )

    def paper_ids(self) -> list[str]:
        """The papers the answer is about: cited, matched, then its sources."""
        return list(
            dict.fromkeys(
                [c.paper_id for c in self.citations]
                + [m.paper_id for m in self.papers]
                + [h.paper.id for h in self.sources]
            )
        )

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
            "attributed": [s.text for s in self.sentences if s.attributed],
            "confidence": self.confidence,
            "weak": self.weak,
            "plan": self.plan.model_dump() if self.plan else None,
            "papers": [p.model_dump(include=_PAPER_FIELDS) for p in self.papers],
            "count": self.count,
            "rule": self.rule,
            "chart": self.chart,
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
