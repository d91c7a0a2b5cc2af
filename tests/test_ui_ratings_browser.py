"""Reviewer ratings in a real browser, on the rated fixture (tests/fixtures/rated.jsonl).

Expected values come from the fixture's records. Screenshots: tests/artifacts/screenshots/
20-ratings-answer.png, 21-ratings-sorted.png, 22-min-rating.png, 23-ratings-by-area.png,
24-rating-distribution.png.
"""

from __future__ import annotations

import csv
import json
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, build_settings
from test_ui_browser import CHROMIUM, ask, browser, expect, open_app, page, shot  # noqa: F401

from eval.procs import App
from rag.store.embeddings import CachedEmbedder
from rag.store.index import PaperIndex
from rag.store.loaders import load_paths

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "rated.jsonl"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium missing (make browser)"),
]


def _ratings() -> dict[str, float | None]:
    out = {}
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        value = r.get("avg_rating", r.get("rating"))
        out[r["openreview_id"]] = None if value is None else float(value)
    return out


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder) -> Iterator[Any]:
    """The app in offline mode on an index of the rated fixture."""
    workdir = tmp_path_factory.mktemp("ui-ratings")
    data = workdir / "data"
    index = PaperIndex(build_settings(data), embedder)
    index.ingest(load_paths([FIXTURE]).papers)
    index.client.close()
    server = App(data, workdir)
    try:
        yield server
    finally:
        server.stop()
    assert "Traceback" not in server.output(), server.output()


def column(pg: Any, table: str, header: str) -> list[str]:
    """The texts of one column of the rows a results table renders."""
    headers = pg.evaluate(
        "(sel) => [...document.querySelectorAll(sel + ' th[role=columnheader]')]"
        ".map((th) => th.getAttribute('title'))",
        table,
    )
    return pg.evaluate(
        """([sel, col]) => [...document.querySelectorAll(sel + ' .virtual-row')]
          .map((row) => row.querySelector(`[data-col="${col}"]`)?.innerText.trim() ?? '')""",
        [table, headers.index(header)],
    )


def _numbers(cells: list[str]) -> list[float]:
    return [float(c) for c in cells if c]


def test_rating_answer_card_sortable_table_chart_and_csv(
    app: Any,
    page: Any,  # noqa: F811 (fixture)
    tmp_path: Path,
) -> None:
    ratings = _ratings()
    open_app(page, app.url)
    ask(page, "Which of the diffusion papers were rated best?")
    expect(page.locator("#pc-results")).to_be_visible()
    ids = column(page, "#pc-results-table", "ID")
    shown = _numbers(column(page, "#pc-results-table", "Rating"))
    # The table lists the answer's papers best-rated first, as the fixture rates them.
    assert shown == sorted(shown, reverse=True)
    assert shown == [round(ratings[i], 2) for i in ids if ratings[i] is not None]  # type: ignore[arg-type]
    counts = column(page, "#pc-results-table", "Ratings")
    assert all(c.isdigit() for c in counts)
    card = page.locator("#pc-sources-panel .pc-card").first
    expect(card.locator(".pc-rating")).to_have_text(f"rating {max(shown):.2f} from 4 ratings")
    expect(page.locator("#pc-answer-chart img.pc-chart")).to_have_attribute(
        "alt", f"{len(shown)} rated papers per average rating"
    )
    expect(page.locator("#pc-chat .pc-answer").last).to_contain_text("tied with")
    shot(page, "20-ratings-answer", full_page=True)

    # Sorting by the Rating column (the table's own menu) orders the rows by it.
    header = page.locator("#pc-results-table th[title=Rating]")
    header.hover()
    # The menu button shows on hover only.
    page.wait_for_timeout(300)
    header.locator("button.cell-menu-button").click(force=True)
    page.locator("button", has_text="Sort ascending").first.click()
    expect(page.locator("#pc-results-table .virtual-row").first).to_contain_text(
        f"{min(shown):g}"
    )
    ascending = _numbers(column(page, "#pc-results-table", "Rating"))
    assert ascending == sorted(shown)
    shot(page, "21-ratings-sorted", full_page=True)

    with page.expect_download() as info:
        page.click("#pc-results-dl-csv")
    path = tmp_path / "rated.csv"
    info.value.save_as(path)
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert {r["paper_id"] for r in rows} == set(ids)
    for r in rows:
        expected = ratings[r["paper_id"]]
        assert (float(r["avg_rating"]) if r["avg_rating"] else None) == pytest.approx(
            expected, abs=1e-3
        )


