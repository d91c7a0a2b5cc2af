"""The results table, chips, chart and exports in a real browser, on the 28-paper fixture.

The fixture (tests/fixtures/collection.jsonl) holds real ICLR 2026 records: 10 whose title or
keywords name graph neural networks, 6 orals, the rest posters across 12 primary areas.
Screenshots: tests/artifacts/screenshots/10-results-table.png and 11-corpus-charts.png.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT
from test_ui_browser import CHROMIUM, ask, browser, expect, open_app, page, shot  # noqa: F401

from eval.procs import App

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "collection.jsonl"
GNN_QUESTION = "Which papers are about graph neural networks?"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium missing (make browser)"),
]


def _gnn_gold() -> set[str]:
    """The rule the fixture was cut by: 'graph neural network' or 'GNN' in title or keywords."""
    gold = set()
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        text = (r["title"] + " " + " ".join(r["keywords"])).lower()
        if "graph neural network" in text or "gnn" in text:
            gold.add(r["openreview_id"])
    return gold


@pytest.fixture(scope="module")
def app(collection_index_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The app in offline mode on a copy of the collection fixture's index."""
    workdir = tmp_path_factory.mktemp("ui-results")
    data = workdir / "data"
    shutil.copytree(collection_index_dir, data)
    server = App(data, workdir)
    try:
        yield server
    finally:
        server.stop()
    assert "Traceback" not in server.output(), server.output()


def headers(pg: Any, table: str) -> list[str]:
    """The header texts of a results table."""
    return pg.evaluate(
        "(sel) => [...document.querySelectorAll(sel + ' th[role=columnheader]')]"
        ".map((th) => th.getAttribute('title'))",
        table,
    )


def table_ids(pg: Any, table: str) -> list[str]:
    """The ID column of the rows a results table renders (it virtualises long tables)."""
    col = headers(pg, table).index("ID")
    return pg.evaluate(
        """([sel, col]) => [...document.querySelectorAll(sel + ' .virtual-row')]
          .map((row) => row.querySelector(`[data-col="${col}"]`)?.innerText.trim())
          .filter((v) => v)""",
        [table, col],
    )


def test_list_answer_table_export_card_and_chart(app: Any, page: Any, tmp_path: Path) -> None:  # noqa: F811 (fixture)
    open_app(page, app.url)
    ask(page, GNN_QUESTION)
    box = page.locator("#pc-results")
    expect(box).to_be_visible()
    expect(page.locator("#pc-results-caption")).to_contain_text("10 papers")
    gold = _gnn_gold()
    assert len(gold) == 10
    shown = table_ids(page, "#pc-results-table")
    assert set(shown) == gold
    cols = headers(page, "#pc-results-table")
    assert cols == ["Title", "Area", "Decision", "Score", "Keywords", "OpenReview", "ID"]
    link = page.locator(
        "#pc-results-table .virtual-row a[href^='https://openreview.net/forum?id=']"
    )
    assert link.count() == 10
    expect(page.locator("#pc-answer-chart img.pc-chart")).to_be_visible()
    shot(page, "10-results-table", full_page=True)

    with page.expect_download() as info:
        page.click("#pc-results-dl-csv")
    path = tmp_path / "results.csv"
    info.value.save_as(path)
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert [r["paper_id"] for r in rows] == shown  # the shown set, best first
    assert all(r["url"] == f"https://openreview.net/forum?id={r['paper_id']}" for r in rows)
    assert {r["decision"] for r in rows} == {"Poster"}

    # The search box narrows the table and the export to the same rows.
    page.locator("#pc-results-search textarea, #pc-results-search input").first.fill("explan")
    expect(page.locator("#pc-results-caption")).to_contain_text("2 of 10 papers match")
    narrowed = table_ids(page, "#pc-results-table")
    assert len(narrowed) == 2 and set(narrowed) <= gold
    with page.expect_download() as info:
        page.click("#pc-results-dl-jsonl")
    info.value.save_as(tmp_path / "narrow.jsonl")
    lines = (tmp_path / "narrow.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["paper_id"] for line in lines] == narrowed

    # A click on a row opens that paper's card.
    page.locator("#pc-results-table .virtual-row [data-col='0']").first.click()
    card = page.locator("#pc-results-card .pc-card")
    expect(card).to_be_visible()
    expect(card).to_contain_text(narrowed[0])


def test_filter_chip_removal_re_asks_without_it(app: Any, page: Any) -> None:  # noqa: F811 (fixture)
    open_app(page, app.url)
    ask(page, "Which oral papers are about language models?")
    chip = page.locator("#pc-chip-decision")
    expect(chip).to_be_visible()
    expect(chip).to_contain_text("Oral ×")
    with_filter = table_ids(page, "#pc-results-table")
    assert with_filter
    chip.click()
    page.wait_for_function(
        "document.querySelectorAll('#pc-chat .pc-answer-meta, #pc-chat .pc-error').length > 1",
        timeout=90_000,
    )
    expect(chip).to_be_hidden()
    expect(page.locator("#pc-results-title")).not_to_contain_text("Oral")
    without = table_ids(page, "#pc-results-table")
    assert set(with_filter) < set(without)  # the posters on the topic join


def test_corpus_tab_table_and_charts(app: Any, page: Any) -> None:  # noqa: F811 (fixture)
    open_app(page, app.url)
    page.get_by_role("tab", name="Corpus").click()
    expect(page.locator("#pc-corpus-caption")).to_contain_text("28 papers")
    assert table_ids(page, "#pc-corpus-table")
    cols = headers(page, "#pc-corpus-table")
    assert cols == ["Title", "Area", "Decision", "Keywords", "OpenReview", "ID"]
    charts = page.locator("#pc-corpus-charts img.pc-chart")
    expect(charts).to_have_count(3)
    alts = [charts.nth(i).get_attribute("alt") for i in range(3)]
    assert alts == ["Papers per primary area", "Orals per primary area", "Top keywords"]
    expect(page.locator("#pc-stats")).to_contain_text("Primary areas")
    shot(page, "11-corpus-charts", full_page=True)


def test_counts_by_area_are_listed_largest_first(app: Any, page: Any) -> None:  # noqa: F811 (fixture)
    open_app(page, app.url)
    ask(page, "Which primary areas have the most papers?")
    answer = page.locator("#pc-chat .pc-answer").last
    expect(answer).to_contain_text("28 papers by primary area")
    first = answer.locator("li").first
    expect(first).to_have_text("datasets and benchmarks: 5")
    expect(first.locator("strong")).to_have_text("5")
    shot(page, "counts-by-area", full_page=True)
