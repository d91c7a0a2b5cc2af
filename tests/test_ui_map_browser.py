"""The Map tab in a real browser: every paper drawn, hover shows a title, a click opens the
paper's card, the last answer's papers ringed.

Runs on the 28-paper fixture; with PAPERCHAT_MAP_DATA_DIR naming a writable data dir (the
4,303-paper scale index, copied: the app stores the map in it) also on that index.
Screenshots: tests/artifacts/screenshots/12-map-<index>.png and 13-map-card-<index>.png.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import build_settings
from test_ui_browser import CHROMIUM, ask, browser, expect, open_app, page, shot  # noqa: F401

from eval.procs import App
from rag.store.embeddings import make_embedder
from rag.store.index import PaperIndex

SCALE = os.environ.get("PAPERCHAT_MAP_DATA_DIR")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium missing (make browser)"),
]

CASES = {
    "collection": "Which papers are about graph neural networks?",
    "scale": "Which orals are about diffusion models?",
}


@pytest.fixture(params=list(CASES))
def served(
    request: pytest.FixtureRequest,
    collection_index_dir: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, App, int]]:
    """(case, the app, how many papers its index holds)."""
    case = request.param
    workdir = tmp_path_factory.mktemp(f"ui-map-{case}")
    if case == "scale":
        if not SCALE:
            pytest.skip("PAPERCHAT_MAP_DATA_DIR not set (a writable copy of the scale index)")
        data = Path(SCALE)
    else:
        data = workdir / "data"
        shutil.copytree(collection_index_dir, data)
    settings = build_settings(data)
    index = PaperIndex(settings, make_embedder(settings, cache=False))
    papers = len(index.catalog())
    index.client.close()
    server = App(data, workdir, timeout=600)
    try:
        yield case, server, papers
    finally:
        server.stop()
    assert "Traceback" not in server.output(), server.output()[-3000:]


def words(text: str) -> list[str]:
    """Lowercase alphanumeric words: titles compared across SVG and HTML rendering."""
    return re.findall(r"[a-z0-9]+", text.lower())


def point_at(pg: Any, trace: int, i: int) -> dict[str, Any]:
    """Page coordinates, id and hover text of point i of a trace of the map."""
    return pg.evaluate(
        """([trace, i]) => {
          const plot = document.querySelector('#pc-map-plot');
          const fl = plot._fullLayout, box = plot.getBoundingClientRect();
          const d = plot.data[trace];
          return {x: box.left + fl.xaxis._offset + fl.xaxis.l2p(d.x[i]),
                  y: box.top + fl.yaxis._offset + fl.yaxis.l2p(d.y[i]),
                  id: d.customdata[i], text: d.hovertext[i]};
        }""",
        [trace, i],
    )


def test_the_map_draws_every_paper_hovers_clicks_and_rings_the_answer(
    served: tuple[str, App, int],
    page: Any,  # noqa: F811 (fixture)
) -> None:
    case, app, papers = served
    open_app(page, app.url)
    ask(page, CASES[case], timeout=300_000)
    answered = page.evaluate(
        "() => [...document.querySelectorAll('#pc-chat .pc-answer-meta')].length"
    )
    assert answered == 1
    page.get_by_role("tab", name="Map").click()
    # Every paper is one SVG point of the first trace.
    page.wait_for_function(
        f"""() => document.querySelectorAll(
              '#pc-map-plot .scatterlayer .trace:first-child .point').length === {papers}""",
        timeout=600_000,
    )
    title = page.locator("#pc-map-plot .gtitle")
    expect(title).to_contain_text(f"{papers:,} papers in")
    # The answer's papers are ringed: the last trace holds them, each at its paper's place.
    ringed = page.evaluate(
        """() => { const d = document.querySelector('#pc-map-plot').data;
                   return d[d.length - 1].customdata.length; }"""
    )
    assert ringed > 0
    last = page.evaluate("() => document.querySelector('#pc-map-plot').data.length - 1")
    first_ringed = point_at(page, last, 0)
    same = page.evaluate(
        """(id) => { const d = document.querySelector('#pc-map-plot').data;
                     const i = d[0].customdata.indexOf(id);
                     const r = d[d.length - 1];
                     return i >= 0 && d[0].x[i] === r.x[0] && d[0].y[i] === r.y[0]; }""",
        first_ringed["id"],
    )
    assert same
    shot(page, f"12-map-{case}")

    # Hover over a paper's point: its title shows; a click opens its card.
    pt = point_at(page, 0, papers // 2)
    page.mouse.move(pt["x"], pt["y"])
    hover = page.locator("#pc-map-plot .hoverlayer .hovertext")
    expect(hover).to_be_visible()
    # SVG text: the title's lines, then "Theme: …" (no line breaks in textContent).
    shown = " ".join((hover.text_content() or "").split())
    assert "Theme:" in shown and "<br>" not in shown  # line breaks, not markup
    title_words = words(shown.split("Theme:")[0])[:4]
    assert title_words
    page.mouse.click(pt["x"], pt["y"])
    card = page.locator("#pc-map-card .pc-card")
    expect(card).to_be_visible(timeout=30_000)
    expect(page.locator("#pc-map-card .pc-map-theme")).to_contain_text("Theme:")
    # The card is the hovered paper's (the point under the mouse).
    assert words(card.inner_text())[: len(title_words)] == title_words
    shot(page, f"13-map-card-{case}")
