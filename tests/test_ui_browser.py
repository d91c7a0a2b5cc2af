"""The web app in a real browser: `paperchat serve` in a subprocess, driven by headless chromium.

Screenshots go to tests/artifacts/screenshots/. The time from submit to the first streamed token
is printed (run with -s to see it); nothing asserts on timing.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT
from openai_server import FakeOpenAIServer

from eval.procs import App

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
SHOTS = REPO_ROOT / "tests" / "artifacts" / "screenshots"
READY = "#pc-question textarea:enabled"
ANSWERED = "#pc-chat .pc-answer-meta, #pc-chat .pc-error"
QUESTION = "What does SHAPO propose?"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="/usr/bin/chromium missing: apt-get install chromium (make browser)",
    ),
]

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

# Every toast Gradio shows, kept from the moment the page loads.
TOASTS_INIT = """
window.__toasts = [];
new MutationObserver(() => {
  for (const el of document.querySelectorAll('.toast-body')) {
    const text = el.innerText.trim();
    if (text && !window.__toasts.includes(text)) window.__toasts.push(text);
  }
}).observe(document, {subtree: true, childList: true});
"""
TOASTS = "() => window.__toasts || []"


# -- the app in a subprocess -------------------------------------------------------------------


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Scratch directory shared by this module's servers and files."""
    return tmp_path_factory.mktemp("ui-browser")


@pytest.fixture(scope="module")
def data_copy(sample_index_dir: Path, workdir: Path) -> Path:
    """A writable copy of the 19-paper sample index for this module's servers."""
    target = workdir / "data"
    shutil.copytree(sample_index_dir, target)
    return target


@pytest.fixture(scope="module")
def app(data_copy: Path, workdir: Path) -> Iterator[App]:
    """The app in offline mode; its log must hold no traceback at the end."""
    server = App(data_copy, workdir)
    try:
        yield server
    finally:
        server.stop()
    assert "Traceback" not in server.output(), server.output()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless chromium, driven by Playwright."""
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh browser context (own storage) at laptop size."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    context.add_init_script(TOASTS_INIT)
    pg = context.new_page()
    try:
        yield pg
    finally:
        context.close()


# -- helpers -----------------------------------------------------------------------------------


def shot(pg: Any, name: str, full_page: bool = False) -> Path:
    """Save a screenshot under tests/artifacts/screenshots/."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path), full_page=full_page)
    return path


def open_app(pg: Any, url: str) -> None:
    """Load the app and wait until the question box is enabled (state restored)."""
    pg.goto(url)
    pg.wait_for_selector(READY, timeout=60_000)


def ask(pg: Any, question: str, timeout: float = 90_000) -> None:
    """Submit a question and wait for its finished answer (or its error message)."""
    before = pg.locator(ANSWERED).count()
    pg.fill("#pc-question textarea", question)
    pg.press("#pc-question textarea", "Enter")
    pg.wait_for_function(
        f"document.querySelectorAll({json.dumps(ANSWERED)}).length > {before}", timeout=timeout
    )


def card_for(pg: Any, turn: int, n: int) -> Any:
    """The sources-panel card holding citation n of answer `turn`."""
    return pg.locator(f"#pc-sources-panel .pc-card:has(#pc-t{turn}-c{n})")


