"""The model answerer: numbered sources in, a cited answer out, each sentence checked."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import LLM

from rag.models import Answer, AnswerSentence, Citation, SearchHit, Usage
from rag.prompts import Prompt
from rag.retrieval.support import SUPPORT_THRESHOLD, Scorer
from rag.store.chunking import split_sentences
from rag.text import content_terms

_MARKER = re.compile(r"\[(\s*\d+\s*(?:[,;]\s*\d+\s*)*)\]")
_LONGEST_MARKER = 24
# Content words from which an uncited sentence is checked, and from which it is a claim.
_MIN_CLAIM_TERMS = 2


class CitationFilter:
    """Removes citation numbers that match no source, also across streamed deltas."""

    def __init__(self, valid: set[int]) -> None:
        self.valid = valid
        self._held = ""

    def _clean(self, text: str) -> str:
        def fix(m: re.Match[str]) -> str:
            nums = [int(x) for x in re.findall(r"\d+", m.group(2))]
            keep = [n for n in dict.fromkeys(nums) if n in self.valid]
            # A marker with nothing left goes away with the space before it.
            return m.group(1) + "".join(f"[{n}]" for n in keep) if keep else ""

        return re.sub(r"( ?)" + _MARKER.pattern, fix, text)

    def feed(self, delta: str) -> str:
        """Text safe to show now; an unfinished "[..." is held back until it closes."""
        text = self._held + delta
        cut = text.rfind("[")
        if cut == -1 or "]" in text[cut:] or len(text) - cut > _LONGEST_MARKER:
            cut = len(text)
        # Trailing spaces are held too: when the marker that follows is dropped, its
        # space goes with it, even if the space arrived in an earlier delta.
        cut = len(text[:cut].rstrip(" "))
        self._held = text[cut:]
        return self._clean(text[:cut])

    def flush(self) -> str:
        """Whatever is still held back at the end of the stream."""
        text, self._held = self._held, ""
        return self._clean(text)


def format_sources(prompt: Prompt, hits: Sequence[SearchHit]) -> str:
    """Numbered sources for the prompt; markup inside abstracts cannot close a source early."""
    parts = []
    for n, hit in enumerate(hits, start=1):
        parts.append(
            prompt.render(
                n=n,
                title=_defang(hit.paper.title),
                abstract=_defang(hit.paper.abstract),
            )
        )
    return "\n\n".join(parts)


def _defang(text: str) -> str:
    return re.sub(r"</?\s*source\b", "(source)", text, flags=re.IGNORECASE)


def is_refusal(text: str, refusal: str) -> bool:
    """Whether the model said the sources don't answer the question (the refusal prompt's text)."""
    norm = " ".join(text.lower().split())
    phrase = " ".join(refusal.lower().split()).rstrip(".")
    # Small models end it their own way ("don't cover this"): the opening up to the
    # contraction ("the indexed abstracts don") is enough.
    return phrase in norm or norm.startswith(phrase.split("'")[0])


class ModelAnswerer:
    """Asks an LLM for a cited answer over numbered sources and checks what comes back."""

    def __init__(self, llm: LLM, scorer: Scorer, prompts: dict[str, Prompt]) -> None:
        self.llm = llm
        self.scorer = scorer
        self.prompts = prompts

    def messages(self, question: str, hits: Sequence[SearchHit]) -> list[ChatMessage]:
        """The chat messages sent for a question."""
        system = self.prompts["answer_system"].render(refusal=self.prompts["refusal"].text)
        user = self.prompts["answer_user"].render(
            sources=format_sources(self.prompts["source"], hits), question=question
        )
        return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]

    def stream(self, question: str, hits: Sequence[SearchHit]) -> Iterator[str | Answer]:
        """Yield cleaned text deltas, then the checked Answer; raises ProviderError on failure."""
        valid = set(range(1, len(hits) + 1))
        filt = CitationFilter(valid)
        text = ""
        usage: dict[str, int] = {}
        for resp in self.llm.stream_chat(self.messages(question, hits)):
            if resp.additional_kwargs:
                usage = dict(resp.additional_kwargs)
            out = filt.feed(resp.delta or "")
            if out:
                text += out
                yield out
        tail = filt.flush()
        if tail:
            text += tail
            yield tail
        yield self.check(question, text.strip(), hits, usage)

    def check(
        self, question: str, text: str, hits: Sequence[SearchHit], usage: dict[str, int]
    ) -> Answer:
        """Build the Answer: citations with quotes, and a support score per sentence."""
        answer = Answer(
            question=question,
            text=text,
            mode="model",
            sources=list(hits),
            # Servers that do not report usage (llama.cpp's, when streaming) leave it unknown:
            # zeros would claim the answer was free.
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens", 0)),
                completion_tokens=int(usage.get("completion_tokens", 0)),
            )
            if usage
            else None,
        )
        if is_refusal(text, self.prompts["refusal"].text) or not text:
            answer.refused = True
            return answer
        quotes: dict[int, tuple[float, str]] = {}
        for line in text.splitlines():
            for sent in split_sentences(line.strip()):
                nums = [int(x) for m in _MARKER.finditer(sent) for x in re.findall(r"\d+", m[1])]
                nums = list(dict.fromkeys(n for n in nums if 1 <= n <= len(hits)))
                claim = _MARKER.sub("", sent).strip(" -*")
                if not nums:
                    answer.sentences.append(self._uncited(sent, claim, hits, quotes))
                    continue
                cited = [hits[n - 1].paper for n in nums]
                score, pid, quote = self.scorer.support(claim, cited)
                answer.sentences.append(
                    AnswerSentence(
                        text=sent,
                        citations=nums,
                        support=round(score, 3),
                        supported=score >= SUPPORT_THRESHOLD,
                    )
                )
                for n in nums:
                    if hits[n - 1].paper.id == pid and score > quotes.get(n, (-1.0, ""))[0]:
                        quotes[n] = (score, quote)
        cited_order = list(dict.fromkeys(n for s in answer.sentences for n in s.citations))
        for n in cited_order:
            paper = hits[n - 1].paper
            quote = quotes.get(n, (0.0, ""))[1]
            if not quote:
                claims = " ".join(s.text for s in answer.sentences if n in s.citations)
                quote = self.scorer.support(_MARKER.sub("", claims), [paper])[2]
            answer.citations.append(
                Citation(n=n, paper_id=paper.id, title=paper.title, url=paper.url, quote=quote)
            )
        return answer

    def _uncited(
        self, sent: str, claim: str, hits: Sequence[SearchHit], quotes: dict[int, tuple[float, str]]
    ) -> AnswerSentence:
        """A sentence that cites nothing: framing passes; a claim is attributed after the fact to
        the source sentence that supports it best, or marked unsupported when none does."""
        terms = content_terms(claim)
        if len(terms) < _MIN_CLAIM_TERMS:
            # "Here is what I found:" or a bare title: nothing to check.
            return AnswerSentence(text=sent)
        if not hits:
            return AnswerSentence(text=sent, supported=False)
        score, pid, quote = self.scorer.support(claim, [h.paper for h in hits])
        if score < SUPPORT_THRESHOLD:
            return AnswerSentence(text=sent, supported=False)
        n = next(i for i, h in enumerate(hits, start=1) if h.paper.id == pid)
        if score > quotes.get(n, (-1.0, ""))[0]:
            quotes[n] = (score, quote)
        # Shown as "attributed": the citation is ours, not the model's.
        return AnswerSentence(
            text=sent, citations=[n], support=round(score, 3), supported=True, attributed=True
        )
