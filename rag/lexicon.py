"""The vocabulary questions and abstract sentences are read with, as one validated data file
(rag/data/lexicon.json).

The Pipeline loads it once (`load_lexicon`) and hands it to the parts that read words; no
module keeps its own copy of function words, number words or contribution verbs. The words
that mark kinds of sentences (`sentence_cues`) are compiled once by rag.cues.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from rag.text import content_terms, phrase_spans

if TYPE_CHECKING:
    from rag.models import AnswerType

LEXICON = Path(__file__).parent / "data" / "lexicon.json"


class LexiconError(ValueError):
    """The lexicon file is missing or invalid (the message names the file and field)."""


class Cue(BaseModel):
    """Words that mark a kind of abstract sentence ("improv", "outperform": a result), with how
    each list matches; rag.cues compiles them. Every match ignores case."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    stems: tuple[str, ...] = Field(
        default=(), description="Match at a word's start, any ending ('improv': 'improves')."
    )
    words: tuple[str, ...] = Field(default=(), description="Match as whole words or phrases.")
    symbols: tuple[str, ...] = Field(default=(), description="Match as written, anywhere ('×').")
    digit: bool = Field(default=False, description="Any digit is the cue.")
    we_verbs: tuple[str, ...] = Field(
        default=(), description="Verb stems after a subject ('we') and an optional adverb."
    )
    verbs_of: str = Field(
        default="", description="A cue whose and_verbs are this one's we_verbs (one list)."
    )
    subjects: tuple[str, ...] = Field(
        default=("we",), description="Who does the we_verbs: 'we', 'this paper'."
    )
    adverbs: tuple[str, ...] = Field(
        default=(), description="Adverbs besides any -ly one between subject and we_verb."
    )
    verb_s: bool = Field(
        default=False, description="A we_verb may take an 's' and ends at a word's end."
    )
    and_verbs: tuple[str, ...] = Field(
        default=(), description="Verbs after 'we <verb> … and', as in 'we X this gap and propose'."
    )
    before_number: tuple[str, ...] = Field(
        default=(), description="Words that are the cue when a number follows ('by 4%')."
    )
    after_number: tuple[str, ...] = Field(
        default=(), description="Units that are the cue right after a number ('5x', '3 %')."
    )
    unless: tuple[str, ...] = Field(
        default=(), description="Longer forms of a stem or word that are not the cue."
    )
    opening: bool = Field(default=False, description="Only at the sentence's start.")
    opening_words: int = Field(
        default=0, ge=0, description="With opening: how many words may come before the cue."
    )
    after: tuple[str, ...] = Field(
        default=(), description="Words one of which comes right before each stem or word."
    )
    plural: bool = Field(default=False, description="Words also match with a final 's'.")
    includes: tuple[str, ...] = Field(
        default=(), description="Other cues whose stems, words and symbols this one adds."
    )


class Measure(BaseModel):
    """A quantity a superlative asks for: the words a question says it with, and a sentence."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    question: list[str] = Field(min_length=1, description="How a question says it.")
    sentence: Cue = Field(description="The words an abstract's sentence states it with.")
    factor: bool = Field(description="Read as a factor ('3.5×'); else as a percent.")


class AspectWords(BaseModel):
    """How a question about a topic's papers asks for one kind of their sentences: "What
    challenges do papers on X address?" (rag/questions/topic.py listed_aspect reads them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    nouns: frozenset[str] = Field(min_length=1, description="Nouns naming it ('challenges').")
    verbs: frozenset[str] = Field(
        min_length=1, description="Verbs asking it after 'do/did <papers>' (base forms)."
    )