def first_token_seconds(pg: Any, question: str) -> float:
    """Submit a question; seconds from the Enter key to the first streamed text in the chat."""
    pg.evaluate(
        """() => {
          window.__pcT = {};
          const chat = document.querySelector('#pc-chat');
          const done = () => chat.querySelectorAll('.pc-answer-meta, .pc-error').length;
          const before = done();
          const seen = () => chat.querySelector('.pc-caret') || done() > before;
          if (window.__pcObs) window.__pcObs.disconnect();
          window.__pcObs = new MutationObserver(() => {
            if (!window.__pcT.first && window.__pcT.submit && seen()) {
              window.__pcT.first = performance.now();
            }
          });
          window.__pcObs.observe(chat, {subtree: true, childList: true, characterData: true});
          document.querySelector('#pc-question textarea').addEventListener('keydown', (e) => {
            if (e.key === 'Enter') window.__pcT.submit = performance.now();
          }, {capture: true, once: true});
        }"""
    )
    ask(pg, question)
    t = pg.evaluate("() => window.__pcT")
    return (t["first"] - t["submit"]) / 1000


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    """Write records as JSON lines."""
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def upload(pg: Any, path: Path) -> str:
    """Upload one file in the Corpus tab and return the ingest report's text."""
    pg.get_by_role("tab", name="Corpus").click()
    # The tab refreshes its figures when selected; that re-render moves the button, and a
    # click landing while it does is lost (seen in CI): choose the file once it has arrived.
    expect(pg.locator("#pc-corpus-caption")).to_contain_text("papers", timeout=30_000)
    pg.locator("#pc-files input[type=file]").set_input_files(str(path))
    expect(pg.locator("#pc-files")).to_contain_text(path.stem, timeout=30_000)
    pg.click("#pc-ingest")
    result = pg.locator("#pc-ingest-result .pc-ingest")
    try:
        expect(result).to_be_visible(timeout=120_000)
    except AssertionError as exc:
        # Gradio's toasts (a refused event says why there) are gone by the time a report is read.
        raise AssertionError(f"no ingest report; toasts: {pg.evaluate(TOASTS)}") from exc
    return result.inner_text()


def paper_count(pg: Any) -> int:
    """Papers in the index, as the Corpus tab shows them."""
    return int(pg.locator("#pc-stats").get_attribute("data-papers"))


# -- chat --------------------------------------------------------------------------------------


def test_streamed_answer_with_citations_and_click_shows_source(app: App, page: Any) -> None:
    open_app(page, app.url)
    expect(page.locator("#pc-chat")).to_contain_text("propose?")  # examples from the corpus
    shot(page, "01-empty")
    seconds = first_token_seconds(page, QUESTION)
    print(f"\nsubmit -> first streamed token (offline extractive, browser): {seconds:.3f} s")
    answer = page.locator("#pc-chat .pc-answer").last
    expect(answer).to_contain_text("SHAPO")
    cites = answer.locator("a.pc-cite")
    assert cites.count() >= 1
    assert cites.first.get_attribute("href") == "#pc-t1-c1"
    shot(page, "02-answer")

    card = card_for(page, 1, 1)
    expect(card).to_contain_text("SHAPO")
    expect(card.locator("mark").first).to_be_visible()
    page.locator("#pc-sources-panel .pc-sources").evaluate("el => el.scrollTo(0, 99999)")
    cites.first.click()
    expect(card).to_have_class("pc-card pc-flash")
    expect(card).to_be_in_viewport()
    assert page.url.rstrip("/") == app.url.rstrip("/")  # no navigation, no new tab
    shot(page, "03-citation-clicked")
    warm = first_token_seconds(page, "What is Qronos?")
    print(f"submit -> first streamed token, second question: {warm:.3f} s")


def test_citation_in_older_answer_switches_the_sources_panel(app: App, page: Any) -> None:
    open_app(page, app.url)
    ask(page, QUESTION)
    ask(page, "What is Qronos?")
    # The panel is the answer's second output: it may land a moment after the answer's text.
    turns = page.locator("#pc-sources-panel section.pc-turn")
    expect(turns).to_have_count(2)
    first, second = turns.all()
    expect(second).to_be_visible()
    expect(first).to_be_hidden()
    page.locator("#pc-chat .pc-answer").first.locator("a.pc-cite").first.click()
    expect(first).to_be_visible()
    expect(second).to_be_hidden()
    expect(card_for(page, 1, 1)).to_be_in_viewport()


def test_example_question_click_asks_it(app: App, page: Any) -> None:
    open_app(page, app.url)
    example = page.locator("#pc-chat").get_by_role("button", name="propose?").first
    text = example.inner_text().strip()
    example.click()
    expect(page.locator("#pc-chat .pc-question")).to_have_text(text)
    expect(page.locator("#pc-chat .pc-answer-meta")).to_have_count(1, timeout=90_000)


def test_new_chat_clears_the_conversation(app: App, page: Any) -> None:
    open_app(page, app.url)
    ask(page, QUESTION)
    page.click("#pc-new-chat")
    expect(page.locator("#pc-chat .pc-answer")).to_have_count(0)
    expect(page.locator("#pc-sources-panel .pc-empty")).to_be_visible()
    page.reload()
    page.wait_for_selector(READY)
    expect(page.locator("#pc-chat .pc-answer")).to_have_count(0)  # forgotten, not restored
    ask(page, "What is Qronos?")
    assert page.locator("#pc-chat a.pc-cite").first.get_attribute("href") == "#pc-t1-c1"


