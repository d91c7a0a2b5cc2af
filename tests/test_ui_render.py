"""The web app's pure parts without a browser: rendering, upload names, CLI flags, wiring."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from rag.models import (
    Answer,
    AnswerSentence,
    Citation,
    Conversation,
    IngestReport,
    LoadError,
    Paper,
    SearchHit,
)
from ui import render
from ui.cli import parse_auth
from ui.uploads import UploadRejected, discard, safe_filename, store_upload, uploads_dir

XSS_ABSTRACT = (
    "We plant markup <img src=x onerror=alert(1)> in an abstract and a "
    '<script>alert("t")</script> tag to check that nothing executes in the browser.'
)


def paper(pid: str = "P1", **fields: Any) -> Paper:
    base: dict[str, Any] = {
        "id": pid,
        "key": "k" + pid,
        "title": f"Paper {pid}",
        "abstract": "First sentence about graphs. Second sentence is the key finding here. "
        "Third sentence closes.",
    }
    base.update(fields)
    return Paper(**base)


def answer(**fields: Any) -> Answer:
    p1 = paper(
        "P1",
        title="GraphNet: Graphs for All",
        primary_area="learning on graphs",
        keywords=["graphs", "GNN"],
        decision="Oral",
        url="https://openreview.net/forum?id=P1",
    )
    p2 = paper("P2", title="Other Paper")
    base: dict[str, Any] = {
        "question": "What does GraphNet find?",
        "text": "From the indexed abstracts, 2 papers address this:\n"
        "- **GraphNet: Graphs for All** [1]: Second sentence is the key finding here. [1]\n"
        "- **Other Paper** [2]: First sentence about graphs. [2]",
        "citations": [
            Citation(
                n=1,
                paper_id="P1",
                title=p1.title,
                url=p1.url,
                quote="Second sentence is the key finding here.",
            ),
            Citation(n=2, paper_id="P2", title=p2.title, quote="First sentence about graphs."),
        ],
        "sources": [
            SearchHit(paper=p1, score=0.03),
            SearchHit(paper=p2, score=0.02),
            SearchHit(paper=paper("P3", title="Uncited"), score=0.01),
        ],
        "timings": {"retrieve": 0.01, "total": 0.05},
    }
    base.update(fields)
    return Answer(**base)


class _Tags(HTMLParser):
    """Collects start tags with their attributes, to inspect what markup HTML would create."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def tags(markup: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(markup)
    return parser.tags


def assert_inert(markup: str) -> None:
    """No script/img/iframe element and no event-handler attribute anywhere in the markup."""
    for tag, attrs in tags(markup):
        assert tag not in {"script", "img", "iframe", "object", "embed", "svg"}, tag
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        for name in ("href", "src"):
            value = (attrs.get(name) or "").strip().lower()
            assert not value.startswith(("javascript:", "data:")), value


# -- answers -----------------------------------------------------------------------------------


def test_citations_link_to_their_source_cards() -> None:
    html = render.answer_html(answer(), turn=3)
    hrefs = [a.get("href") for t, a in tags(html) if t == "a"]
    assert hrefs.count("#pc-t3-c1") == 2 and hrefs.count("#pc-t3-c2") == 2
    sources = render.sources_html(Conversation(turns=[]))
    assert sources == render.EMPTY_SOURCES
    conv = Conversation()
    for _ in range(3):
        conv.add("What does GraphNet find?", answer())
    panel = render.sources_html(conv)
    ids = {a.get("id") for _, a in tags(panel)}
    # Every link target of the third answer exists in the panel.
    assert {"pc-t3-c1", "pc-t3-c2", "pc-t3-p1", "pc-t3-p2"} <= ids


def test_answer_text_is_structured_and_bold_titles_kept() -> None:
    html = render.answer_html(answer(), turn=1)
    assert html.count("<li>") == 2 and "<ul>" in html
    assert "<strong>GraphNet: Graphs for All</strong>" in html
    assert "extractive" in html and "0.05 s" in html


def test_an_abstracts_emphasis_is_rendered_not_shown_as_markers() -> None:
    text = "Known as *superposition* or _superposition_ [1]; a snake_case_name stays."
    html = render.answer_html(answer(text=text, sentences=[]), turn=1)
    assert html.count("<em>superposition</em>") == 2
    assert "snake_case_name" in html and "*" not in html


