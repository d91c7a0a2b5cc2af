"""How a list answer shows a paper: its quoted sentence, its citation, the answer's lines."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rag.answers.handlers.context import Context
from rag.cues import Cues
from rag.models import Answer, AnswerSentence, AnswerType, Citation, PaperMatch
from rag.retrieval.matching import Match
from rag.store.markup import bold, readable

SHOWN = 10  # papers a list answer quotes; all are in its `papers`


def paper_match(ctx: Context, m: Match, aspect: AnswerType | None = None) -> PaperMatch:
    cat = ctx.cat
    p = cat.papers[m.index]
    quote = best_quote(
        ctx.cues,
        cat.sentences[m.index],
        cat.sentence_terms[m.index],
        m.terms,
        p.title,
        rarest=min(m.terms, key=cat.df, default=""),
        aspect=aspect,
    )
    return PaperMatch.of(p, m.score, quote)


def cite(papers: Sequence[PaperMatch]) -> list[Citation]:
    """Citations [1], [2] … of matched papers, each with its quote."""
    return [
        Citation(n=n, paper_id=p.paper_id, title=p.title, url=p.url, quote=p.quote)
        for n, p in enumerate(papers, start=1)
    ]


def list_answer(question: str, lead: str, citations: list[Citation], **fields: Any) -> Answer:
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


def best_quote(
    cues: Cues,
    sents: list[str],
    sent_terms: list[list[str]],
    terms: tuple[str, ...],
    title: str,
    rarest: str,
    aspect: AnswerType | None = None,
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
            if cues.has_cue(aspect, s)
            # "To address these limitations, we propose LaTo" is the answer to a problem.
            and (not cues.framing(s, i) if aspect != "problem" else not cues.contributes(s))
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
        if cues.contributes(sents[best]):
            return sents[best]
        # "Poker provides a rigorous testbed …" says why the paper is on the list, "we propose
        # ToolPoker …" what it is.
        own = next((i for i, s in enumerate(sents) if cues.contributes(s)), None)
        if own is None:
            return sents[best]
        return " … ".join(sents[i] for i in sorted({best, own}))
    # "After pre-training on enormous data, the model needs …" sets a scene no cue marks; "we
    # propose …" is what the paper does.
    return next((s for s in sents if cues.contributes(s)), None) or next(
        (s for i, s in enumerate(sents) if not cues.framing(s, i)), sents[0]
    )
