"""The whole collection at a glance: areas, decisions, names and word postings of every paper."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from rag.cues import Cues, bundled_cues
from rag.models import Paper
from rag.store.chunking import split_sentences
from rag.store.derived import (
    Artifact,
    Current,
    DerivedMissing,
    DerivedStore,
    LazyList,
    Reader,
    Writer,
    in_order,
)
from rag.store.index import PaperIndex
from rag.store.names import CAMEL, NameIndex, abstract_names, capitalised, looks_coined
from rag.text import ALNUM, content_terms, one_edit, whole_word

# "graph neural networks (GNNs)": an acronym the authors define, checked against the initials.
_DEFINED = re.compile(r"\s\(([A-Z][A-Za-z]{1,8}?)s?\)")


# Words an acronym's letters may skip: "Reinforcement Learning from Human Feedback (RLHF)".
SMALL_WORDS = frozenset("from of for and the with in on to by via a an".split())


def acronym_tail(words: list[str], acronym: str, skip: frozenset[str] = frozenset()) -> list[str]:
    """The words before "(GNN)" whose initials spell the acronym, or none; words in `skip`
    give no letter."""
    letters = acronym.lower()
    # "NeRF" is spelled by its capitals: Neural Radiance Fields.
    capitals = "".join(c for c in acronym if c.isupper()).lower()
    for take in range(1, len(words) + 1):
        tail = words[-take:]
        spelling = [w for w in tail if w.lower() not in skip]
        # Hyphenated words give one letter per part ("self-supervised learning" -> SSL).
        parts = [x for w in spelling for x in w.split("-") if x]
        initials = "".join(x[0].lower() for x in parts)
        whole = "".join(w[0].lower() for w in spelling)
        if letters in (initials, whole) or (len(capitals) >= 2 and capitals in (initials, whole)):
            return tail
    return []


def versioned_pattern(text: str) -> re.Pattern[str] | None:
    """A pattern for the versioned names a text writes ("GPT-4", "Qwen2.5", "ResNet-50")
    whose numbers its words drop, matching them and their variants ("GPT-4o", "GPT 4")."""
    names = [
        tok
        for tok in re.findall(r"(?<![\w.-])[A-Za-z][\w.-]*?\d[\w.]*", text)
        if re.sub(r"\D", "", "".join(content_terms(tok))) != re.sub(r"\D", "", tok)
    ]
    if not names:
        return None
    alternatives = "|".join(re.escape(n).replace(r"\-", "[-\\s]?") for n in names)
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?!\d)", re.IGNORECASE)


def paper_row(paper: Paper, cues: Cues) -> dict[str, Any]:
    """What the catalog reads of one paper alone, before any collection-wide step: stems of
    its title, keywords and sentences, acronyms it defines, camel-case and capitalised words
    (as written), coined names.

    Built once per paper and stored with the derived indexes, so adding papers recomputes
    only theirs."""
    sentences = split_sentences(paper.abstract)
    text = f"{paper.title} {paper.abstract} {' '.join(paper.keywords)}"
    return {
        "fingerprint": paper.fingerprint(),
        "title": content_terms(paper.title),
        "keywords": [content_terms(k) for k in paper.keywords],
        "sentences": sentences,
        "sentence_terms": [content_terms(s) for s in sentences],
        "defines": [list(d) for d in _definitions(paper.abstract)],
        "as_written": sorted({w for w in ALNUM.findall(text) if CAMEL.search(w) or capitalised(w)}),
        "coined": abstract_names(paper, cues),
    }


def _definitions(abstract: str) -> Iterator[tuple[str, list[str], str, str]]:
    """(acronym stem, stemmed phrase, phrase as written, acronym as written) per "(GNN)"."""
    for m in _DEFINED.finditer(abstract):
        acronym = m.group(1)
        words = re.findall(r"[A-Za-z][\w-]*", abstract[max(0, m.start() - 80) : m.start()])
        words = words[-len(acronym) - 1 :]
        tail = acronym_tail(words, acronym)
        phrase = content_terms(" ".join(tail))
        key = content_terms(acronym)
        if phrase and key:
            yield key[0], phrase, " ".join(tail), acronym


class Catalog:
    """A read-only view of the indexed papers built once per index revision.

    Built from the papers (and their `paper_row`s when already known, else read with `cues`),
    or restored from the derived store (`catalog_artifact` below, rag/store/derived.py), where the
    per-paper parts are read on first use.
    """

    def __init__(
        self,
        papers: Sequence[Paper],
        rows: Sequence[dict[str, Any]] | None = None,
        cues: Cues | None = None,
    ):
        self.papers: Sequence[Paper] = list(papers)
        if rows is None:
            cues = cues or bundled_cues()
            rows = [paper_row(p, cues) for p in self.papers]
        self.rows: Sequence[dict[str, Any]] = list(rows)
        self.ids = [p.id for p in self.papers]
        self.by_id: Mapping[str, Paper] = {p.id: p for p in self.papers}
        self.decisions = sorted({p.decision for p in self.papers if p.decision})
        self.areas = sorted({p.primary_area for p in self.papers if p.primary_area})
        self.acronym_text: dict[str, str] = {}
        self.expansions: dict[tuple[str, ...], str] = {}
        self.acronyms = self._acronyms()
        self._plural = self._plurals()
        self._per_paper()
        postings: dict[str, set[int]] = defaultdict(set)
        for i in range(len(self.papers)):
            for t in self.title_terms[i]:
                postings[t].add(i)
            for kw in self.keyword_terms[i]:
                for t in kw:
                    postings[t].add(i)
            for t in self.abstract_terms[i]:
                postings[t].add(i)
        self.postings: Mapping[str, set[int]] = dict(postings)
        self._topic_names()
        # Camel-case and capitalised words as written: OverRIDE names one paper although
        # "override" is English, and ECHO one although many papers write "echo".
        as_written: Counter[str] = Counter()
        for row in self.rows:
            as_written.update(row["as_written"])
        self.as_written = dict(as_written)
        # Paper names and titles: the one name mechanism (rag/store/names.py), with this catalog's
        # word counts telling "Diffusion" or "RNNs" (the field's words) from "Qronos" (a name).
        coined = {p.id: row["coined"] for p, row in zip(self.papers, self.rows, strict=True)}
        self.names = NameIndex(self.papers, self.papers_with, coined, written=self.written)
        self.area_aliases = self._area_aliases()

    @classmethod
    def restore(
        cls,
        ids: list[str],
        papers: Sequence[Paper],
        by_id: Mapping[str, Paper],
        rows: Sequence[dict[str, Any]],
        postings: Mapping[str, set[int]],
        state: dict[str, Any],
    ) -> Catalog:
        """A catalog from its stored parts (see CATALOG); rows are read lazily."""
        cat = cls.__new__(cls)
        cat.ids, cat.papers, cat.by_id, cat.rows, cat.postings = ids, papers, by_id, rows, postings
        cat.decisions, cat.areas = state["decisions"], state["areas"]
        cat.acronym_text, cat.acronym_form = state["acronym_text"], state["acronym_form"]
        cat.acronyms = {k: tuple(v) for k, v in state["acronyms"].items()}
        cat.acronyms_of = {tuple(k): v for k, v in state["acronyms_of"]}
        cat.expansions = {tuple(k): v for k, v in state["expansions"]}
        cat.area_aliases = {tuple(k): v for k, v in state["area_aliases"]}
        cat.as_written = state["as_written"]
        cat.named = state["named"]
        cat.named_pairs = {tuple(k): v for k, v in state["named_pairs"]}
        cat.names = NameIndex.restore(state["names"], cat.papers_with, cat.written)
        cat._plural = cat._plurals()
        cat._per_paper()
        return cat

    def state(self) -> dict[str, Any]:
        """The collection-wide parts, JSON-ready (CATALOG stores them)."""
        return {
            "decisions": self.decisions,
            "areas": self.areas,
            "acronym_text": self.acronym_text,
            "acronym_form": self.acronym_form,
            "acronyms": self.acronyms,
            "acronyms_of": [[list(k), v] for k, v in self.acronyms_of.items()],
            "expansions": [[list(k), v] for k, v in self.expansions.items()],
            "area_aliases": [[list(k), v] for k, v in self.area_aliases.items()],
            "as_written": self.as_written,
            "named": self.named,
            "named_pairs": [[list(k), v] for k, v in self.named_pairs.items()],
            "names": self.names.state(),
        }

    def _topic_names(self) -> None:
        """Per stem and per adjacent stem pair, the papers naming it in their title or a
        keyword: how the collection names its topics (`keyness`)."""
        named: Counter[str] = Counter()
        pairs: Counter[tuple[str, str]] = Counter()
        for title, keywords in zip(self.title_terms, self.keyword_terms, strict=True):
            said = [title, *keywords]
            named.update({t for terms in said for t in terms})
            pairs.update({p for terms in said for p in zip(terms, terms[1:], strict=False)})
        self.named: dict[str, int] = dict(named)
        # Pairs one paper names are chance; the reader asks for two or more anyway.
        self.named_pairs: dict[tuple[str, str], int] = {p: n for p, n in pairs.items() if n > 1}

    def keyness(self, term: str) -> float:
        """The share of the papers writing a stem that name it in their title or a keyword:
        "quantiz" names topics, "concern" and "roughli" only get written (0 when unwritten)."""
        df = self.df(term)
        return self.named.get(term, 0) / df if df else 0.0

    def _plurals(self) -> dict[str, str]:
        """Plural acronym stems made singular ("gnns" -> gnn): the one collection-wide step
        between a paper's own stems and the catalog's."""
        return {a + "s": a for a in self.acronyms}

    def _fix(self, terms: list[str]) -> list[str]:
        plural = self._plural
        return [plural.get(t, t) for t in terms]

    def _per_paper(self) -> None:
        """Per paper: stemmed content terms of the title, of each keyword, of each sentence
        and of the abstract, read from its row on first use."""
        fix = self._fix
        self.title_terms: Sequence[list[str]] = LazyList(self.rows, lambda r: fix(r["title"]))
        self.keyword_terms: Sequence[list[list[str]]] = LazyList(
            self.rows, lambda r: [fix(k) for k in r["keywords"]]
        )
        self.sentences: Sequence[list[str]] = LazyList(self.rows, lambda r: r["sentences"])
        # Per sentence, so a quote holding the topic's words is found without re-tokenising.
        self.sentence_terms: Sequence[list[list[str]]] = LazyList(
            self.rows, lambda r: [fix(st) for st in r["sentence_terms"]]
        )
        self.abstract_terms: Sequence[list[str]] = LazyList(
            self.rows, lambda r: [t for st in r["sentence_terms"] for t in fix(st)]
        )

    def terms(self, text: str) -> list[str]:
        """Stemmed content terms, with plural acronyms made singular ("GNNs" -> gnn)."""
        # The stemmer leaves "gnns" alone (no vowel), so the plural would miss the acronym.
        return self._fix(content_terms(text))

    def __len__(self) -> int:
        return len(self.papers)

    def _acronyms(self) -> dict[str, tuple[str, ...]]:
        """Acronym (stemmed) -> the stemmed phrase the corpus defines it as, most frequent first."""
        seen: dict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
        forms: dict[str, Counter[str]] = defaultdict(Counter)
        for row in self.rows:
            for key, terms, text, acronym in row["defines"]:
                phrase = tuple(terms)
                seen[key][phrase] += 1
                self.acronym_text.setdefault(key + "|" + "_".join(phrase), text)
                forms[key][acronym] += 1
        # Each acronym as the abstracts write it most often ("ViGen", "GNN").
        self.acronym_form = {k: c.most_common(1)[0][0] for k, c in forms.items()}
        out = {}
        self.acronyms_of: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for acronym, counts in seen.items():
            phrase, n = counts.most_common(1)[0]
            out[acronym] = phrase
            self.acronyms_of[phrase].append(acronym)
            # Writing a phrase as its acronym is safe only when the acronym means little else:
            # "DM" stands for several things, "GNN" for one.
            if len(acronym) >= 3 and n >= 0.8 * sum(counts.values()):
                self.expansions.setdefault(phrase, acronym)
        return out

    def phrase_text(self, terms: tuple[str, ...]) -> str:
        """A stemmed phrase as an abstract writes it (for people), else the stems."""
        for key, text in self.acronym_text.items():
            if key.split("|", 1)[1] == "_".join(terms):
                return text.lower()
        return " ".join(terms)

    def _area_aliases(self) -> dict[tuple[str, ...], str]:
        """Stemmed names people use for each primary area: the whole name, its parts, acronyms."""
        aliases: dict[tuple[str, ...], str] = {}
        for area in self.areas:
            aliases[tuple(content_terms(area))] = area
            for part in re.split(r",|\(|\)|;|\bincluding\b|\band\b|\betc\b", area):
                terms = tuple(content_terms(part))
                if terms:
                    aliases.setdefault(terms, area)
                    for acronym in self.acronyms_of.get(terms, ()):
                        aliases.setdefault((acronym,), area)
        return aliases

    def area_named(self, text: str) -> str | None:
        """The primary area a phrase names, if it names one; a word of five letters or more
        may hold one typing slip of an area's word ("learning theroy")."""
        terms = tuple(content_terms(text))
        if not terms:
            return None
        if terms in self.area_aliases:
            return self.area_aliases[terms]
        if len(terms) == 1 and terms[0] in self.acronyms:
            return self.area_aliases.get(self.acronyms[terms[0]])
        written = {w for area in self.areas for w in ALNUM.findall(area.lower())}
        fixed = [
            next((v for v in sorted(written) if len(w) >= 5 and one_edit(w, v)), w)
            if w not in written
            else w
            for w in ALNUM.findall(text.lower())
        ]
        respelt = tuple(content_terms(" ".join(fixed)))
        return self.area_aliases.get(respelt) if respelt != terms else None

    def written(self, word: str) -> int:
        """How many papers write a camel-case or capitalised word exactly as given ("ECHO")."""
        return self.as_written.get(word, 0)

    def papers_with(self, word: str) -> int:
        """How common a word is: the papers holding every one of its stems ("RNNs" -> rnn,
        "KV-Cache" -> kv and cach); a word without content stems ("When") is in every paper."""
        if "-" not in word and CAMEL.search(word):
            # Stems would count the English word inside a coined name ("override").
            return self.written(word)
        terms = self.terms(word)
        if not terms:
            return len(self.papers)
        # All parts, not the commonest: TSD-KD is rare though KD is everywhere.
        sets = sorted((self.postings.get(t, set()) for t in set(terms)), key=len)
        holding = set.intersection(*sets)
        if (version := versioned_pattern(word)) is not None:
            # "GPT-7": its stem "gpt" is in many papers, the name as written in none.
            return sum(1 for i in holding if version.search(self.papers[i].search_text))
        if "-" in word and looks_coined(word):
            # "OF-Diff", "Agent-X": "diff" and "agent" are in hundreds of papers, the name
            # as written (with a hyphen, a space or neither: "KV cache") in one.
            written = whole_word(word, joined=True)
            return sum(1 for i in holding if written.search(self.papers[i].search_text))
        return len(holding)

    def df(self, term: str) -> int:
        """Number of papers whose text holds a stemmed term."""
        return len(self.postings.get(term, ()))


