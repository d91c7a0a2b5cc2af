"""Prompt files load strictly: a broken template fails at start-up, not mid-answer."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rag.prompts import SCHEMA, Prompt, PromptError, load_prompt, load_prompts, prompts_dir

REPO_PROMPTS = Path(__file__).resolve().parents[1] / "prompts"


@pytest.fixture
def prompt_dir(tmp_path: Path) -> Path:
    """A writable copy of the shipped prompt files."""
    target = tmp_path / "prompts"
    target.mkdir()
    for name in SCHEMA:
        text = (prompts_dir() / f"{name}.txt").read_text(encoding="utf-8")
        (target / f"{name}.txt").write_text(text, encoding="utf-8")
    return target


def test_shipped_prompts_are_the_repository_files() -> None:
    shipped = {p.name for p in prompts_dir().iterdir() if p.name.endswith(".txt")}
    assert shipped == {f"{name}.txt" for name in SCHEMA}
    assert shipped == {p.name for p in REPO_PROMPTS.glob("*.txt")}


def test_shipped_prompts_render_every_value_they_are_given() -> None:
    # Read the placeholders off the files themselves, not off the loader's own bookkeeping.
    for name, prompt in load_prompts().items():
        raw = (REPO_PROMPTS / f"{name}.txt").read_text(encoding="utf-8")
        assert set(re.findall(r"(?<!\{){([a-z_]+)}(?!})", raw)) == SCHEMA[name], name
        values = {v: f"<<{v.upper()}-VALUE>>" for v in SCHEMA[name]}
        text = prompt.render(**values)
        assert all(marker in text for marker in values.values()), name
        assert not any("{" + v + "}" in text for v in SCHEMA[name]), name


def test_missing_file_fails_loudly(prompt_dir: Path) -> None:
    (prompt_dir / "condense.txt").unlink()
    with pytest.raises(PromptError, match=r"condense\.txt"):
        load_prompts(prompt_dir)


def test_missing_placeholder_is_named(prompt_dir: Path) -> None:
    path = prompt_dir / "answer_user.txt"
    path.write_text(path.read_text().replace("{question}", "the question"))
    with pytest.raises(PromptError, match=r"missing \['question'\]"):
        load_prompt("answer_user", prompt_dir)


def test_unknown_placeholder_is_named(prompt_dir: Path) -> None:
    path = prompt_dir / "source.txt"
    path.write_text(path.read_text() + "\nYear: {year}")
    with pytest.raises(PromptError, match=r"unknown \['year'\]"):
        load_prompt("source", prompt_dir)


def test_malformed_placeholder_is_rejected(prompt_dir: Path) -> None:
    path = prompt_dir / "source.txt"
    path.write_text(path.read_text() + "\n{0}")
    with pytest.raises(PromptError, match="invalid placeholder"):
        load_prompt("source", prompt_dir)


def test_unknown_prompt_name_is_rejected() -> None:
    with pytest.raises(PromptError, match="unknown prompt 'nope'"):
        load_prompt("nope")


def test_json_braces_in_judge_prompts_survive_rendering() -> None:
    text = load_prompt("judge_faithfulness").render(sources="S", answer="A")
    assert '{"supported": true or false' in text


@pytest.mark.parametrize(
    ("values", "needle"),
    [
        ({"n": 1, "title": "T"}, "got ['n', 'title']"),
        ({"n": 1, "title": "T", "abstract": "A", "year": 2026}, "'year'"),
    ],
    ids=["missing-value", "extra-value"],
)
def test_render_requires_exactly_the_placeholders(values: dict[str, object], needle: str) -> None:
    prompt = load_prompt("source")
    with pytest.raises(PromptError) as err:
        prompt.render(**values)
    assert needle in str(err.value)


def test_render_fills_every_placeholder() -> None:
    prompt = Prompt("demo", "<{a}|{b}>", frozenset({"a", "b"}))
    assert prompt.render(a="x", b=2) == "<x|2>"
