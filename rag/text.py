"""What a word is: tokens, stopwords and stems, for BM25 and for the overlap scores alike."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Collection, Sequence
from functools import lru_cache
from typing import Any

import Stemmer

# English function words plus the words every question about papers uses, which
# say nothing about which paper answers it.
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up very was we were what when
    where which while who whom why will with would you your yours yourself yourselves
    paper papers work works study studies propose proposes proposed present presents presented
    introduce introduces introduced method methods approach approaches use used uses using show
    shows shown new novel also based via one two any anything tell know give find there's it's
    does did do say says said author authors abstract abstracts article compare compares
    comparing comparison contrast differ differs difference differences describe explain
    main finding findings contribution contributions""".split()
)
# Hyphenated words count as their parts, so "post-training" matches "training".
# "3D generation": a dimension is a word ("3d"), not a number and a letter dropped as short.
_WORD = re.compile(r"\d[dD](?![A-Za-z0-9])|[A-Za-z][A-Za-z0-9]*|\d+(?:\.\d+)?%?")
_SNOWBALL = Stemmer.Stemmer("english")
# A run of ASCII letters and digits: what a name, a citation key or a camel-case word is
# compared by ("MCP-Bench" is "MCP" and "Bench").
ALNUM = re.compile(r"[A-Za-z0-9]+")
# A question's tokens as written, with where they are: numbers (with decimals), words, and the
# comparison signs a filter writes ("rating >= 7", "≥ 7", "7+").
_TOKEN = re.compile(r"\d+(?:\.\d+)?|\w+|[≥>]=?|\+", re.UNICODE)

# A list's numbering: "1", "ii", "a". ENUMERATOR is it in parentheses before an item's words
# ("(ii) we …"); the sentence splitter reads the same numbering standing alone ("1.", "(ii).").
LIST_ITEM = r"(?:\d{1,2}|[ivx]{1,4}|[a-z])"
ENUMERATOR = re.compile(rf"\({LIST_ITEM}\)\s+", re.IGNORECASE)

# British spellings, made American before stemming: Snowball stems "optimising" to "optimis" and
# "optimizing" to "optim", so a question written in British English missed every paper. Both the
# index and the question pass through here, so a rule only has to map the two spellings together.
_BRITISH_SUFFIX = re.compile(r"(?<=[a-z]{3})is(e|es|ed|ing|er|ers|ation|ations|ational)$")
_YSE = re.compile(r"(?<=[a-z]{3})ys(e|es|ed|ing|er|ers)$")
_OUR = re.compile(
    r"^(behavio|colo|favo|flavo|hono|labo|neighbo|rumo|humo|vapo|harbo|savo|endeavo|armo|odo|vigo|"
    r"rigo|tumo|valo)ur"
)
_WHOLE = {
    "centre": "center",
    "centres": "centers",
    "centred": "centered",
    "metre": "meter",
    "metres": "meters",
    "fibre": "fiber",
    "fibres": "fibers",
    "theatre": "theater",
    "licence": "license",
    "defence": "defense",
    "defences": "defenses",
    "offence": "offense",
    "programme": "program",
    "programmes": "programs",
    "grey": "gray",
    "ageing": "aging",
    "judgement": "judgment",
    "judgements": "judgments",
    "artefact": "artifact",
    "artefacts": "artifacts",
    "sceptical": "skeptical",
    "catalogue": "catalog",
    "catalogues": "catalogs",
    "analogue": "analog",
    "analogues": "analogs",
    "dialogue": "dialog",
    "dialogues": "dialogs",
    "monologue": "monolog",
    "travelled": "traveled",
    "travelling": "traveling",
    "fulfil": "fulfill",
    "enrol": "enroll",
    "tonne": "ton",
    "tonnes": "tons",
}


def american(word: str) -> str:
    """A lower-case word in American spelling ("optimising" -> "optimizing")."""
    if word in _WHOLE:
        return _WHOLE[word]
    if word.endswith("wise") or "nois" in word:
        return word  # pairwise, denoising: never -ize
    word = _BRITISH_SUFFIX.sub(r"iz\1", word)
    word = _YSE.sub(r"yz\1", word)
    return _OUR.sub(r"\1r", word)


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _SNOWBALL.stemWord(american(word))


class _Stemmer:
    """Snowball English on American spellings: what bm25s calls to stem each token."""

    def stemWord(self, word: str) -> str:  # noqa: N802 (bm25s looks for this name)
        return _stem(word)

    def stemWords(self, words: list[str]) -> list[str]:  # noqa: N802
        return [_stem(w) for w in words]


# One stemmer for every use: BM25's index and the overlap scores must agree on "train" and
# "training", or a question's terms could match in one and not the other.
STEMMER = _Stemmer()


def words(text: str) -> list[str]:
    """Lower-cased word tokens, numbers included."""
    return [w.lower() for w in _WORD.findall(text)]