class Postings(Mapping[str, set[int]]):
    """Term -> positions of the papers using it, from memory-mapped CSR arrays."""

    def __init__(self, vocab: list[str], indptr: np.ndarray, indices: np.ndarray) -> None:
        self._row = {t: i for i, t in enumerate(vocab)}
        self._indptr, self._indices = indptr, indices
        self._sets: dict[str, set[int]] = {}

    def __getitem__(self, term: str) -> set[int]:
        got = self._sets.get(term)
        if got is None:
            r = self._row[term]
            # Ascending, as the catalog added them: the set iterates as the built one does.
            got = self._sets[term] = set(
                self._indices[self._indptr[r] : self._indptr[r + 1]].tolist()
            )
        return got

    def __iter__(self) -> Iterator[str]:
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._row)


def _build_catalog(papers: Mapping[str, Paper], previous: Catalog | None, cues: Cues) -> Catalog:
    """The catalog; a paper unchanged since `previous` keeps its row (no re-tokenising)."""
    ordered = list(in_order(papers))
    old: dict[str, dict[str, Any]] = {}
    if previous is not None:
        old = dict(zip(previous.ids, previous.rows, strict=True))
    rows = []
    for p in ordered:
        row = old.get(p.id)
        fresh = row and row["fingerprint"] == p.fingerprint()
        rows.append(row if fresh else paper_row(p, cues))
    return Catalog(ordered, rows)


