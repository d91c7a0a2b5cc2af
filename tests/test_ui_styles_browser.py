"""Questions typed the way people type them, asked in a real browser on the 4,303-paper index
(issue 27): a casual list request, a search-box query, a two-part question, an off-topic
question and a Chinese question, each answered as the issue says; then two asks of the
collection in one question, and a Chinese question with no Latin letters.

Needs PAPERCHAT_SCALE_DATA_DIR naming the scale index's data dir (eval-scale of
`python -m eval --dataset scale`; copied here, since the app writes into it); skipped without.
Screenshots: tests/artifacts/screenshots/30-casual-list.png … 36-chinese-terms.png.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_ui_browser import CHROMIUM, ask, browser, expect, open_app, page, shot  # noqa: F401

from eval.procs import App

SCALE = os.environ.get("PAPERCHAT_SCALE_DATA_DIR")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium missing (make browser)"),
    pytest.mark.skipif(not SCALE, reason="PAPERCHAT_SCALE_DATA_DIR not set (the scale index)"),
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[App]:
    """The web app on a copy of the scale index."""
    workdir = tmp_path_factory.mktemp("ui-styles")
    data = workdir / "data"
    shutil.copytree(Path(str(SCALE)), data)
    server = App(data, workdir, timeout=600)
    try:
        yield server
    finally:
        server.stop()
    assert "Traceback" not in server.output(), server.output()[-3000:]


def answer_of(pg: Any, question: str) -> tuple[str, int]:
    """Ask in the chat; the last answer's text and how many papers it cites."""
    ask(pg, question, timeout=180_000)
    last = pg.locator("#pc-chat .pc-answer").last
    cited = {a.get_attribute("href") for a in last.locator("a.pc-cite").all()}
    return last.inner_text(), len(cited)


def test_five_styles_on_the_scale_index(served: App, page: Any) -> None:  # noqa: F811
    open_app(page, served.url)

    # A casual opener without "which papers": a list of the topic's papers, not two of them.
    text, cited = answer_of(page, "hey, got any papers on speculative decoding?")
    assert cited >= 10, text[:500]
    shot(page, "30-casual-list")

    # A search-box fragment: the ranked papers, no "No paper matches" above the right ones.
    text, cited = answer_of(page, "sparse attention long context")
    assert "No paper matches" not in text and cited >= 3, text[:500]
    shot(page, "31-search-box")

    # Two questions in one: what it is, and the number it states.
    text, cited = answer_of(
        page, "What is MCP-SafetyBench and how many attack types does it cover?"
    )
    assert "MCP-SafetyBench" in text and "20" in text, text[:800]
    assert "does not state" not in text, text[:800]
    shot(page, "32-two-part")

    # A topic no paper writes about: said absent, the nearest papers named.
    text, _cited = answer_of(page, "Which papers study sourdough bread fermentation?")
    assert "No paper in the index is about" in text and "sourdough" in text, text[:500]
    shot(page, "33-off-topic")

    # Chinese, about a named paper: that paper answers, and the offline answer says it is in
    # English; never "4303 papers match" the whole question.
    hubble = "Hubble: a Model Suite to Advance the Study of LLM Memorization"
    text, cited = answer_of(page, f"这篇论文“{hubble}”的主要发现是什么？")
    first = page.locator("#pc-t5-p1")  # the fifth answer's first paper
    expect(first).to_contain_text("Hubble")
    assert cited == 1, text[:800]
    assert "English" in text and "4303 papers" not in text, text[:800]
    shot(page, "34-chinese")

    # Two asks of the collection: the count, then those papers by decision, as two turns.
    text, _cited = answer_of(
        page, "How many papers use LoRA, and how do they split between orals and posters?"
    )
    assert "papers match" in text and "by decision" in text, text[:800]
    assert "of the previous answer" in text and "Oral" in text, text[:1500]
    shot(page, "35-two-asks")

    # Chinese with no Latin letters: its field's terms read in English offline.
    text, cited = answer_of(page, "有哪些关于扩散模型的论文？")
    assert "diffusion models" in text and cited >= 10, text[:500]
    shot(page, "36-chinese-terms")
