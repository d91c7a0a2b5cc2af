"""Which indexed papers a question names, by title or method name ("What does Qronos do?").

One mechanism for the whole pipeline: the planner reads a question's named papers through
`NameIndex` (the catalog holds one per index revision), comparisons resolve and disambiguate
names through it, and the extractive answerer reads the named papers' name terms from it.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rag.cues import Cues, bundled_cues
from rag.models import Paper
from rag.store.titles import introduced_names, long_form
from rag.text import ALNUM, content_terms

# "SHAPO: Sharpness-Aware …" names the method before the colon; "(SHAPO)" in a title too.
_BEFORE_COLON = re.compile(r"^\s*([^:]{2,40}?)\s*:\s")
_IN_PARENS = re.compile(r"\(([A-Za-z][\w\-]{1,20})\)")
_TOKEN = re.compile(r"[A-Za-z0-9][\w\-.]*[A-Za-z0-9]|[A-Za-z0-9]")
_JOINED = re.compile(
    r"-(?:style|like|based|type|inspired|free|aware|guided|driven|specific|level|sized|only|"
    r"enabled|powered|esque|centric|oriented|compatible|class)$"
)
# A whole title counts as named only when long enough not to be a common phrase.
_MIN_TITLE_CHARS = 20
# A name shared by more papers than this is a field's word ("LLM"), not a paper's name.
MAX_PAPERS_PER_NAME = 3
# A capitalised word found in this many papers' text is English ("Diffusion models?"), not a name.
_COMMON_DF = 15
# An abstract's coined word: CamelCase (FRABench), capitals (SSPO), digits (GPT4), capitalised
# hyphen parts (MCP-SafetyBench).
# Capitals running into a lower-case word part count too (FRABench, UFEval), but not an
# acronym's plural (LLMs, GNNs).
CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]{2}")
_CAPS = re.compile(r"[A-Z][A-Z0-9]{2,}s?")
# Hyphen-joined parts: capitalised (MCP-SafetyBench) or an acronym joined to a word (SWE-smith).
_JOINED_PARTS = re.compile(r"[A-Z0-9][\w]*(?:-[A-Z0-9][\w]*)+|[A-Z]{2,}[0-9]*-[a-z]{2,}")
# Title words an acronym may skip: "Learning with Limited Feedback" is LLF.
_SKIPPABLE = frozenset("a an and by for from in of on the to via with".split())
# Fuzzy comparison names ("GraphScult") must be this close to a known name.
_FUZZY_CUTOFF = 0.85


def norm_name(text: str) -> str:
    """A name reduced to lower-case letters and digits, for matching names as people type them."""
    return "".join(ALNUM.findall(text.lower()))


def capitalised(word: str) -> bool:
    """A word written in capitals ("ECHO", "COCO"): counted as written, since "echo" in small
    letters is another word."""
    return len(word) >= 3 and word.isupper()


def _coined(token: str) -> bool:
    """Capitals or digits inside a word: WebDS, FRABench, GPT4 (not a sentence's first word)."""
    return any(c.isupper() or c.isdigit() for c in token[1:])


def paper_names(paper: Paper) -> list[str]:
    """The names a paper goes by: its method name (before a colon, and each of "A and B"),
    acronyms in its title, a title of up to three words."""
    title = paper.title.rstrip("…").strip()
    names: list[str] = []
    m = _BEFORE_COLON.match(title)
    if m and len(m.group(1).split()) <= 4:
        names.append(m.group(1))
        names += re.split(r"\s+and\s+|\s*&\s*", m.group(1))
    if not paper.title_is_derived:
        names += _IN_PARENS.findall(title)
    if len(title.split()) <= 3 and not title.endswith("…"):
        names.append(title)
    return [n for n in dict.fromkeys(names) if len(norm_name(n)) >= 3]


def looks_coined(name: str) -> bool:
    """One word that reads as invented: FRABench, SSPO, GPT4, ULTRA-360, MCP-SafetyBench."""
    if " " in name or len(norm_name(name)) < 3:
        return False
    return bool(
        CAMEL.search(name)
        or _CAPS.fullmatch(name.replace("-", ""))
        or (any(c.isdigit() for c in name) and any(c.isalpha() for c in name))
        or _JOINED_PARTS.fullmatch(name)
    )


def _spells(acronym: str, words: Sequence[str]) -> bool:
    """Whether the acronym's letters are the initials of the first words (skipping "of").

    Only the leading words: the title's own subject is the paper's; "GNN" spelled by
    "Pruning Graph Neural Networks" is the field the paper works in."""
    letters = acronym.rstrip("s").lower()
    i = 0
    for word in words:
        if i == len(letters):
            break
        if word[:1].lower() == letters[i]:
            i += 1
        elif i == 0 or word.lower() not in _SKIPPABLE:
            return False
    return i == len(letters)


def abstract_names(paper: Paper, cues: Cues) -> list[str]:
    """Names only the abstract gives: the words it coins for the contribution ("we propose
    FRABench", "called X", "(X)" after its spelled-out phrase), and an acronym of the title's
    words that the abstract writes ("Semi-Supervised Preference Optimization with …" -> SSPO)."""
    coined = [n for n in introduced_names(paper.abstract, cues) if looks_coined(n)]
    if not paper.title_is_derived:
        words = [w for w in re.split(r"[\s\-–—/:]+", paper.title) if w[:1].isalnum()]
        coined += [a for a in _CAPS.findall(paper.abstract) if _spells(a, words)]
    return list(dict.fromkeys(coined))


def spelled_out(abstract: str, acronym: str) -> str:
    """The words an abstract spells an acronym out with: "Event-Aware World Model (EAWM)"."""
    for m in re.finditer(rf"\(\s*{re.escape(acronym)}\s*\)", abstract):
        phrase = re.split(r"[()\[\].,;:!?]", abstract[max(0, m.start() - 120) : m.start()])[-1]
        if found := long_form(acronym, phrase.strip()):
            return found
    return ""


@dataclass(frozen=True)
class Mention:
    """A paper name or title written in a question, and the papers it names."""

    text: str
    start: int
    ids: tuple[str, ...]


class NameIndex:
    """Normalised names and titles of a set of papers, built once per catalog.

    `frequency` (how many papers' text holds a word) tells a capitalised English or field
    word from a name; without it any capitalised content word may be a name. `written` counts
    the papers writing a word in capitals exactly so: "ECHO" names a benchmark though many
    papers write "echo", and "COCO" is the dataset dozens of papers write, no paper's name.
    `coined` holds each paper's abstract_names when the caller has them; else `cues` reads them.
    """

    def __init__(
        self,
        papers: Sequence[Paper],
        frequency: Callable[[str], int] | None = None,
        coined: Mapping[str, list[str]] | None = None,
        cues: Cues | None = None,
        written: Callable[[str], int] | None = None,
    ) -> None:
        if coined is None:
            cues = cues or bundled_cues()
            coined = {p.id: abstract_names(p, cues) for p in papers}
        self._frequency, self._written = frequency, written
        by_name: dict[str, list[str]] = defaultdict(list)
        own: dict[str, list[str]] = {}
        by_title: set[tuple[str, str]] = set()
        for p in papers:
            # Not every coined word of a title: "… Improving MeanFlow Models" or "… in RKHS"
            # mention another method or the field's notation, not this paper's name.
            # A word an abstract coins names the paper only when hardly another paper writes
            # it: "an LLM (large language model) agent" or "a POMDP" coin nothing.
            made = coined[p.id]
            rare = [n for n in made if self._rare(n, MAX_PAPERS_PER_NAME + 1)]
            # The coined acronym's spelled-out form names the paper too: "On which benchmarks
            # is the Event-Aware World Model evaluated?" names EAWM's paper.
            spelled = [s for n in rare if len((s := spelled_out(p.abstract, n)).split()) > 1]
            titled = paper_names(p)
            own[p.id] = titled + rare + spelled
            for name in own[p.id]:
                key = norm_name(name)
                if len(key) >= 3 and p.id not in by_name[key]:
                    by_name[key].append(p.id)
                    if name in titled:
                        by_title.add((key, p.id))
        # "SAGE" names "SAGE: Spatial-visual …" before the paper whose abstract coins a
        # module SAGE: the paper a title names comes first.
        self.names = {
            k: sorted(v, key=lambda pid, k=k: (k, pid) not in by_title)
            for k, v in by_name.items()
            if len(v) <= MAX_PAPERS_PER_NAME
        }
        self._own = own
        self.titles = [
            (" ".join(p.title.lower().split()), p.id)
            for p in papers
            if not p.title_is_derived and len(p.title) >= _MIN_TITLE_CHARS
        ]

    @classmethod
    def restore(
        cls,
        state: dict[str, Any],
        frequency: Callable[[str], int] | None = None,
        written: Callable[[str], int] | None = None,
    ) -> NameIndex:
        """A name index from `state()` (stored with the derived indexes)."""
        index = cls.__new__(cls)
        index._frequency, index._written = frequency, written
        index.names = state["names"]
        index._own = state["own"]
        index.titles = [(title, pid) for title, pid in state["titles"]]
        return index

    def state(self) -> dict[str, Any]:
        """Names, each paper's own names and the titles, JSON-ready."""
        return {"names": self.names, "own": self._own, "titles": self.titles}

    def _rare(self, word: str, limit: int = _COMMON_DF) -> bool:
        """Fewer than `limit` papers' text holds the word (a word in capitals: as written, when
        that is a third of its count or less); a function word ("When", "With") is never rare."""
        if self._frequency is None:
            return bool(content_terms(word))
        count = self._frequency(word)
        if self._written is not None and capitalised(word):
            # Counted as written where the word in small letters is what makes it common:
            # "echo" is in nine papers, "ECHO" in three; "DRO" is "DRO" wherever it is.
            written = self._written(word)
            count = written if 3 * written <= count else count
        return count < limit

    def _name_like(self, token: str) -> bool:
        """A word that reads as a name (Qronos, FRABench, GUIDE, MCP-SafetyBench), not English:
        "Diffusion" opening a question or "LLMs" is the field's word, not a paper's name."""
        if len(token) < 3:
            return False
        if capitalised(token):
            # "ECHO", written so by three papers, may name one; "COCO", by dozens, is a dataset.
            return self._written is None or self._rare(token)
        if _coined(token):
            return "-" in token or self._rare(token)
        return token[0].isupper() and self._rare(token)

    def _lowered_name(self, token: str) -> bool:
        """A coined name typed in small letters ("visiomath" for VisioMath, "prism-physics"):
        at least five letters, hardly another paper writing it; not a name that is an English
        word ("rescue" for the paper called Rescue)."""
        key = norm_name(token)
        if self._frequency is None or len(key) < 5 or key not in self.names:
            return False
        written = (n for pid in self.names[key] for n in self._own.get(pid, ()))
        coined = any(norm_name(n) == key and looks_coined(n) for n in written)
        return coined and self._frequency(token) <= MAX_PAPERS_PER_NAME

    def mentions(self, question: str, fuzzy: bool = False) -> list[Mention]:
        """Names and whole titles the question writes, in the order it writes them.

        `fuzzy` also reads a misspelt name ("GraphScult") as the closest known one: for
        comparisons, where every word that looks like a name is meant as one.
        """
        found: list[Mention] = []
        tokens = list(_TOKEN.finditer(question))
        used: set[int] = set()
        lowered = question.lower()
        squeezed = " ".join(lowered.split())
        for title, pid in self.titles:
            # A substring test first: a regex per title would cost thousands per question.
            if title not in squeezed:
                continue
            m = re.search(r"\s+".join(map(re.escape, title.split())), lowered)
            if m:
                found.append(Mention(question[m.start() : m.end()], m.start(), (pid,)))
                # Words of a written title are not also names of other papers.
                used |= {i for i, t in enumerate(tokens) if m.start() <= t.start() < m.end()}
        # Longest names first, so "MCP SafetyBench" is not also read as "MCP".
        for n in (5, 4, 3, 2, 1):
            for i in range(len(tokens) - n + 1):
                span = set(range(i, i + n))
                if used & span:
                    continue
                words = [t.group() for t in tokens[i : i + n]]
                if n == 1 and not (self._name_like(words[0]) or self._lowered_name(words[0])):
                    continue
                # "time series" in a sentence is a topic, "Time Series Hub" a name.
                if n > 1 and not any(w[0].isupper() or _coined(w) for w in words):
                    continue
                ids = self.names.get(norm_name("".join(words)))
                if ids:
                    used |= span
                    text = question[tokens[i].start() : tokens[i + n - 1].end()]
                    found.append(Mention(text, tokens[i].start(), tuple(ids)))
        if fuzzy:
            for i, t in enumerate(tokens):
                if i in used or not self._name_like(t.group()):
                    continue
                # A word the papers write ("GANs", "DPO") means itself: only a word no paper
                # writes can be a misspelt name ("GraphScult").
                if self._frequency is not None and self._frequency(t.group()) > 0:
                    continue
                if close := self._closest(t.group()):
                    found.append(Mention(t.group(), t.start(), tuple(close)))
        return sorted(found, key=lambda m: m.start)

    def unknown(self, question: str) -> list[str]:
        """Coined words of the question no indexed paper writes ("FooBarNet", "HyperZetaFormer")."""
        if self._frequency is None:
            return []
        # "FlashAttention-style", "GPT-4o-based": the name is the part before the word the
        # question joined to it ("SWE-smith" is one name).
        heads = (_JOINED.sub("", t) for t in _TOKEN.findall(question))
        return [
            t
            for t in dict.fromkeys(heads)
            if len(t) >= 4
            and looks_coined(t)
            and norm_name(t) not in self.names
            and self._frequency(t) == 0
        ]

    def find(self, question: str, fuzzy: bool = False) -> list[str]:
        """Ids of the papers the question names, in the order it names them."""
        return list(dict.fromkeys(pid for m in self.mentions(question, fuzzy) for pid in m.ids))

    def called(self, name: str) -> list[str]:
        """Papers that go by exactly this name (several: the name is ambiguous)."""
        return list(self.names.get(norm_name(name), []))

    def own(self, paper_id: str) -> list[str]:
        """The names a paper goes by: its title's, the rare words its abstract coins, and their
        spelled-out forms."""
        return list(self._own.get(paper_id, ()))

    def terms(self, ids: Sequence[str]) -> set[str]:
        """Stemmed terms of these papers' names: the rest of a question naming them is what
        it asks."""
        return {t for pid in ids for name in self.own(pid) for t in content_terms(name)}

    def resolve(self, name: str) -> list[str]:
        """Papers a name or whole title refers to: exact title, exact name, else the closest."""
        key = " ".join(name.lower().split())
        full = [pid for title, pid in self.titles if title == key]
        return full or self.called(name) or self._closest(name)

    def _closest(self, name: str) -> list[str]:
        """Papers of the known name closest to a misspelt one ("GraphScult"), if any is close."""
        close = difflib.get_close_matches(
            norm_name(name), list(self.names), n=1, cutoff=_FUZZY_CUTOFF
        )
        return list(self.names[close[0]]) if close else []


_INTRODUCING = re.compile(
    r"\b(?:propose|introduce|present|develop|design|release|call|name|dub|term)(?:s|d|ed|bed)?\b",
    re.IGNORECASE,
)


def coined_words(question: str) -> list[str]:
    """The words of a question that read as coined names ("UTRL", "VidGuard-R2"), each once."""
    written = re.findall(r"[A-Za-z][\w.-]*\w", question)
    return [w for w in dict.fromkeys(written) if looks_coined(w)]


def names_introduced(coined: Sequence[str], abstract: str) -> list[str]:
    """Of a question's coined words, the names the abstract introduces ("UTRL" in "What reward
    does the code generator in UTRL maximize?")."""
    return [w for w in coined if introduces(abstract, w)]


def introduces(abstract: str, name: str) -> bool:
    """Whether the abstract introduces the name as its own: "we propose FooNet, a …", "…
    (FooNet)", "called FooNet"; not "an adversarial LoRA module", "Contraction-Aware PPO"."""
    for verb in _INTRODUCING.finditer(abstract):
        window = abstract[verb.end() : verb.end() + 120]
        for hit in re.finditer(rf"(?<![\w-]){re.escape(name)}(?![\w-])", window):
            # Emphasis around the name: "**FooNet**", "\textbf{FooNet}".
            before = re.sub(r"\\[a-zA-Z]+\{$", "", window[: hit.start()].rstrip("*_ ")).rstrip(
                "*_ "
            )
            after = window[hit.end() :].lstrip("*_}")
            # The first name after the verb: "we propose FooPO, a variant of GRPO" is FooPO's.
            named_alone = before.endswith("(") or not re.search(
                r"[A-Z][\w-]*$|[,;]|\b[A-Z][\w-]*[A-Z0-9]", before
            )
            ends = re.match(
                r"\)|\s*[,.;:(]|\s+(?:a|an|which|that|to|for|as|with|benchmark|dataset|suite|"
                r"corpus)\b|$",
                after,
            )
            if named_alone and ends:
                return True
    return False