def test_an_abstracts_bold_letters_inside_words_pair_one_by_one() -> None:
    # "**Flex**ible **M**asked **D**iffusion": each bold span is its own, no stray markers.
    text = "we introduce **Flex**ible **M**asked **D**iffusion **M**odels (FlexMDMs) [1]"
    html = render.answer_html(answer(text=text, sentences=[]), turn=1)
    assert "<strong>Flex</strong>ible <strong>M</strong>asked <strong>D</strong>iffusion" in html
    assert "*" not in html


def test_unknown_citation_numbers_are_not_links() -> None:
    html = render.answer_html(answer(text="A claim [7] and a real one [1]."), turn=1)
    assert 'href="#pc-t1-c7"' not in html
    assert 'class="pc-cite pc-dead">7<' in html and 'href="#pc-t1-c1"' in html


def test_grouped_citations_each_become_links() -> None:
    html = render.answer_html(answer(text="Both agree [1, 2]."), turn=2)
    assert 'href="#pc-t2-c1"' in html and 'href="#pc-t2-c2"' in html


def test_model_output_html_is_escaped() -> None:
    evil = "Look <img src=x onerror=alert(1)> and <script>alert(2)</script> [1]"
    html = render.answer_html(answer(text=evil, sentences=[]), turn=1)
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;script&gt;" in html
    assert_inert(html)


def test_markdown_link_forms_in_model_output_stay_text() -> None:
    html = render.answer_html(answer(text="[click](javascript:alert(1)) now [1]"), turn=1)
    assert_inert(html)
    assert "javascript:alert(1)" in html  # visible as text, not as a link target


def test_unsupported_sentences_are_marked_in_place() -> None:
    text = "Graphs help a lot [1]. The moon is made of cheese [2]. Fine again [1]."
    sentences = [
        AnswerSentence(text="Graphs help a lot [1].", citations=[1], support=0.9),
        AnswerSentence(
            text="The moon is made of cheese [2].", citations=[2], support=0.1, supported=False
        ),
    ]
    html = render.answer_html(answer(text=text, sentences=sentences, mode="model"), turn=1)
    assert "moon is made of cheese" in html.split('class="pc-unsupported"')[1]
    assert "Graphs help" not in html.split('class="pc-unsupported"')[1]
    assert "could not be verified" in html


def test_unsupported_sentence_without_markers_in_text_still_shown() -> None:
    sentences = [AnswerSentence(text="Claim that is not in the text.", supported=False)]
    html = render.answer_html(answer(sentences=sentences), turn=1)
    assert "pc-unsupported-list" in html and "Claim that is not in the text." in html


def test_refusal_lists_nearest_papers_in_chat_and_panel() -> None:
    refused = answer(
        text="The indexed abstracts do not answer this question.", refused=True, citations=[]
    )
    html = render.answer_html(refused, turn=1)
    assert "Not answered by the collection" in html
    assert html.count('class="pc-near"') == 3 and 'href="#pc-t1-p1"' in html
    conv = Conversation()
    conv.add("Who won the 1998 world cup?", refused)
    panel = render.sources_html(conv)
    assert "does not answer this" in panel
    assert panel.count('class="pc-card"') == 3 and "<mark>" not in panel


def test_error_answer_is_a_friendly_message_without_text() -> None:
    failed = Answer(question="q", text="", error="The model server is down <b>now</b>.")
    html = render.answer_html(failed, turn=1)
    assert "pc-error" in html and "&lt;b&gt;now&lt;/b&gt;" in html
    assert "<b>" not in html and "extractive" not in html  # no misleading footer
    conv = Conversation()
    conv.add("q", failed)
    assert "Answering failed" in render.sources_html(conv)


def test_no_match_explains_filters() -> None:
    conv = Conversation()
    conv.add("q", Answer(question="q", text="Nothing matched.", refused=True))
    assert "No paper matched" in render.sources_html(conv)


def test_incomplete_answer_is_flagged() -> None:
    html = render.answer_html(answer(complete=False), turn=1)
    assert "incomplete" in html


def test_streaming_text_shows_pending_markers_not_links() -> None:
    html = render.stream_html("Partial <i>answer</i> with [1]")
    assert "&lt;i&gt;" in html and "pc-pending" in html and "href" not in html


