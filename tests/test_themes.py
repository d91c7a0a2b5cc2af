"""The conference map and its themes: stored by revision, new papers placed, theme questions."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import REPO_ROOT, build_settings, run_cli

from rag.app.pipeline import Pipeline
from rag.lexicon import load_lexicon
from rag.models import QuestionKind
from rag.questions.theme_words import theme_topic
from rag.store.embeddings import CachedEmbedder
from rag.store.loaders import load_paths

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "theme_questions.jsonl"
QUESTIONS = [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]
FIT = [q for q in QUESTIONS if q["split"] == "fit"]


@pytest.fixture
def coll_pipe(collection_index_dir: Path, tmp_path: Path, embedder: CachedEmbedder) -> Pipeline:
    """A pipeline over a writable copy of the 28-paper collection index."""
    data = tmp_path / "data"
    shutil.copytree(collection_index_dir, data)
    return Pipeline(build_settings(data), embedder=embedder)


@pytest.mark.parametrize("item", FIT, ids=lambda q: f"{q['style']}:{q['question'][:40]}")
def test_theme_questions_are_read_as_such_with_their_topic(item: dict[str, str]) -> None:
    # The fit half of the question set; the held-out half is reported by eval, not asserted.
    topic = theme_topic(item["question"], load_lexicon().themes)
    if item["kind"] != "themes":
        assert topic is None
    elif item["asks"] == "overview":
        assert topic == ""
    else:
        assert topic == item["topic"].lower()


def test_the_map_places_every_paper_and_is_stored_by_revision(coll_pipe: Pipeline) -> None:
    cmap = coll_pipe.conference_map()
    ids = {p.id for p in coll_pipe.catalog().values()}
    assert set(cmap.ids) == ids and len(cmap.x) == len(cmap.y) == len(ids)
    assert sum(t.size for t in cmap.themes) == len(ids)
    for t in cmap.themes:
        members = {pid for pid, k in zip(cmap.ids, cmap.theme, strict=True) if k == t.id}
        assert set(t.paper_ids) == members and t.label
    assert cmap.revision == coll_pipe.index.revision()
    # Kept with the derived indexes, at the index's revision.
    assert coll_pipe.derived.stored_revision("map") == cmap.revision
    # Another process reads the stored map instead of laying it out again.
    again = Pipeline(coll_pipe.settings, embedder=coll_pipe.embedder).conference_map()
    assert again.model_dump() == cmap.model_dump()


def test_a_torn_map_file_is_rebuilt_not_trusted(coll_pipe: Pipeline) -> None:
    cmap = coll_pipe.conference_map()
    (path,) = (coll_pipe.derived.root / "map").glob("*/map.json")
    path.write_text(path.read_text()[:200])
    fresh = Pipeline(coll_pipe.settings, embedder=coll_pipe.embedder).conference_map()
    assert fresh.ids == cmap.ids
    (path,) = (coll_pipe.derived.root / "map").glob("*/map.json")
    assert json.loads(path.read_text())["ids"] == cmap.ids


def test_an_added_paper_is_placed_without_moving_the_others(
    tmp_path: Path, sample_path: Path, embedder: CachedEmbedder
) -> None:
    papers = load_paths([sample_path]).papers
    settings = build_settings(tmp_path / "data", map={"place_share": 0.1})
    pipe = Pipeline(settings, embedder=embedder)
    pipe.index.ingest(papers[:-1])
    before = pipe.conference_map()
    assert before.placed == 0 and len(before) == len(papers) - 1
    pipe.index.ingest(papers[-1:])
    after = pipe.conference_map()
    assert after.placed == 1 and len(after) == len(papers)
    assert after.revision == pipe.index.revision() != before.revision
    old = before.positions()
    new = after.positions()
    assert all(new[pid] == xy for pid, xy in old.items())
    assert papers[-1].id in after.theme_of()


def test_the_main_themes_are_answered_with_sizes_central_papers_and_a_chart(
    coll_pipe: Pipeline,
) -> None:
    answer = coll_pipe.ask("What are the main research themes?")
    cmap = coll_pipe.conference_map()
    assert answer.plan is not None and answer.plan.kind == QuestionKind.THEMES
    assert answer.count == len(cmap.themes)
    ranked = sorted(cmap.themes, key=lambda t: -t.size)
    assert list(answer.chart.values()) == [t.size for t in ranked]
    # Each theme cites its most central paper, largest theme first.
    assert [c.paper_id for c in answer.citations] == [t.paper_ids[0] for t in ranked]
    for t in ranked:
        assert f"**{t.label}**: {t.size} paper" in answer.text


def test_how_big_the_theme_on_a_topic_is(coll_pipe: Pipeline) -> None:
    answer = coll_pipe.ask("how big is the theme on graph neural networks?")
    assert answer.plan is not None and answer.plan.topic == "graph neural networks"
    cmap = coll_pipe.conference_map()
    by_label = {t.label: t for t in cmap.themes}
    best = by_label[next(iter(answer.chart))]
    # The theme named first holds the most papers matching the topic, and its central papers
    # are the first cited.
    matched = coll_pipe.ask("which papers are about graph neural networks?").paper_ids()
    theme_of = cmap.theme_of()
    held = {label: sum(theme_of[p].label == label for p in matched) for label in by_label}
    assert answer.chart[best.label] == max(held.values())
    assert [c.paper_id for c in answer.citations[:3]] == best.paper_ids[:3]
    assert f"{best.size} of the {len(cmap)} papers" in answer.text


def test_themes_on_an_empty_index_say_so(tmp_path: Path, embedder: CachedEmbedder) -> None:
    pipe = Pipeline(build_settings(tmp_path / "data"), embedder=embedder)
    answer = pipe.collection.answer(
        "what are the main themes?", pipe.planner.plan("themes", None, use_model=False)
    )
    assert answer is not None and answer.refused and "no papers" in answer.text


@pytest.mark.slow
def test_map_and_themes_from_the_cli(collection_index_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(collection_index_dir, data)
    done = run_cli("themes", "--json", "--data-dir", data, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert listed["papers"] == 28 and sum(t["size"] for t in listed["themes"]) == 28
    sizes = [t["size"] for t in listed["themes"]]
    assert sizes == sorted(sizes, reverse=True)
    assert {pid for t in listed["themes"] for pid in t["paper_ids"]} == {
        json.loads(line)["openreview_id"]
        for line in (REPO_ROOT / "tests" / "fixtures" / "collection.jsonl").read_text().splitlines()
    }
    out = tmp_path / "map.html"
    question = "Which papers are about graph neural networks?"
    done = run_cli(
        "map", "--out", out, "--question", question, "--json", "--data-dir", data, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["papers"] == 28 and report["themes"] == len(listed["themes"])
    assert report["highlighted"] >= 10
    page = out.read_text()
    # A standalone page: plotly.js inlined (offline), every paper's id in the figure.
    assert "<script" in page and not re.search(r"<script[^>]*src=\"https?:", page)
    assert all(pid in page for t in listed["themes"] for pid in t["paper_ids"])
