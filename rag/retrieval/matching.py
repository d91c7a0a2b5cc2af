"""Every paper a topic matches: as one phrase, by its related concepts, by its words, or close
in meaning; best first, with the rule in words."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from rag.models import Filters
from rag.protocols import Embedder
from rag.store.catalog import Catalog, versioned_pattern
from rag.store.index import PaperIndex
from rag.text import content_terms

# A paper that uses every word of the topic, though not as one phrase, joins when its closest
# chunk is at least this similar to the topic; one that uses none of them, at the higher bar.
# Both chosen on the tune half of eval/collection.jsonl (eval/README.md).
ALL_TERMS_DENSE = 0.70
DENSE_ONLY = 0.78
# A topic's distinctive words alone stand for it when fewer than this share of the papers
# writing them (with its other words anywhere) write the topic as one phrase; chosen on the
# fit styles of the style report (0.05, 0.1, 0.2: list recall 0.709, 0.714, 0.727 at
# precision 0.837, 0.850, 0.828).
CORE_SHARE = 0.1
# Chunks fetched for the dense side: one Chroma query, not one per paper. On the collection
# set's topics the 300th chunk is at cosine 0.17-0.47, far below both bars above.
DENSE_CHUNKS = 300
# A term in more than this share of the papers says nothing about a topic on its own.
GENERIC = 0.25
# Below this many papers a word's share says little about it (in the 19-paper sample "agents"
# alone would stand for "benchmarks for evaluating LLM agents").
DISTINCTIVE_MIN_PAPERS = 1000


def among(within: Sequence[str]) -> str:
    """'; among the 5 papers of the previous answer' when a follow-up narrows them."""
    return f"; among the {len(within)} papers of the previous answer" if within else ""


def describe_filters(filters: Filters) -> str:
    """Filters in words: 'Oral papers in the reinforcement learning area with keyword X'."""
    bits = []
    if filters.area:
        bits.append(f"in the {filters.area} area")
    if filters.keyword:
        bits.append(f"with the keyword “{filters.keyword}”")
    if filters.title:
        bits.append(f"with “{filters.title}” in the title")
    if filters.min_rating:
        bits.append(f"rated {filters.min_rating:g} or higher")
    head = f"{filters.decision} papers" if filters.decision else "papers"
    return " ".join([head, *bits])


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


_RANK = {"keyword": 0, "title": 1, "abstract": 2, "core": 3, "words": 4, "close": 5, "loose": 6}


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


class TopicMatcher:
    """Matches topics against every paper of the catalog, under filters."""

    def __init__(
        self,
        catalog: Callable[[], Catalog],
        index: PaperIndex,
        embedder: Embedder,
        bm25: Callable[[str], np.ndarray],
        distinctive_min_papers: int = DISTINCTIVE_MIN_PAPERS,
    ) -> None:
        self.catalog = catalog
        self.index = index
        self.embedder = embedder
        self.bm25 = bm25
        self.distinctive_min_papers = distinctive_min_papers

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
                return [Match(int(i), 1.0, "metadata") for i in idx], among(within).lstrip("; ")
            rule = "from the catalog metadata" + (
                f": {describe_filters(filters)}" if filters.active() else ": every paper"
            )
            return [Match(int(i), 1.0, "metadata") for i in idx], rule + among(within)

        # Keyed by the catalog object too: an ingest between two tries gives a new one.
        if scored is not None and (topic, cat) in scored:
            lexical, dense = scored[(topic, cat)]
        else:
            lexical, dense = self.lexical(topic, cat), self.dense(topic, cat)
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
            written: list[tuple[int, str, tuple[str, ...]]] = []
            cored: list[tuple[int, tuple[str, ...]]] = []
            for v in variants:
                core = self._core(v, cat)
                for i in self._with_all(v, cat, allowed):
                    why = self._where(i, v, cat)
                    if why is None and dense[i] >= ALL_TERMS_DENSE:
                        why = "words"
                    if why is not None:
                        written.append((i, why, v))
                    elif core and self._where(i, core, cat):
                        cored.append((i, v))
            # "jailbreaking LLMs": few papers write the phrase, many write "jailbreak" and,
            # elsewhere, "LLMs": the field's common words qualify the topic, not place it. A
            # phrase many of them write ("dataset distillation") is a term and stays one; one
            # none writes is left to the loose match below, which holds these papers too.
            phrased = len({i for i, why, _ in written if why != "words"})
            cores = len({i for i, _ in cored})
            if 0 < phrased < CORE_SHARE * (phrased + cores):
                written += [(i, "core", v) for i, v in cored]
            for i, why, v in written:
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
        return ranked, self._rule(ranked, shown, filters) + among(within)

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
            distinctive = self._core(every, cat)
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

    def lexical(self, text: str, cat: Catalog, leave_out: int | None = None) -> np.ndarray:
        """BM25 score per paper, over the best one's (0 for `leave_out`)."""
        scores = self.bm25(text)
        if scores.shape[0] != len(cat):  # the keyword index is being rebuilt
            scores = np.zeros(len(cat), dtype=np.float32)
        if leave_out is not None:
            scores[leave_out] = 0.0
        top = float(scores.max()) if scores.size else 0.0
        return scores / top if top > 0 else scores

    def dense(self, topic: str, cat: Catalog) -> np.ndarray:
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

    def closest(
        self, text: str, cat: Catalog, filters: Filters, leave_out: int | None = None
    ) -> np.ndarray:
        """Each paper's closeness to a text, by words and embedding alike (-1 for `leave_out`
        and for papers the filters exclude)."""
        combined = 0.5 * self.lexical(text, cat, leave_out) + 0.5 * self.dense(text, cat)
        if leave_out is not None:
            combined[leave_out] = -1.0
        if filters.active():
            allowed = np.array([filters.match(p) for p in cat.papers], dtype=bool)
            combined = np.where(allowed, combined, -1.0)
        return combined

    @staticmethod
    def _with_all(terms: tuple[str, ...], cat: Catalog, allowed: np.ndarray) -> list[int]:
        sets = [cat.postings.get(t, set()) for t in terms]
        if not sets or not all(sets):
            return []
        common = set.intersection(*sorted(sets, key=len))
        return sorted(i for i in common if allowed[i])

    def _core(self, terms: tuple[str, ...], cat: Catalog) -> tuple[str, ...]:
        """The topic's distinctive words when the rest are ones a quarter of a large
        collection uses ("jailbreak" of "jailbreaking LLMs"), in order; () when every word is
        distinctive, none is, or the collection is too small to tell."""
        if len(cat) < self.distinctive_min_papers:
            return ()
        core = tuple(t for t in terms if cat.df(t) <= GENERIC * len(cat))
        return core if 0 < len(core) < len(terms) else ()

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
        core = sum(m.why == "core" for m in ranked)
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
        if core:
            rule += f"; {core} write its rarer words as one phrase and its common ones elsewhere"
        if words:
            rule += (
                f"; {words} use all its words and read close to it (similarity ≥ {ALL_TERMS_DENSE})"
            )
        if close:
            rule += f"; {close} read very close to it (similarity ≥ {DENSE_ONLY})"
        if filters.active():
            rule += f"; only {describe_filters(filters)}"
        return rule