def test_question_is_inert_text() -> None:
    html = render.question_html("[x](javascript:alert(1)) <img src=x onerror=alert(1)>")
    assert_inert(html)
    assert "[" not in html and "&#91;x&#93;" in html


def test_chat_messages_alternate_roles() -> None:
    conv = Conversation()
    conv.add("q1", answer())
    conv.add("q2 <b>", answer())
    messages = render.chat_messages(conv)
    assert [m["role"] for m in messages] == ["user", "assistant"] * 2
    assert "pc-t2-c1" in messages[3]["content"] and "&lt;b&gt;" in messages[2]["content"]


# -- sources panel -----------------------------------------------------------------------------


def test_card_shows_metadata_link_and_highlighted_quote() -> None:
    conv = Conversation()
    conv.add("What does GraphNet find?", answer())
    panel = render.sources_html(conv)
    card = panel.split('id="pc-t1-p1"')[1].split("</article>")[0]
    assert "GraphNet: Graphs for All" in card
    assert "learning on graphs" in card and "Oral" in card and "GNN" in card
    assert (
        'href="https://openreview.net/forum?id=P1"' in card and 'rel="noopener noreferrer"' in card
    )
    assert "<mark>Second sentence is the key finding here.</mark>" in card
    assert "Also retrieved (1)" in panel and "Uncited" in panel


def test_only_latest_turn_is_visible_older_ones_hidden() -> None:
    conv = Conversation()
    conv.add("first", answer())
    conv.add("second", answer())
    panel = render.sources_html(conv)
    sections = re.findall(r"<section [^>]*>", panel)
    assert len(sections) == 2
    assert "hidden" in sections[0] and "hidden" not in sections[1]


def test_planted_abstract_and_title_render_as_text() -> None:
    evil = paper(
        "X",
        title="<script>window.__xss=1</script>",
        abstract=XSS_ABSTRACT,
        keywords=["<b>kw</b>"],
        primary_area='"><img src=x onerror=alert(1)>',
        url="javascript:alert(1)",
    )
    card = render.paper_card(evil, 1, 1, [1], ["<img src=x onerror=alert(1)>"])
    assert_inert(card)
    assert "&lt;img src=x onerror=alert(1)&gt;" in card
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in card
    assert "javascript:" not in card  # an unsafe URL gives no link at all
    assert "<mark>&lt;img src=x onerror=alert(1)&gt;</mark>" in card


def test_highlight_tolerates_spacing_and_multi_sentence_quotes() -> None:
    text = "Alpha beta.  Gamma   delta is new. Epsilon ends."
    out = render.highlight(text, ["Gamma delta is new."])
    assert out.count("<mark>") == 1 and "Gamma   delta is new.</mark>" in out
    two = render.highlight(text, ["Alpha beta. … Epsilon ends."])
    assert two.count("<mark>") == 2
    assert render.highlight("a < b", ["missing"]) == "a &lt; b"
    # The gap marker leaves no bare '.' to mark elsewhere (the first sentence's period).
    gap = render.highlight(text, ["Gamma   delta is new. … Epsilon ends."])
    assert gap.count("<mark>") == 2 and gap.startswith("Alpha beta.  <mark>Gamma")


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://openreview.net/forum?id=1", True),
        ("http://example.org/x", True),
        ("javascript:alert(1)", False),
        ("JaVaScRiPt:alert(1)", False),
        ("data:text/html,<b>", False),
        ("//evil.example/x", False),
        ("https:///nohost", False),
        ("", False),
    ],
)
def test_safe_url(url: str, ok: bool) -> None:
    assert bool(render.safe_url(url)) is ok


def test_citation_whose_paper_is_not_among_sources_still_gets_a_card() -> None:
    a = answer(sources=[])
    conv = Conversation()
    conv.add("q", a)
    panel = render.sources_html(conv)
    assert (
        'id="pc-t1-c1"' in panel
        and "<mark>Second sentence is the key finding here.</mark>" in panel
    )


# -- header, mode, examples, corpus ------------------------------------------------------------