class RatingWords(BaseModel):
    """How a question talks about reviewer ratings (rag/questions/rating_words.py reads them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # "review" alone is a survey ("a review of X"): only its compounds are judgement words.
    judged: tuple[str, ...] = Field(min_length=1, description="The reviewers' judgement.")
    best: tuple[str, ...] = Field(min_length=1, description="Orders papers best first.")
    worst: tuple[str, ...] = Field(min_length=1, description="Orders papers worst first.")
    spread: tuple[str, ...] = Field(min_length=1, description="Asks for the spread of ratings.")
    group: tuple[str, ...] = Field(min_length=1, description="A field ratings are grouped by.")
    per: tuple[str, ...] = Field(min_length=1, description="Asks for one value per group.")
    above: tuple[str, ...] = Field(min_length=1, description="'at least' before a number.")
    or_more: tuple[str, ...] = Field(min_length=1, description="'or higher' after a number.")
    linking: frozenset[str] = Field(description="Words around rating talk, not the topic.")
    between: frozenset[str] = Field(description="Words between 'rating' and its number.")
    # "scored 7 or above", "got 6 or more": said of a paper, a compared number on the rating
    # scale is its rating; the verbs alone ask nothing ("which paper scored best on MMLU").
    scored: tuple[str, ...] = Field(description="Verbs a compared rating may follow alone.")
    scale: tuple[float, float] = Field(description="Least and greatest rating a reviewer gives.")


class ThemeWords(BaseModel):
    """How a question asks about the conference's themes (questions/theme_words.py reads them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    theme_words: frozenset[str] = Field(min_length=1, description="Words alone asking themes.")
    theme_phrases: tuple[str, ...] = Field(description="Phrases alone asking themes.")
    # Abstracts write "clusters of samples": a weak word asks only beside a companion.
    weak_words: frozenset[str] = Field(description="Words asking themes beside a companion.")
    companions: frozenset[str] = Field(description="Collection or size words.")
    frame_words: frozenset[str] = Field(description="How a theme question is asked, not what.")


class TopicKeyness(BaseModel):
    """How a topic's words are told from the question's (learned by eval/topic_words.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    share: float = Field(
        gt=0,
        le=1,
        description="A written word stays in a topic when its keyness is at least "
        "this share of the most key word's ('problem' goes from 'problem of hallucination').",
    )
    pair_papers: int = Field(
        ge=2,
        description="A word below the share stays when this many papers name it with its "
        "neighbour in a title or keyword ('code generation', 'world models').",
    )
    min_df: int = Field(
        ge=1,
        description="Words fewer papers write stay whatever their keyness: one title decides "
        "a rare word's, and dropping one ('poker', 'whale') widens a topic to hundreds.",
    )
    min_papers: int = Field(
        ge=1,
        description="Keyness is read only in a collection of this many papers: in the "
        "19-paper sample one title decides a word's.",
    )


class Glossary(BaseModel):
    """A language's words for the field's terms, to their English (rag/questions/language.py
    `glossed` reads them): what offline retrieval reads of a question in that language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Chinese and Japanese write no spaces, German joins nouns ("Halluzinationserkennung"): a
    # term may start inside a word there.
    compounds: bool = Field(description="Whether a term may start inside a written word.")
    terms: dict[str, str] = Field(description="A term as written (lower case) -> its English.")
    asks: dict[str, str] = Field(
        default_factory=dict,
        description="A word a question asks with (lower case) -> its English ('多少' -> 'how "
        "many', 'oder' -> 'or'): the question's frame, read by the same rules as English.",
    )


