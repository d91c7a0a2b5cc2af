"""The labelled question corpus (eval/questions): schema, coverage, gold sets against papers."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval.questions import build
from eval.questions.schema import Item, load_items

FILES = [build.HERE / name for name in build.FILE_KINDS]


def _present() -> list[Path]:
    return [path for path in FILES if path.exists()]


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[Item]]:
    """The items of each corpus file present; fails on any schema problem."""
    if not _present():
        pytest.skip("no question corpus file yet")
    out = {}
    for path in _present():
        items, problems = load_items(path)
        assert problems == [], "\n".join(problems[:20])
        out[path.name] = items
    return out


@pytest.fixture(scope="module")
def papers(shared_data: Path | None) -> build.Papers:
    """The 4,302 accepted papers and the 19 sample abstracts (built once for the module)."""
    path = shared_data / build.CORPUS_NAME if shared_data else None
    if path is None or not path.is_file():
        pytest.skip(f"{build.CORPUS_NAME} not available (set PAPERCHAT_SHARED_DATA)")
    return build.Papers(build.read_corpus(path), build.read_seed(build.SEED))


def test_ids_are_unique_across_files(loaded: dict[str, list[Item]]) -> None:
    ids = [item.id for items in loaded.values() for item in items]
    assert len(ids) == len(set(ids))


def test_each_file_holds_only_its_kinds(loaded: dict[str, list[Item]]) -> None:
    for name, items in loaded.items():
        stray = {i.kind.value for i in items} - set(build.FILE_KINDS[name])
        assert not stray, f"{name} holds kinds of the other file: {stray}"


def test_every_kind_style_cell_is_filled(loaded: dict[str, list[Item]]) -> None:
    for name, items in loaded.items():
        assert build.thin_cells(items, build.FILE_KINDS[name]) == []


def test_schema_rejects_broken_items() -> None:
    good = {
        "id": "qa9999",
        "style": "two-part",
        "kind": "detail",
        "second_kind": "metadata",
        "question": "What does SHAPO propose and is it an oral?",
        "answer_type": "contribution",
        "named": ["SHAPO"],
        "gold_keys": ["8e279e918094bcee"],
        "facts": ["SHAPO"],
    }
    Item.model_validate(good)
    for broken in (
        {"second_kind": None},
        {"style": "follow-up"},
        {"kind": "lookup", "answer_type": None},
        {"answerable": False},
        {"id": "x1"},
        {"filters": {"decision": "oral"}},
        {"gold_rule": {"patterns": ["(unclosed"]}},
    ):
        with pytest.raises(ValueError):
            Item.model_validate(good | broken)


@pytest.mark.corpus
def test_items_agree_with_the_papers(loaded: dict[str, list[Item]], papers: build.Papers) -> None:
    problems = [
        f"{item.id}: {problem}"
        for items in loaded.values()
        for item in items
        for problem in build.corpus_problems(item, papers)
    ]
    assert problems == [], "\n".join(problems[:20])


@pytest.mark.corpus
def test_computed_gold_sets_are_stored(loaded: dict[str, list[Item]], papers: build.Papers) -> None:
    stale = [
        item.id
        for items in loaded.values()
        for item in items
        if build.compute(item, papers) != item
    ]
    assert stale == [], f"run python -m eval.questions.build --write: stale {stale[:10]}"


def test_sample_items_ask_only_what_the_sample_can_answer(loaded: dict[str, list[Item]]) -> None:
    # the sample has no titles, areas, decisions or ratings: of the collection kinds only
    # list and count by topic make sense over it
    sample_kinds = {"list", "count"} | set(build.FILE_KINDS["papers.jsonl"]) - {"metadata"}
    wrong = [
        i.id
        for items in loaded.values()
        for i in items
        if i.corpus.value == "sample" and i.kind.value not in sample_kinds
    ]
    assert wrong == []


@pytest.mark.corpus
def test_rating_gold_sets_are_best_first(
    loaded: dict[str, list[Item]], papers: build.Papers
) -> None:
    for item in (i for items in loaded.values() for i in items if i.kind.value == "rating"):
        values = [papers.by_key[k].rating for k in item.gold_keys]
        values = [v for v in values if v is not None]
        assert values == sorted(values, reverse=True), item.id
        assert not values or values[0] == item.top_rating, item.id


def test_the_development_sets_are_valid_and_agree_with_the_papers(papers: build.Papers) -> None:
    # eval/dev/: labelled like the corpus, so the style report reads them (--corpus).
    dev = sorted((build.REPO / "eval" / "dev").glob("*.jsonl"))
    assert dev
    for path in dev:
        items, problems = load_items(path)
        problems += [f"{i.id}: {p}" for i in items for p in build.corpus_problems(i, papers)]
        assert problems == [], f"{path.name}: " + "\n".join(problems[:20])
        assert all(i.id.startswith("qd") for i in items)
