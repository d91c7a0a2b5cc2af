"""One labelled question of the router corpus (issue 27): a pydantic model and its rules.

The corpus files (`papers.jsonl`, writer A; `collection.jsonl`, writer B) hold one `Item` per
line. Everything that can be checked without the paper corpus is checked here (enums, styles,
ids, the fields each kind and style requires); `build.py` adds the checks that need the corpus
(gold keys, facts, named papers, off-topic words) and computes the gold sets of `gold_rule`s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator


class QuestionKind(StrEnum):
    """What a question asks for (values fixed by /work/brief/KINDS.md)."""

    LOOKUP = "lookup"
    DETAIL = "detail"
    SEARCH = "search"
    LIST = "list"
    COUNT = "count"
    BREAKDOWN = "breakdown"
    SHARE = "share"
    MORE = "more"
    COMPARE = "compare"
    DEFINE = "define"
    SIMILAR = "similar"
    RESULTS = "results"
    AUTHORS = "authors"
    CITATIONS = "citations"
    RATING = "rating"
    THEMES = "themes"
    METADATA = "metadata"


class AnswerType(StrEnum):
    """What kind of sentence answers a lookup/detail/search question (rag.models.AnswerType)."""

    NUMBER = "number"
    CONTRIBUTION = "contribution"
    ENTITIES = "entities"
    FINDING = "finding"
    PROBLEM = "problem"
    GENERAL = "general"


class Style(StrEnum):
    """How the question is worded (CORPUS.md, "Styles")."""

    FORMAL = "formal"
    CASUAL = "casual"
    SEARCH = "search"
    LOWERCASE = "lowercase"
    TYPOS = "typos"
    TITLE = "title"
    TWO_PART = "two-part"
    PARAPHRASE = "paraphrase"
    NON_NATIVE = "non-native"
    FOLLOW_UP = "follow-up"
    OTHER_LANGUAGE = "other-language"


class GroupBy(StrEnum):
    """The field a breakdown groups by."""

    AREA = "area"
    DECISION = "decision"
    KEYWORD = "keyword"
    NAME = "name"


class Corpus(StrEnum):
    """Which papers the question is asked over."""

    ICLR2026 = "iclr2026"  # the 4,302 accepted papers plus the 19 sample abstracts
    SAMPLE = "sample"  # only the 19 sample abstracts (no titles, areas or decisions)


# Kinds whose answer is drawn from a few abstracts' sentences: they carry answer_type and facts.
SENTENCE_KINDS = frozenset({QuestionKind.LOOKUP, QuestionKind.DETAIL, QuestionKind.SEARCH})
# Kinds whose gold set is computed from a lexical rule over the corpus when they name a topic.
RULE_KINDS = frozenset(
    {
        QuestionKind.LIST,
        QuestionKind.COUNT,
        QuestionKind.SHARE,
        QuestionKind.RATING,
        QuestionKind.AUTHORS,
        QuestionKind.CITATIONS,
    }
)
# Kinds about a specific paper: it is named (`named`) or described (a paraphrase; gold_keys).
NAMED_KINDS = frozenset({QuestionKind.DETAIL, QuestionKind.METADATA, QuestionKind.SIMILAR})
LANGUAGES = frozenset({"en", "zh", "de", "fr", "es", "ja", "ko", "it", "pt", "ru"})
RULE_FIELDS = frozenset({"title", "abstract", "keywords"})
# qa: writer A's file, qb: writer B's, qd: development sets outside the corpus (eval/dev/).
ID_PATTERN = re.compile(r"^q[abd]\d{4}$")


class Filters(BaseModel):
    """Catalog filters a question applies (all optional)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    decision: str | None = Field(default=None, description="'Oral' or 'Poster'.")
    area: str | None = Field(default=None, description="Exact primary_area string of the corpus.")
    keyword: str | None = Field(default=None, description="An author keyword, as in the corpus.")
    title: str | None = Field(default=None, description="A title the question restricts to.")
    min_rating: float | None = Field(default=None, description="Lowest average rating wanted.")

    @field_validator("decision")
    @classmethod
    def _decision(cls, value: str | None) -> str | None:
        if value is not None and value not in ("Oral", "Poster"):
            raise ValueError(f"decision must be 'Oral' or 'Poster', not {value!r}")
        return value

    def catalog_only(self) -> bool:
        """True when a filter needs catalog fields the sample papers do not have."""
        return any(v is not None for v in (self.decision, self.area, self.keyword, self.title))