class Lexicon(BaseModel):
    """Every word list the question and sentence sides read, validated once."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    function_words: frozenset[str] = Field(description="Words that carry no topic or letter.")
    question_words: frozenset[str] = Field(description="Words a question or request opens with.")
    contribution_verbs: tuple[str, ...] = Field(description="Verbs a paper's contribution takes.")
    measures: dict[str, Measure] = Field(description="Quantities superlatives ask for.")
    number_words: dict[str, int] = Field(description="Numbers written as words, to their value.")
    resource_kinds: tuple[str, ...] = Field(description="Things papers introduce (singular).")
    domain_stopwords: frozenset[str] = Field(description="Words every paper question writes.")
    decision_words: tuple[str, ...] = Field(description="Decisions a person may ask for.")
    track_words: tuple[str, ...] = Field(description="Words that name a primary area.")
    group_words: dict[str, frozenset[str]] = Field(description="Words naming a breakdown field.")
    aspect_words: dict[str, AspectWords] = Field(
        description="Per sentence kind (problem, finding, contribution), words asking it."
    )
    aspect_qualifiers: frozenset[str] = Field(
        description="Words before an aspect noun ('the main challenges')."
    )
    paper_nouns: frozenset[str] = Field(description="Nouns for the papers asked about.")
    aspect_places: tuple[str, ...] = Field(
        description="Phrases saying where the aspect is read ('… according to the papers')."
    )
    reference_words: frozenset[str] = Field(description="Words pointing at earlier papers.")
    end_references: dict[str, frozenset[str]] = Field(
        description="A question ending by referring to what was asked before ('Which papers "
        "improve on it?'): the references, nouns after one ('that method'), the "
        "prepositions linking a verb to one ('build on it'), and the openers of the question "
        "asking what the referred thing is ('What is Muon?')."
    )
    concept_words: frozenset[str] = Field(description="Words asking what a concept is.")
    naming_words: frozenset[str] = Field(
        description="Words a question about a name alone writes beside it ('Which paper first "
        "coined X?', 'What is the X benchmark?'), with contribution verbs and concept words."
    )
    usage_words: frozenset[str] = Field(description="Words asking what papers commonly use.")
    counting_words: frozenset[str] = Field(
        description="Words asking for a count, never its topic ('number', 'count', 'total')."
    )
    superlative_words: frozenset[str] = Field(description="Words asking for the top result.")
    best_on_words: dict[str, tuple[str, ...]] = Field(
        description="How a question asks the best result on a named benchmark ('the highest "
        "accuracy on ImageNet', 'beats GPT-4o on MathVista'): best words, rival words (the "
        "name after them is a rival's, the words between no metric) and the prepositions "
        "before the name."
    )
    comparative_words: frozenset[str] = Field(
        description="Comparatives a 'how much …?' asks a difference with ('how much faster')."
    )
    comparison_words: dict[str, tuple[str, ...]] = Field(
        description="How a question sets two things side by side (topic.compared_sides): "
        "openers before the sides ('compare', 'difference between'), separators between them "
        "('and', 'vs', 'or'), prepositions before a subject both share ('on'), fillers that "
        "are no side's ('papers'), and the words choosing one ('Which is better, A or B?')."
    )
    change_words: frozenset[str] = Field(
        description="Verbs of a change a 'how much does it …?' asks the amount of (base forms)."
    )
    size_words: frozenset[str] = Field(
        description="Words asking how big a made collection is ('how large', 'the size of')."
    )
    focus_openers: tuple[str, ...] = Field(
        description="Phrases a detail question's focus follows ('how many GPUs', 'which license')."
    )
    limitation_words: tuple[str, ...] = Field(
        description="Words asking a paper's own limitations ('What are its weaknesses?')."
    )
    ranking_words: frozenset[str] = Field(
        description="Words a breakdown ranks its groups with ('the most common'), not topic words."
    )
    same_field_words: frozenset[str] = Field(
        description="Words asking for the papers of a named paper's area ('How many papers "
        "share an area with X?', 'the same area as X'), beside an area word."
    )
    example_markers: tuple[str, ...] = Field(
        description="Words after which a topic's examples follow ('agents like AutoGPT')."
    )
    shorthand: dict[str, str] = Field(
        description="Chat shorthand, to the words it stands for ('abt': 'about', 'w/': 'with'); "
        "an empty value marks an aside no question needs ('btw', 'pls')."
    )
    lead_verbs: dict[str, frozenset[str]] = Field(
        description="Verbs a list question asks its papers' topic with ('Which papers apply RL "
        "to …', '… evaluated on ImageNet', '… compare their method against GRPO'): verbs, "
        "verbs before a preposition, those prepositions, and the owners and owned nouns "
        "before 'against'."
    )
    follow_up_words: dict[str, tuple[str, ...]] = Field(
        description="Phrases of a follow-up: singular and plural references to the last "
        "answer's papers, those meaning several of them, and openers asking the last question "
        "again ('and the SHAPO paper?'), those narrowing the last list ('of those'), and "
        "adverbs that narrow it when they open a fragment ('mainly detection'); "
        "references that may open a relative clause instead ('one that checks …'), those "
        "that may determine another noun ('each step'), and the auxiliaries that tell "
        "('that can', 'does each')."
    )
    ordinal_words: dict[str, int] = Field(
        description="Ordinals picking a paper of the last list, to its index ('last': -1)."
    )
    ordinal_nouns: frozenset[str] = Field(
        description="Nouns after an ordinal that belong to it ('the second one')."
    )
    run_words: frozenset[str] = Field(
        description="Words before a count picking a run of the last list ('the first two')."
    )
    not_run_units: frozenset[str] = Field(
        description="Units after the count that make it an amount, not a run ('top 5%')."
    )
    subject_nouns: frozenset[str] = Field(
        description="Nouns a question refers to its paper with ('the quantization paper')."
    )
    not_metric_words: frozenset[str] = Field(
        description="Words between 'highest' and a benchmark's name that name no metric."
    )
    evaluated_things: frozenset[str] = Field(
        description="What a paper is evaluated on or against ('Which models did they test?')."
    )
    evaluation_stems: tuple[str, ...] = Field(
        description="Word stems of evaluating, after an evaluated thing ('… did they test?')."
    )
    catalog_words: dict[str, frozenset[str]] = Field(
        description="Words and phrases asking a named paper's catalog fields (metadata: "
        "decision, area, keywords; authors; title; link; date with dated: when it was "
        "published) or what no record holds (citations); not_link: things whose link is the "
        "abstract's to give (code, data), not the catalog's."
    )
    ratings: RatingWords = Field(description="How questions talk about reviewer ratings.")
    themes: ThemeWords = Field(description="How questions ask about the conference's themes.")
    question_marking: frozenset[str] = Field(
        default=frozenset(), description="Words that mark questions, not topics (learned)."
    )
    topic_keyness: TopicKeyness = Field(
        description="Which written words name the topic, by their keyness (learned)."
    )
    sentence_cues: dict[str, Cue] = Field(
        description="Words marking kinds of abstract sentences (a result, the problem, …)."
    )

    @field_validator("sentence_cues")
    @classmethod
    def _known_includes(cls, value: dict[str, Cue]) -> dict[str, Cue]:
        bad = [
            f"{n}: {i}"
            for n, c in value.items()
            for i in (*c.includes, *([c.verbs_of] if c.verbs_of else []))
            if i not in value
        ]
        if bad:
            raise ValueError(f"cues include unknown cues: {bad}")
        return value

    glossary: dict[str, Glossary] = Field(
        default_factory=dict,
        description="Other languages' words for the field's terms, by ISO code, to English.",
    )
    language_function_words: dict[str, frozenset[str]] = Field(
        default_factory=dict,
        description="Per ISO language code, function words a question in it writes (language.py).",
    )

    @field_validator("shorthand")
    @classmethod
    def _lowercase_shorthand(cls, value: dict[str, str]) -> dict[str, str]:
        bad = [w for w in value if w != w.lower() or not w or " " in w]
        if bad:
            raise ValueError(f"shorthand must be single lowercase tokens: {bad}")
        return value

    @field_validator("number_words")
    @classmethod
    def _positive(cls, value: dict[str, int]) -> dict[str, int]:
        bad = [w for w, n in value.items() if n < 1 or w != w.lower()]
        if bad:
            raise ValueError(f"number words must be lowercase with positive values: {bad}")
        return value

    @field_validator("aspect_words")
    @classmethod
    def _aspect_kinds(cls, value: dict[str, AspectWords]) -> dict[str, AspectWords]:
        if list(value) != ["problem", "finding", "contribution"]:
            raise ValueError(f"aspect words must be problem, finding, contribution: {list(value)}")
        return value

    @property
    def frame_words(self) -> frozenset[str]:
        """Every word of four or more letters that asks how, not about what: the learned
        question_marking and the words of the lists that read a question's frame ("compare",
        "citations", "keywords"). A typing slip of one is read as it (absent.respelled)."""
        lists: list[Sequence[str]] = [
            self.question_words,
            self.domain_stopwords,
            self.decision_words,
            self.track_words,
            self.paper_nouns,
            self.concept_words,
            self.counting_words,
            self.superlative_words,
            self.comparative_words,
            self.limitation_words,
            self.ranking_words,
            self.same_field_words,
            self.subject_nouns,
            self.usage_words,
            self.comparison_words["openers"],
            # Not the things a question may be about ("models", "code", "datasets").
            *(w for kind, w in self.catalog_words.items() if kind != "not_link"),
            *(w for kind, w in self.follow_up_words.items() if kind != "clause_verbs"),
        ]
        # Single words only: "failure modes" and "the model" do not make "model" a frame word.
        words = {e for entries in lists for e in entries if e.isalpha() and len(e) > 3}
        return self.question_marking | words

    @property
    def contribution_stems(self) -> tuple[str, ...]:
        """The contribution verbs as stems their inflections start with ("introduc", "build")."""
        return tuple(v[:-1] if v.endswith("e") else v for v in self.contribution_verbs)

    @property
    def aspect_nouns(self) -> frozenset[str]:
        """The nouns that name an aspect asked ("problem", "findings", "method"); its verbs
        ("face", "present", "show") also write topics ("face editing")."""
        return frozenset().union(*(a.nouns for a in self.aspect_words.values()))

    def aspect_at(self, words: Sequence[str], i: int) -> tuple[int, AnswerType | None]:
        """The aspect noun at word i of lower-cased words, after an optional qualifier ("main
        challenges"): (the index after it, its kind); (i, None) when none is there."""
        j = i + 1 if i < len(words) and words[i] in self.aspect_qualifiers else i
        for kind, asked in self.aspect_words.items():
            if j < len(words) and words[j] in asked.nouns:
                return j + 1, kind  # type: ignore[return-value]
        return i, None

    def aspect_asked(self, question: str) -> AnswerType | None:
        """The kind of sentence a question names by opening "what|which [main] <aspect noun>"
        ("What challenges does AMD address?" -> "problem"); None when it opens otherwise."""
        words = [_bare(w) for w in question.split()[:3]]
        if not words or words[0] not in ("what", "which"):
            return None
        return self.aspect_at(words, 1)[1]

    @property
    def aspect_framing(self) -> frozenset[str]:
        """Every word asking an aspect, verbs also in the third person: framing, not topic."""
        verbs = {v for a in self.aspect_words.values() for v in a.verbs}
        verbs |= {_third_person(v) for v in verbs}
        return frozenset(verbs) | self.aspect_nouns

    @field_validator("end_references")
    @classmethod
    def _end_reference_kinds(cls, value: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        kinds = {"references", "nouns", "verb_links", "about_openers"}
        if set(value) != kinds:
            raise ValueError(f"end references must be {sorted(kinds)}: {sorted(value)}")
        return value

    def ends_referring(self, text: str) -> int | None:
        """Where a text's closing reference starts, in words ("… improve on that method?": the
        index of "that"); None when it does not end with one."""
        words = text.rstrip("?.! \t\n").split()
        refs = self.end_references
        if len(words) >= 2 and words[-1].lower() in refs["nouns"]:
            words = words[:-1]
        if words and words[-1].lower() in refs["references"]:
            return len(words) - 1
        return None

    @field_validator("comparison_words")
    @classmethod
    def _comparison_kinds(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        kinds = {"openers", "separators", "shared", "fillers", "choosing"}
        if set(value) != kinds:
            raise ValueError(f"comparison words must be {sorted(kinds)}: {sorted(value)}")
        return value

    @field_validator("lead_verbs")
    @classmethod
    def _lead_verb_kinds(cls, value: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        kinds = {"verbs", "before_preposition", "prepositions", "owners", "owned"}
        if set(value) != kinds:
            raise ValueError(f"lead verbs must be {sorted(kinds)}: {sorted(value)}")
        return value

    @field_validator("best_on_words")
    @classmethod
    def _best_on_kinds(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        if set(value) != {"best", "rival", "on"}:
            raise ValueError(f"best-on words must be best, rival, on: {sorted(value)}")
        return value

    @field_validator("catalog_words")
    @classmethod
    def _catalog_kinds(cls, value: dict[str, frozenset[str]]) -> dict[str, frozenset[str]]:
        kinds = {"metadata", "citations", "authors", "title", "link", "not_link", "date", "dated"}
        if set(value) != kinds:
            raise ValueError(f"catalog words must be {sorted(kinds)}: {sorted(value)}")
        return value

    @field_validator("follow_up_words")
    @classmethod
    def _follow_up_kinds(cls, value: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        kinds = {"singular", "plural", "several", "openers", "narrowing", "refining"}
        kinds |= {"relative", "determiners", "clause_verbs"}
        if set(value) != kinds:
            raise ValueError(f"follow-up words must be {sorted(kinds)}: {sorted(value)}")
        return value

    def phrase_spans(self, text: str, phrases: Sequence[str]) -> list[tuple[int, int]]:
        """Where the phrases occur in a text as whole words (rag.text.phrase_spans)."""
        return phrase_spans(text, phrases)

    def says(self, text: str, kind: str) -> bool:
        """Whether a text writes a follow-up phrase of a kind (follow_up_words); a relative
        "that" ("one that checks …") or a determiner "each" ("each step") refers to nothing."""
        spans = self.phrase_spans(text, self.follow_up_words[kind])
        return any(self._refers(text, start, end) for start, end in spans)

    def _refers(self, text: str, start: int, end: int) -> bool:
        """Whether the reference word at text[start:end] points back. A relative word followed
        by a verb (an auxiliary, or a third-person "-s" form: "that checks", "that works")
        opens a clause; a determiner before a noun other than a subject noun ("each step"),
        unless an auxiliary asks of it ("what does each report?"), picks none of the papers."""
        word, kinds = text[start:end].lower(), self.follow_up_words
        before, after = text[:start].split(), text[end:].split()
        nxt = _bare(after[0]) if after else ""
        if not nxt:
            return True
        if word in kinds["relative"]:
            # Singular nouns a demonstrative takes end in "-ss", "-us", "-is" ("that loss").
            third = len(nxt) > 3 and nxt.endswith("s") and not nxt.endswith(("ss", "us", "is"))
            if third or nxt in kinds["clause_verbs"]:
                return False
        asked = bool(before) and _bare(before[-1]) in kinds["clause_verbs"]
        if word in kinds["determiners"] and not asked:
            return not content_terms(nxt) or nxt in self.subject_nouns or nxt in self.paper_nouns
        return True

    def asks_catalog(self, text: str, kind: str) -> bool:
        """Whether a text writes a catalog phrase of a kind (catalog_words: "who wrote" asks
        the authors); a link asked of code or data is not the catalog's."""
        if kind == "link" and self.phrase_spans(text, tuple(self.catalog_words["not_link"])):
            return False
        return bool(self.phrase_spans(text, tuple(self.catalog_words[kind])))

    def opens_again(self, text: str, most: int = 6) -> bool:
        """Whether a text asks the last question again: an opener and at most `most` words
        ("and the SHAPO paper?", "what about Qronos?")."""
        words = [w for w in map(_bare, text.split()) if w]
        for opener in self.follow_up_words["openers"]:
            head = opener.split()
            if words[: len(head)] == head and 1 <= len(words) - len(head) <= most:
                return True
        return False

    def refining_opener(self, text: str) -> tuple[int, int] | None:
        """Where the adverb is that a fragment opens with to narrow the last list ("mainly
        detection", "ok, especially looped ones"): first, or after one word that asks
        nothing; None otherwise ("which papers mainly use RL?" asks anew)."""
        spans = self.phrase_spans(text, self.follow_up_words["refining"])
        if not spans:
            return None
        before = [_bare(w) for w in text[: spans[0][0]].split()]
        if len(before) > 1 or set(before) & self.question_words:
            return None
        return spans[0]

    def ordinals(self, text: str) -> list[tuple[int, int, int]]:
        """Each ordinal a text writes, as (start, end, index into the last list), the span
        taking a 'the' before it and a noun of it after ('the second one')."""
        found = []
        for start, end in self.phrase_spans(text, tuple(self.ordinal_words)):
            index = self.ordinal_words[text[start:end].lower()]
            before = text[:start].rstrip()
            if before[-3:].lower() == "the" and not before[-4:-3].isalnum() and start > len(before):
                start = len(before) - 3
            after = text[end:].split(maxsplit=1)
            if after and text[end : end + 1].isspace():
                noun = next((n for n in self.ordinal_nouns if after[0].lower().startswith(n)), "")
                if noun:
                    end = text.index(after[0], end) + len(noun)
            found.append((start, end, index))
        return found

    def number(self, text: str) -> int | None:
        """The number a word or digits say ("six" -> 6, "12" -> 12), else None."""
        word = " ".join(text.lower().split())
        if word.isdigit():
            return int(word)
        return self.number_words.get(word)

    def written_out(self, text: str) -> str:
        """The text with its chat shorthand written out ("papers abt RL w/ LLMs" -> "papers
        about RL with LLMs") and its asides dropped ("btw", "pls"); a capital letter alone
        ("U") is a symbol, not "you"; a text of asides alone ("thx!") stays as written."""
        out = []
        for token in text.split():
            # "abt?", "(btw)": the word without the marks around it.
            core = token.strip("?.,!;:()\"'")
            meant = self.shorthand.get(core.lower())
            if meant is None or (len(core) == 1 and core.isupper()):
                out.append(token)
            elif meant:
                out.append(token.replace(core, meant, 1))
            elif out and (end := token[token.index(core) + len(core) :].strip(",;:)'\"")):
                # "any GNN papers pls?": the dropped aside's question mark stays the question's.
                out[-1] += end
        return " ".join(out) or text

    def numbers_in(self, text: str) -> list[tuple[int, int, int]]:
        """Every number the words of a text say, as (start, end, value), in order; the
        longest phrase wins ("a dozen" over "dozen")."""
        lower = text.lower()
        found: list[tuple[int, int, int]] = []
        taken = [False] * len(lower)
        phrases = sorted(self.number_words, key=len, reverse=True)
        for phrase in phrases:
            start = 0
            while (i := lower.find(phrase, start)) >= 0:
                end = i + len(phrase)
                start = end
                # A whole word: not "four" in "fourier", not "4" in "GPT-4".
                bounded = (i == 0 or lower[i - 1].isspace()) and (
                    end == len(lower) or not (lower[end].isalnum() or lower[end] == "-")
                )
                if bounded and not any(taken[i:end]):
                    taken[i:end] = [True] * (end - i)
                    found.append((i, end, self.number_words[phrase]))
        i = 0
        while i < len(lower):
            if lower[i].isdigit() and (i == 0 or lower[i - 1].isspace()):
                j = i
                while j < len(lower) and lower[j].isdigit():
                    j += 1
                decimal = lower[j : j + 1] == "." and lower[j + 1 : j + 2].isdigit()
                if j == len(lower) or not (lower[j].isalnum() or lower[j] in "-%" or decimal):
                    found.append((i, j, int(lower[i:j])))
                i = j
            else:
                i += 1
        return sorted(found)

    def resource_in(self, words: list[str]) -> str:
        """The resource kind a list of lowercase words names ("benchmarks" -> "benchmark")."""
        for word in words:
            for kind in self.resource_kinds:
                if word in (kind, kind + "s", kind[:-1] + "ies", kind.replace("us", "ora")):
                    return kind
        return ""


def load_lexicon(path: Path = LEXICON) -> Lexicon:
    """Read and validate the lexicon; a bad file fails naming the file and field."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LexiconError(f"{path}: cannot read the lexicon ({exc})") from exc
    try:
        return Lexicon.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"])
        raise LexiconError(f"{path}: {field}: {err['msg']}") from exc


def _bare(word: str) -> str:
    """A word lower-cased, without the punctuation around it."""
    return word.lower().strip("?.!,;:\"'()“”‘’…")


def _third_person(verb: str) -> str:
    """A verb's third person singular ("address" -> "addresses", "identify" -> "identifies")."""
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "o", "u"):
        return verb[:-1] + "ies"
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "z", "o")) else "s")
