"""What kind of content an abstract's sentence holds: a number, a result, the contribution, the
problem, a scene-setting opener. The words are the lexicon's `sentence_cues`, compiled here once.

The Pipeline builds one `Cues` from its Lexicon and hands it to the answerers; the predicates
below read a sentence, never a question.
"""

from __future__ import annotations

import re

from rag.lexicon import Cue, Lexicon, load_lexicon
from rag.models import AnswerType

# The few sentence shapes that are structure, not vocabulary.
# "We address this gap with DanceTogether, the first …": the name and what it is.
_WITH_NAME = re.compile(
    r"\b(?:with|via|through)\s+\**[A-Z][\w-]*\**,\s+(?:the\s+first|an?)\s", re.I
)
# "Multimodal Dataset Distillation (MDD) has emerged as …" (the acronym is part of it); "The
# Model Context Protocol (MCP) is a key enabler of …": what the field is, not the paper.
_FIELD_IS = re.compile(
    # The paper's own sentences ("We prove that X has a tight bound") set no scene.
    r"^(?!we\b|our\b|this\s+(?:paper|work))"
    r"(?:[\w\s()-]{0,50}\s+(?:is|are|has|have)\s+(?:a|an|become|emerged|shown|been)|"
    r"[^,;]{0,80}?\s+(?:is|are|remains?)\s+(?:a|an|the)\s+"
    r"(?:key|central|critical|crucial|fundamental|major|core|promising|prerequisite|"
    r"cornerstone|common|popular|standard|important|essential)\b)",
    re.IGNORECASE,
)
# Named things and the words introducing them ("datasets such as GSM8K and MATH"); case counts:
# "Datasets" opening a sentence is no name.
_ENTITIES = re.compile(
    r"\b(datasets?|benchmarks?|models?|baselines?|tasks?|environments?|games?|such\s+as|"
    r"including|e\.g\.|"
    r"[A-Z][A-Za-z]*[A-Z0-9][\w\-.]*)\b"
)


def _phrase(text: str) -> str:
    """A word or phrase as a pattern: its words apart by any whitespace."""
    return r"\s+".join(re.escape(w) for w in text.split())


def _longest_first(items: set[str] | tuple[str, ...]) -> list[str]:
    # The longest alternative first, so that a match runs as far as the cue goes ("speedups").
    return sorted(set(items), key=lambda w: (-len(w), w))


def _source(
    cue: Cue, stems: set[str], words: set[str], symbols: set[str], we_verbs: tuple[str, ...]
) -> str:
    """The pattern source of one cue, its included cues' lists given merged in."""

    def unless(entry: str) -> str:
        rests = [u[len(entry) :] for u in cue.unless if u.startswith(entry) and u != entry]
        if not rests:
            return ""
        bounded = [_phrase(r) if r[0].isspace() else re.escape(r) for r in rests]
        ends = [r"\b" if r[-1].isalnum() else "" for r in rests]
        rest = "|".join(
            (r"\s+" if r[0].isspace() else "") + b + e
            for r, b, e in zip(rests, bounded, ends, strict=True)
        )
        return f"(?!{rest})"

    def verbs(items: tuple[str, ...]) -> str:
        return "|".join(_phrase(v) for v in _longest_first(items))

    parts: list[str] = []
    if cue.digit:
        parts.append(r"\d")
    parts += [re.escape(s) for s in _longest_first(symbols)]
    # "this limitation", "these problems": words after one of the `after` words.
    before = rf"\b(?:{verbs(cue.after)})\s+" if cue.after else r"\b"
    plural = "s?" if cue.plural else ""
    parts += [rf"{before}{_phrase(s)}{unless(s)}" for s in _longest_first(stems)]
    parts += [rf"{before}{_phrase(w)}{plural}\b{unless(w)}" for w in _longest_first(words)]
    if we_verbs:
        subject = verbs(cue.subjects) if len(cue.subjects) == 1 else f"(?:{verbs(cue.subjects)})"
        adverb = rf"(?:{verbs(cue.adverbs)})\s+|\w+ly\s+" if cue.adverbs else r"\w+ly\s+"
        ending = r"s?\b" if cue.verb_s else ""
        parts.append(rf"\b{subject}\s+(?:{adverb})?(?:{verbs(we_verbs)}){ending}")
    if cue.and_verbs:
        parts.append(
            rf"\bwe\s+\w+(?:\s+[\w-]+){{0,5}}?\s+and\s+(?:\w+ly\s+)?(?:{verbs(cue.and_verbs)})\b"
        )
    if cue.before_number:
        parts.append(rf"\b(?:{verbs(cue.before_number)})\s+\d")
    for unit in _longest_first(cue.after_number):
        parts.append(rf"\d\s*{re.escape(unit)}" + (r"\b" if unit[-1].isalnum() else ""))
    body = "|".join(parts) or r"(?!)"
    if not cue.opening:
        return f"(?:{body})"
    # "We argue that this limitation …": a few words may come first.
    lead = rf"(?:\S+\s+){{0,{cue.opening_words}}}?" if cue.opening_words else ""
    return f"^{lead}(?:{body})"


