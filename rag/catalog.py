"""The whole collection at a glance: areas, decisions, names and word postings of every paper."""

from __future__ import annotations

import re
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence

from .chunking import split_sentences
from .index import PaperIndex
from .models import Paper
from .names import CAMEL, NameIndex
from .text import content_terms

# "graph neural networks (GNNs)": an acronym the authors define, checked against the initials.
_DEFINED = re.compile(r"\s\(([A-Z][A-Za-z]{1,8}?)s?\)")
_WORD = re.compile(r"[A-Za-z0-9]+")


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


class Catalog:
    """A read-only view of the indexed papers built once per index revision."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.papers = list(papers)
        self.ids = [p.id for p in self.papers]
        self.by_id = {p.id: p for p in self.papers}
        self.decisions = sorted({p.decision for p in self.papers if p.decision})
        self.areas = sorted({p.primary_area for p in self.papers if p.primary_area})
        self.acronym_text: dict[str, str] = {}
        self.expansions: dict[tuple[str, ...], str] = {}
        self.acronyms = self._acronyms()
        # Per paper: stemmed content terms of the title, of each keyword, and of the abstract.
        self.title_terms = [self.terms(p.title) for p in self.papers]
        self.keyword_terms = [[self.terms(k) for k in p.keywords] for p in self.papers]
        self.sentences = [split_sentences(p.abstract) for p in self.papers]
        # Per sentence, so a quote holding the topic's words is found without re-tokenising.
        self.sentence_terms = [[self.terms(s) for s in sents] for sents in self.sentences]
        self.abstract_terms = [[t for s in st for t in s] for st in self.sentence_terms]
        postings: dict[str, set[int]] = defaultdict(set)
        for i in range(len(self.papers)):
            for t in self.title_terms[i]:
                postings[t].add(i)
            for kw in self.keyword_terms[i]:
                for t in kw:
                    postings[t].add(i)
            for t in self.abstract_terms[i]:
                postings[t].add(i)
        self.postings = dict(postings)
        # Camel-case words as written: OverRIDE names one paper although "override" is English.
        camel: Counter[str] = Counter()
        for p in self.papers:
            camel.update(
                {
                    w
                    for w in _WORD.findall(f"{p.title} {p.abstract} {' '.join(p.keywords)}")
                    if CAMEL.search(w)
                }
            )
        self.camel = dict(camel)
        # Paper names and titles: the one name mechanism (rag/names.py), with this catalog's
        # word counts telling "Diffusion" or "RNNs" (the field's words) from "Qronos" (a name).
        self.names = NameIndex(self.papers, self.papers_with)
        self.area_aliases = self._area_aliases()

    def terms(self, text: str) -> list[str]:
        """Stemmed content terms, with plural acronyms made singular ("GNNs" -> gnn)."""
        # The stemmer leaves "gnns" alone (no vowel), so the plural would miss the acronym.
        known = self.acronyms
        return [t[:-1] if t.endswith("s") and t[:-1] in known else t for t in content_terms(text)]

    def __len__(self) -> int:
        return len(self.papers)

    def _acronyms(self) -> dict[str, tuple[str, ...]]:
        """Acronym (stemmed) -> the stemmed phrase the corpus defines it as, most frequent first."""
        seen: dict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
        forms: dict[str, Counter[str]] = defaultdict(Counter)
        for p in self.papers:
            for m in _DEFINED.finditer(p.abstract):
                acronym = m.group(1)
                words = re.findall(
                    r"[A-Za-z][\w-]*", p.abstract[max(0, m.start() - 80) : m.start()]
                )
                words = words[-len(acronym) - 1 :]
                tail = acronym_tail(words, acronym)
                phrase = tuple(content_terms(" ".join(tail)))
                key = content_terms(acronym)
                if phrase and key:
                    seen[key[0]][phrase] += 1
                    self.acronym_text.setdefault(key[0] + "|" + "_".join(phrase), " ".join(tail))
                    forms[key[0]][acronym] += 1
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
        """The primary area a phrase names, if it names one."""
        terms = tuple(content_terms(text))
        if not terms:
            return None
        if terms in self.area_aliases:
            return self.area_aliases[terms]
        if len(terms) == 1 and terms[0] in self.acronyms:
            return self.area_aliases.get(self.acronyms[terms[0]])
        return None

    def papers_with(self, word: str) -> int:
        """How common a word is: the papers holding every one of its stems ("RNNs" -> rnn,
        "KV-Cache" -> kv and cach); a word without content stems ("When") is in every paper."""
        if "-" not in word and CAMEL.search(word):
            # Stems would count the English word inside a coined name ("override").
            return self.camel.get(word, 0)
        terms = self.terms(word)
        if not terms:
            return len(self.papers)
        # All parts, not the commonest: TSD-KD is rare though KD is everywhere.
        sets = sorted((self.postings.get(t, set()) for t in set(terms)), key=len)
        holding = set.intersection(*sets)
        if (version := versioned_pattern(word)) is not None:
            # "GPT-7": its stem "gpt" is in many papers, the name as written in none.
            return sum(1 for i in holding if version.search(self.papers[i].search_text))
        return len(holding)

    def df(self, term: str) -> int:
        """Number of papers whose text holds a stemmed term."""
        return len(self.postings.get(term, ()))


class CatalogCache:
    """The current Catalog of an index, rebuilt when the index revision changes."""

    def __init__(self, index: PaperIndex) -> None:
        self.index = index
        self._catalog: Catalog | None = None
        self._revision: str | None = None
        self._lock = threading.Lock()

    def revision(self) -> str | None:
        """Revision the current catalog was built at."""
        return self._revision

    def __call__(self) -> Catalog:
        papers, revision = self.index.snapshot()
        with self._lock:
            if self._catalog is None or revision != self._revision:
                self._catalog = Catalog(list(papers.values()))
                self._revision = revision
            return self._catalog
