"""Answers about the whole collection: topic lists, counts and side-by-side comparisons."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .catalog import SMALL_WORDS, Catalog, acronym_tail, versioned_pattern
from .chunking import split_sentences
from .index import PaperIndex
from .markup import bold, readable
from .models import Answer, AnswerSentence, Citation, Filters, Paper, PaperMatch, Plan, SearchHit
from .names import introduces, paper_names
from .planner import (
    AUTHORS,
    CITATIONS,
    DEFINES,
    MORE,
    NARROWS,
    RESULTS,
    SIMILAR,
    TYPED,
    asked_count,
    compared_sides,
    introduced_kind,
    listed_aspect,
    wanted_count,
)
from .protocols import Answerer, Embedder
from .qtype import QuestionType, framing, has_cue, reports_result
from .text import content_terms
from .theme_answers import THEMES, ThemeAnswerer

# A paper that uses every word of the topic, though not as one phrase, joins when its closest
# chunk is at least this similar to the topic; one that uses none of them, at the higher bar.
# Both chosen on the tune half of eval/collection.jsonl (eval/README.md).
ALL_TERMS_DENSE = 0.70
DENSE_ONLY = 0.78
# Chunks fetched for the dense side: one Chroma query, not one per paper. On the collection
# set's topics the 300th chunk is at cosine 0.17-0.47, far below both bars above.
DENSE_CHUNKS = 300
SHOWN = 10
TOP_KEYWORDS = 20  # keywords shown by "Which keywords are most common?"
PER_SIDE = 2  # papers standing for each side of a comparison of topics
PER_SIDE_SHOWN = 3  # papers cited for each topic of "more papers on A or on B?"
# A term in more than this share of the papers says nothing about a topic on its own.
GENERIC = 0.25
# Words of a named paper's abstract that at most this share of papers use: what a similar
# paper's quoted sentence should share with it ("KV cache", not "model").
SHARED = 0.05
# Below this many papers a word's share says little about it (in the 19-paper sample "agents"
# alone would stand for "benchmarks for evaluating LLM agents").
DISTINCTIVE_MIN_PAPERS = 1000

_ROLES = {
    "Problem": re.compile(
        r"\b(challeng|problem|however|limit|lack|remain|struggl|difficult|costly|"
        r"bottleneck|gap|fail|issue|hinder|suffer|unclear|open question)",
        re.IGNORECASE,
    ),
    "Method": re.compile(
        r"\b(we (propose|introduce|present|develop|design|build)|our (method|approach|framework)|"
        r"this paper (propose|introduce|present)|we call|named|dubbed|consists of|leverag)",
        re.IGNORECASE,
    ),
    "Evaluation": re.compile(
        r"\b(experiment|evaluat|benchmark|dataset|tested|test on|empirical|across \d|ablation)",
        re.IGNORECASE,
    ),
    "Result": re.compile(
        r"(\d+(\.\d+)?\s*%|\b(outperform|achiev|improv|surpass|state-of-the-art|results show|"
        r"we find|we show|reveal|demonstrat|reduc|speedup|faster|better))",
        re.IGNORECASE,
    ),
}


@dataclass
class Match:
    """One paper in a matched set and why it is there."""

    index: int
    score: float
    why: str  # "keyword", "title", "abstract", "words", "close"
    terms: tuple[str, ...] = ()


# "unlearning in LLMs", "attacks against diffusion models": two concepts and how they relate.
_RELATING = re.compile(
    r"\s+(?:in|on|for|with|against|to|under|across|via|using|within|into|and)\s+", re.IGNORECASE
)


def _agent_nouns(part: str) -> re.Pattern[str] | None:
    """A pattern requiring the agent nouns a topic writes whose stem is another word's
    ("optimizers" stems to "optim", as "optimization" does; "generators" to "generat", as
    "generation"): a paper must write the noun itself."""
    nouns = [
        w.lower().removesuffix("s")
        for w in re.findall(r"(?<![\w-])[A-Za-z]+(?:er|or)s?(?![\w-])", part)
        if not w.isupper() and (stem := content_terms(w)) and not stem[0].endswith(("er", "or"))
    ]
    if not nouns:
        return None
    # Every noun, in any order ("Transformer-based" writes it).
    ahead = "".join(rf"(?=[\s\S]*?(?<![A-Za-z]){re.escape(n)}s?(?![A-Za-z]))" for n in nouns)
    return re.compile(ahead, re.IGNORECASE)


def _concepts(part: str) -> list[str]:
    """The phrases a topic relates ("hallucination in VLMs"; "test-time scaling of reasoning
    models", where "of" joins two phrases of two or more words, unlike "mixture of experts")."""
    concepts: list[str] = []
    for piece in _RELATING.split(part):
        sides = re.split(r"\s+of\s+", piece, flags=re.IGNORECASE)
        if len(sides) == 2 and all(len(side.split()) >= 2 for side in sides):
            concepts.extend(sides)
        else:
            concepts.append(piece)
    return concepts


_FACTOR = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:\$?\s*\\times|×|x(?![\w-])|times\b|-?fold\b)", re.IGNORECASE
)
_PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:\\?%|percent\b)", re.IGNORECASE)


@dataclass(frozen=True)
class _Measure:
    """A quantity a superlative asks for: the words stating it and how its number reads."""

    word: re.Pattern[str]
    factor: bool  # "3.5×" (a percent reduction read as the factor it is); else a percent

    def value(self, sentence: str) -> float | None:
        """The largest number the sentence states for the measure, near its words; None
        when it states none ("12% fewer tokens" is no accuracy)."""
        # "a 5× speedup", "a speedup of up to 13.8×": the number just before its word or a
        # little after it, not "18× less memory, and … a speedup" (a clause away).
        near = [(m.start() - BEFORE, m.end() + AFTER) for m in self.word.finditer(sentence)]

        def numbers(pattern: re.Pattern[str]) -> list[float]:
            return [
                float(m.group(1))
                for m in pattern.finditer(sentence)
                if any(a <= m.start() <= b for a, b in near)
            ]

        percents = numbers(_PERCENT)
        if not self.factor:
            return max(percents, default=None)
        factors = numbers(_FACTOR)
        if _REDUCES.search(sentence):
            # "cuts memory by 75%" is a 4× reduction.
            factors += [100 / (100 - p) for p in percents if 0 < p < 100]
        return max(factors, default=None)

    def show(self, value: float) -> str:
        return f"{value:.3g}×" if self.factor else f"{value:g}%"


BEFORE, AFTER = 25, 40  # characters from a number to its measure's word, before and after
_REDUCES = re.compile(r"\b(?:reduc|sav|cut|compress|fewer|less|lower)", re.IGNORECASE)


def _measure(name: str) -> _Measure:
    if name.startswith(("speed", "acceleration")):
        return _Measure(re.compile(r"speed[\s-]?ups?|faster|accelerat|throughput", re.I), True)
    if name.startswith("memory"):
        return _Measure(re.compile(r"\bmemory\b|footprint|\bcompress", re.I), True)
    if name.startswith("compression"):
        return _Measure(re.compile(r"\bcompress", re.I), True)
    if name.startswith("reduction"):
        return _Measure(re.compile(r"\b(?:reduc|cut|fewer|lower)", re.I), True)
    if name == "accuracy":
        return _Measure(re.compile(r"\baccura", re.I), False)
    return _Measure(re.compile(r"\b(?:improv|gain|outperform|boost)", re.I), False)


_NUMBER = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w-])")


def _metric_words(metric: str) -> list[re.Pattern[str]]:
    """One pattern per word of a metric ("top-1 accuracy"), each matching it as a word, in
    any case and in the plural."""
    return [
        re.compile(rf"(?<![\w-]){re.escape(w)}s?(?![\w-])", re.IGNORECASE) for w in metric.split()
    ]


def _among(within: Sequence[str]) -> str:
    return f"; among the {len(within)} papers of the previous answer" if within else ""


