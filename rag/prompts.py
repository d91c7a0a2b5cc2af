"""Prompt templates stored as files in prompts/ (package data), loaded strictly."""

from __future__ import annotations

import string
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path

# The top-level `prompts` package: the repository's prompts/ folder, installed with the wheel.
PROMPTS_PACKAGE = "prompts"

# Each template and exactly the placeholders it must contain.
SCHEMA: dict[str, frozenset[str]] = {
    "refusal": frozenset(),
    "answer_system": frozenset({"refusal"}),
    "answer_user": frozenset({"sources", "question"}),
    "answer_language": frozenset({"language"}),
    "source": frozenset({"n", "title", "abstract"}),
    "condense": frozenset({"history", "question"}),
    "plan": frozenset({"decisions", "areas", "examples"}),
    "judge_faithfulness": frozenset({"sources", "answer"}),
    "judge_correctness": frozenset({"question", "facts", "answer"}),
}


class PromptError(ValueError):
    """A prompt file is missing, or its placeholders differ from what the code fills in."""


class Prompt:
    """A template with named placeholders; rendering requires exactly those names."""

    def __init__(self, name: str, text: str, expected: frozenset[str]) -> None:
        found = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
        bad = {f for f in found if not f.isidentifier()}
        if bad:
            raise PromptError(f"prompt {name!r}: invalid placeholder(s) {sorted(bad)}")
        if found != expected:
            raise PromptError(
                f"prompt {name!r}: placeholders {sorted(found)} but the code fills "
                f"{sorted(expected)} (missing {sorted(expected - found)}, "
                f"unknown {sorted(found - expected)})"
            )
        self.name, self.text, self.variables = name, text, expected

    def render(self, **values: object) -> str:
        """Fill every placeholder; a missing or extra value is an error."""
        if set(values) != self.variables:
            raise PromptError(
                f"prompt {self.name!r} needs {sorted(self.variables)}, got {sorted(values)}"
            )
        return self.text.format(**values)


def prompts_dir() -> Traversable:
    """Where the shipped prompt files are, in a checkout or an installed wheel alike."""
    return files(PROMPTS_PACKAGE)


def load_prompt(name: str, directory: Path | Traversable | None = None) -> Prompt:
    """Load <directory>/<name>.txt (default: the shipped prompts) and check its placeholders."""
    if name not in SCHEMA:
        raise PromptError(f"unknown prompt {name!r}; known: {sorted(SCHEMA)}")
    path = (directory or prompts_dir()) / f"{name}.txt"
    try:
        text = path.read_text(encoding="utf-8").strip("\n")
    except OSError as exc:
        raise PromptError(f"cannot read prompt file {path}: {exc.strerror}") from exc
    return Prompt(name, text, SCHEMA[name])


def load_prompts(directory: Path | Traversable | None = None) -> dict[str, Prompt]:
    """Load and check every prompt, so a broken file fails at start-up, not mid-answer."""
    return {name: load_prompt(name, directory) for name in SCHEMA}