def test_reload_keeps_the_conversation_and_its_citations(app: App, page: Any) -> None:
    open_app(page, app.url)
    ask(page, QUESTION)
    page.reload()
    page.wait_for_selector(READY, timeout=60_000)
    expect(page.locator("#pc-chat .pc-question")).to_have_text(QUESTION)
    cite = page.locator("#pc-chat a.pc-cite").first
    expect(cite).to_be_visible()
    cite.click()
    expect(card_for(page, 1, 1)).to_have_class("pc-card pc-flash")
    ask(page, "and what does it evaluate on?")  # the restored conversation keeps going
    expect(page.locator("#pc-chat .pc-answer-meta")).to_have_count(2)


def test_two_browser_sessions_never_share_history(app: App, browser: Any) -> None:
    alice_ctx, bob_ctx = browser.new_context(), browser.new_context()
    try:
        alice, bob = alice_ctx.new_page(), bob_ctx.new_page()
        open_app(alice, app.url)
        open_app(bob, app.url)
        ask(alice, QUESTION)
        ask(bob, "What is Qronos?")
        expect(alice.locator("#pc-chat .pc-question")).to_have_text([QUESTION])
        expect(bob.locator("#pc-chat .pc-question")).to_have_text(["What is Qronos?"])
        bob.reload()
        bob.wait_for_selector(READY)
        expect(bob.locator("#pc-chat .pc-question")).to_have_text(["What is Qronos?"])
        assert "SHAPO" not in bob.locator("#pc-sources-panel").inner_text()
    finally:
        alice_ctx.close()
        bob_ctx.close()