def content_terms(text: str) -> list[str]:
    """Stemmed tokens without stopwords: what a sentence is about."""
    out = []
    for w in words(text):
        if w in STOPWORDS or len(w) < 2:
            continue
        out.append(_stem(w))
    return out


def overlap(
    query_terms: set[str], text: str | set[str], weight: Callable[[str], float] | None = None
) -> float:
    """Share of the query's terms (IDF-weighted when weights are given) found in a text or its
    content terms (0..1)."""
    if not query_terms:
        return 0.0
    found = query_terms & (text if isinstance(text, set) else set(content_terms(text)))
    if weight is None:
        return len(found) / len(query_terms)
    total = sum(weight(t) for t in query_terms)
    return sum(weight(t) for t in found) / total if total else 0.0


def bm25_tokens(texts: Sequence[str], ids: bool = True) -> Any:
    """Texts tokenized for the BM25 index: English stopwords out, stemmed with STEMMER.

    BM25 keeps the question words STOPWORDS drops ("method", "model"): its IDF already weighs
    them down, and its scores are what fusion and the scale-set tuning were measured on.
    """
    return bm25s_module().tokenize(
        list(texts), stopwords="en", stemmer=STEMMER, return_ids=ids, show_progress=False
    )


def bm25s_module() -> Any:
    """bm25s, imported without numba: bm25s imports it (~0.4 s) for a retrieval backend
    PaperChat never selects (BM25() scores with numpy by default)."""
    if "bm25s" not in sys.modules and "numba" not in sys.modules:
        sys.modules["numba"] = None  # type: ignore[assignment]  # bm25s: NUMBA_AVAILABLE False
        try:
            import bm25s
        finally:
            # Anything else (umap) imports the real numba when it needs it.
            del sys.modules["numba"]
    import bm25s

    return bm25s


def tokens(text: str) -> list[tuple[str, int, int]]:
    """The text's tokens, lowercased, each with its start and end (for spans of the text)."""
    return [(m.group().lower(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def one_edit(a: str, b: str) -> bool:
    """Whether two different words are one typing slip apart: a letter changed, added or
    dropped, or two neighbours swapped."""
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        swapped = len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]
        return len(diff) == 1 or (swapped and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def slip_of(word: str, vocabulary: Collection[str]) -> bool:
    """Whether the word is one typing slip from a word of the collection."""
    n = len(word)
    return any(abs(len(v) - n) <= 1 and one_edit(word, v) for v in vocabulary)


def whole_word(phrase: str, plural: bool = False, joined: bool = False) -> re.Pattern[str]:
    """A phrase as written, in any case, not inside a longer (or hyphenated) word; `plural`
    also matches it with an "s"; `joined`, its hyphens as written, as spaces or left out
    ("KV-Cache": "KV cache", "KVCache")."""
    written = re.escape(phrase)
    if joined:
        written = r"[-\s]?".join(re.escape(part) for part in phrase.split("-"))
    return re.compile(rf"(?<![\w-]){written}{'s?' if plural else ''}(?![\w-])", re.IGNORECASE)


# Quote marks that open a span, with the mark closing it (the ASCII apostrophe is no quote:
# "what's").
_QUOTES = {
    '"': '"',
    "\u201c": "\u201d",
    "\u00ab": "\u00bb",
    "\u300c": "\u300d",
    "\u300e": "\u300f",
    "\u300a": "\u300b",  # 《…》, the Chinese marks of a title
    "\u2018": "\u2019",
}


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Where the text quotes phrases (the words between the marks): words a user marked as
    one phrase, which no frame word is read from ("co-occur with \u201creward models\u201d")."""
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        close = _QUOTES.get(text[i])
        end = text.find(close, i + 1) if close else -1
        if end > i + 1 and any(ch.isalpha() for ch in text[i + 1 : end]):
            spans.append((i + 1, end))
            i = end
        i += 1
    return spans


def quoted_span(text: str) -> str:
    """The first phrase the text quotes, "" when it quotes none."""
    spans = quoted_spans(text)
    return " ".join(text[spans[0][0] : spans[0][1]].split()) if spans else ""


def unquoted(text: str) -> str:
    """The text with what it quotes blanked, each character kept in place."""
    for a, b in quoted_spans(text):
        text = text[:a] + " " * (b - a) + text[b:]
    return text


def phrase_spans(text: str, phrases: Sequence[str]) -> list[tuple[int, int]]:
    """Where the (lower-case) phrases occur in a text as whole words (case-insensitive), in
    order and not overlapping: the longest phrase wins ("all of them" over "them")."""
    lower = text.lower()
    found: list[tuple[int, int]] = []
    taken = [False] * len(lower)
    for phrase in sorted(phrases, key=len, reverse=True):
        start = 0
        while (i := lower.find(phrase, start)) >= 0:
            end = i + len(phrase)
            start = end
            bounded = (i == 0 or not lower[i - 1].isalnum()) and (
                end == len(lower) or not lower[end].isalnum()
            )
            if bounded and not any(taken[i:end]):
                taken[i:end] = [True] * (end - i)
                found.append((i, end))
    return sorted(found)
