"""Whether a collection lacks a question's topic: a topic word no paper (or fewer than k) writes.

In a conference's thousands of abstracts a topic word none of them writes ("sourdough",
"saxophone") says the topic is absent, however close the nearest papers' other words come. A
word one typing slip away from a word the collection writes ("diffuson") is a slip, not a new
topic. `min_papers` (k) was fitted on the fit half of eval/offtopic.jsonl (eval/offtopic.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag.answers.refusal import UNUSED_MIN_PAPERS
from rag.store.embeddings import BUNDLED_TOKENIZER
from rag.text import STOPWORDS, content_terms, one_edit, phrase_spans, slip_of, words

# Fitted on eval/offtopic.jsonl's fit half at 4,303 papers (`python -m eval.offtopic --fit`):
# a topic word fewer than this many papers write makes the topic absent.
MIN_PAPERS = 1

# A question with a word no paper writes is still answered when retrieval is this sure of it
# (P(answerable) of rag/answers/refusal.py at or above it): the word decorates a question the papers
# answer ("… a grid of reference points, quietly?"). Fitted (`python -m eval.offtopic --fit`)
# midway between the fit half's most confident off-topic question (0.556) and the next
# answerable labelled question of the fit styles with an unwritten word (0.596).
MAX_CONFIDENCE = 0.58

# The unwritten words must be at least this share of the text's topic words: one rare word in
# a long description the papers otherwise write ("Born-machine-style density models built
# from matrix-product states …") is the asker's own word for something they do describe. Set
# below the smallest share among the off-topic questions of eval/offtopic.jsonl's fit half
# (0.17: "ship hull design for reducing drag", one word of six).
MIN_SHARE = 0.15

# A typing slip is only told from a new word for words this long: short words lie one edit
# from many others by chance ("golf" / "gold").
MIN_SLIP_LENGTH = 5


# A word one paper writes is read as a slip of a word one edit from it only when at least this
# many papers write that word beside the question's other words: a name ("Mixtral") is one
# paper's word, and so, now and then, is a typing slip ("retreival").
HAPAX_SLIP_PAPERS = 20


# Two stems sharing all but KIN_CUT letters of the longer, and at least KIN_MIN_ROOT, are
# one word family ("sycophant"/"sycoph", "volcan"/"volcano"); a shorter root is too short to
# tell ("cook" would take "cookie").
KIN_MIN_ROOT = 6
KIN_CUT = 3


@dataclass(frozen=True)
class AbsentTopic:
    """A topic the collection lacks: its words as the question writes them."""

    topic: str
    words: tuple[str, ...]


def absent_words(
    text: str,
    df: Mapping[str, int],
    vocabulary: Callable[[], Collection[str]],
    skip: Collection[str] = (),
    min_papers: int = MIN_PAPERS,
    common: Callable[[str], bool] = lambda stem: True,
) -> list[str]:
    """The text's words (as written, lowercased) whose stem fewer than `min_papers` papers write
    and that are no typing slip of a word the collection writes nor of the family of a word it
    writes other than as a name (`common`, e.g. `Vocabulary.common`). `skip`: words that mark
    questions rather than topics; `vocabulary` (the collection's words) is read only when a
    rare word needs the slip check."""
    out: list[str] = []
    for word in dict.fromkeys(words(text)):
        # Two letters ("yo", "ok") name no topic.
        if word in skip or not word.isalpha() or len(word) < 3:
            continue
        stems = content_terms(word)
        if not stems or df.get(stems[0], 0) >= min_papers:
            continue
        if len(word) >= MIN_SLIP_LENGTH and slip_of(word, vocabulary()):
            continue
        if _kin_written(stems[0], df, min_papers, common):
            continue
        out.append(word)
    return out


def _kin_written(
    stem: str, df: Mapping[str, int], min_papers: int, common: Callable[[str], bool]
) -> bool:
    """Whether enough papers write a stem of the word's family (`_kin`), not only as a name: a
    name has no family ("falconry" is no word of the model "Falcon")."""
    return any(n >= min_papers and _kin(stem, s) and common(s) for s, n in df.items())


def _kin(stem: str, other: str) -> bool:
    """Whether two stems are one word family: they share all but KIN_CUT letters of each,
    and at least KIN_MIN_ROOT ("sycophant"/"sycoph": "sycophantic", "sycophancy"; not
    "counterfeit"/"counterfactu")."""
    least = max(KIN_MIN_ROOT, len(stem) - KIN_CUT, len(other) - KIN_CUT)
    return other[:KIN_MIN_ROOT] == stem[:KIN_MIN_ROOT] and (
        len(os.path.commonprefix([stem, other])) >= least
    )


def absent_topic(
    text: str,
    df: Mapping[str, int],
    vocabulary: Callable[[], Collection[str]],
    skip: Collection[str] = (),
    min_papers: int = MIN_PAPERS,
    common: Callable[[str], bool] = lambda stem: True,
) -> AbsentTopic | None:
    """The text's topic when words of it are ones the collection lacks (`absent_words`): the
    run of topic words around the first such word ("… about predicting asphalt cracking on
    roads?" -> "predicting asphalt cracking"); None when every topic word is written."""
    found = absent_words(text, df, vocabulary, skip, min_papers, common)
    if not found:
        return None
    topical = [
        w for w in dict.fromkeys(words(text)) if w not in skip and w.isalpha() and content_terms(w)
    ]
    if len(found) < MIN_SHARE * len(topical):
        return None
    skip = set(skip) | STOPWORDS
    written = text.split()
    tokens = [w.strip("?.,!;:()\"'").lower() for w in written]
    if found[0] not in tokens:
        return AbsentTopic(topic=found[0], words=tuple(found))
    start = end = tokens.index(found[0])
    while start > 0 and tokens[start - 1] and tokens[start - 1] not in skip:
        start -= 1
    while end < len(tokens) - 1 and tokens[end + 1] and tokens[end + 1] not in skip:
        end += 1
    topic = " ".join(written[start : end + 1]).strip("?.,!;:")
    return AbsentTopic(topic=topic, words=tuple(found))


def respelled(
    text: str,
    vocabulary: Vocabulary,
    large: int = UNUSED_MIN_PAPERS,
    mend: bool = False,
) -> str:
    """A list topic with each word no paper writes replaced by the word one typing slip away
    that most papers write beside the topic's other words ("difusion models for protien design"
    -> "diffusion models for protein design"), in a collection of at least `large` papers.
    A slip of a word that frames questions (`vocabulary.frame`: "paprs", "abot"), in a collection
    of any size, is left out of a topic, or, to `mend` a whole question, written as the frame
    word ("waht" -> "what"). Short words, English words, and words with no such neighbour stay
    as written."""
    postings, frame = vocabulary.postings(), vocabulary.frame
    # A few papers say too little of which words are written to respell a topic's; the words
    # that frame questions are the lexicon's, and mended in any collection.
    small = vocabulary.size() < large
    if small and not frame:
        return text
    tokens = text.split()
    context = [
        postings.get(t[0], set())
        for tok in tokens
        if (t := content_terms(tok)) and t[0] in postings
    ]
    out = []
    for token in tokens:
        bare = token.strip("?.,!;:()\"'")
        word = bare.lower()
        if word in frame:
            # "orals" asks for a decision, though papers write "oral" and not "orals".
            out.append(token)
            continue
        stems = content_terms(word)
        # "ther": a word one paper writes (a split word, a typo of its own) is no topic word
        # when it is one slip from a word that frames questions.
        rare = not (stems and len(postings.get(stems[0], ())) > 1)
        unwritten = word.isalpha() and len(word) > 3 and rare
        if unwritten and word not in vocabulary.english() and slip_of(word, frame):
            if mend:  # "waht" -> "what"; "ther" (the, then, there?) stays as typed
                meant = [v for v in frame if one_edit(word, v)]
                out.append(token.replace(bare, meant[0]) if len(meant) == 1 else token)
            continue  # "paprs", "mnay": a slipped frame word, no topic word
        if small:
            out.append(token)
            continue
        # "in-contxt", "chain-of-thougth": each part of a joined word on its own.
        parts = [_respelled_word(w, vocabulary, postings, context) for w in word.split("-")]
        out.append(token if parts == word.split("-") else token.replace(bare, "-".join(parts)))
    return " ".join(out)


def _respelled_word(
    word: str, vocabulary: Vocabulary, postings: Mapping[str, set[int]], context: list[set[int]]
) -> str:
    """The written word one typing slip from `word` that most papers write beside the
    context's papers; the word itself when it is short, English, written, or has none."""
    stems = content_terms(word)
    if (
        len(word) < MIN_SLIP_LENGTH
        or not word.isalpha()
        or word in vocabulary.english()
        or not stems
    ):
        return word
    # Written as it is, by more than one paper; one paper's word is its name or its own slip
    # ("retreival"), read as written unless many more papers write a word one slip from it.
    least = 1
    if word in vocabulary():
        held = postings.get(stems[0], set())
        if len(held) > 1 or vocabulary.named(word, held):
            return word
        least = HAPAX_SLIP_PAPERS
    # A word whose stem papers write is read as a word of that stem ("inferance" stems to the
    # written "infer": "inference"), never as another word ("fakes" is no slip of "faces");
    # a stem one paper writes is no word's ("seires": "seir").
    kept = stems[0] if len(postings.get(stems[0], ())) > 1 else None
    best, most = word, 0
    for v in vocabulary():
        # People seldom slip on a word's first letter: "caries" is no "varies".
        if v[:1] != word[:1] or abs(len(v) - len(word)) > 1 or not v.isalpha():
            continue
        if not one_edit(word, v):
            continue
        # Stemmed only once a word is one slip away: most of the vocabulary never is.
        stem = (content_terms(v) or [""])[0]
        if kept and stem != kept:
            continue
        held = postings.get(stem, set())
        # Written beside the topic's other words, or alone when there are none.
        beside = sum(len(held & c) for c in context) if context else len(held)
        # Ties go to the first word in alphabetical order: the same reading in every run.
        if beside > most or (beside == most and most and v < best):
            best, most = v, beside
    if most >= least:
        return best
    if least == 1 and not kept:
        # No slip, and no paper writes it: the word of its family most papers write
        # ("sycophantic": "sycophancy").
        return _kin_word(stems[0], vocabulary, postings) or word
    return word


def _kin_word(stem: str, vocabulary: Vocabulary, postings: Mapping[str, set[int]]) -> str:
    """The word of the stem's family (`_kin`) that most papers write other than as a name,
    or ""."""
    kin = [
        (len(postings.get(s, ())), v)
        for v in vocabulary()
        if v[:KIN_MIN_ROOT] == stem[:KIN_MIN_ROOT]
        and v.isalpha()
        and (s := (content_terms(v) or [""])[0])
        and _kin(stem, s)
        and vocabulary.common(s)
    ]
    return max(kin, key=lambda t: (t[0], -len(t[1])))[1] if kin else ""


class Vocabulary:
    """Every word a catalog's papers write, read once per catalog (the catalog view changes
    when papers are added); the English words a typing slip is never taken for; and the words
    that frame questions (`frame`: "papers", "many"), which are no topic's."""

    def __init__(
        self,
        catalog_view: Callable[[], Any],
        dictionary: Path = BUNDLED_TOKENIZER,
        frame: Collection[str] = (),
    ):
        self._view = catalog_view
        self.frame = frame
        self._of: object = None
        self._words: frozenset[str] = frozenset()
        self._dictionary = dictionary
        self._english: frozenset[str] | None = None

    def postings(self) -> Mapping[str, set[int]]:
        """The current catalog's stem -> papers postings."""
        return self._view().postings

    def size(self) -> int:
        """How many papers the current catalog holds."""
        return len(self._view().papers)

    def large(self) -> bool:
        """Whether the catalog holds enough papers (UNUSED_MIN_PAPERS) that a word none of them
        writes says something: an absent topic, a slip, another language."""
        return self.size() >= UNUSED_MIN_PAPERS

    def named(self, word: str, papers: Collection[int]) -> bool:
        """Whether one of these papers (catalog positions) writes the word as a name: with a
        capital inside it ("ReSched", "SHAPO") or capitalised within a sentence of its
        abstract ("we propose Revela")."""
        view = self._view()
        for paper in (view.papers[i] for i in papers):
            for field in (paper.title, paper.abstract, *paper.keywords):
                for a, b in phrase_spans(field, (word,)):
                    said, before = field[a:b], field[:a].rstrip()[-1:]
                    if any(c.isupper() for c in said[1:]):
                        return True
                    if field is paper.abstract and said[0].isupper() and before not in ".!?":
                        return True
        return False

    def common(self, stem: str) -> bool:
        """Whether an abstract writes a word of this stem in lower case, as a word rather than
        a name ("sycophancy"; not "Falcon", a model)."""
        view = self._view()
        forms = tuple(
            w
            for w in self()
            if w[:KIN_MIN_ROOT] == stem[:KIN_MIN_ROOT] and (content_terms(w) or [""])[0] == stem
        )
        for i in self.postings().get(stem, set()):
            abstract = view.papers[i].abstract
            if any(abstract[a:b].islower() for a, b in phrase_spans(abstract, forms)):
                return True
        return False

    def english(self) -> frozenset[str]:
        """The whole words of the bundled tokenizer's vocabulary ("bread", "hull"; not
        "difusion", which it splits): words people spell as they mean them."""
        if self._english is None:
            self._english = english_words(self._dictionary)
        return self._english

    def __call__(self) -> frozenset[str]:
        """The words of the current catalog's papers."""
        view = self._view()
        if self._of is not view:
            self._words = collection_words([p.search_text for p in view.papers])
            self._of = view
        return self._words


def english_words(dictionary: Path = BUNDLED_TOKENIZER) -> frozenset[str]:
    """The whole lower-case words of a tokenizer's vocabulary ("bread", "stuff"; not
    "difusion", which it splits): words people spell as they mean them."""
    vocab = json.loads(dictionary.read_text(encoding="utf-8"))["model"]["vocab"]
    return frozenset(w for w in vocab if w.isalpha() and w.islower())


def collection_words(texts: Collection[str]) -> frozenset[str]:
    """Every lower-cased word the texts write."""
    out: set[str] = set()
    for text in texts:
        out.update(words(text))
    return frozenset(out)