class Cues:
    """The lexicon's sentence cues, compiled once, and what they say of a sentence."""

    def __init__(self, lexicon: Lexicon) -> None:
        named = dict(lexicon.sentence_cues)
        named.update({f"measure:{k}": m.sentence for k, m in lexicon.measures.items()})
        self._factor = {k: m.factor for k, m in lexicon.measures.items()}
        self._asked = {k: tuple(m.question) for k, m in lexicon.measures.items()}
        self._words: dict[str, frozenset[str]] = {}
        self._patterns: dict[str, re.Pattern[str]] = {}
        # The verbs a paper introduces its own thing with ("we propose X"), for the lead.
        made = lexicon.sentence_cues.get("contribution")
        self._introducing = frozenset(made.and_verbs if made else ())
        for name, cue in named.items():
            stems, words, symbols = set(cue.stems), set(cue.words), set(cue.symbols)
            for other in cue.includes:
                stems |= set(named[other].stems)
                words |= set(named[other].words)
                symbols |= set(named[other].symbols)
            self._words[name] = frozenset(w.lower() for w in words)
            # "we propose X" in the titles' cue takes the contribution's verbs: one list.
            we_verbs = named[cue.verbs_of].and_verbs if cue.verbs_of else cue.we_verbs
            source = _source(cue, stems, words, symbols, we_verbs)
            self._patterns[name] = re.compile(source, re.IGNORECASE)

    def pattern(self, name: str) -> re.Pattern[str]:
        """The compiled cue; an unknown name fails naming it."""
        try:
            return self._patterns[name]
        except KeyError:
            raise KeyError(f"no sentence cue {name!r} in the lexicon") from None

    def words(self, name: str) -> frozenset[str]:
        """A cue's whole words, lowercase (its included cues' too)."""
        self.pattern(name)
        return self._words[name]

    def says(self, name: str, sentence: str) -> bool:
        """Whether the sentence holds the cue."""
        return self.pattern(name).search(sentence) is not None

    def measure(self, name: str) -> tuple[re.Pattern[str], bool]:
        """The words a sentence states a measure with, and whether its number is a factor;
        a measure the lexicon does not name is the one whose words start with the same five
        letters ("speed", "memory use"), else an improvement."""
        head = (name.split() or [""])[0].lower()[:5]
        known = name if name in self._factor else ""
        if not known:
            known = next(
                (
                    k
                    for k, asked in self._asked.items()
                    if len(head) == 5 and any(w[:5] == head for w in (k, *asked))
                ),
                "improvement",
            )
        return self.pattern(f"measure:{known}"), self._factor[known]

    def introducing(self, verb: str) -> bool:
        """Whether a verb, as written ("introduces", "proposed"), is one a paper introduces
        its own thing with."""
        low = verb.lower()
        return low in self._introducing or low[:-1] in self._introducing

    def reports_result(self, sentence: str) -> bool:
        """Whether a sentence puts a number on a result ("a 3.67x speedup", "improves by 4%")."""
        return self.says("number", sentence) and self.says("result", sentence)

    def states_amount(self, sentence: str) -> bool:
        """Whether a sentence states an amount ("by 54%", "12.4x", "twice"), as "how much"
        asks; "a two-stage strategy" counts kinds."""
        return self.says("amount", sentence)

    def contributes(self, sentence: str) -> bool:
        """Whether a sentence says what the paper itself makes or does."""
        return self.says("contribution", sentence) or _WITH_NAME.search(sentence) is not None

    def has_cue(self, qtype: AnswerType, sentence: str) -> bool:
        """Whether a sentence has the kind of content the question type asks for."""
        if qtype == "number":
            return self.says("number", sentence)
        if qtype == "entities":
            return len(_ENTITIES.findall(sentence)) >= 2
        if qtype == "finding":
            return self.says("finding", sentence) or self.says("result", sentence)
        if qtype == "contribution":
            return self.contributes(sentence)
        if qtype == "problem":
            return self.says("problem", sentence)
        return False

    def framing(self, sentence: str, position: int) -> bool:
        """Whether a sentence sets the scene (the field, its problem) rather than saying what
        the paper does: the opening sentence unless it states the contribution, "However, …"."""
        return (
            self.says("scene_openers", sentence)
            or _FIELD_IS.match(sentence) is not None
            or (position == 0 and not self.contributes(sentence))
        )

    def type_fit(
        self, qtype: AnswerType, sentence: str, position: int, usage: bool = False
    ) -> float:
        """How well a sentence fits the question's type (0..1), before what it is about;
        `usage` (an entities question about a named paper) favours the evaluation's sentences."""
        fit = 0.0
        if self.has_cue(qtype, sentence):
            fit = 1.0
            if qtype == "number" and self.says("result", sentence):
                fit += 0.3
            if qtype == "number" and not self.states_amount(sentence):
                # "Our two-stage schedule further improves efficiency" counts kinds, not an
                # amount.
                fit -= 0.3
            if usage and self.says("evaluation", sentence):
                # "Which datasets does APPLE use?": the evaluation names them, not the sentence
                # introducing APPLE (RL).
                fit += 0.3
        elif qtype == "general" and self.contributes(sentence):
            fit = 0.5
        if self.framing(sentence, position) and qtype != "problem":
            fit -= 0.5
        return fit


def bundled_cues() -> Cues:
    """The cues of the bundled lexicon, for a caller that was given none (a script, a test);
    the Pipeline hands its own to the parts it builds."""
    return Cues(load_lexicon())
