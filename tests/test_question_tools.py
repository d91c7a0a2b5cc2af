"""Question-corpus tooling: the shared loader, the split by style, the checks against papers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.questions import build
from eval.questions.schema import (
    CorpusFileError,
    Item,
    Style,
    load_questions,
    split_by_style,
)
from rag.models import content_key

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


ABSTRACT = "We introduce FooNet, which cuts latency by 42% on the BarBench benchmark."
PAPERS = build.Papers(
    [build.CorpusPaper(content_key(ABSTRACT), ABSTRACT, title="FooNet: Fast Nets")], []
)
DETAIL = {
    "id": "qa9100",
    "style": "formal",
    "kind": "detail",
    "question": "By how much does FooNet cut latency?",
    "answer_type": "number",
    "named": ["FooNet"],
    "gold_keys": [content_key(ABSTRACT)],
    "facts": ["cuts latency by 42%"],
}


def test_facts_must_occur_in_a_gold_abstract() -> None:
    assert build.corpus_problems(Item.model_validate(DETAIL), PAPERS) == []
    wrong = Item.model_validate(DETAIL | {"facts": ["cuts latency by 24%"]})
    assert build.corpus_problems(wrong, PAPERS) == [
        "facts: 'cuts latency by 24%' occurs in no gold abstract or title"
    ]


def test_off_topic_words_must_occur_in_no_paper() -> None:
    off = {
        "id": "qa9101",
        "style": "formal",
        "kind": "lookup",
        "question": "Any papers on beekeeping?",
        "answer_type": "general",
        "topic": "beekeeping",
        "answerable": False,
    }
    assert build.corpus_problems(Item.model_validate(off), PAPERS) == []
    covered = Item.model_validate(off | {"topic": "barbench latency"})
    assert build.corpus_problems(covered, PAPERS)


def test_style_problems_flag_text_that_breaks_its_style() -> None:
    base = Item.model_validate(DETAIL)
    bad = [
        base.model_copy(update={"id": "qa9102", "style": Style.SEARCH}),
        base.model_copy(update={"id": "qa9103", "style": Style.LOWERCASE}),
        base.model_copy(update={"id": "qa9104", "style": Style.TITLE}),
        base.model_copy(update={"id": "qa9105", "style": Style.OTHER_LANGUAGE, "language": "zh"}),
    ]
    flagged = build.style_problems(bad)
    assert [p.split(":")[0] for p in flagged] == ["qa9102", "qa9103", "qa9104", "qa9105"]
    good = base.model_copy(update={"style": Style.SEARCH, "question": "FooNet latency"})
    assert build.style_problems([good]) == []


def test_checked_in_papers_file_keeps_its_styles() -> None:
    items = [i for i in load_questions() if i.id.startswith("qa")]
    assert build.style_problems(items) == []
