"""The labelled example questions (rag/data/examples.jsonl), each with its kind and plan fields.

The one file is the source of the planner's test table (tests/test_planner_table.py), the model
planner's few-shot examples (prompts/plan.txt's {examples}) and docs/questions.md. Its first
records describe each QuestionKind ({"kind", "describes"}); the rest are questions: the plan
fields they label (any Plan field) beside `question`, `source` (where the phrasing is quoted
from), `few_shot` (shown to the model planner) and `gap` (what the rules planner does instead,
until it reads the question as labelled).
"""

from __future__ import annotations

import json
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from rag.models import Plan, QuestionKind

EXAMPLES_FILE = "data/examples.jsonl"
_META = frozenset({"question", "source", "few_shot", "gap"})


class ExampleError(ValueError):
    """A record of the example file that cannot be used (file, line and field named)."""


class Example(BaseModel):
    """One labelled question: the plan fields it labels, and where its phrasing comes from."""

    model_config = ConfigDict(frozen=True)

    question: str
    plan: Plan
    labelled: tuple[str, ...]
    source: str
    few_shot: bool = False
    gap: str = ""

    def expected(self) -> dict[str, Any]:
        """The labelled fields, as the plan's JSON gives them (filters without empty ones)."""
        data = self.plan.model_dump(mode="json")
        out = {name: data[name] for name in self.labelled}
        if "filters" in out:
            out["filters"] = {k: v for k, v in out["filters"].items() if v is not None}
        return out


class Examples(BaseModel):
    """Every kind's description and the labelled questions, in file order."""

    kinds: dict[QuestionKind, str]
    questions: list[Example]


def load_examples(path: Path | Traversable | None = None) -> Examples:
    """Read and check the example file: every kind described once, every label a valid Plan."""
    path = path or files("rag") / EXAMPLES_FILE
    kinds: dict[QuestionKind, str] = {}
    questions: list[Example] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{n}"
        try:
            record = json.loads(line)
        except ValueError as exc:
            raise ExampleError(f"{where}: invalid JSON ({exc})") from exc
        if not isinstance(record, dict):
            raise ExampleError(f"{where}: expected an object")
        if "describes" in record:
            kind = _kind(record.get("kind"), where)
            if kind in kinds:
                raise ExampleError(f"{where}: kind {kind.value!r} described twice")
            kinds[kind] = str(record["describes"])
            continue
        questions.append(_example(record, where))
    missing = [k.value for k in QuestionKind if k not in kinds]
    if missing:
        raise ExampleError(f"{path}: no description for kind(s) {missing}")
    return Examples(kinds=kinds, questions=questions)


def _kind(value: object, where: str) -> QuestionKind:
    try:
        return QuestionKind(value)
    except ValueError:
        known = ", ".join(k.value for k in QuestionKind)
        raise ExampleError(f"{where}: field 'kind': {value!r} is not one of {known}") from None


def _example(record: dict[str, Any], where: str) -> Example:
    """One question record as an Example; errors name the line and the field."""
    if not isinstance(record.get("question"), str) or not record["question"].strip():
        raise ExampleError(f"{where}: field 'question' missing or empty")
    _kind(record.get("kind"), where)
    fields = {k: v for k, v in record.items() if k not in _META}
    unknown = sorted(set(fields) - set(Plan.model_fields))
    if unknown:
        raise ExampleError(f"{where}: unknown plan field(s) {unknown}")
    try:
        plan = Plan.model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(map(str, err["loc"]))
        raise ExampleError(f"{where}: field '{field}': {err['msg']}") from None
    return Example(
        question=record["question"],
        plan=plan,
        labelled=tuple(fields),
        source=str(record.get("source", "")),
        few_shot=bool(record.get("few_shot", False)),
        gap=str(record.get("gap", "")),
    )


def few_shot(examples: Examples) -> str:
    """The examples shown to the model planner: one line per question, its labelled fields."""
    return "\n".join(
        f"{e.question} -> {json.dumps(e.expected(), ensure_ascii=False)}"
        for e in examples.questions
        if e.few_shot
    )


def questions_markdown(examples: Examples) -> str:
    """docs/questions.md: each kind, what it asks, and its example questions with their plans."""
    lines = [
        "# Question kinds",
        "",
        "<!-- Generated from rag/data/examples.jsonl by eval/gen_docs.py; do not edit. -->",
        "",
        "Every question is planned into a `Plan` (rag/models.py) whose `kind` picks the "
        "answerer. The examples below are the labelled questions of `rag/data/examples.jsonl`: the "
        "planner test table checks the rules planner against them, and the ones marked "
        "few-shot are shown to the model planner. *Not yet* marks a question the rules planner "
        "does not read as labelled.",
        "",
    ]
    for kind, describes in examples.kinds.items():
        mine = [e for e in examples.questions if e.plan.kind == kind]
        lines += [f"## `{kind.value}`", "", describes[0].upper() + describes[1:] + ".", ""]
        if not mine:
            lines += ["No labelled example yet.", ""]
            continue
        lines += ["| Question | Plan fields | Source |", "|---|---|---|"]
        for e in mine:
            fields = {k: v for k, v in e.expected().items() if k != "kind"}
            said = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
            notes = [e.source] + (["few-shot"] if e.few_shot else [])
            if e.gap:
                notes.append(f"*not yet*: {e.gap}")
            question = e.question.replace("|", "\\|")
            lines.append(f"| {question} | {said.replace('|', '/') or '—'} | {'; '.join(notes)} |")
        lines.append("")
    return "\n".join(lines)
