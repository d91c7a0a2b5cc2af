"""The offline answerer: composes an answer from verbatim source sentences, with citations."""

from __future__ import annotations

from collections.abc import Sequence

from .models import Answer, AnswerSentence, Citation, SearchHit
from .support import Scorer, SentenceScore

REFUSAL = "The indexed abstracts don't answer this question."
# A paper joins the answer when its best sentence scores within this margin of
# the best paper's: close runners-up are part of the answer, weak ones noise.
MARGIN = 0.12
MAX_PAPERS = 5


def refusal_text(hits: Sequence[SearchHit]) -> str:
    """The refusal message, naming the nearest papers so the user can look for themselves."""
    if not hits:
        return REFUSAL + " The index holds no paper close to it."
    names = "; ".join(f"{h.paper.title}" for h in hits[:3])
    return f"{REFUSAL} The nearest papers are: {names}."


class Evidence:
    """A retrieved paper with its sentences ranked against the question."""

    def __init__(self, hit: SearchHit, ranked: list[SentenceScore], coverage: float) -> None:
        self.hit, self.ranked, self.coverage = hit, ranked, coverage

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
    ranked = scorer.rank(question, papers)
    coverage = scorer.coverage(question, papers)
    evidence = [Evidence(*parts) for parts in zip(hits, ranked, coverage, strict=True)]
    return sorted(evidence, key=lambda e: -e.score)


def is_weak(evidence: Sequence[Evidence], min_evidence: float, min_dense: float) -> bool:
    """Whether the collection does not answer the question: refuse rather than guess."""
    if not evidence:
        return True
    # Word overlap backs questions asked in the abstracts' words; a close chunk vector backs
    # questions asked in other words, which share few words with any abstract.
    closest = max((e.hit.dense or 0.0) for e in evidence)
    return evidence[0].score < min_evidence and closest < min_dense


def extractive_answer(
    question: str, evidence: Sequence[Evidence], refuse: bool, min_evidence: float
) -> Answer:
    """Compose a cited answer from the best sentences, or the refusal with the nearest papers."""
    hits = [e.hit for e in evidence]
    if refuse or not evidence:
        return Answer(question=question, text=refusal_text(hits), refused=True, sources=hits)
    best = evidence[0].score
    # Runners-up join only on their own evidence: when the answer stands on the leader's
    # closeness alone (a question in other words), its weak neighbours are noise.
    runners = [e for e in evidence[1:] if e.score >= max(min_evidence, best - MARGIN)]
    chosen = [evidence[0], *runners][:MAX_PAPERS]
    citations: list[Citation] = []
    sentences: list[AnswerSentence] = []
    lines: list[str] = []
    for n, ev in enumerate(chosen, start=1):
        picks = _pick(ev, first=(n == 1))
        paper = ev.hit.paper
        quote = _span(paper.abstract, picks)
        citations.append(
            Citation(n=n, paper_id=paper.id, title=paper.title, url=paper.url, quote=quote)
        )
        for s in picks:
            sentences.append(AnswerSentence(text=s.text, citations=[n], support=1.0))
        lines.append(f"- **{paper.title}** [{n}]: {quote} [{n}]")
    if len(chosen) == 1:
        lead = "From the indexed abstracts, one paper answers this:"
    else:
        lead = f"From the indexed abstracts, {len(chosen)} papers address this:"
    return Answer(
        question=question,
        text="\n".join([lead, *lines]),
        citations=citations,
        sentences=sentences,
        sources=hits,
    )


def _pick(ev: Evidence, first: bool) -> list[SentenceScore]:
    """One sentence per paper; two adjacent ones for the leading paper when both score high."""
    # Only neighbours are joined, so the quote stays one verbatim passage of the abstract.
    picks = ev.ranked[:1]
    if (
        first
        and len(ev.ranked) > 1
        and ev.ranked[1].score >= ev.ranked[0].score - 0.08
        and abs(ev.ranked[1].index - ev.ranked[0].index) == 1
    ):
        picks = ev.ranked[:2]
    # Keep abstract order so the quote reads as the authors wrote it.
    return sorted(picks, key=lambda s: s.index)


def _span(abstract: str, picks: Sequence[SentenceScore]) -> str:
    """The abstract's own text from the first picked sentence to the end of the last."""
    start = abstract.find(picks[0].text)
    end = abstract.find(picks[-1].text, max(start, 0))
    if start < 0 or end < 0:
        # The sentence splitter changed the text: fall back to the sentences themselves.
        return " ".join(s.text for s in picks)
    return abstract[start : end + len(picks[-1].text)]
