"""Optional model-judge metrics: the judge prompts sent to the configured chat model."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import LLM

from rag.answers.generate import format_sources
from rag.models import Answer
from rag.prompts import Prompt
from rag.providers import ProviderError

from .metrics import parse_correctness_judge, parse_faithfulness_judge

RAW_CHARS = 300


@dataclass
class Verdict:
    """One judge call: the parsed value, or why there is none."""

    value: float | None = None
    status: str = "ok"  # ok | parse_failure | error
    raw: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class JudgeRecord:
    """Both judge verdicts for one answer, in the shape stored in results.json."""

    faithfulness: Verdict | None = None
    correctness: Verdict | None = None

    def to_json(self) -> dict[str, Any]:
        """Values, statuses and (for failures) the start of the raw reply."""
        out: dict[str, Any] = {}
        for name in ("faithfulness", "correctness"):
            v: Verdict | None = getattr(self, name)
            if v is None:
                continue
            out[name] = v.value
            out[f"{name}_status"] = v.status
            if v.status != "ok":
                out[f"{name}_raw"] = v.raw[:RAW_CHARS]
        return out

    @property
    def verdicts(self) -> list[Verdict]:
        """The verdicts that were asked for."""
        return [v for v in (self.faithfulness, self.correctness) if v is not None]


class Judge:
    """Grades answers with the judge_faithfulness and judge_correctness prompts."""

    def __init__(self, llm: LLM, prompts: dict[str, Prompt]) -> None:
        self.llm = llm
        self.prompts = prompts

    def _call(self, text: str, parse: Callable[[str], Any]) -> Verdict:
        try:
            resp = self.llm.chat([ChatMessage(role="user", content=text)])
        except ProviderError as exc:
            # A failed call is not a bad grade: it is counted apart and never averaged in.
            return Verdict(status="error", raw=str(exc))
        reply = resp.message.content or ""
        usage = resp.additional_kwargs or {}
        value = parse(reply)
        return Verdict(
            value=None if value is None else float(value),
            status="ok" if value is not None else "parse_failure",
            raw=reply,
            prompt_tokens=int(usage.get("prompt_tokens", 0) or 0),
            completion_tokens=int(usage.get("completion_tokens", 0) or 0),
        )

    def faithfulness(self, answer: Answer) -> Verdict:
        """Is every statement of the answer supported by the sources it was given?"""
        sources = format_sources(self.prompts["source"], answer.sources)
        text = self.prompts["judge_faithfulness"].render(sources=sources, answer=answer.text)
        return self._call(text, parse_faithfulness_judge)

    def correctness(self, question: str, facts: Sequence[str], answer: Answer) -> Verdict:
        """How correct and complete is the answer against the reference facts (1..5)?"""
        text = self.prompts["judge_correctness"].render(
            question=question, facts="\n".join(f"- {f}" for f in facts), answer=answer.text
        )
        return self._call(text, parse_correctness_judge)

    def grade(self, question: str, facts: Sequence[str], answer: Answer) -> JudgeRecord:
        """Both verdicts for an answer; refusals and failed answers are not judged."""
        record = JudgeRecord()
        if answer.refused or answer.error or not answer.text:
            return record
        record.faithfulness = self.faithfulness(answer)
        if facts:
            record.correctness = self.correctness(question, facts, answer)
        return record
