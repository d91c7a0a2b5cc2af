"""Offline scoring of how well source sentences answer a question or support a claim."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from rag.models import Paper, SearchHit
from rag.protocols import Embedder
from rag.store.chunking import split_sentences
from rag.store.index import PaperIndex
from rag.store.names import coined_words, names_introduced
from rag.text import content_terms, overlap

# Blend of semantic similarity and shared content words; both lie in 0..1.
DENSE_WEIGHT = 0.6
SUPPORT_THRESHOLD = 0.5


def _spelled(text: str, terms: set[str], spelled: Sequence[tuple[str, frozenset[str]]]) -> set[str]:
    """The text's content terms, an acronym and its spelled-out phrase standing for each other
    as the question writes them: "ViT-Small" covers the question's "vision transformers", and
    "large language models" its "LLMs"."""
    have = set(content_terms(text))
    for acronym, phrase in spelled:
        if phrase <= terms and ({acronym, acronym + "s"} & have):
            have |= phrase
        if phrase <= have:
            have |= {acronym, acronym + "s"} & terms
    return have


class QuestionTerms(NamedTuple):
    """What the scorer reads of a question once: its content terms, their IDF weight
    function (None without an index) and the acronyms the collection defines."""

    terms: set[str]
    weight: Callable[[str], float] | None
    defined: Mapping[str, tuple[str, ...]]


def _acronyms_of(
    terms: set[str], defined: Mapping[str, tuple[str, ...]]
) -> list[tuple[str, frozenset[str]]]:
    """The acronyms of `defined` that the question writes ("LLMs") or spells out ("vision
    transformers"): (acronym stem, its phrase's stems)."""
    return [
        (a, frozenset(phrase))
        for a, phrase in defined.items()
        if len(phrase) >= 2 and (a in terms or a + "s" in terms or set(phrase) <= terms)
    ]


class SentenceScore:
    """A sentence of an abstract and how well it matches a text."""

    __slots__ = ("index", "text", "score")

    def __init__(self, index: int, text: str, score: float) -> None:
        self.index, self.text, self.score = index, text, score


class Scorer:
    """Scores abstract sentences against questions and claims, reusing the stored vectors."""

    def __init__(
        self,
        index: PaperIndex,
        embedder: Embedder,
        weights: Callable[[], Callable[[str], float]] | None = None,
        acronyms: Callable[[], Mapping[str, tuple[str, ...]]] | None = None,
        framing: frozenset[str] = frozenset(),
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.weights = weights
        # Acronym stem -> the stems it stands for, as the collection defines it ("llm").
        self.acronyms = acronyms
        # Stems of the nouns that name an aspect asked ("problem", "findings", "method"): the
        # sentence's form answers them (Cues.type_fit), not its words: "remains an open
        # problem" states no more of the problem than "RL in partially observable
        # environments poses significant challenges".
        self.framing = framing

    def _dense(
        self,
        query_vec: np.ndarray,
        paper: Paper,
        sents: list[str],
        stored: list[tuple[int, int, Any]],
    ) -> np.ndarray:
        """Per-sentence similarity: the best stored chunk covering each sentence."""
        if not stored:
            # Not indexed with these settings (e.g. a paper mid-rewrite): embed directly.
            vecs = self.embedder.embed(sents)
            return np.clip(vecs @ query_vec, 0.0, 1.0)
        dense = np.zeros(len(sents))
        for start, end, vec in stored:
            sim = float(np.dot(np.asarray(vec, dtype=np.float32), query_vec))
            for i in range(start, min(end, len(sents))):
                dense[i] = max(dense[i], sim)
        return np.clip(dense, 0.0, 1.0)

    def _score(
        self,
        terms: set[str],
        query_vec: np.ndarray,
        paper: Paper,
        stored: list[tuple[int, int, Any]],
        weight: Callable[[str], float] | None,
        coined: Sequence[str] = (),
        spelled: Sequence[tuple[str, frozenset[str]]] = (),
    ) -> list[SentenceScore]:
        sents = split_sentences(paper.abstract)
        dense = self._dense(query_vec, paper, sents, stored)
        if not terms:
            blend = dense
        else:
            # The title names the paper: "what does Qronos do" should match its
            # sentences even where they do not repeat the name. So does a name the question
            # writes that the abstract introduces ("What reward does the code generator in
            # UTRL maximize?"): it says which paper, not which of its sentences.
            own = " ".join(names_introduced(coined, paper.abstract))
            lexical = np.array(
                [
                    overlap(terms, _spelled(f"{paper.title} {own} {s}", terms, spelled), weight)
                    for s in sents
                ]
            )
            blend = DENSE_WEIGHT * dense + (1 - DENSE_WEIGHT) * lexical
        return [
            SentenceScore(i, s, float(v)) for i, (s, v) in enumerate(zip(sents, blend, strict=True))
        ]

    def read(self, question: str) -> QuestionTerms:
        """The question's terms, weights and the collection's acronyms, read once per question:
        each weight and acronym lookup checks the index for changes (a database read)."""
        terms = set(content_terms(question))
        weight = self.weights() if self.weights and terms else None
        defined = self.acronyms() if self.acronyms and terms else {}
        return QuestionTerms(terms, weight, defined)

    def rank(
        self,
        question: str,
        papers: Sequence[Paper],
        exact: bool = False,
        read: QuestionTerms | None = None,
    ) -> list[list[SentenceScore]]:
        """For each paper, its sentences ranked against the question, best first.

        By default a sentence's similarity is that of the stored chunk windows around it
        (no model call); `exact` embeds each sentence alone (cached) for a sharper score.
        """
        qvec = self.embedder.embed_query(question)
        stored = {} if exact else self.index.chunk_vectors([p.id for p in papers])
        terms, weight, defined = read or self.read(question)
        terms = terms - self.framing
        # Which of its words are names a paper may introduce, and which acronyms it writes or
        # spells out.
        coined = coined_words(question)
        spelled = _acronyms_of(terms, defined)
        return [
            sorted(
                self._score(terms, qvec, p, stored.get(p.id, []), weight, coined, spelled),
                key=lambda s: -s.score,
            )
            for p in papers
        ]

    def term_weights(self, question: str, read: QuestionTerms | None = None) -> dict[str, float]:
        """The question's content terms with their IDF weights (1 each without an index)."""
        terms, weight, _defined = read or self.read(question)
        return {t: (weight(t) if weight else 1.0) for t in terms}

    def coverage(
        self, question: str, papers: Sequence[Paper], read: QuestionTerms | None = None
    ) -> tuple[list[float], list[float]]:
        """IDF-weighted share of the question's terms found in each paper's text (0..1): plain,
        and with an acronym the collection defines also found where the paper writes the head
        of its phrase ("LLMs" in "recent language models"). Each text is read once for both."""
        terms, weight, defined = read or self.read(question)
        heads = {
            t: set(defined[a][-2:])
            for t in terms
            if (a := t[:-1] if t.endswith("s") and t[:-1] in defined else t) in defined
            and len(defined[a]) >= 2
        }
        total = sum(weight(t) for t in terms) if weight else len(terms)

        def share(found: set[str]) -> float:
            got = sum(weight(t) for t in found) if weight else len(found)
            return got / total if total else 0.0

        plain, spelled = [], []
        for p in papers:
            have = set(content_terms(p.search_text))
            found = terms & have
            plain.append(share(found))
            spelled.append(share(found | {t for t, h in heads.items() if h <= have}))
        return plain, spelled

    def support(self, claim: str, papers: Sequence[Paper]) -> tuple[float, str, str]:
        """Best support for a claim among the papers' sentences: (score, paper id, sentence)."""
        best = (0.0, "", "")
        # Checking a claim needs sentence-level similarity: a window shares its score with
        # its neighbours, which would back a claim with the wrong sentence.
        for paper, ranked in zip(papers, self.rank(claim, papers, exact=True), strict=True):
            if ranked and ranked[0].score > best[0]:
                best = (ranked[0].score, paper.id, ranked[0].text)
        return best


class Evidence:
    """A retrieved paper with its sentences ranked against the question."""

    def __init__(
        self,
        hit: SearchHit,
        ranked: list[SentenceScore],
        coverage: float,
        terms: dict[str, float] | None = None,
        spelled: float | None = None,
    ) -> None:
        self.hit, self.ranked, self.coverage = hit, ranked, coverage
        # Coverage counting an acronym's spelled-out head: whether the collection speaks to
        # the question (the refusal's signal), not which paper answers it best (the ranking's).
        self.spelled = coverage if spelled is None else spelled
        # The question's terms and IDF weights: which of them a sentence covers.
        self.terms = terms or {}

    @property
    def score(self) -> float:
        """How well the paper answers the question (0..1): its best sentence, and how much of
        the question the paper covers at all."""
        # The blend separates answerable from unanswerable questions better than either
        # part alone on both evaluation sets (eval/README.md, calibration).
        best = self.ranked[0].score if self.ranked else 0.0
        return 0.5 * best + 0.5 * self.coverage


def gather_evidence(scorer: Scorer, question: str, hits: Sequence[SearchHit]) -> list[Evidence]:
    """Rank each hit's sentences against the question; best-evidenced paper first."""
    papers = [h.paper for h in hits]
    read = scorer.read(question)
    ranked = scorer.rank(question, papers, read=read)
    coverage, spelled = scorer.coverage(question, papers, read)
    terms = scorer.term_weights(question, read)
    evidence = [
        Evidence(hit, sents, cov, terms, sp)
        for hit, sents, cov, sp in zip(hits, ranked, coverage, spelled, strict=True)
    ]
    return sorted(evidence, key=lambda e: -e.score)