def test_phone_width_layout_has_no_sideways_scroll(app: App, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        pg = context.new_page()
        open_app(pg, app.url)
        ask(pg, QUESTION)
        overflow = pg.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"page is {overflow}px wider than the phone"
        shot(pg, "04-phone", full_page=True)
        pg.locator("#pc-chat a.pc-cite").first.click()
        expect(card_for(pg, 1, 1)).to_be_in_viewport()
    finally:
        context.close()


# -- corpus ------------------------------------------------------------------------------------


def test_corpus_tab_hides_what_the_sample_lacks(app: App, page: Any) -> None:
    # The sample has no areas or decisions: no empty columns, no "0 primary areas".
    open_app(page, app.url)
    page.get_by_role("tab", name="Corpus").click()
    expect(page.locator("#pc-corpus-caption")).to_contain_text("19 papers")
    cols = page.evaluate(
        "() => [...document.querySelectorAll('#pc-corpus-table th[role=columnheader]')]"
        ".map((th) => th.getAttribute('title'))"
    )
    assert "Area" not in cols and "Decision" not in cols and "Title" in cols
    expect(page.locator("#pc-stats")).not_to_contain_text("Primary areas")


def test_upload_jsonl_grows_the_corpus_and_reports_rejects(
    app: App, page: Any, workdir: Path, data_copy: Path
) -> None:
    open_app(page, app.url)
    page.get_by_role("tab", name="Corpus").click()
    # The tab refreshes its figures when selected: read them once the table has arrived.
    expect(page.locator("#pc-corpus-caption")).to_contain_text("papers")
    before = paper_count(page)
    path = write_jsonl(
        workdir / "two-new-papers.jsonl",
        [
            {
                "id": "up-1",
                "title": "Okapi Gradient Folding",
                "abstract": "We introduce okapi gradient folding, which halves optimizer memory "
                "by folding gradient statistics into low-rank sketches during training.",
                "keywords": ["optimization", "memory"],
                "primary_area": "optimization",
                "decision": "Poster",
            },
            {"id": "up-bad", "title": "No abstract here"},
        ],
    )
    report = upload(page, path)
    assert "Added 1" in report and "rejected 1" in report
    assert "two-new-papers.jsonl:2" in report  # the rejected record, by the name the user chose
    expect(page.locator("#pc-stats")).to_have_attribute("data-papers", str(before + 1))
    page.locator("#pc-corpus-search").get_by_role("textbox").fill("okapi")
    expect(page.locator("#pc-corpus-caption")).to_contain_text(f"1 of {before + 1} papers match")
    expect(page.locator("#pc-corpus-table")).to_contain_text("Okapi Gradient Folding")
    shot(page, "05-corpus-upload")
    kept = list((data_copy / "uploads").iterdir())
    assert kept and all(p.parent == data_copy / "uploads" for p in kept)

    page.get_by_role("tab", name="Chat").click()
    ask(page, "How does okapi gradient folding save memory?")
    expect(card_for(page, 1, 1)).to_contain_text("Okapi Gradient Folding")


def test_upload_refuses_unsupported_files(app: App, page: Any, workdir: Path) -> None:
    open_app(page, app.url)
    bad = workdir / "notes.md"
    bad.write_text("# not a corpus file\n")
    page.get_by_role("tab", name="Corpus").click()
    # The tab refreshes its figures when selected: read them once the table has arrived.
    expect(page.locator("#pc-corpus-caption")).to_contain_text("papers")
    before = paper_count(page)
    # The picker filters by type; a dropped file still arrives, and Gradio refuses it.
    page.locator("#pc-files input[type=file]").evaluate("el => el.removeAttribute('accept')")
    page.locator("#pc-files input[type=file]").set_input_files(str(bad))
    expect(page.locator("#pc-files")).to_contain_text("Error", timeout=30_000)
    page.click("#pc-ingest")
    expect(page.locator("#pc-ingest-result")).to_contain_text("Choose one or more files")
    assert paper_count(page) == before


def test_planted_html_in_abstracts_never_executes(app: App, page: Any, workdir: Path) -> None:
    open_app(page, app.url)
    planted = "<img src=x onerror=window.__xss=1>"
    title = "<script>window.__xss=2</script> Zebrafish Lattices"
    path = write_jsonl(
        workdir / "planted.jsonl",
        [
            {
                "id": "xss-1",
                "title": title,
                "abstract": "Zebrafish lattice quantization improves sparse retrieval of striped "
                f"images by a wide margin. {planted} We test zebrafish lattice quantization on "
                "twelve benchmarks.",
                "keywords": ["<b onmouseover=window.__xss=4>zebra</b>"],
                "primary_area": "<i>x</i>",
            }
        ],
    )
    assert "Added 1" in upload(page, path)
    page.locator("#pc-corpus-search").get_by_role("textbox").fill("zebrafish")
    expect(page.locator("#pc-corpus-caption")).to_contain_text("1 of")
    expect(page.locator("#pc-corpus-table")).to_contain_text(title)

    page.get_by_role("tab", name="Chat").click()
    ask(page, "What does zebrafish lattice quantization improve?")
    panel = page.locator("#pc-sources-panel")
    expect(panel).to_contain_text(planted)
    expect(panel).to_contain_text(title)
    expect(page.locator("#pc-chat .pc-answer").last).to_contain_text("Zebrafish")
    page.locator("#pc-sources-panel .pc-kw").first.hover()
    assert page.locator("#pc-sources-panel img, #pc-chat .pc-answer img").count() == 0
    assert page.evaluate("typeof window.__xss") == "undefined"
    shot(page, "06-xss-escaped")


# -- API ---------------------------------------------------------------------------------------


def test_api_endpoint_answers_with_citations(app: App, data_copy: Path) -> None:
    import httpx
    from gradio_client import Client

    client = Client(app.url, verbose=False)
    result = client.predict(question=QUESTION, api_name="/ask")
    assert set(result) >= {
        "question",
        "answer",
        "refused",
        "citations",
        "sources",
        "mode",
        "timings",
    }
    assert result["question"] == QUESTION and not result["refused"]
    assert result["mode"] == "extractive"
    assert result["citations"] and set(result["citations"][0]) == {
        "n",
        "paper_id",
        "title",
        "url",
        "quote",
    }
    assert "SHAPO" in result["citations"][0]["title"]
    filtered = client.predict(question=QUESTION, k=2, decision="Oral", api_name="/ask")
    assert filtered["sources"] == []  # the sample has no decisions: the filter matches nothing
    with pytest.raises(Exception, match="answerer"):
        client.predict(question=QUESTION, answerer="bogus", api_name="/ask")
    # Gradio must not serve the index or uploads from the data directory.
    secret = data_copy / "embed_cache.sqlite"
    assert secret.is_file()
    r = httpx.get(f"{app.url}gradio_api/file={secret}", timeout=30)
    assert r.status_code in (403, 404), r.status_code


@pytest.fixture(scope="module")
def auth_app(data_copy: Path, workdir: Path) -> Iterator[App]:
    """The app behind --auth."""
    server = App(data_copy, workdir, ("--auth", "alice:wonder-land"))
    try:
        yield server
    finally:
        server.stop()


def test_auth_protects_the_page_and_the_api(auth_app: App, browser: Any) -> None:
    import httpx
    from gradio_client import Client

    with pytest.raises(Exception):  # noqa: B017 - any refusal will do, as long as nothing answers
        Client(auth_app.url, verbose=False).predict(question=QUESTION, api_name="/ask")
    for path in ("gradio_api/info", "config", "gradio_api/call/ask"):
        r = httpx.post(auth_app.url + path, json={"data": [QUESTION]}, timeout=30)
        if r.status_code == 405:
            r = httpx.get(auth_app.url + path, timeout=30)
        assert r.status_code in (401, 403), (path, r.status_code, r.text[:200])

    client = Client(auth_app.url, auth=("alice", "wonder-land"), verbose=False)
    result = client.predict(question=QUESTION, api_name="/ask")
    assert result["citations"]

    context = browser.new_context()
    try:
        pg = context.new_page()
        pg.goto(auth_app.url)
        expect(pg.locator("#pc-question")).to_have_count(0)
        pg.get_by_label("username").fill("alice")
        pg.get_by_label("password").fill("wonder-land")
        pg.get_by_role("button", name="Login").click()
        pg.wait_for_selector(READY, timeout=60_000)
    finally:
        context.close()


# -- with a model ------------------------------------------------------------------------------


def cited_reply(body: dict[str, Any]) -> str:
    """A model reply citing source 1 twice, with one sentence its source cannot back."""
    return (
        "SHAPO evaluates gradients at perturbed parameters to make policy updates pessimistic "
        "[1]. It was also tested on the surface of the moon by astronauts [1]."
    )


@pytest.fixture(scope="module")
def model_app(data_copy: Path, workdir: Path) -> Iterator[tuple[App, FakeOpenAIServer]]:
    """The app answering through a fake OpenAI-protocol server on loopback."""
    fake = FakeOpenAIServer(chat_models=("fake-chat",), default_responder=cited_reply).start()
    env = {
        "PAPERCHAT_LLM__PROVIDER": "openai",
        "PAPERCHAT_LLM__MODEL": "fake-chat",
        "PAPERCHAT_LLM__MAX_RETRIES": "0",
        "OPENAI_BASE_URL": fake.base_url,
    }
    server = App(data_copy, workdir, env=env)
    try:
        yield server, fake
    finally:
        server.stop()
        fake.stop()


def test_model_mode_streams_marks_weak_sentences_and_errors_are_friendly(
    model_app: tuple[App, FakeOpenAIServer], page: Any
) -> None:
    server, fake = model_app
    open_app(page, server.url)
    expect(page.locator("#pc-mode")).to_contain_text("fake-chat")
    page.locator("#pc-settings").get_by_text("Settings").first.click()
    expect(page.locator("#pc-answerer")).to_be_visible()
    seconds = first_token_seconds(page, QUESTION)
    print(f"\nsubmit -> first streamed token (fake OpenAI server, browser): {seconds:.3f} s")
    answer = page.locator("#pc-chat .pc-answer").last
    expect(answer).to_contain_text("fake-chat")
    expect(answer.locator("a.pc-cite").first).to_be_visible()
    shot(page, "07-model-answer")

    fake.queue_error(500, times=2)
    ask(page, "What does SHAPO evaluate on?")
    error = page.locator("#pc-chat .pc-error").last
    expect(error).to_contain_text("model server")
    assert "Traceback" not in page.locator("#pc-chat").inner_text()
    shot(page, "08-model-error")

    page.get_by_label("Extractive (offline)").check()
    ask(page, QUESTION)
    expect(page.locator("#pc-chat .pc-answer").last).to_contain_text("extractive")