def test_mode_shows_model_name_or_offline_and_how_to_switch() -> None:
    offline = render.mode_html(
        {
            "mode": "extractive",
            "model": "",
            "detail": "Offline: answers are built from verbatim abstract sentences.",
            "switch": "Set PAPERCHAT_LLM__PROVIDER=openai and OPENAI_API_KEY in .env.",
        }
    )
    assert "Offline" in offline and "<code>PAPERCHAT_LLM__PROVIDER=openai</code>" in offline
    assert "<code>OPENAI_API_KEY</code>" in offline
    model = render.mode_html(
        {"mode": "model", "model": "gpt-4o-mini <x>", "detail": "", "switch": ""}
    )
    assert "Model · gpt-4o-mini &lt;x&gt;" in model


def test_corpus_line_names_the_venue_and_count() -> None:
    papers = {p.id: p for p in (paper(str(i), venue="ICLR 2026 Poster") for i in range(3))}
    line = render.corpus_line(papers)
    # The venue without its decision, and the number of papers.
    assert "3 ICLR 2026 paper abstracts" in line and "Poster" not in line
    assert "empty" in render.corpus_line({})
    assert "1 research-paper abstract a question" in render.corpus_line({"a": paper("a")})


def test_example_questions_come_from_the_corpus() -> None:
    papers = [
        paper("1", title="SHAPO: Sharpness-Aware Policy Optimization", keywords=["RL", "safety"]),
        paper("2", title="WebDS", keywords=["safety"]),
        paper("3", title="A long descriptive title with many words in it", keywords=["RL"]),
        paper("4", title="Derived from text…", title_is_derived=True),
        paper("5", title="MOBODY", title_is_derived=True),
    ]
    questions = render.example_questions(papers, n=4)
    assert len(questions) == 4 and len(set(questions)) == 4
    named = {"What does SHAPO propose?", "What does WebDS propose?", "What does MOBODY propose?"}
    assert len(named & set(questions)) == 2
    assert any("safety" in q for q in questions) and any(q.endswith(" rl?") for q in questions)
    assert not any("Derived" in q for q in questions)
    assert render.example_questions([], n=4) == []


def test_stats_and_ingest_report_escape_and_count() -> None:
    papers = {"a": paper("a", decision="Oral", primary_area="x"), "b": paper("b")}
    html = render.stats_html({"papers": 2, "chunks": 7, "embedding_model": "m<1>"}, papers)
    assert 'data-papers="2"' in html and "m&lt;1&gt;" in html and "Oral 1" in html
    report = IngestReport(
        added=2,
        errors=[LoadError(file="/data/uploads/abc-evil.jsonl", line=3, message="no <abstract>")],
    )
    out = render.ingest_html(
        report,
        refused=[("../../etc/passwd.txt", "unsupported")],
        names={"/data/uploads/abc-evil.jsonl": "evil<1>.jsonl"},
        papers_after=21,
    )
    assert "Added <b>2</b>" in out and "<b>21</b>" in out
    assert "evil&lt;1&gt;.jsonl:3" in out and "no &lt;abstract&gt;" in out
    assert "../../etc/passwd.txt" in out and "Rejected records" in out


# -- uploads -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("papers.jsonl", "papers.jsonl"),
        ("../../etc/passwd.txt", "passwd.txt"),
        ("..\\..\\windows\\evil.CSV", "evil.csv"),
        (".hidden.json", "hidden.json"),
        ("my papers (final).txt", "my_papers_final.txt"),
        ("résumé.txt", "r_sum.txt"),
        ("....", "upload"),
        ("", "upload"),
        ("a" * 300 + ".json", "a" * 80 + ".json"),
    ],
)
def test_safe_filename(name: str, expected: str) -> None:
    assert safe_filename(name) == expected


def test_store_upload_stays_inside_uploads_dir(tmp_path: Path) -> None:
    src = tmp_path / "in.bin"
    src.write_text('{"abstract": "x"}\n')
    data = tmp_path / "data"
    kept = store_upload(src, "../../../outside.jsonl", data)
    assert kept.parent == uploads_dir(data).resolve()
    assert kept.name.endswith("-outside.jsonl") and kept.read_text() == src.read_text()
    again = store_upload(src, "../../../outside.jsonl", data)
    assert again != kept  # same name twice never overwrites
    assert not (tmp_path / "outside.jsonl").exists()
    discard(kept, data)
    assert not kept.exists()
    discard(src, data)  # outside the uploads dir: left alone
    assert src.exists()