class GoldRule(BaseModel):
    """Lexical rule: every paper where any pattern matches any field (case-insensitive)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    patterns: list[str] = Field(description="Python regexes; [] means every paper in filters.")
    fields: list[str] = Field(default_factory=lambda: ["title", "abstract", "keywords"])

    @field_validator("patterns")
    @classmethod
    def _compiles(cls, value: list[str]) -> list[str]:
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"pattern {pattern!r} does not compile: {exc}") from exc
        return value

    @field_validator("fields")
    @classmethod
    def _fields(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - RULE_FIELDS)
        if unknown or not value:
            raise ValueError(f"fields must be a non-empty subset of {sorted(RULE_FIELDS)}")
        return value


class Side(BaseModel):
    """One side of a `more` question: its topic, rule and computed count."""

    model_config = ConfigDict(extra="forbid")

    topic: str
    gold_rule: GoldRule | None = None
    count: int | None = None


class Item(BaseModel):
    """One labelled question; labels describe the last turn as resolved in context."""

    model_config = ConfigDict(extra="forbid")

    id: str
    style: Style
    language: str = "en"
    kind: QuestionKind
    second_kind: QuestionKind | None = None
    question: str = Field(min_length=2)
    turns: list[str] | None = None
    answer_type: AnswerType | None = None
    topic: str = ""
    filters: Filters = Field(default_factory=Filters)
    named: list[str] = Field(default_factory=list)
    gold_keys: list[str] = Field(default_factory=list)
    facts: list[str] = Field(default_factory=list)
    answerable: bool = True
    missing: str | None = None
    group_by: GroupBy | None = None
    measure: str | None = None
    metric: str | None = None
    aspect: str | None = None
    shown: int | None = None
    resource: str | None = None
    gold_rule: GoldRule | None = None
    count: int | None = None
    sides: list[Side] | None = None
    corpus: Corpus = Corpus.ICLR2026
    top_rating: float | None = Field(
        default=None, description="rating items: the best average rating in the whole set."
    )

    @field_validator("id")
    @classmethod
    def _id(cls, value: str) -> str:
        if not ID_PATTERN.match(value):
            raise ValueError(f"id must look like qa0001 or qb0001, not {value!r}")
        return value

    @field_validator("gold_keys")
    @classmethod
    def _keys(cls, value: list[str]) -> list[str]:
        bad = [k for k in value if not re.fullmatch(r"[0-9a-f]{16}", k)]
        if bad:
            raise ValueError(f"gold keys must be 16 hex digits (rag.models.content_key): {bad}")
        if len(set(value)) != len(value):
            raise ValueError("duplicate gold key")
        return value

    @model_validator(mode="after")
    def _rules(self) -> Item:
        for problem in self.problems():
            raise ValueError(problem)
        return self

    def problems(self) -> list[str]:
        """The cross-field rules this item breaks (empty when valid)."""
        out: list[str] = []
        style, kind = self.style, self.kind
        # language
        if style is Style.OTHER_LANGUAGE:
            if self.language == "en" or self.language not in LANGUAGES:
                out.append(f"other-language needs an ISO language code, not {self.language!r}")
        elif self.language != "en":
            out.append(f"language must be 'en' for style {style.value!r}")
        # two-part
        if (style is Style.TWO_PART) != (self.second_kind is not None):
            out.append("second_kind is set exactly for two-part questions")
        # follow-up
        if style is Style.FOLLOW_UP:
            turns = self.turns or []
            if not 1 <= len(turns) <= 2 or not all(t.strip() for t in turns):
                out.append("follow-up needs 1-2 earlier user turns in `turns`")
        elif self.turns is not None:
            out.append("turns must be null unless the style is follow-up")
        # answer type and facts
        sentence = kind in SENTENCE_KINDS or self.second_kind in SENTENCE_KINDS
        if kind in SENTENCE_KINDS and self.answer_type is None:
            out.append(f"{kind.value} needs an answer_type")
        if not sentence and self.answer_type is not None:
            out.append(f"answer_type must be null for {kind.value}")
        if len(self.facts) > 3 or not all(f.strip() for f in self.facts):
            out.append("facts: at most 3 non-empty phrases")
        if self.answerable:
            if self.missing:
                out.append("`missing` is only for unanswerable near misses")
            if kind in SENTENCE_KINDS and not self.facts:
                out.append(f"answerable {kind.value} needs 1-3 facts")
            if kind in SENTENCE_KINDS | NAMED_KINDS | {QuestionKind.COMPARE} and not (
                self.gold_keys
            ):
                out.append(f"answerable {kind.value} needs gold_keys")
            if kind is QuestionKind.COMPARE and len(self.gold_keys) < 2:
                out.append("compare needs at least 2 gold keys")
        else:
            if self.facts:
                out.append("unanswerable items have no facts")
            if self.missing is None:
                # off-topic: nothing answers, the topic names what the corpus lacks
                if self.gold_keys:
                    out.append("off-topic items have no gold_keys (near misses set `missing`)")
                if not self.topic.strip():
                    out.append("off-topic items need the topic the corpus lacks")
            elif not self.gold_keys:
                out.append("near misses keep the gold_keys of the paper they ask about")
        # named papers
        if kind in NAMED_KINDS and not (self.named or self.gold_keys):
            out.append(f"{kind.value} is about a paper: it needs `named` or gold_keys")
        # kind-specific fields
        if kind is QuestionKind.BREAKDOWN and self.group_by is None:
            out.append("breakdown needs group_by")
        if kind is not QuestionKind.BREAKDOWN and self.group_by is not None:
            out.append("group_by is only for breakdown")
        if kind is QuestionKind.MORE:
            if not self.sides or len(self.sides) != 2:
                out.append("more needs two sides")
        elif self.sides is not None:
            out.append("sides are only for more")
        if kind in RULE_KINDS and self.topic.strip() and self.answerable and not self.gold_rule:
            out.append(f"{kind.value} with a topic needs a gold_rule")
        if kind is QuestionKind.RESULTS and not (self.metric or self.measure):
            out.append("results needs a metric or a measure")
        if self.top_rating is not None and kind is not QuestionKind.RATING:
            out.append("top_rating is only for rating")
        if self.shown is not None and self.shown < 1:
            out.append("shown must be a positive number")
        # the sample has no titles, areas, decisions, keywords or ratings
        if self.corpus is Corpus.SAMPLE:
            if self.filters.catalog_only() or self.filters.min_rating is not None:
                out.append("sample items cannot filter by catalog fields")
            if kind is QuestionKind.METADATA:
                out.append("metadata questions need the iclr2026 catalog")
        return out


def load_items(path: Path) -> tuple[list[Item], list[str]]:
    """Read a corpus file; return the valid items and 'file:line: message' problems."""
    items: list[Item] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    lines = path.read_text(encoding="utf-8").split("\n")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            if n < len(lines):
                problems.append(f"{path.name}:{n}: blank line")
            continue
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"{path.name}:{n}: invalid JSON: {exc}")
            continue
        where = f"{path.name}:{n} ({raw.get('id', '?') if isinstance(raw, dict) else '?'})"
        try:
            item = Item.model_validate(raw)
        except ValidationError as exc:
            for err in exc.errors():
                field = ".".join(str(p) for p in err["loc"]) or "item"
                problems.append(f"{where}: {field}: {err['msg']}")
            continue
        if item.id in seen:
            problems.append(f"{where}: id: duplicate of line {seen[item.id]}")
        seen[item.id] = n
        items.append(item)
    return items, problems


QUESTIONS_DIR = Path(__file__).resolve().parent
# The corpus files, writer A's first; every reader of the corpus goes through load_questions.
CORPUS_FILES = ("papers.jsonl", "collection.jsonl")


class CorpusFileError(ValueError):
    """A corpus file holds items that break the schema (the message lists file:line: problem)."""


def load_questions(paths: Iterable[Path] | None = None) -> list[Item]:
    """Every item of the corpus files (default: those of CORPUS_FILES present), in file order.

    Raises CorpusFileError naming file, line and field of every problem, including an id used
    twice across files; loads nothing partially.
    """
    if paths is None:
        paths = [QUESTIONS_DIR / name for name in CORPUS_FILES if (QUESTIONS_DIR / name).exists()]
    items: list[Item] = []
    problems: list[str] = []
    where: dict[str, str] = {}
    for path in paths:
        found, bad = load_items(Path(path))
        problems += bad
        for item in found:
            if item.id in where and where[item.id] != Path(path).name:
                problems.append(f"{Path(path).name} ({item.id}): id also used in {where[item.id]}")
            where[item.id] = Path(path).name
        items += found
    if problems:
        raise CorpusFileError(f"{len(problems)} problem(s):\n" + "\n".join(problems))
    return items


class StyleSplit(NamedTuple):
    """Items to fit on and items to report on, split by style; both keep file order."""

    fit: list[Item]
    held: list[Item]
    fit_styles: tuple[Style, ...]
    held_styles: tuple[Style, ...]


def split_by_style(items: Iterable[Item], fit_styles: Iterable[Style | str]) -> StyleSplit:
    """Split items into those written in `fit_styles` and those in every other style.

    Deterministic (no randomness, order kept), so a report can name exactly which styles a
    router was fitted on and which it never saw. Unknown style names raise ValueError, and so
    does a split that leaves either side without a style.
    """
    fit = {Style(s) for s in fit_styles}
    if not fit or fit == set(Style):
        raise ValueError("fit_styles must name some styles but not all of them")
    fit_items: list[Item] = []
    held_items: list[Item] = []
    for item in items:
        (fit_items if item.style in fit else held_items).append(item)
    return StyleSplit(
        fit=fit_items,
        held=held_items,
        fit_styles=tuple(s for s in Style if s in fit),
        held_styles=tuple(s for s in Style if s not in fit),
    )
