"""Which indexed papers a question names, by title or method name ("What does Qronos do?")."""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Mapping, Sequence

from .models import Paper
from .text import content_terms

# "SHAPO: Sharpness-Aware …" names the method before the colon; "(SHAPO)" in a title too.
_BEFORE_COLON = re.compile(r"^\s*([^:]{2,40}?)\s*:\s")
_IN_PARENS = re.compile(r"\(([A-Za-z][\w\-]{1,20})\)")
_TOKEN = re.compile(r"[A-Za-z0-9][\w\-.]*[A-Za-z0-9]|[A-Za-z0-9]")
_NORM = re.compile(r"[^a-z0-9]+")
# A whole title counts as named only when long enough not to be a common phrase.
_MIN_TITLE_CHARS = 20
# A name shared by more papers than this is a field's word ("LLM"), not a paper's name.
MAX_PAPERS_PER_NAME = 3


def norm_name(text: str) -> str:
    """A name reduced to lower-case letters and digits, for matching names as people type them."""
    return _NORM.sub("", text.lower())


def _name_like(token: str) -> bool:
    """A word that reads as a coined name (Qronos, MCP-SafetyBench, WebDS), not plain English."""
    if len(token) < 3:
        return False
    return token[0].isupper() or any(c.isupper() or c.isdigit() for c in token[1:])


def paper_names(paper: Paper) -> list[str]:
    """The names a paper goes by: its method name (before a colon), acronyms, a one-word title."""
    title = paper.title.rstrip("…").strip()
    names: list[str] = []
    m = _BEFORE_COLON.match(title)
    if m and len(m.group(1).split()) <= 4:
        names.append(m.group(1))
    if not paper.title_is_derived:
        names += _IN_PARENS.findall(title)
    if len(title.split()) <= 3 and not title.endswith("…"):
        names.append(title)
    return [n for n in dict.fromkeys(names) if len(norm_name(n)) >= 3]


class NameIndex:
    """Normalised names and titles of a set of papers, built once per catalog."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        by_name: dict[str, list[str]] = defaultdict(list)
        for p in papers:
            for name in paper_names(p):
                by_name[norm_name(name)].append(p.id)
        self.names = {k: v for k, v in by_name.items() if len(v) <= MAX_PAPERS_PER_NAME}
        self.titles = [
            (" ".join(p.title.lower().split()), p.id)
            for p in papers
            if not p.title_is_derived and len(p.title) >= _MIN_TITLE_CHARS
        ]

    def find(self, question: str) -> list[str]:
        """Ids of the papers the question names, in the order it names them."""
        found: list[tuple[int, str]] = []
        lowered = " ".join(question.lower().split())
        for title, pid in self.titles:
            at = lowered.find(title)
            if at >= 0:
                found.append((at, pid))
        tokens = list(_TOKEN.finditer(question))
        # Longest names first, so "MCP SafetyBench" is not also read as "MCP".
        used: set[int] = set()
        for n in (3, 2, 1):
            for i in range(len(tokens) - n + 1):
                span = range(i, i + n)
                if used & set(span):
                    continue
                words = [t.group() for t in tokens[i : i + n]]
                if not any(_name_like(w) for w in words):
                    continue
                ids = self.names.get(norm_name("".join(words)))
                if ids:
                    used |= set(span)
                    found += [(tokens[i].start(), pid) for pid in ids]
        found.sort()
        return list(dict.fromkeys(pid for _, pid in found))


class NameCache:
    """The NameIndex of an index's current catalog, rebuilt when the catalog changes."""

    def __init__(self) -> None:
        self._catalog: Mapping[str, Paper] | None = None
        self._names = NameIndex([])
        self._lock = threading.Lock()

    def __call__(self, catalog: Mapping[str, Paper]) -> NameIndex:
        # The index hands out a new catalog mapping when it changes: identity tells a new
        # catalog from the cached one without hashing every title.
        with self._lock:
            if catalog is not self._catalog:
                self._names, self._catalog = NameIndex(list(catalog.values())), catalog
            return self._names


def find_named_papers(question: str, catalog: Mapping[str, Paper]) -> list[str]:
    """Ids of the catalog's papers that the question names by title or method name."""
    return NameIndex(list(catalog.values())).find(question)


def name_terms(question: str, catalog: Mapping[str, Paper], ids: Sequence[str]) -> set[str]:
    """Stemmed terms of the named papers' names: the rest of the question is what it asks."""
    terms: set[str] = set()
    for pid in ids:
        for name in paper_names(catalog[pid]):
            terms |= set(content_terms(name))
    return terms
