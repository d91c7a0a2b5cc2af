# ruff: noqa: F811 - pytest fixtures imported from test_ui_browser are parameters by name
"""Issue 11's question sequence in a real browser: named papers, follow-ups, readable text, weak.

Screenshots: tests/artifacts/screenshots/issue11-*.png.
"""

from __future__ import annotations

from typing import Any

from test_ui_browser import (  # noqa: F401 - fixtures are used by name
    App,
    app,
    ask,
    browser,
    data_copy,
    expect,
    open_app,
    page,
    pytestmark,
    shot,
    workdir,
)

ANSWERS = "#pc-chat .pc-answer"
WEAK_BUTTON = "#pc-show-weak"


def last_answer(pg: Any) -> Any:
    """The newest answer bubble."""
    return pg.locator(ANSWERS).last


def test_named_papers_follow_ups_and_readable_text(app: App, page: Any) -> None:
    open_app(page, app.url)
    ask(page, "What does Qronos do and how much memory does it save?")
    first = last_answer(page)
    expect(first).to_contain_text("18×")
    expect(first).not_to_contain_text("\\times")
    expect(first.locator(".pc-refused")).to_have_count(0)
    # The closest-evidence offer belongs to refusals only.
    expect(page.locator(WEAK_BUTTON)).to_be_hidden()
    expect(page.locator("#pc-sources-panel .pc-card").first).to_contain_text("Qronos")
    shot(page, "issue11-qronos-memory", full_page=True)

    ask(page, "Compare the two papers on superposition")
    compare = last_answer(page)
    expect(compare.locator(".pc-refused")).to_have_count(0)
    expect(compare).to_contain_text("superposition")
    shot(page, "issue11-compare-superposition", full_page=True)

    ask(page, "How do I make a big model's knowledge transfer to a small one more stable?")
    amid = last_answer(page)
    expect(amid.locator(".pc-refused")).to_have_count(0)
    expect(amid).to_contain_text("AMiD")

    ask(page, "How many attack types does MCP-SafetyBench cover?")
    mcp = last_answer(page)
    expect(mcp).to_contain_text("20 MCP attack types")
    expect(mcp).not_to_contain_text("\\textbf")
    ask(page, "Which models did they evaluate?")
    expect(last_answer(page)).to_contain_text("MCP-SafetyBench")
    expect(last_answer(page).locator(".pc-refused")).to_have_count(0)
    shot(page, "issue11-mcp-follow-up", full_page=True)

    ask(page, "Which hardware did Qronos use?")
    expect(last_answer(page)).to_contain_text("The abstract of Qronos does not state")
    shot(page, "issue11-missing-detail", full_page=True)


def test_refusal_explains_and_offers_the_closest_evidence(app: App, page: Any) -> None:
    open_app(page, app.url)
    expect(page.locator(WEAK_BUTTON)).to_be_hidden()
    ask(page, "Which paper predicts crop yields from remote sensing data?")
    refused = last_answer(page)
    expect(refused.locator(".pc-refused")).to_have_count(1)
    expect(refused).to_contain_text("short of the")
    expect(page.locator(WEAK_BUTTON)).to_be_visible()
    shot(page, "issue11-refusal", full_page=True)
    before = page.locator("#pc-chat .pc-answer-meta").count()
    page.click(WEAK_BUTTON)
    page.wait_for_function(
        "document.querySelectorAll('#pc-chat .pc-weak').length > 0", timeout=90_000
    )
    expect(page.locator("#pc-chat .pc-answer-meta")).to_have_count(before)
    expect(last_answer(page).locator(".pc-weak")).to_have_count(1)
    expect(last_answer(page).locator(".pc-refused")).to_have_count(0)
    # Answered (weakly): nothing left to offer until the next refusal.
    expect(page.locator(WEAK_BUTTON)).to_be_hidden()
    shot(page, "issue11-weak-evidence", full_page=True)


def test_topics_compared_side_by_side(app: App, page: Any) -> None:
    open_app(page, app.url)
    ask(page, "Compare reinforcement learning and diffusion papers")
    answer = last_answer(page)
    expect(answer.locator(".pc-refused")).to_have_count(0)
    expect(answer).to_contain_text("No paper is named")
    expect(answer).to_contain_text("“reinforcement learning”: 1, 2")  # [n] drawn as chips
    expect(page.locator("#pc-sources-panel .pc-card")).to_have_count(4)
    shot(page, "compare-topics", full_page=True)