def _save_catalog(cat: Catalog, out: Writer) -> None:
    out.json("ids", cat.ids)
    out.json("state", cat.state())
    out.rows("rows", (json.dumps(r, ensure_ascii=False) for r in cat.rows))
    vocab = list(cat.postings)
    lengths = [len(cat.postings[t]) for t in vocab]
    indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.fromiter(
        (i for t in vocab for i in sorted(cat.postings[t])), dtype=np.int32, count=int(indptr[-1])
    )
    out.json("vocab", vocab)
    out.array("indptr", indptr)
    out.array("indices", indices)


def _load_catalog(src: Reader, papers: Mapping[str, Paper]) -> Catalog:
    ids = src.json("ids")
    rows = src.rows("rows")
    if len(rows) != len(ids):
        raise DerivedMissing("catalog: rows and ids differ in length")
    if papers and list(papers) != ids:
        raise DerivedMissing("catalog: built from other papers")
    # Without papers (a previous revision, read for its rows) the records are not readable.
    ordered = in_order(papers) if papers else LazyList(ids, _no_paper)
    postings = Postings(src.json("vocab"), src.array("indptr"), src.array("indices"))
    return Catalog.restore(ids, ordered, papers, rows, postings, src.json("state"))


def _no_paper(pid: str) -> Paper:
    raise KeyError(f"paper {pid} is not in this revision")


def catalog_artifact(cues: Cues) -> Artifact[Catalog]:
    """The catalog as a derived index, its papers' names read with these cues."""

    def build(papers: Mapping[str, Paper], previous: Catalog | None) -> Catalog:
        return _build_catalog(papers, previous, cues)

    # Version 2: a hyphenated name is counted as written (papers_with), so names change.
    # Version 3: capitalised words are counted as written too (Catalog.written).
    # Version 4: the rows' and state's "camel" is named "as_written".
    return Artifact("catalog", build, _save_catalog, _load_catalog, version=4)


class CatalogCache:
    """The current Catalog of an index: stored with the derived indexes, rebuilt when the
    index revision changes."""

    def __init__(self, index: PaperIndex, cues: Cues, store: DerivedStore | None = None) -> None:
        self.index = index
        self._current = Current(catalog_artifact(cues), store)

    def revision(self) -> str | None:
        """Revision the current catalog was built at."""
        return self._current.revision

    def __call__(self) -> Catalog:
        papers, revision = self.index.snapshot()
        return self._current.get(papers, revision)