def test_store_upload_refuses_bad_type_size_and_empty(tmp_path: Path) -> None:
    src = tmp_path / "f"
    src.write_bytes(b"x" * 100)
    with pytest.raises(UploadRejected, match="unsupported file type"):
        store_upload(src, "payload.exe", tmp_path / "d")
    with pytest.raises(UploadRejected, match="unsupported file type"):
        store_upload(src, "archive.zip", tmp_path / "d")
    with pytest.raises(UploadRejected, match="too large"):
        store_upload(src, "big.csv", tmp_path / "d", max_bytes=10)
    empty = tmp_path / "e"
    empty.write_bytes(b"")
    with pytest.raises(UploadRejected, match="empty"):
        store_upload(empty, "e.txt", tmp_path / "d")
    assert list(uploads_dir(tmp_path / "d").glob("*")) == []  # nothing kept from refusals


# -- CLI flags ---------------------------------------------------------------------------------


def test_parse_auth() -> None:
    assert parse_auth("alice:s3:cr3t") == ("alice", "s3:cr3t")
    assert parse_auth(None) is None and parse_auth("") is None
    for bad in ("alice", "alice:", ":pw"):
        with pytest.raises(ValueError):
            parse_auth(bad)


# -- wiring: the app builds over a fake pipeline and exposes exactly one API endpoint ----------


