"""The corpus loader both question files share and the deterministic split by style."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.questions.schema import (
    CorpusFileError,
    Style,
    load_questions,
    split_by_style,
)

ITEM = {
    "id": "qa9001",
    "style": "formal",
    "kind": "define",
    "question": "What is superposition?",
    "topic": "superposition",
}


def _write(path: Path, items: list[dict]) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def test_load_questions_reads_both_files_in_order(tmp_path: Path) -> None:
    a = _write(tmp_path / "papers.jsonl", [ITEM, ITEM | {"id": "qa9002", "style": "casual"}])
    b = _write(tmp_path / "collection.jsonl", [ITEM | {"id": "qb9001", "style": "search"}])
    items = load_questions([a, b])
    assert [i.id for i in items] == ["qa9001", "qa9002", "qb9001"]


def test_load_questions_names_file_line_and_field(tmp_path: Path) -> None:
    a = _write(tmp_path / "papers.jsonl", [ITEM, ITEM | {"id": "qa9002", "style": "shouting"}])
    b = _write(tmp_path / "collection.jsonl", [ITEM | {"style": "search"}])
    with pytest.raises(CorpusFileError) as err:
        load_questions([a, b])
    message = str(err.value)
    assert "papers.jsonl:2 (qa9002): style" in message
    assert "collection.jsonl (qa9001): id also used in papers.jsonl" in message


def test_load_questions_default_reads_the_checked_in_files() -> None:
    items = load_questions()
    assert {i.id[:2] for i in items} >= {"qa"}
    assert len({i.id for i in items}) == len(items)


def test_split_by_style_is_a_deterministic_partition() -> None:
    items = load_questions()
    fit_styles = ["formal", Style.CASUAL, "lowercase", "title", "paraphrase", "follow-up"]
    first = split_by_style(items, fit_styles)
    again = split_by_style(reversed(list(reversed(items))), reversed(fit_styles))
    assert [i.id for i in first.fit] == [i.id for i in again.fit]
    assert [i.id for i in first.held] == [i.id for i in again.held]
    assert len(first.fit) + len(first.held) == len(items)
    assert {i.style for i in first.fit} == set(first.fit_styles)
    assert {i.style for i in first.held} == set(first.held_styles)
    assert set(first.fit_styles).isdisjoint(first.held_styles)
    # the reverse split swaps the sides
    reverse = split_by_style(items, first.held_styles)
    assert [i.id for i in reverse.held] == [i.id for i in first.fit]


@pytest.mark.parametrize("styles", [[], list(Style), ["formal", "shouting"]])
def test_split_by_style_rejects_a_split_with_an_empty_side(styles: list) -> None:
    with pytest.raises(ValueError):
        split_by_style([], styles)