def _contains(seq: Sequence[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    if n == 1:
        return phrase[0] in seq
    first = phrase[0]
    return any(seq[i] == first and tuple(seq[i : i + n]) == phrase for i in range(len(seq) - n + 1))


def _variants(terms: tuple[str, ...], catalog: Catalog) -> list[tuple[str, ...]]:
    """The topic's phrase, with acronyms written out and phrases abbreviated as the corpus does."""
    out = [terms]
    expanded: list[str] = []
    for t in terms:
        expanded.extend(catalog.acronyms.get(t, (t,)))
    if tuple(expanded) != terms:
        out.append(tuple(expanded))
    for v in list(out):
        if v in catalog.expansions:
            out.append((catalog.expansions[v],))
    return list(dict.fromkeys(out))


def describe_filters(filters: Filters) -> str:
    """Filters in words: 'Oral papers in the reinforcement learning area with keyword X'."""
    bits = []
    if filters.area:
        bits.append(f"in the {filters.area} area")
    if filters.keyword:
        bits.append(f"with the keyword “{filters.keyword}”")
    if filters.title:
        bits.append(f"with “{filters.title}” in the title")
    head = f"{filters.decision} papers" if filters.decision else "papers"
    return " ".join([head, *bits])


_SHARE = re.compile(r"\b(?:fraction|percentage|share|proportion|percent)\b", re.IGNORECASE)


def decisions_note(filters: Filters, catalog: Catalog) -> str:
    """' The index's decisions are Oral and Poster.' when the filter asks for another one."""
    if not filters.decision or filters.decision in catalog.decisions:
        return ""
    if not catalog.decisions:
        return " The index records no decisions (oral, poster) for its papers."
    return f" The index's decisions are {' and '.join(catalog.decisions)}."


class CollectionAnswerer:
    """Answers list, count and compare plans over every paper of the index."""

    def __init__(
        self,
        catalog: Callable[[], Catalog],
        index: PaperIndex,
        embedder: Embedder,
        bm25: Callable[[str], np.ndarray],
        writer: Answerer | None = None,
        distinctive_min_papers: int = DISTINCTIVE_MIN_PAPERS,
        themes: ThemeAnswerer | None = None,
    ) -> None:
        self.catalog = catalog
        self.themes = themes
        self.index = index
        self.embedder = embedder
        self.bm25 = bm25
        self.writer = writer
        self.distinctive_min_papers = distinctive_min_papers

    # -- matching ------------------------------------------------------------

    def match(
        self,
        topic: str,
        filters: Filters,
        within: Sequence[str] = (),
        loose: bool = True,
        scored: dict[tuple[str, Catalog], tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> tuple[list[Match], str]:
        """Every paper the topic matches under the filters (and among `within`, when given),
        best first, and the rule in words; with `loose`, the papers using its words when none
        writes it as asked. `scored` keeps the topic's BM25 and dense scores between calls
        that try other filters (one Chroma query, not one per try)."""
        cat = self.catalog()
        allowed = np.ones(len(cat), dtype=bool)
        if filters.active():
            allowed = np.array([filters.match(p) for p in cat.papers], dtype=bool)
        if within:
            keep = set(within)
            allowed &= np.array([pid in keep for pid in cat.ids], dtype=bool)
        parts = [p for p in re.split(r"\s+or\s+|\s*[,;/]\s*", topic) if cat.terms(p)]
        if len(parts) > 1 and any(
            all(cat.df(t) > GENERIC * len(cat) for t in cat.terms(p)) for p in parts
        ):
            # "generate or edit images": a part made of words half the collection uses is a
            # clause, not a topic of its own; the topic is read whole.
            parts = [topic]
        if not parts:
            idx = np.flatnonzero(allowed)
            if within and not filters.active():
                # "What are the limitations of those papers?": the last list, as it was.
                return [Match(int(i), 1.0, "metadata") for i in idx], _among(within).lstrip("; ")
            rule = "from the catalog metadata" + (
                f": {describe_filters(filters)}" if filters.active() else ": every paper"
            )
            return [Match(int(i), 1.0, "metadata") for i in idx], rule + _among(within)

        # Keyed by the catalog object too: an ingest between two tries gives a new one.
        if scored is not None and (topic, cat) in scored:
            lexical, dense = scored[(topic, cat)]
        else:
            lexical, dense = self._lexical(topic, cat), self._dense(topic, cat)
            if scored is not None:
                scored[(topic, cat)] = (lexical, dense)

        found: dict[int, Match] = {}
        shown: list[str] = []

        def add(i: int, why: str, terms: tuple[str, ...]) -> None:
            old = found.get(i)
            if old is None or _RANK[why] < _RANK[old.why]:
                found[i] = Match(i, 0.0, why, terms)

        # "GPT-4": the words lose the version ("gpt"), so the paper must write it; so must
        # it "optimizers", which its stem shares with "optimization".
        versioned = {part: versioned_pattern(part) for part in parts}
        agents = {part: _agent_nouns(part) for part in parts}

        def adder(part: str) -> Callable[[int, str, tuple[str, ...]], None]:
            checks = [c for c in (versioned[part], agents[part]) if c is not None]
            if not checks:
                return add
            return lambda i, why, terms: (
                add(i, why, terms)
                if all(c.search(cat.papers[i].search_text) for c in checks)
                else None
            )

        adders = {part: adder(part) for part in parts}
        for part in parts:
            concepts = [c for c in _concepts(part) if cat.terms(c)]
            if len(concepts) > 1:
                shown.append(self._related(concepts, cat, allowed, dense, adders[part]))
                continue
            terms = tuple(cat.terms(part))
            # "GPT-4" is no "generative pre-trained transformer": a versioned name has none.
            variants = [terms] if versioned[part] else _variants(terms, cat)
            shown.append("“" + " / ".join(_surface(v, part, cat) for v in variants) + "”")
            for v in variants:
                for i in self._with_all(v, cat, allowed):
                    why = self._where(i, v, cat)
                    if why is None:
                        if dense[i] < ALL_TERMS_DENSE:
                            continue
                        why = "words"
                    adders[part](i, why, v)
        if not found and loose:
            shown = self._loose(parts, cat, allowed, adders) or shown
        if not any(versioned.values()):
            written = [a for a in agents.values() if a is not None]
            for i in np.flatnonzero(allowed & (dense >= DENSE_ONLY)):
                if all(a.search(cat.papers[int(i)].search_text) for a in written):
                    found.setdefault(int(i), Match(int(i), 0.0, "close"))
        for m in found.values():
            bonus = 0.2 if m.why in ("title", "keyword") else 0.0
            m.score = round(0.5 * float(lexical[m.index]) + 0.5 * float(dense[m.index]) + bonus, 4)
        ranked = sorted(found.values(), key=lambda m: (-m.score, cat.ids[m.index]))
        return ranked, self._rule(ranked, shown, filters) + _among(within)

    def _related(
        self,
        concepts: list[str],
        cat: Catalog,
        allowed: np.ndarray,
        dense: np.ndarray,
        add: Callable[[int, str, tuple[str, ...]], None],
    ) -> str:
        """Papers holding every concept of "unlearning in LLMs" in one place, in any order: a
        sentence ("LLM unlearning"), the title, or the title and keywords together."""
        options = [_variants(tuple(cat.terms(c)), cat) for c in concepts]
        holding = [set().union(*(self._with_all(v, cat, allowed) for v in vs)) for vs in options]
        for i in sorted(set.intersection(*holding)):
            units = [cat.title_terms[i], *cat.keyword_terms[i]]
            if all(
                any(_contains(k, v) for k in cat.keyword_terms[i] for v in vs) for vs in options
            ):
                why = "keyword"
            elif all(any(_contains(u, v) for u in units for v in vs) for vs in options):
                why = "title"
            elif any(
                all(any(_contains(st, v) for v in vs) for vs in options)
                for st in cat.sentence_terms[i]
            ):
                why = "abstract"
            elif dense[i] >= ALL_TERMS_DENSE:
                why = "words"
            else:
                continue
            add(i, why, tuple(t for vs in options for t in vs[0]))
        return " with ".join(
            "“" + " / ".join(_surface(v, c, cat) for v in vs) + "”"
            for c, vs in zip(concepts, options, strict=True)
        )

    def _loose(
        self,
        parts: list[str],
        cat: Catalog,
        allowed: np.ndarray,
        adders: Mapping[str, Callable[[int, str, tuple[str, ...]], None]],
    ) -> list[str]:
        """When no paper writes the topic as asked: the papers that use all of its words
        anywhere and, in a large collection, those that use all of its distinctive ones (words
        a quarter of the papers use dropped: "SWE-bench benchmark" is about SWE-bench). The
        words used, as shown; `adders` record a part's matches."""
        shown: list[str] = []
        for part in parts:
            every = tuple(cat.terms(part))
            distinctive = (
                tuple(t for t in every if cat.df(t) <= GENERIC * len(cat))
                if len(cat) >= self.distinctive_min_papers
                else every
            )
            # A one-word topic was already matched as written.
            for terms in dict.fromkeys(
                t for t in (every, distinctive) if len(t) > 1 or (t and t != every)
            ):
                hits = False
                for v in _variants(terms, cat):
                    for i in self._with_all(v, cat, allowed):
                        adders[part](i, "loose", v)
                        hits = True
                if hits:
                    kept = set(terms)
                    words = [w for w in part.split() if set(cat.terms(w)) & kept]
                    shown.append(" and ".join(f"“{w}”" for w in words))
        return shown

    def _lexical(self, text: str, cat: Catalog, leave_out: int | None = None) -> np.ndarray:
        """BM25 score per paper, over the best one's (0 for `leave_out`)."""
        scores = self.bm25(text)
        if scores.shape[0] != len(cat):  # the keyword index is being rebuilt
            scores = np.zeros(len(cat), dtype=np.float32)
        if leave_out is not None:
            scores[leave_out] = 0.0
        top = float(scores.max()) if scores.size else 0.0
        return scores / top if top > 0 else scores

    def _dense(self, topic: str, cat: Catalog) -> np.ndarray:
        """Best chunk similarity per paper from one wide Chroma query (0 when not reached)."""
        sims = np.zeros(len(cat), dtype=np.float32)
        vec = self.embedder.embed([topic])[0]
        pos = {pid: i for i, pid in enumerate(cat.ids)}
        # Unfiltered: a metadata filter in the query makes Chroma's search ten times slower,
        # and the filter is applied to the matched set anyway.
        for paper_id, sim in self.index.nearest_chunks(vec, DENSE_CHUNKS):
            i = pos.get(paper_id)
            if i is not None and sim > sims[i]:
                sims[i] = sim
        return sims

    @staticmethod
    def _with_all(terms: tuple[str, ...], cat: Catalog, allowed: np.ndarray) -> list[int]:
        sets = [cat.postings.get(t, set()) for t in terms]
        if not sets or not all(sets):
            return []
        common = set.intersection(*sorted(sets, key=len))
        return sorted(i for i in common if allowed[i])

    @staticmethod
    def _where(i: int, phrase: tuple[str, ...], cat: Catalog) -> str | None:
        if any(_contains(k, phrase) for k in cat.keyword_terms[i]):
            return "keyword"
        if _contains(cat.title_terms[i], phrase):
            return "title"
        if _contains(cat.abstract_terms[i], phrase):
            return "abstract"
        return None

    @staticmethod
    def _rule(ranked: list[Match], shown: list[str], filters: Filters) -> str:
        said = " or ".join(shown)
        phrase = sum(m.why in ("keyword", "title", "abstract") for m in ranked)
        keyword = sum(m.why == "keyword" for m in ranked)
        words = sum(m.why == "words" for m in ranked)
        close = sum(m.why == "close" for m in ranked)
        loose = sum(m.why == "loose" for m in ranked)
        if loose:
            rule = (
                f"no paper writes it as one phrase; {loose} use "
                f"{' or '.join(shown)} in their title, keywords or abstract"
            )
            if close:
                rule += f"; {close} read very close to it (similarity ≥ {DENSE_ONLY})"
            return rule + (f"; only {describe_filters(filters)}" if filters.active() else "")
        rule = (
            f"{phrase} mention {said} in their title, keywords or abstract "
            f"({keyword} list it as a keyword)"
        )
        if words:
            rule += (
                f"; {words} use all its words and read close to it (similarity ≥ {ALL_TERMS_DENSE})"
            )
        if close:
            rule += f"; {close} read very close to it (similarity ≥ {DENSE_ONLY})"
        if filters.active():
            rule += f"; only {describe_filters(filters)}"
        return rule

    # -- answers -------------------------------------------------------------

    def answer(self, question: str, plan: Plan) -> Answer | None:
        """A list or count answer; None when a topic matches nothing (the caller answers top-k)."""
        cat = self.catalog()
        filters = plan.filters
        if _BY_WHOM.search(question) and not any(p.authors for p in cat.papers):
            # "Which papers were published by Google?": who wrote them is nowhere in the index.
            text = (
                f"The index holds no authors or affiliations: {_RECORDS}, and abstracts rarely "
                "name who wrote them."
            )
            return Answer(question=question, text=text, refused=True, count=0, plan=plan)
        if plan.note == CITATIONS:
            text = (
                f"The index holds no citation counts: {_RECORDS}, and an abstract never says how "
                "often the paper is cited."
            )
            return Answer(question=question, text=text, refused=True, count=0, plan=plan)
        if plan.note == THEMES and self.themes is not None:
            on = lambda topic: [cat.papers[m.index].id for m in self.match(topic, Filters())[0]]  # noqa: E731
            return self.themes.answer(question, plan, on)
        if plan.note == SIMILAR:
            return self._similar(question, plan, cat)
        if plan.note == MORE:
            return self._more(question, plan, cat)
        if plan.note == DEFINES:
            return self._define(question, plan, cat)
        # A follow-up narrowing the last answer ("which of those use a draft model?") keeps
        # to its papers.
        # "Which one is faster?" after a comparison: the compared papers' results.
        within = plan.paper_ids if plan.note in (NARROWS, RESULTS) else []
        # Filters first: "the orals on X" where no oral writes X but posters do says so,
        # before any paper merely using X's words stands in for it.
        scored: dict[tuple[str, Catalog], tuple[np.ndarray, np.ndarray]] = {}
        # A topic typed alone that no paper writes is answered from the closest papers, not
        # from every paper using its words somewhere.
        loose = not filters.active() and plan.note != TYPED
        matches, rule = self.match(plan.topic, filters, within, loose=loose, scored=scored)
        if (
            not matches
            and filters.active()
            and not self.match(plan.topic, Filters(), within, loose=False, scored=scored)[0]
        ):
            matches, rule = self.match(plan.topic, filters, within, scored=scored)
        dropped = ""
        if within and not matches:
            under = f" among {describe_filters(filters)}" if filters.active() else ""
            which = (
                "The paper of the previous answer does not"
                if len(within) == 1
                else f"None of the {len(within)} papers of the previous answer"
            )
            text = (
                f"{which} match “{plan.topic}”{under}."
                if plan.topic
                # "Which of those are orals?" after a comparison: only the filter narrows.
                else f"{which} {'is' if len(within) == 1 else 'are'} {describe_filters(filters)}."
            )
            return Answer(question=question, text=text, refused=True, count=0, plan=plan)
        if not matches and filters.active():
            # Say the filter matched nothing, and offer what the collection has without it.
            dropped = describe_filters(filters)
            matches, rule = self.match(plan.topic, Filters(), scored=scored)
            rule += f" (no {dropped} match, so the filter is not applied)"
        kind = introduced_kind(question) if plan.intent in ("list", "count") else ""
        if kind and matches:
            # "Which papers propose a new benchmark?": its title or keywords name one, or a
            # sentence saying what the paper contributes does.
            stems = set(content_terms(kind))
            matches = [m for m in matches if self._introduces(cat, m.index, stems)]
            rule += (
                f"; of them, {len(matches)} introduce a {kind.removesuffix('s')} (their title "
                "or keywords name one, or the sentence stating their contribution does)"
            )
        if not matches and plan.intent != "count":
            return None
        if plan.note == RESULTS:
            return self._results(question, plan, cat, matches, rule)
        # "What challenges do papers on X address?": each paper's sentence of that kind.
        asked = listed_aspect(question)
        papers = [self._paper_match(cat, m, asked[1] if asked else None) for m in matches]
        if plan.group_by:
            return self._breakdown(question, plan, cat, matches, papers, rule, dropped)
        # "Give me three papers on model merging": three shown, all of them counted.
        shown = max(1, min(SHOWN, asked_count(question) or SHOWN))
        citations = _cite(papers[:shown])
        topic = plan.topic or ""
        n = len(matches)
        noun = "paper" if n == 1 else "papers"
        verb = "matches" if n == 1 else "match"
        if dropped:
            about = f" “{topic}”" if topic else ""
            lead = (
                f"No {dropped} match{about}.{decisions_note(filters, cat)} "
                f"Without the filter, {n} {noun} {verb}."
            )
        elif plan.intent == "count" and not topic and within and filters.active():
            # "How many of them are posters?" after an answer citing five papers.
            k, what = len(within), describe_filters(filters)
            lead = (
                f"All {n} papers of the previous answer are {what}."
                if n == k > 1
                else f"Of the {k} papers of the previous answer, {n} "
                f"{'matches' if n == 1 else 'match'}: {what}."
            )
        elif plan.intent == "count" and not topic:
            what = describe_filters(filters) if filters.active() else "papers"
            lead = f"The index holds {n} {what if filters.active() else noun} ({rule})."
            if _SHARE.search(question) and filters.active():
                lead = (
                    f"{n} of the index's {len(cat)} papers are {what}: "
                    f"{100 * n / max(len(cat), 1):.1f}% ({rule})."
                )
        elif plan.intent == "count" and _SHARE.search(question) and filters.active():
            # "What percentage of diffusion model papers are orals?": of the topic's papers.
            on_topic = len(self.match(plan.topic, Filters(), within, scored=scored)[0])
            lead = (
                f"{n} of the {on_topic} papers matching “{topic}” are "
                f"{describe_filters(filters)}: {100 * n / max(on_topic, 1):.1f}% ({rule})."
            )
        elif plan.intent == "count" and _SHARE.search(question) and not within:
            # "What fraction of papers are about LLMs?": of the whole index.
            lead = (
                f"{n} of the index's {len(cat)} papers {verb if n == 1 else 'match'} “{topic}”: "
                f"{100 * n / max(len(cat), 1):.1f}% ({rule})."
            )
        elif plan.intent == "count":
            lead = f"{n} {noun} {verb} “{topic}”: {rule}."
        else:
            lead = (
                f"{n} {noun} {verb} “{topic}” ({rule})."
                if topic
                else f"{n} {noun} ({rule})."
                if filters.active() or within
                # "What are these papers about?": the whole index.
                else f"The index holds {n} {noun} ({rule})."
            )
        if plan.note == AUTHORS and not any(p.authors for p in cat.papers):
            # "Who works on scaling laws?": the papers are what the index can tell.
            lead = f"The index holds no authors or affiliations, only the papers: {lead}"
        if n > shown:
            which = f"{shown} most relevant" if topic else f"first {shown}"
            lead += (
                f" The {which} follow; all {n} are in "
                'the results table and in the JSON answer ("papers").'
            )
        if asked:
            lead += f" Each quote states {_ASPECT_SAID[asked[1]]} where the abstract has one."
        hits = [
            SearchHit(paper=cat.papers[m.index], score=m.score) for m in matches[: max(SHOWN, 50)]
        ]
        return _list_answer(
            question,
            lead,
            citations,
            refused=n == 0,
            sources=hits,
            plan=plan,
            papers=papers,
            # "How many orals on X?" with no oral on X: the count asked for is 0, whatever
            # unfiltered papers are offered with it.
            count=(0 if dropped else n) if plan.intent == "count" else len(papers),
            rule=rule,
        )

    def _introduces(self, cat: Catalog, i: int, stems: set[str]) -> bool:
        """Whether paper i's title or keywords name the kind, or a contribution sentence does."""
        if stems & set(cat.title_terms[i]) or any(stems & set(k) for k in cat.keyword_terms[i]):
            return True
        return any(
            stems & set(terms) and has_cue("contribution", sentence)
            for sentence, terms in zip(cat.sentences[i], cat.sentence_terms[i], strict=True)
        )

    def _more(self, question: str, plan: Plan, cat: Catalog) -> Answer:
        """Which of two topics more papers write about: each side counted as a list would be,
        with its most relevant papers cited."""
        sides = plan.topic.split(" or ", 1)
        counted = [(side, *self.match(side, plan.filters)) for side in sides]
        (a, found_a, _), (b, found_b, _) = counted
        if len(found_a) == len(found_b):
            lead = f"As many papers are on “{a}” as on “{b}” ({len(found_a)} each)"
        else:
            (more, n_more), (less, n_less) = sorted(
                [(a, len(found_a)), (b, len(found_b))], key=lambda t: -t[1]
            )
            lead = f"More papers are on “{more}” ({n_more}) than on “{less}” ({n_less})"
        if plan.filters.active():
            lead += f", among {describe_filters(plan.filters)}"
        rules = "; ".join(f"“{side}”: {rule}" for side, _found, rule in counted)
        papers: list[PaperMatch] = []
        ranges: list[str] = []
        for side, found, _rule in counted:
            best = [self._paper_match(cat, m) for m in found[:PER_SIDE_SHOWN]]
            if best:
                ranges.append(f"[{len(papers) + 1}]–[{len(papers) + len(best)}] on “{side}”")
            papers += best
        shown = " and ".join(ranges)
        lead += f" ({rules})." + (f" The most relevant of each: {shown}." if shown else "")
        citations = _cite(papers)
        return _list_answer(
            question,
            lead,
            citations,
            refused=not (found_a or found_b),
            plan=plan,
            papers=papers,
            rule=rules,
        )

    def _define(self, question: str, plan: Plan, cat: Catalog) -> Answer | None:
        """What a concept is, in the abstracts' sentences that say it ("Reward hacking, where a
        model exploits …"); None when no abstract does (the caller looks the question up)."""
        terms = tuple(cat.terms(plan.topic))
        if not terms:
            return None
        # "What does RLHF stand for?": "Reinforcement learning from human feedback (RLHF)".
        acronym = plan.topic.removesuffix("s") if _ACRONYM.fullmatch(plan.topic) else ""
        defining = _defining(plan.topic)
        # Only papers holding every word of the concept can hold a sentence writing it.
        candidates = set.intersection(*(cat.postings.get(t, set()) for t in terms))
        found: list[tuple[tuple[bool, bool, int], int, str]] = []
        for i in sorted(candidates):
            if plan.filters.active() and not plan.filters.match(cat.papers[i]):
                continue
            for sentence in cat.sentences[i]:
                m = defining.search(sentence)
                at = m.start() if m else _expansion(sentence, acronym) if acronym else None
                if at is not None:
                    # A defining form first, then a sentence opening with the concept; shorter
                    # ones say it plainer.
                    weak = bool(m and m["weak"])
                    found.append(((weak, at > 0, len(sentence)), i, sentence))
                    break
        if not found:
            return None
        found.sort()
        shown = max(1, min(_DEFINITIONS_SHOWN, asked_count(question) or _DEFINITIONS_SHOWN))
        papers = []
        for _rank, i, sentence in found:
            match = self._paper_match(cat, Match(i, 1.0, "abstract", terms))
            match.quote = sentence
            papers.append(match)
        citations = _cite(papers[:shown])
        k = len(found)
        rule = (
            "abstracts with a sentence saying what it is (“X, where …”, “X is a …”, “X refers "
            "to …”) or the words an acronym stands for"
        )
        defines = "abstract defines or spells out" if k == 1 else "abstracts define or spell out"
        lead = f"{k} {defines} “{plan.topic}”" + (f"; {shown} follow:" if k > shown else ":")
        return _list_answer(
            question,
            lead,
            citations,
            refused=False,
            sources=[SearchHit(paper=cat.papers[i], score=1.0) for _r, i, _s in found[:50]],
            plan=plan,
            papers=papers,
            count=k,
            rule=rule,
        )

    def _similar(self, question: str, plan: Plan, cat: Catalog) -> Answer | None:
        """The papers nearest a named one: its abstract as the query, by words and meaning."""
        at = {pid: i for i, pid in enumerate(cat.ids)}
        if not plan.paper_ids or plan.paper_ids[0] not in at:
            return None
        me = at[plan.paper_ids[0]]
        paper = cat.papers[me]
        query = f"{paper.title}. {paper.abstract}"
        # Its own abstract would score highest: left out before scaling.
        combined = 0.5 * self._lexical(query, cat, leave_out=me) + 0.5 * self._dense(query, cat)
        combined[me] = -1.0
        if plan.filters.active():
            allowed = np.array([plan.filters.match(p) for p in cat.papers], dtype=bool)
            combined = np.where(allowed, combined, -1.0)
        shown = max(1, min(SHOWN, asked_count(question) or SHOWN))
        order = [int(i) for i in np.argsort(-combined)[:shown] if combined[i] > 0]
        matches = [Match(i, round(float(combined[i]), 4), "close") for i in order]
        # Each paper's line quotes its sentence sharing most of the named paper's rarer words.
        shared = {t for t in cat.abstract_terms[me] if cat.df(t) <= SHARED * len(cat)}
        papers = []
        for m in matches:
            found = self._paper_match(cat, m)
            overlap = [len(shared & set(st)) for st in cat.sentence_terms[m.index]]
            if overlap and max(overlap) > 0:
                found.quote = cat.sentences[m.index][overlap.index(max(overlap))]
            papers.append(found)
        rule = "nearest by the words and the embedding of its abstract, combined"
        if plan.filters.active():
            rule += f"; only {describe_filters(plan.filters)}"
        citations = _cite(papers)
        lead = f"The {len(papers)} papers closest to {bold(paper.title)} ({rule}):"
        return _list_answer(
            question,
            lead,
            citations,
            refused=not papers,
            sources=[SearchHit(paper=cat.papers[m.index], score=m.score) for m in matches],
            plan=plan,
            papers=papers,
            count=len(papers),
            rule=rule,
        )

    def _results(
        self, question: str, plan: Plan, cat: Catalog, matches: list[Match], rule: str
    ) -> Answer:
        """The papers writing a benchmark's name that state a result on it, each with the
        sentence stating it; listed by relevance, not ranked by their numbers."""
        if plan.measure:
            return self._largest(question, plan, cat, matches, rule)
        name = re.compile(rf"(?<![\w-]){re.escape(plan.topic)}(?![\w-])", re.IGNORECASE)
        metric = _metric_words(plan.metric)
        stating: list[tuple[Match, str]] = []
        for m in matches:
            sents = cat.sentences[m.index]
            if metric:
                # "The lowest FID on ImageNet": a sentence putting a number on FID, naming
                # ImageNet where one does (the paper writes it somewhere).
                stated = [
                    s for s in sents if all(w.search(s) for w in metric) and _NUMBER.search(s)
                ]
                sentence = next(
                    (s for s in stated if name.search(s)), stated[0] if stated else None
                )
            else:
                sentence = next((s for s in sents if name.search(s) and reports_result(s)), None)
            if sentence is not None:
                stating.append((m, sentence))
        n, k = len(matches), len(stating)
        # "25 state their FID on it", "none states a result on it".
        result = f"{'its' if k <= 1 else 'their'} {plan.metric}" if metric else "a result"
        shown = max(1, min(SHOWN, asked_count(question) or SHOWN))
        writes = "paper writes" if n == 1 else "papers write"
        if not stating:
            lead = (
                f"{n} {writes} “{plan.topic}” ({rule}); none states {result} on it in its abstract."
            )
        else:
            lead = (
                f"Of the {n} {'paper that writes' if n == 1 else 'papers that write'} "
                f"“{plan.topic}” ({rule}), {k} {'states' if k == 1 else 'state'} {result} on it "
                "in the abstract. Their settings (models, budgets, splits) differ, so the results "
                "are quoted as written, not ranked"
                + (f"; the {shown} most relevant follow." if k > shown else ":")
            )
        return self._quoted(question, plan, cat, stating, shown, lead, rule)

    def _largest(
        self, question: str, plan: Plan, cat: Catalog, matches: list[Match], rule: str
    ) -> Answer:
        """The topic's papers stating the asked measure ("the largest speedup for LLM
        inference"), each with its sentence, ordered by the largest number it states."""
        measure = _measure(plan.measure)
        valued: list[tuple[float, Match, str]] = []
        for m in matches:
            best: tuple[float, str] | None = None
            for sentence in cat.sentences[m.index]:
                if not measure.word.search(sentence):
                    continue
                value = measure.value(sentence)
                if value is not None and (best is None or value > best[0]):
                    best = (value, sentence)
            if best is not None:
                valued.append((best[0], m, best[1]))
        # Best first; a tie keeps the relevance order.
        valued.sort(key=lambda t: -t[0])
        stating = [(m, sentence) for _v, m, sentence in valued]
        n, k = len(matches), len(stating)
        shown = max(1, min(SHOWN, asked_count(question) or SHOWN))
        on = (
            f"{n} {'paper' if n == 1 else 'papers'} on “{plan.topic}” ({rule})"
            if plan.topic
            # "Which one is faster?" after a comparison or a list: those papers.
            else f"{n} papers of the previous answer"
            if plan.paper_ids
            else f"index's {n} papers ({rule})"
        )
        if not stating:
            lead = f"Of the {on}, none states its {plan.measure} with a number in its abstract."
        else:
            value, top, _s = valued[0]
            lead = (
                f"Of the {on}, {k} {'states its' if k == 1 else 'state their'} {plan.measure} "
                f"with a number in the abstract. The largest stated is {measure.show(value)}, by "
                f"{bold(cat.papers[top.index].title)} [1]. Each paper's own setting (models, "
                "hardware, baselines) differs, so these are claims as written, ordered by their "
                "numbers, not a controlled ranking"
                + (f"; the {shown} largest follow." if k > shown else ":")
            )
        if plan.paper_ids and not plan.topic and 0 < k < n:
            # "Which one is faster?": the compared papers stating none are named.
            stated = {m.index for m, _s in stating}
            silent = [bold(cat.papers[m.index].title) for m in matches if m.index not in stated]
            verb = "states" if len(silent) == 1 else "state"
            lead = lead.rstrip(":") + f" ({' and '.join(silent)} {verb} none):"
        return self._quoted(question, plan, cat, stating, shown, lead, rule)

    def _quoted(
        self,
        question: str,
        plan: Plan,
        cat: Catalog,
        stating: list[tuple[Match, str]],
        shown: int,
        lead: str,
        rule: str,
    ) -> Answer:
        """An answer listing papers each with the sentence that states what was asked."""
        citations = [
            Citation(
                n=i,
                paper_id=cat.papers[m.index].id,
                title=cat.papers[m.index].title,
                url=cat.papers[m.index].url,
                quote=sentence,
            )
            for i, (m, sentence) in enumerate(stating[:shown], start=1)
        ]
        return _list_answer(
            question,
            lead,
            citations,
            refused=not stating,
            sources=[SearchHit(paper=cat.papers[m.index], score=m.score) for m, _s in stating],
            plan=plan,
            papers=[self._paper_match(cat, m) for m, _s in stating],
            count=len(stating),
            rule=rule,
        )

    def _names(
        self,
        question: str,
        plan: Plan,
        cat: Catalog,
        matches: list[Match],
        papers: list[PaperMatch],
        rule: str,
        dropped: str,
    ) -> Answer:
        """The names (datasets, benchmarks, models) the matched papers' abstracts write, by how
        many papers write each; each name with the papers that write it, cited."""
        by_name: dict[str, list[int]] = {}
        forms: dict[str, dict[str, int]] = {}
        spelled: dict[str, int] = {}
        for m in matches:
            # Once per paper however it is written there ("GUI-Agent", "GUI-agent").
            for name in sorted(written_names(cat.papers[m.index], cat.acronyms)):
                key = name.lower()
                if _spelled_out(cat.papers[m.index].abstract, name):
                    spelled[key] = spelled.get(key, 0) + 1
                forms.setdefault(key, {})[name] = forms.get(key, {}).get(name, 0) + 1
                if m.index not in by_name.setdefault(key, []):
                    by_name[key].append(m.index)
        kind = _NAMES_KIND.search(question)
        # "Which benchmarks …?": a model's name (GPT-4o, Qwen2.5-7B) is no benchmark; "Which
        # models …?": a model family's (AlpacaEval is none).
        asked = kind.group(1).lower() if kind else ""
        data, models = asked in ("datasets", "benchmarks"), asked in ("models", "llms")
        # A name two papers spell out ("… Verifiable Reward (RLVR)") is a method's or a
        # field's; one paper defining "MMLU" leaves the benchmark in.
        rows = sorted(
            (
                (k, v)
                for k, v in by_name.items()
                if len(v) >= 2
                and spelled.get(k, 0) < 2
                and k not in _NOT_NAMES
                and not (data and _MODEL_NAME.search(k))
                and not (models and not _MODEL_NAME.search(k))
            ),
            key=lambda kv: (-len(kv[1]), kv[0]),
        )[:TOP_KEYWORDS]
        n = len(papers)
        what = f"papers matching “{plan.topic}”" if plan.topic else "papers"
        lead = (
            f"The names most often written in the abstracts of the {n} {what} ({rule}), by how "
            "many papers write them (each paper's own names left out; the abstracts say "
            f"{'which are ' + kind.group(1).lower() if kind else 'what each is'}):"
        )
        if not rows:
            named = {"datasets": "dataset ", "benchmarks": "benchmark ", "models": "model "}.get(
                asked, "LLM " if models else ""
            )
            lead = (
                f"No {named}name is written in the abstracts of two or more of the {n} {what} "
                f"({rule})."
            )
        if dropped:
            lead = f"No {dropped} match.{decisions_note(plan.filters, cat)} {lead}"
        citations: list[Citation] = []
        counted: list[str] = []
        for key, idx in rows:
            name = max(forms[key].items(), key=lambda kv: kv[1])[0]
            marks = []
            for i in idx[:3]:
                paper = cat.papers[i]
                c = next((c for c in citations if c.paper_id == paper.id), None)
                if c is None:
                    # The sentence writing the name, however this paper spells it.
                    sentences = cat.sentences[i]
                    quote = next((s for s in sentences if key in s.lower()), sentences[0])
                    c = Citation(
                        n=len(citations) + 1,
                        paper_id=paper.id,
                        title=paper.title,
                        url=paper.url,
                        quote=quote,
                    )
                    citations.append(c)
                marks.append(f"[{c.n}]")
            counted.append(f"- {name}: {bold(str(len(idx)))} {''.join(marks)}")
        hits = [
            SearchHit(paper=cat.papers[m.index], score=m.score) for m in matches[: max(SHOWN, 50)]
        ]
        return Answer(
            question=question,
            text="\n".join([lead, "", *counted]),
            refused=not rows,
            citations=citations,
            sentences=[
                AnswerSentence(text=c.quote, citations=[c.n], support=1.0) for c in citations
            ],
            sources=hits,
            plan=plan,
            papers=papers,
            count=0 if dropped else n,
            rule=rule,
        )

    def _breakdown(
        self,
        question: str,
        plan: Plan,
        cat: Catalog,
        matches: list[Match],
        papers: list[PaperMatch],
        rule: str,
        dropped: str,
    ) -> Answer:
        """A count grouped by area, decision or keyword, largest group first (keywords: the
        most common only); or the names the papers' abstracts write."""
        if plan.group_by == "name":
            return self._names(question, plan, cat, matches, papers, rule, dropped)
        field = {"area": "primary area", "decision": "decision", "keyword": "keyword"}[
            plan.group_by or "area"
        ]
        groups: dict[str, int] = {}
        # One keyword is written many ways ("LLMs", "Large Language Model"): counted by its
        # stemmed words, acronyms written out, and shown as most papers write it.
        written: dict[str, dict[str, int]] = {}
        for p in papers:
            if plan.group_by == "keyword":
                values = []
                for k in (k.strip() for k in p.keywords if k.strip()):
                    terms = tuple(cat.terms(k))
                    if len(terms) == 1 and terms[0] in cat.acronyms:
                        terms = cat.acronyms[terms[0]]
                    key = " ".join(terms) or k.lower()
                    forms = written.setdefault(key, {})
                    forms[k] = forms.get(k, 0) + 1
                    values.append(key)
                values = list(dict.fromkeys(values))
            else:
                value = p.primary_area if plan.group_by == "area" else p.decision
                values = [value or f"(no {field})"]
            for value in values:
                groups[value] = groups.get(value, 0) + 1
        n = len(papers)
        what = f"papers matching “{plan.topic}”" if plan.topic else "papers"
        if papers and (not groups or set(groups) == {f"(no {field})"}):
            # "What are the main topics?" over the sample, which records no keywords: said,
            # with the papers themselves instead of an empty count.
            citations = _cite(papers[:SHOWN])
            more = f"; the first {len(citations)} follow" if n > len(citations) else ""
            return _list_answer(
                question,
                f"The index records no {field}s for its {n} {what}, so they cannot be counted "
                f"by {field}{more}:",
                citations,
                plan=plan,
                papers=papers,
                count=n,
                rule=rule,
            )
        lead = f"{n} {what} by {field} ({rule})."
        rows = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
        if plan.group_by == "keyword":
            lead = (
                f"The {min(TOP_KEYWORDS, len(rows))} most common of the {len(rows)} keywords of "
                f"{n} {what} ({rule}):"
            )
            rows = [
                (max(written[k].items(), key=lambda kv: kv[1])[0], c)
                for k, c in rows[:TOP_KEYWORDS]
            ]
        if dropped:
            lead = f"No {dropped} match.{decisions_note(plan.filters, cat)} {lead}"
        # A list, not a Markdown table: area names are long and the chat column is narrow.
        counted = [f"- {value}: {bold(str(count))}" for value, count in rows]
        hits = [
            SearchHit(paper=cat.papers[m.index], score=m.score) for m in matches[: max(SHOWN, 50)]
        ]
        return Answer(
            question=question,
            text="\n".join([lead, "", *counted]),
            refused=n == 0,
            sources=hits,
            plan=plan,
            papers=papers,
            count=0 if dropped else n,
            rule=rule,
        )

    def _paper_match(
        self, cat: Catalog, m: Match, aspect: QuestionType | None = None
    ) -> PaperMatch:
        p = cat.papers[m.index]
        # model_construct: thousands per answer, from already-validated papers.
        return PaperMatch.model_construct(
            paper_id=p.id,
            title=p.title,
            score=m.score,
            quote=_quote(
                cat.sentences[m.index],
                cat.sentence_terms[m.index],
                m.terms,
                p.title,
                rarest=min(m.terms, key=cat.df, default=""),
                aspect=aspect,
            ),
            primary_area=p.primary_area,
            decision=p.decision,
            url=p.url,
            keywords=p.keywords,
        )

    # -- comparisons ---------------------------------------------------------

    def compare(self, question: str, plan: Plan, use_model: bool = False) -> Iterator[str | Answer]:
        """Named papers side by side, each from its own sentences; yields text, then the Answer."""
        cat = self.catalog()
        ambiguous = {
            name: ids
            for name in plan.named
            if len(ids := cat.names.called(name)) > 1
            and not any(p.title == name for p in cat.papers)
        }
        if ambiguous:
            name, ids = next(iter(ambiguous.items()))
            options = "; ".join(f"“{cat.by_id[i].title}” [{i}]" for i in ids[:6])
            text = f"Several papers are called {name}: {options}. Which one do you mean?"
            yield text
            yield Answer(question=question, text=text, plan=plan)
            return
        ids = [i for i in plan.paper_ids if i in cat.by_id]
        note = ""
        if not ids and (sides := compared_sides(question)):
            # "Compare Mamba and Transformers papers on long context": no paper is named, so
            # each side is its own topic, and its best-matching papers stand for it.
            groups = []
            for wordings in sides:
                for side in wordings:  # with the shared context first, then the side alone
                    matches, _ = self.match(side, plan.filters)
                    found = [cat.ids[m.index] for m in matches if cat.ids[m.index] not in ids]
                    if found:
                        break
                groups.append((side, len(ids) + 1, found[:PER_SIDE]))
                ids += found[:PER_SIDE]
            if all(found for _s, _n, found in groups):
                note = (
                    "No paper is named: the papers that best match each side stand for it ("
                    + "; ".join(
                        f"\u201c{side}\u201d: "
                        + ", ".join(f"[{n}]" for n in range(first, first + len(found)))
                        for side, first, found in groups
                    )
                    + ").\n\n"
                )
            else:
                ids = []
        if len(ids) < 2 and plan.topic:
            matches, _ = self.match(plan.topic, plan.filters)
            want = max(2, wanted_count(question)) - len(ids)
            ids += [cat.ids[m.index] for m in matches if cat.ids[m.index] not in ids][:want]
            if plan.paper_ids and len(ids) > len(plan.paper_ids):
                # "Compare DeepSeek-R1 and OpenThoughts": one written name is no paper's.
                note = (
                    f"“{plan.topic}” is the name of no indexed paper; the paper that matches it "
                    "best stands in for it.\n\n"
                )
        if len(ids) < 2:
            missing = [n for n in plan.named if not cat.names.resolve(n)]
            text = "To compare, name two or more papers of the index (titles or method names)" + (
                f"; not found: {', '.join(missing)}." if missing else "."
            )
            yield text
            yield Answer(question=question, text=text, refused=True, plan=plan)
            return
        papers = [cat.by_id[i] for i in ids]
        parts = [_roles(p) for p in papers]
        hits = [SearchHit(paper=p, score=1.0) for p in papers]
        answer: Answer | None = None
        if note:
            yield note
        if use_model and self.writer is not None:
            for piece in self.writer.stream(question, hits):
                if isinstance(piece, Answer):
                    answer = piece
                else:
                    yield piece
        extractive = _compare_text(papers, parts)
        if answer is None or answer.refused:
            answer = Answer(question=question, text=note + extractive[0], sources=hits)
            answer.sentences = extractive[1]
            yield extractive[0]
        else:
            answer.text = note + answer.text
            cited = {c.paper_id for c in answer.citations}
            # Every named paper gets its part, even when the model left one out.
            extra = [
                (n, p, r)
                for n, (p, r) in enumerate(zip(papers, parts, strict=True), 1)
                if p.id not in cited
            ]
            add = "\n".join(_part(n, p, r) for n, p, r in extra)
            if add:
                answer.text += "\n\n" + add
                yield "\n\n" + add
        table = _table(papers, parts)
        answer.text += "\n\n" + table
        yield "\n\n" + table
        have = {c.n for c in answer.citations}
        for n, (p, r) in enumerate(zip(papers, parts, strict=True), 1):
            if n not in have:
                quote = r.get("Method") or next(iter(r.values()), p.abstract[:200])
                answer.citations.append(
                    Citation(n=n, paper_id=p.id, title=p.title, url=p.url, quote=quote)
                )
        answer.citations.sort(key=lambda c: c.n)
        answer.plan = plan
        answer.refused = False
        yield answer


# Names as abstracts write datasets, benchmarks and models: GSM8K, ImageNet, SWE-bench,
# HumanEval, Llama-3, CIFAR-10.
_NAME = re.compile(
    r"(?<![\w-])(?:[A-Z][A-Za-z]*[A-Z0-9][\w.-]*[A-Za-z0-9]|[A-Z][a-z]+[A-Z][\w-]*[A-Za-z0-9]|"
    r"[A-Z][a-z]+-\d[\w.]*[A-Za-z0-9]|[A-Z]{3,})(?![\w-])"
)


# "LLM-based", "GPU", "OpenAI": how abstracts describe things, not datasets or models.
_NOT_A_NAME = re.compile(
    r"^[A-Z]\w*-(?:based|driven|generated|powered|guided|style|level|free|aware|like|specific|"
    r"centric|agnostic|only|wise|tuned|enhanced|assisted|scale|sized|as|in|to)$|"
    r"^(?:APIs?|[CGTN]PUs?|FLOPs|SOTA|OpenAI|Google|Meta|Microsoft|NVIDIA|GitHub|HuggingFace|"
    r"URLs?|JSON|PDFs?)$"
)


def _spelled_out(abstract: str, name: str) -> bool:
    """Whether the abstract writes the name as the acronym of words before it: "Reinforcement
    Learning with Verifiable Reward (RLVR)" is a method's name, not a dataset's."""
    at = max(abstract.find(f"({name})"), abstract.find(f"({name}s)"))
    if at < 0:
        return False
    words = re.findall(r"[\w-]+", abstract[max(0, at - 120) : at])[-8:]
    initials = "".join(
        part[0] for w in words if w.lower() not in SMALL_WORDS for part in w.split("-") if part
    ).lower()
    letters = re.sub(r"[^a-z]", "", name.lower())
    return len(letters) >= 2 and initials.endswith(letters)


def written_names(paper: Paper, acronyms: Mapping[str, object]) -> set[str]:
    """The names a paper's abstract writes that are not its own (the title's, those it
    introduces) nor a field's acronym the collection defines (LLM, RL, GNN)."""
    own = {n.lower() for n in paper_names(paper)}
    found: set[str] = set()
    for m in _NAME.finditer(paper.abstract):
        name = m.group().rstrip(".-")
        key = name.lower()
        bare = key[:-1] if key.endswith("s") else key
        head, _, rest = key.partition("-")
        if (
            # "LLM-as-a-judge", "RL-trained": a field's acronym with words, not SWE-bench.
            (re.fullmatch(r"[a-z-]+", rest) and head.rstrip("s") in acronyms)
            # "README.md": a file.
            or re.search(r"\.[a-z]{1,4}$", name)
        ):
            continue
        if (
            len(name) < 3
            or _NOT_A_NAME.match(name)
            or key in own
            or bare in acronyms
            or key in acronyms
            or re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", paper.title, re.IGNORECASE)
            or introduces(paper.abstract, name)
        ):
            continue
        found.add(name)
    return found


def _cite(papers: Sequence[PaperMatch]) -> list[Citation]:
    """Citations [1], [2] … of matched papers, each with its quote."""
    return [
        Citation(n=n, paper_id=p.paper_id, title=p.title, url=p.url, quote=p.quote)
        for n, p in enumerate(papers, start=1)
    ]


def _list_answer(question: str, lead: str, citations: list[Citation], **fields: Any) -> Answer:
    """A list answer: the lead, then a title and its quote per paper, each verbatim piece of a
    quote a cited sentence; `fields` are the rest of the Answer."""
    lines = [lead]
    sentences = []
    for c in citations:
        lines.append(f"- {bold(c.title)} [{c.n}]: {readable(c.quote)} [{c.n}]")
        sentences.extend(
            AnswerSentence(text=piece, citations=[c.n], support=1.0)
            for piece in c.quote.split(" … ")
        )
    return Answer(
        question=question,
        text="\n".join(lines),
        citations=citations,
        sentences=sentences,
        **fields,
    )


_BY_WHOM = re.compile(
    r"\b(?:published|written|authored|co-authored|submitted)\s+by\b|\bby\s+(?:the\s+)?authors?\b|"
    r"\baffiliat\w*|\b(?:which|what)\s+(?:authors?|labs?|institutions?|universit(?:y|ies)|"
    r"companies|researchers)\b|\bauthors?\s+(?:of|from|at)\b|"
    # "from Stanford authors", "by DeepMind researchers".
    r"\b(?:from|at|by)\s+(?:\w+\s+){0,2}(?:authors?|researchers|labs?|universit(?:y|ies))\b",
    re.IGNORECASE,
)
# Definitions shown for "What is X?": a few say it; the rest are in the results table.
_DEFINITIONS_SHOWN = 3
# What a list answer's quotes are, for a question asking each paper for one kind of sentence.
_ASPECT_SAID = {
    "problem": "a problem or limitation",
    "finding": "a finding",
    "contribution": "its contribution",
}
_RECORDS = "its records have titles, abstracts, keywords, areas, decisions and links"
_NAMES_KIND = re.compile(r"\b(datasets|benchmarks|models|baselines|LLMs)\b", re.IGNORECASE)
# Families of models the abstracts name, and a size suffix ("Dream-7B"): models, not data.
_MODEL_NAME = re.compile(
    r"^(?:gpt|llama|qwen|deepseek|claude|gemini|mistral|mixtral|phi|gemma|dream|llada|vicuna|"
    r"falcon|pythia|olmo|internvl|internlm|kimi|chatglm|glm|o[134]\b|bert|roberta|t5|vit|clip|"
    r"siglip|dino|llava|blip|flux|sdxl|stable[\s-]?diffusion)|[-\s]\d+(?:\.\d+)?[bm]$",
    re.IGNORECASE,
)
# Capitalised words that name a format or a device, not a dataset, benchmark or model.
_NOT_NAMES = frozenset("sql rgb rgb-d api gpu gpus cpu tpu json html pdf url cuda ai".split())
_RANK = {"keyword": 0, "title": 1, "abstract": 2, "words": 3, "close": 4, "loose": 5}


def _surface(variant: tuple[str, ...], part: str, cat: Catalog) -> str:
    """The words a person reads for a variant: as asked, or the acronym in capitals."""
    if tuple(cat.terms(part)) == variant:
        return " ".join(part.split())
    if len(variant) == 1 and variant[0] in cat.acronyms:
        return cat.acronym_form.get(variant[0], variant[0].upper())
    out = []
    for word in part.split():
        stem = cat.terms(word)
        if len(stem) == 1 and stem[0] in cat.acronyms:
            out.append(cat.phrase_text(cat.acronyms[stem[0]]))
        else:
            out.append(word)
    return " ".join(out)


def _quote(
    sents: list[str],
    sent_terms: list[list[str]],
    terms: tuple[str, ...],
    title: str,
    rarest: str,
    aspect: QuestionType | None = None,
) -> str:
    """The abstract's sentence that holds most of the topic's words, its rarest one among them
    (the first such), followed by the sentence saying what the paper does when that one does
    not; else its first sentence that says what the paper does. With an `aspect` asked ("What
    challenges do papers on X address?"), its first sentence of that kind, one writing a topic
    word first."""
    if not sents:
        return title
    if aspect:
        # A problem is stated in the scene-setting sentences; findings and contributions are
        # the paper's own.
        kind = [
            i
            for i, s in enumerate(sents)
            if has_cue(aspect, s)
            # "To address these limitations, we propose LaTo" is the answer to a problem.
            and (not framing(s, i) if aspect != "problem" else not has_cue("contribution", s))
        ]
        if aspect == "problem":
            # The opening sentence states the field's problems ("Modern machine learning
            # problems are …"); the paper's own come after it.
            kind.sort(key=lambda i: i == 0)
        on_topic = [i for i in kind if set(terms) & set(sent_terms[i])]
        if kind:
            return sents[(on_topic or kind)[0]]
    # A paper matched by its title or keywords may hold only part of the topic in its abstract:
    # "material and protein generation" speaks to protein design, "this decoupled design"
    # does not.
    held = [len(set(terms) & set(st)) if rarest in st else 0 for st in sent_terms]
    if max(held, default=0) > 0:
        best = held.index(max(held))
        if has_cue("contribution", sents[best]):
            return sents[best]
        # "Poker provides a rigorous testbed …" says why the paper is on the list, "we propose
        # ToolPoker …" what it is.
        own = next((i for i, s in enumerate(sents) if has_cue("contribution", s)), None)
        if own is None:
            return sents[best]
        return " … ".join(sents[i] for i in sorted({best, own}))
    # "After pre-training on enormous data, the model needs …" sets a scene no cue marks; "we
    # propose …" is what the paper does.
    return next((s for s in sents if has_cue("contribution", s)), None) or next(
        (s for i, s in enumerate(sents) if not framing(s, i)), sents[0]
    )


def _defining(concept: str) -> re.Pattern[str]:
    """A concept written as what a sentence says it is: "Reward hacking, where …", "catastrophic
    forgetting, which …", "X is a …", "X refers to …", "X (Y) occurs when …", "… in so-called
    X"."""
    written = r"[\s-]+".join(re.escape(w) for w in re.split(r"[\s-]+", concept.strip()))
    return re.compile(
        # "representing features non-orthogonally in so-called *superposition*": what it is
        # comes first.
        rf"(?:so[\s-]called|known\s+as|termed|referred\s+to\s+as|dubbed)\s+[*_\"“']*{written}"
        rf"(?![\w-])|"
        rf"(?<![\w-]){written}(?:e?s)?(?:\s*\([^)]{{1,40}}\))?(?:,\s*(?:where|i\.e\.,?|that\s+is,?)\s|"
        r"\s+(?:is|are)\s+(?:an?|the|defined|characteri[sz]ed)\b|\s+refers?\s+to\b|"
        r"\s+occurs?\s+when\b|\s+describes?\b|\s+denotes?\b|\s*[—–]\s|"
        # "… pretrained diffusion models, which unlock …" says what they do here, not what
        # they are: found, but after the forms above.
        r"(?P<weak>,\s*(?:which|in\s+which)\s|\s+(?:is|are)\s+when\b))",
        re.IGNORECASE,
    )


def _expansion(sentence: str, acronym: str) -> int | None:
    """Where the words an acronym stands for start in the sentence ("Group Relative Policy
    Optimization (GRPO)": their initials spell it, small words skipped); None if nowhere."""
    for m in re.finditer(rf"\(\s*{re.escape(acronym)}s?\s*\)", sentence):
        words = list(re.finditer(r"[A-Za-z][A-Za-z0-9]*", sentence[: m.start()]))
        # The word just before "(" spells the last letter: a small word there spells none.
        if not words or words[-1].group().lower() in SMALL_WORDS:
            continue
        tail = acronym_tail([w.group() for w in words], acronym, SMALL_WORDS)
        if tail:
            return words[-len(tail)].start()
    return None


_ACRONYM = re.compile(r"[A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*")


def _roles(paper: Paper) -> dict[str, str]:
    """Problem, method, evaluation and result sentences of an abstract (verbatim)."""
    sents = split_sentences(paper.abstract)
    # Only the problem may be scene-setting: "Recent approaches leverage …" or "However, they
    # often fail …" hold a method's or a result's cue words but say what others did.
    own = [not framing(s, i) for i, s in enumerate(sents)]
    picked: dict[str, str] = {}
    used: set[int] = set()
    for role, cue in _ROLES.items():
        order = range(len(sents)) if role in ("Problem", "Method") else reversed(range(len(sents)))
        for i in order:
            if i not in used and (role == "Problem" or own[i]) and cue.search(sents[i]):
                picked[role] = sents[i]
                used.add(i)
                break
    # Abstracts follow problem → method → results; fill gaps by position.
    fallback = {"Problem": 0, "Method": 1, "Evaluation": len(sents) - 2, "Result": len(sents) - 1}
    for role, i in fallback.items():
        if role not in picked and 0 <= i < len(sents) and i not in used:
            if role == "Problem" or own[i]:
                picked[role] = sents[i]
                used.add(i)
    return {r: picked[r] for r in _ROLES if r in picked}


def _part(n: int, paper: Paper, roles: dict[str, str]) -> str:
    lines = [f"{bold(paper.title)} [{n}]"]
    lines += [f"- {role}: {readable(text)} [{n}]" for role, text in roles.items()]
    return "\n".join(lines)


def _compare_text(
    papers: Sequence[Paper], parts: Sequence[dict[str, str]]
) -> tuple[str, list[AnswerSentence]]:
    lines = [f"Comparing {len(papers)} papers, each from its own abstract:"]
    sentences = []
    for n, (p, r) in enumerate(zip(papers, parts, strict=True), 1):
        lines.append("")
        lines.append(_part(n, p, r))
        sentences += [AnswerSentence(text=t, citations=[n], support=1.0) for t in r.values()]
    return "\n".join(lines), sentences


def _short(text: str, words: int = 22) -> str:
    w = text.replace("|", "/").split()
    return " ".join(w[:words]) + (" …" if len(w) > words else "")


def _table(papers: Sequence[Paper], parts: Sequence[dict[str, str]]) -> str:
    """A markdown table: one column per paper, one row per aspect."""
    head = (
        "| | " + " | ".join(f"{_short(p.title, 8)} [{n}]" for n, p in enumerate(papers, 1)) + " |"
    )
    rule = "|---|" + "---|" * len(papers)
    rows = [head, rule]
    for role in _ROLES:
        cells = [
            f"{_short(readable(r[role]))} [{n}]" if role in r else "—"
            for n, r in enumerate(parts, 1)
        ]
        rows.append(f"| {role} | " + " | ".join(cells) + " |")
    return "\n".join(rows)