class FakePipeline:
    """A pipeline that answers every question with the same canned answer."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.papers = {"P1": paper("P1", title="SHAPO: Safe RL")}

    def catalog(self) -> dict[str, Paper]:
        return self.papers

    def stats(self) -> dict[str, Any]:
        return {"papers": len(self.papers), "chunks": 3 * len(self.papers), "embedding_model": "m"}

    def mode_info(self) -> dict[str, str]:
        return {"mode": "extractive", "model": "", "detail": "offline", "switch": ""}

    def stream(self, question: str, conversation: Any = None, options: Any = None) -> Iterator[Any]:
        done = answer(question=question)
        yield from done.text.splitlines(keepends=True)
        if conversation is not None:
            conversation.add(question, done)
        yield done

    def ask(self, question: str, conversation: Any = None, options: Any = None) -> Answer:
        return answer(question=question)


def test_demo_exposes_only_the_ask_map_and_themes_endpoints(make_settings: Any) -> None:
    from ui.app import API_NAME, build_demo

    demo = build_demo(FakePipeline(make_settings()))  # type: ignore[arg-type]
    info = demo.get_api_info()
    named = set(info["named_endpoints"])
    assert named == {f"/{API_NAME}", "/map", "/themes"}
    params = [p["parameter_name"] for p in info["named_endpoints"]["/ask"]["parameters"]]
    assert params[:2] == ["question", "k"] and "answerer" in params


class RefusingPipeline(FakePipeline):
    """Refuses questions about crops (unless asked for the closest evidence anyway)."""

    def stream(self, question: str, conversation: Any = None, options: Any = None) -> Iterator[Any]:
        refuse = "crop" in question and not (options and options.show_weak)
        done = answer(question=question, refused=refuse, text="Nothing close." if refuse else "A.")
        yield done.text
        if conversation is not None:
            conversation.add(question, done)
        yield done


def test_the_closest_evidence_button_is_offered_only_after_a_refusal(make_settings: Any) -> None:
    from ui.app import Handlers, storable

    # respond/respond_weak/restart/on_load never read the results or map views.
    handlers = Handlers(RefusingPipeline(make_settings()), None, None, None)  # type: ignore[arg-type]
    settings = (5, "", "", "", "auto", [])

    def offered(updates: list[tuple[Any, ...]]) -> list[bool]:
        # The button is the last output; a skipped update leaves it as it was.
        return [u[-1].visible for u in updates if hasattr(u[-1], "visible")]

    refused = list(handlers.respond("Which paper predicts crop yields?", [], None, *settings))
    history, conv = refused[-1][0], refused[-1][2]
    assert conv.last.answer.refused
    assert offered(refused) == [False, True]  # hidden while answering, offered after
    weak = list(handlers.respond_weak(history, conv, *settings))
    assert not conv.last.answer.refused and offered(weak) == [False, False]
    again = list(handlers.respond("Which paper predicts crop yields?", history, conv, *settings))
    assert offered(again)[-1] is True
    normal = list(handlers.respond("What does GraphNet find?", history, conv, *settings))
    assert not conv.last.answer.refused and offered(normal) == [False, False]
    assert handlers.restart()[-1].visible is False
    # A reloaded page offers it again when the stored conversation ended with a refusal.
    list(handlers.respond("Which paper predicts crop yields?", history, conv, *settings))
    assert handlers.on_load(storable(conv))[-1].visible is True


def test_a_comparison_table_renders_as_a_table() -> None:
    text = "Comparing 2 papers:\n\n| | A [1] | B [2] |\n|---|---|---|\n| Problem | x [1] | y [2] |"
    html = render.answer_html(answer(text=text, sentences=[]), turn=1)
    assert '<table class="pc-table">' in html and html.count("<tr>") == 2
    assert "<th>Problem</th>" not in html and "<td>Problem</td>" in html
    assert "|" not in html.split("<table")[1] and "—" not in html
    assert 'href="#pc-t1-c2"' in html


def test_dashes_render_but_a_table_rule_row_stays() -> None:
    from rag.store.markup import plain

    assert plain("Qronos---a new one -- and |---|---|") == "Qronos—a new one – and |---|---|"


def test_degrees_render_and_a_command_starting_with_c_is_no_cedilla() -> None:
    from rag.store.markup import plain, render

    # An ICLR abstract: "\circ" had rendered as "\c" on "i" ("11^i̧rc").
    stored = r"reduces error by $\textbf{11$^{\circ}$}$ and $90^\circ$; $f \circ g$"
    assert plain(stored) == "reduces error by 11° and 90°; f ∘g"
    assert plain(r"Fran\c{c}ois, Fran\c cois") == "François, François"
    # The rendered degree sign still maps back to the stored text it shows.
    shown = render(stored)
    at = shown.text.index("°")
    a, b = shown.source_span(at, at + 1)
    assert b == a + 1 and stored[a:].startswith("^{\\circ}")


def test_math_sub_and_superscripts_render_as_unicode_outside_math_they_stay() -> None:
    from rag.store.markup import plain, render

    stored = r"pairs $(x_0,x_1)$, rate $10^{-3}$, $O(n^2)$, $W_\theta$ and snake_case"
    assert plain(stored) == "pairs (x₀,x₁), rate 10⁻³, O(n²), W_θ and snake_case"
    # Each script character maps back to the stored text it shows.
    shown = render(stored)
    a, _b = shown.source_span(shown.text.index("⁻"), shown.text.index("⁻") + 1)
    assert stored[a:].startswith("^{-3}")


@pytest.mark.parametrize(
    ("stored", "shown"),
    [
        # ICLR abstracts whose own escaping doubled the backslash: "38.22\%" had shown.
        (r"by up to $38.22\\%$ ($\\downarrow$), $\\mathsf{N}(0,1)$", "by up to 38.22% (↓), N(0,1)"),
        (r"norms $\\{ \lVert w \rVert \\}$", "norms { ‖w ‖}"),
        (r"cost $\frac{L}{2}$, $\frac{a+b}{\sqrt{d}}$", "cost L/2, (a+b)/√d"),
        (
            r"code at \url{https://x.org/a_b}; \href{https://y}{our page}",
            "code at https://x.org/a_b; our page",
        ),
        (r"as shown \citep{wu2020}, we \textcolor{blue}{note} it", "as shown, we note it"),
        (r"\(x_1\) and $\left(a\right)$, {\bf Bold} \eg here", "x₁ and (a), Bold e.g. here"),
        (r"escaped \* and \<tag\>", "escaped * and <tag>"),
    ],
)
def test_more_of_the_latex_abstracts_write_renders_for_people(stored: str, shown: str) -> None:
    from rag.store.markup import plain, render

    assert plain(stored) == shown
    # The rendered text still maps back to the stored characters it shows (a command's
    # expansion, "e.g." for "\eg", to its backslash).
    out = render(stored, markdown=False)
    for i, ch in enumerate(out.text):
        a, _b = out.source_span(i, i + 1)
        if ch.isalnum() and ch.isascii():
            assert stored[a] in (ch, "\\")