def test_a_few_ratings_card_is_marked(app: Any, page: Any) -> None:  # noqa: F811 (fixture)
    open_app(page, app.url)
    ask(page, "which papers on deferral to unseen experts are rated best?")
    card = page.locator("#pc-sources-panel .pc-card").first
    expect(card.locator(".pc-rating")).to_have_text("rating 7.00 from only 2 ratings (few)")


def test_min_rating_control_filters_and_shows_a_chip(app: Any, page: Any) -> None:  # noqa: F811 (fixture)
    expected = {i for i, r in _ratings().items() if r is not None and r >= 7.5}
    open_app(page, app.url)
    page.click("#pc-settings")
    box = page.locator("#pc-min-rating input[type=number]")
    slider = page.locator("#pc-min-rating input[type=range]")
    # The slider takes the typed value asynchronously, and a value typed before the control is
    # live is sometimes dropped: type it again until the slider shows it, then ask.
    for _ in range(3):
        box.fill("7.5")
        box.press("Enter")
        try:
            expect(slider).to_have_value("7.5", timeout=3000)
            break
        except AssertionError:
            continue
    expect(slider).to_have_value("7.5")
    ask(page, "How many papers are there?")
    answer = page.locator("#pc-chat .pc-answer").last
    expect(answer).to_contain_text(f"{len(expected)}")
    expect(answer).to_contain_text("rated 7.5 or higher")
    chip = page.locator("#pc-chip-min_rating")
    expect(chip).to_have_text("Rating ≥ 7.5 ×")
    assert set(column(page, "#pc-results-table", "ID")) == expected
    shot(page, "22-min-rating", full_page=True)


def test_ratings_by_area_are_listed_with_their_chart(app: Any, page: Any) -> None:  # noqa: F811 (fixture)
    open_app(page, app.url)
    ask(page, "Which area has the best-rated papers?")
    answer = page.locator("#pc-chat .pc-answer").last
    expect(answer).to_contain_text("By mean reviewer rating")
    rated = sum(r is not None for r in _ratings().values())
    expect(page.locator("#pc-answer-chart img.pc-chart")).to_have_attribute(
        "alt", f"Mean rating per area of {rated} rated papers (axis does not start at 0)"
    )
    shot(page, "23-ratings-by-area", full_page=True)


def test_a_rating_distribution_is_summarised_and_charted(app: Any, page: Any) -> None:  # noqa: F811 (fixture)
    records = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    on_topic = [
        float(r.get("avg_rating", r.get("rating")))
        for r in records
        if "diffusion" in " ".join([r["title"], *r.get("keywords", []), r["abstract"]]).lower()
        and r.get("avg_rating", r.get("rating")) is not None
    ]
    open_app(page, app.url)
    ask(page, "What is the rating distribution of the diffusion papers?")
    answer = page.locator("#pc-chat .pc-answer").last
    expect(answer).to_contain_text(f"mean {statistics.mean(on_topic):.2f}")
    expect(answer).to_contain_text(f"median {statistics.median(on_topic):.2f}")
    expect(page.locator("#pc-answer-chart img.pc-chart")).to_have_attribute(
        "alt", f"{len(on_topic)} rated papers per average rating"
    )
    shot(page, "24-rating-distribution", full_page=True)
