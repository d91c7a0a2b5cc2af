"""The Gradio web app: a thin layer over Pipeline (chat, sources panel, corpus tab, API)."""

import logging
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Set before Gradio is imported: it reads the flag at import time.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")

import gradio as gr  # noqa: E402

from rag.app.options import AskOptions  # noqa: E402
from rag.app.pipeline import Pipeline  # noqa: E402
from rag.models import (  # noqa: E402
    Answer,
    Conversation,
    Filters,  # noqa: E402
    Paper,
)
from rag.providers import ProviderError  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.store.chroma import IndexError_  # noqa: E402

from . import render, results  # noqa: E402
from .map_view import MapView, plotly_js  # noqa: E402
from .results_view import ResultsView  # noqa: E402
from .uploads import MAX_FILES, MAX_UPLOAD_BYTES, UploadRejected, discard, store_upload  # noqa: E402

log = logging.getLogger("paperchat.ui")

API_NAME = "ask"
MAX_QUESTION_CHARS = 2000
ANSWER_CONCURRENCY = 8
ANSWERER_CHOICES = ("auto", "extractive", "model")
GENERIC_ERROR = (
    "Something went wrong while answering, and the error has been logged. "
    "Please try again, or rephrase the question."
)

THEME = gr.themes.Soft(
    primary_hue="indigo",
    secondary_hue="amber",
    neutral_hue="slate",
    radius_size="md",
    # System fonts only: the app must look right offline, without Google Fonts.
    font=["ui-sans-serif", "system-ui", "-apple-system", "Segoe UI", "Roboto", "sans-serif"],
    font_mono=["ui-monospace", "SFMono-Regular", "Menlo", "Consolas", "monospace"],
)

CSS_PATH = Path(__file__).with_name("style.css")
# Gradio spots a progress parameter by its default being a Progress; it tracks per event.
_PROGRESS = gr.Progress()

# Citation links live in the chatbot, their targets in the sources panel: one document-level
# handler (installed once, from the panel's js_on_load) shows the right answer's section and
# scrolls the card into view, instead of letting the browser follow the "#..." link.
CITATION_JS = """
if (!window.__paperchatCites) {
  window.__paperchatCites = true;
  const show = (id) => {
    const target = document.getElementById(id);
    if (!target) return;
    const section = target.closest('.pc-turn');
    if (section) {
      document.querySelectorAll('.pc-turn').forEach((s) => { s.hidden = s !== section; });
    }
    const card = target.closest('.pc-card') || target;
    document.querySelectorAll('.pc-card.pc-flash').forEach((c) => c.classList.remove('pc-flash'));
    void card.offsetWidth;
    card.classList.add('pc-flash');
    card.scrollIntoView({behavior: 'smooth', block: 'start'});
  };
  document.addEventListener('click', (ev) => {
    const el = ev.target instanceof Element ? ev.target.closest('a[href^="#pc-t"]') : null;
    if (!el) return;
    ev.preventDefault();
    ev.stopPropagation();
    show(el.getAttribute('href').slice(1));
  }, true);
}
"""


def _catalog(pipeline: Pipeline) -> tuple[Mapping[str, Paper], str]:
    """The index's papers, or an empty catalog and a user-facing reason."""
    try:
        return pipeline.catalog(), ""
    except IndexError_ as exc:
        return {}, str(exc)
    except Exception:
        log.exception("reading the catalog failed")
        return {}, "The index could not be read; see the server log."


def _choices(values: set[str], any_label: str) -> list[tuple[str, str]]:
    return [(any_label, "")] + [(v, v) for v in sorted(values, key=str.lower)]


def _examples(papers: dict[str, Paper]) -> list[dict[str, str]]:
    return [{"text": q} for q in render.example_questions(papers.values())]


def storable(conversation: Conversation) -> dict[str, Any]:
    """What the browser keeps for reloads: the last turns, answers with their sources."""
    recent = Conversation(turns=conversation.turns[-render.MAX_STORED_TURNS :])
    return recent.model_dump(mode="json")


def _restore(stored: Any) -> Conversation:
    """A conversation from browser storage; anything unreadable starts a fresh one."""
    if not stored:
        return Conversation()
    try:
        return Conversation.model_validate(stored)
    except Exception:
        return Conversation()


def _options(
    top_k: float | None,
    area: str | None,
    keyword: str | None,
    decision: str | None,
    answerer: str,
    dropped: list[str] | None = None,
    min_rating: float | None = None,
) -> AskOptions:
    return AskOptions(
        k=int(top_k) if top_k else None,
        filters=Filters(
            area=(area or "").strip() or None,
            keyword=(keyword or "").strip() or None,
            decision=(decision or "").strip() or None,
            # 0 (the control's "any") filters nothing.
            min_rating=float(min_rating) if min_rating else None,
        ),
        answerer=answerer if answerer in ANSWERER_CHOICES else "auto",
        drop_filters=[f for f in dropped or [] if f in results.CHIP_FIELDS],
    )


def _friendly(exc: BaseException) -> str:
    """A message users can read for a failure; tracebacks go to the log only."""
    if isinstance(exc, IndexError_ | ProviderError):
        return str(exc)
    log.exception("answering failed", exc_info=exc)
    return GENERIC_ERROR


def build_demo(pipeline: Pipeline) -> gr.Blocks:
    """The PaperChat web app for one pipeline (launch it with `launch`)."""
    papers, problem = _catalog(pipeline)
    # Gradio keeps its own copy of every upload outside the data directory: expire them.
    with gr.Blocks(
        title="PaperChat — ask the papers", fill_width=True, delete_cache=(3600, 3600)
    ) as demo:
        layout = _layout(
            pipeline.settings,
            pipeline.mode_info(),
            papers,
            problem,
            _stats(pipeline, papers),
            pipeline,
        )
        _wire(
            demo,
            layout,
            Handlers(pipeline, layout.chat_view, layout.corpus_view, layout.map_view),
        )
    return demo


@dataclass
class Layout:
    """The app's components, as `_layout` placed them; `_wire` connects them to handlers."""

    conversation: gr.State
    dropped: gr.State  # plan filters the user removed (chips) for the question being re-asked
    saved: gr.BrowserState
    header: gr.HTML
    notice: gr.HTML
    chatbot: gr.Chatbot
    question: gr.Textbox
    weak_btn: gr.Button
    new_chat: gr.Button
    top_k: gr.Slider
    answerer: gr.Radio
    area: gr.Dropdown
    keyword: gr.Textbox
    decision: gr.Dropdown
    min_rating: gr.Slider
    sources: gr.HTML
    results_box: gr.Column
    results_title: gr.HTML
    chips: list[gr.Button]
    chat_view: ResultsView
    answer_chart: gr.HTML
    map_tab: gr.Tab
    map_view: MapView
    corpus_tab: gr.Tab
    stats: gr.HTML
    corpus_view: ResultsView
    corpus_charts: gr.HTML
    files: gr.File
    ingest_btn: gr.Button
    ingest_result: gr.HTML

    def chat_inputs(self) -> list[Any]:
        """What answering reads: the question, the chat so far and the settings."""
        return [
            self.question,
            self.chatbot,
            self.conversation,
            self.top_k,
            self.area,
            self.keyword,
            self.decision,
            self.answerer,
            self.dropped,
            self.min_rating,
        ]

    def chat_outputs(self) -> list[Any]:
        """What answering writes (Handlers.respond yields one value for each)."""
        return [
            self.chatbot,
            self.sources,
            self.conversation,
            self.saved,
            self.question,
            self.weak_btn,
        ]

    def corpus_outputs(self) -> list[Any]:
        """The Corpus tab's stats, charts and table (Handlers.corpus_updates)."""
        return [self.stats, self.corpus_charts, *self.corpus_view.outputs()]

    def results_outputs(self) -> list[Any]:
        """The last answer's matched set (Handlers.show_results)."""
        return [
            self.results_box,
            self.results_title,
            *self.chips,
            self.answer_chart,
            *self.chat_view.outputs(),
            self.chat_view.search,
        ]


def _layout(
    settings: Settings,
    mode: dict[str, str],
    papers: dict[str, Paper],
    problem: str,
    stats_html: str,
    pipeline: Pipeline,
) -> Layout:
    """Place every component (inside the Blocks being built), showing the catalog read at
    start; no behaviour here."""
    model_configured = mode["mode"] == "model"
    exports = results.export_dir()
    conversation = gr.State(Conversation())
    dropped = gr.State([])
    saved = gr.BrowserState(
        None,
        storage_key="paperchat-conversation",
        # A fixed secret lets several app processes (or a restart) read the same storage.
        secret=settings.ui.secret.get_secret_value() if settings.ui.secret else None,
    )

    header = gr.HTML(render.header_html(papers, mode), elem_id="pc-top")
    notice = gr.HTML(_notice(problem), elem_id="pc-notice", visible=bool(problem), padding=False)

    with gr.Tabs(elem_id="pc-tabs"):
        with gr.Tab("Chat", id="chat", elem_id="pc-tab-chat"):
            with gr.Row(elem_id="pc-main", equal_height=False):
                with gr.Column(scale=7, min_width=340, elem_id="pc-chat-col"):
                    chatbot = gr.Chatbot(
                        value=[],
                        elem_id="pc-chat",
                        show_label=False,
                        height="min(66vh, 720px)",
                        min_height=320,
                        layout="bubble",
                        buttons=["copy"],
                        feedback_options=None,
                        sanitize_html=True,
                        allow_tags=False,
                        latex_delimiters=[],
                        placeholder=(
                            "<div class='pc-placeholder'><b>Ask the papers anything.</b>"
                            "<br>Answers cite their sources — click a [n] to see the "
                            "paper and the sentence behind it.</div>"
                        ),
                        examples=_examples(papers),
                        autoscroll=True,
                    )
                    with gr.Row(elem_id="pc-ask-row", equal_height=True):
                        question = gr.Textbox(
                            placeholder="Ask about the papers…",
                            show_label=False,
                            lines=1,
                            max_lines=6,
                            max_length=MAX_QUESTION_CHARS,
                            submit_btn="Ask",
                            elem_id="pc-question",
                            scale=8,
                            # Enabled by the load event, once a reloaded conversation has
                            # been restored: a question typed earlier could be overwritten.
                            interactive=False,
                        )
                        weak_btn = gr.Button(
                            "Show the closest evidence anyway",
                            elem_id="pc-show-weak",
                            variant="secondary",
                            size="md",
                            scale=0,
                            min_width=96,
                            # Offered only while the last answer is a refusal.
                            visible=False,
                        )
                        new_chat = gr.Button(
                            "New chat",
                            elem_id="pc-new-chat",
                            variant="secondary",
                            size="md",
                            scale=0,
                            min_width=96,
                        )
                    with gr.Accordion("Settings", open=False, elem_id="pc-settings"):
                        with gr.Row():
                            top_k = gr.Slider(
                                1,
                                20,
                                value=settings.retrieval.top_k,
                                step=1,
                                label="Papers to retrieve (top-k)",
                                elem_id="pc-topk",
                            )
                            answerer = gr.Radio(
                                [
                                    (f"Model ({settings.llm.model})", "model"),
                                    ("Extractive (offline)", "extractive"),
                                ],
                                # Without a model, auto means extractive: say so.
                                value="model" if model_configured else "extractive",
                                label="Answers written by",
                                visible=model_configured,
                                elem_id="pc-answerer",
                            )
                        with gr.Row():
                            area = gr.Dropdown(
                                _choices(
                                    {p.primary_area for p in papers.values() if p.primary_area},
                                    "Any area",
                                ),
                                value="",
                                label="Primary area",
                                elem_id="pc-area",
                            )
                            keyword = gr.Textbox(
                                label="Keyword", placeholder="e.g. diffusion", elem_id="pc-kw"
                            )
                            decision = gr.Dropdown(
                                _choices(
                                    {p.decision for p in papers.values() if p.decision},
                                    "Any decision",
                                ),
                                value="",
                                label="Decision",
                                elem_id="pc-decision",
                            )
                            min_rating = gr.Slider(
                                0,
                                10,
                                value=0,
                                step=0.5,
                                label="Minimum reviewer rating (0 = any)",
                                elem_id="pc-min-rating",
                            )
                with gr.Column(scale=5, min_width=320, elem_id="pc-sources-col"):
                    sources = gr.HTML(
                        render.EMPTY_SOURCES,
                        elem_id="pc-sources-panel",
                        js_on_load=CITATION_JS,
                        padding=False,
                    )
            # The matched set of a list/count answer: filters as chips, table, chart.
            with gr.Column(visible=False, elem_id="pc-results") as results_box:
                with gr.Row(elem_id="pc-chips", equal_height=True):
                    results_title = gr.HTML("", elem_id="pc-results-title", padding=False)
                    chips = [
                        gr.Button(
                            "", visible=False, size="sm", scale=0, elem_id=f"pc-chip-{f}",
                            elem_classes="pc-chip",
                        )
                        for f in results.CHIP_FIELDS
                    ]  # fmt: skip
                with gr.Row(equal_height=False):
                    with gr.Column(scale=7, min_width=340):
                        chat_view = ResultsView("results", exports, scored=True)
                    with gr.Column(scale=5, min_width=300):
                        answer_chart = gr.HTML("", elem_id="pc-answer-chart", padding=False)

        with gr.Tab("Map", id="map", elem_id="pc-tab-map") as map_tab:
            map_view = MapView(pipeline)

        with gr.Tab("Corpus", id="corpus", elem_id="pc-tab-corpus") as corpus_tab:
            stats = gr.HTML(stats_html, elem_id="pc-stats-box")
            with gr.Row(equal_height=False):
                with gr.Column(scale=3, min_width=320):
                    corpus_view = ResultsView("corpus", exports, scored=False)
                    corpus_charts = gr.HTML("", elem_id="pc-corpus-charts", padding=False)
                with gr.Column(scale=2, min_width=300, elem_id="pc-upload-col"):
                    gr.Markdown(
                        "### Add abstracts\nTXT (one abstract per paragraph), JSONL, JSON "
                        f"or CSV — up to {MAX_UPLOAD_BYTES // 1_000_000} MB per file. "
                        "Papers already indexed are updated, never duplicated."
                    )
                    files = gr.File(
                        label="Files",
                        file_count="multiple",
                        file_types=[".txt", ".jsonl", ".json", ".csv"],
                        type="filepath",
                        elem_id="pc-files",
                    )
                    ingest_btn = gr.Button("Add to index", variant="primary", elem_id="pc-ingest")
                    ingest_result = gr.HTML("", elem_id="pc-ingest-result")
    return Layout(
        conversation=conversation,
        dropped=dropped,
        saved=saved,
        header=header,
        notice=notice,
        chatbot=chatbot,
        question=question,
        weak_btn=weak_btn,
        new_chat=new_chat,
        top_k=top_k,
        answerer=answerer,
        area=area,
        keyword=keyword,
        decision=decision,
        min_rating=min_rating,
        sources=sources,
        results_box=results_box,
        results_title=results_title,
        chips=chips,
        chat_view=chat_view,
        answer_chart=answer_chart,
        map_tab=map_tab,
        map_view=map_view,
        corpus_tab=corpus_tab,
        stats=stats,
        corpus_view=corpus_view,
        corpus_charts=corpus_charts,
        files=files,
        ingest_btn=ingest_btn,
        ingest_result=ingest_result,
    )


def _weak_offer(conv: Conversation | None) -> Any:
    """The "closest evidence anyway" button: shown only while the last answer is a refusal."""
    last = conv.last if isinstance(conv, Conversation) else None
    return gr.Button(visible=bool(last and last.answer.refused))


class Handlers:
    """What the app's events do, over one pipeline: no business logic, no layout.

    Each method's return (or each value it yields) matches the outputs `_wire` gives it.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        chat_view: ResultsView,
        corpus_view: ResultsView,
        map_view: MapView,
    ) -> None:
        self.pipeline = pipeline
        self.map_view = map_view
        self.settings = pipeline.settings
        self.mode = pipeline.mode_info()
        self.chat_view = chat_view
        self.corpus_view = corpus_view

    def respond(
        self,
        text: str,
        history: list[dict[str, Any]] | None,
        conv: Conversation | None,
        k: float,
        area_v: str,
        keyword_v: str,
        decision_v: str,
        answerer_v: str,
        dropped: list[str] | None = None,
        min_rating_v: float | None = None,
        weak: bool = False,
    ) -> Iterator[tuple[Any, ...]]:
        """Answer a question into the chat: pending bubble, streamed text, finished answer."""
        skip = gr.skip()
        text = (text or "").strip()[:MAX_QUESTION_CHARS]
        if not text:
            yield skip, skip, skip, skip, skip, skip
            return
        conv = conv if isinstance(conv, Conversation) else Conversation()
        history = list(history or [])
        history.append({"role": "user", "content": render.question_html(text)})
        history.append({"role": "assistant", "content": render.pending_html()})
        hidden = gr.Button(visible=False)
        yield history, skip, conv, skip, "", hidden
        options = _options(k, area_v, keyword_v, decision_v, answerer_v, dropped, min_rating_v)
        options.show_weak = weak
        buffer, answer = "", None
        try:
            for part in self.pipeline.stream(text, conv, options):
                if isinstance(part, Answer):
                    answer = part
                elif part:
                    buffer += part
                    history[-1] = {"role": "assistant", "content": render.stream_html(buffer)}
                    yield history, skip, skip, skip, skip, skip
        except Exception as exc:  # every failure becomes a chat message, never a traceback
            history[-1] = {"role": "assistant", "content": render.error_html(_friendly(exc))}
            yield history, skip, conv, skip, skip, hidden
            return
        if answer is None:
            history[-1] = {"role": "assistant", "content": render.error_html(GENERIC_ERROR)}
            yield history, skip, conv, skip, skip, hidden
            return
        last = conv.last
        if last is None or last.answer is not answer:
            # The pipeline records turns it answered; an answer it did not is added here so
            # its citations stay resolvable in the sources panel and after a reload.
            conv.add(text, answer)
        turn = len(conv.turns)
        history[-1] = {"role": "assistant", "content": render.answer_html(answer, turn)}
        yield history, render.sources_html(conv), conv, storable(conv), skip, _weak_offer(conv)

    def respond_weak(
        self, history: list[dict[str, Any]] | None, conv: Conversation | None, *settings: Any
    ) -> Iterator[tuple[Any, ...]]:
        """Ask the last refused question again, answering from its closest evidence."""
        if not isinstance(conv, Conversation) or not conv.last or not conv.last.answer.refused:
            yield (gr.skip(),) * 6
            return
        asked = conv.turns.pop().question
        history = list(history or [])[:-2]
        yield from self.respond(asked, history, conv, *settings, weak=True)

    def show_results(self, conv: Conversation | None) -> tuple[Any, ...]:
        """The last answer's matched set; lookups and comparisons have none: hide the box."""
        last = conv.last if isinstance(conv, Conversation) else None
        answer = last.answer if last else None
        matches = answer.papers if answer else []
        labels = dict(results.chips(answer.plan if answer else None))
        title = (
            f'<div class="pc-results-title">{render.esc(answer.rule)}</div>'
            if answer and answer.rule
            else ""
        )
        chart = (
            results.counts_chart_html(answer.chart, "Papers per theme")
            if answer and answer.chart
            else results.answer_chart_html(matches, answer.plan if answer else None)
        )
        return (
            gr.Column(visible=bool(matches)),
            title,
            *(gr.Button(labels.get(f, ""), visible=f in labels) for f in results.CHIP_FIELDS),
            chart,
            *self.chat_view.update(matches),
            # A new set starts unsearched.
            "",
        )

    def drop_chip(
        self, field: str, conv: Conversation | None, dropped: list[str] | None
    ) -> tuple[Any, ...]:
        """Re-ask the last question without that plan filter, nor any removed before it."""
        last = conv.last if isinstance(conv, Conversation) else None
        if last is None:
            return gr.skip(), gr.skip()
        return last.question, sorted({*(dropped or []), field})

    def map_value(self, conv: Conversation | None) -> str:
        """The Map tab's state: the index revision and the last answer's papers to ring."""
        last = conv.last if isinstance(conv, Conversation) else None
        return self.map_view.value(last.answer if last else None)

    def api_map(self) -> dict:
        """The conference map: every paper's position and theme, and the themes.

        Returns {"revision", "papers": [{"paper_id", "title", "x", "y", "theme"}], "themes":
        [{"id", "label", "terms", "size", "paper_ids"}]}.
        """
        try:
            cmap = self.pipeline.conference_map()
            catalog = self.pipeline.catalog()
        except Exception as exc:
            raise _user_error(_friendly(exc)) from None
        return {
            "revision": cmap.revision,
            "papers": [
                {"paper_id": pid, "title": catalog[pid].title, "x": x, "y": y, "theme": t}
                for pid, x, y, t in zip(cmap.ids, cmap.x, cmap.y, cmap.theme, strict=True)
                if pid in catalog
            ],
            "themes": cmap.themes_payload(),
        }

    def api_themes(self) -> dict:
        """The conference's themes, largest first.

        Returns {"papers", "revision", "themes": [{"id", "label", "terms", "size",
        "paper_ids"}]}; paper_ids are ordered most central first.
        """
        try:
            cmap = self.pipeline.conference_map()
        except Exception as exc:
            raise _user_error(_friendly(exc)) from None
        return {"papers": len(cmap), "revision": cmap.revision, "themes": cmap.themes_payload()}

    def restart(self) -> tuple[Any, ...]:
        """A new chat."""
        fresh = Conversation()
        # An empty conversation, not None: Gradio leaves browser storage alone on None.
        return [], render.EMPTY_SOURCES, fresh, storable(fresh), "", gr.Button(visible=False)

    def on_load(self, stored: Any) -> tuple[Any, ...]:
        """A page (re)load: restore the conversation the browser kept, read the catalog."""
        conv = _restore(stored)
        current, why = _catalog(self.pipeline)
        return (
            gr.Chatbot(value=render.chat_messages(conv), examples=_examples(current)),
            render.sources_html(conv),
            conv,
            render.header_html(current, self.mode),
            gr.HTML(_notice(why), visible=bool(why)),
            gr.Textbox(interactive=True),
            _weak_offer(conv),
        )

    def pick_example(self, evt: gr.SelectData) -> tuple[str, list[str]]:
        """An example question clicked in the empty chat."""
        value = evt.value if isinstance(evt.value, dict) else {}
        return str(value.get("text", "")), []

    def corpus_updates(self, current: dict[str, Paper], why: str, query: str) -> tuple[Any, ...]:
        """Stats, charts and table of the Corpus tab, from one read of the catalog."""
        return (
            _stats(self.pipeline, current, why),
            results.corpus_charts_html(list(current.values())),
            *self.corpus_view.update(results.from_papers(current.values()), query or ""),
        )

    def refresh_corpus(self, query: str) -> tuple[Any, ...]:
        """The Corpus tab, opened."""
        return self.corpus_updates(*_catalog(self.pipeline), query)

    def catalog(self) -> Mapping[str, Paper]:
        """The papers the results views open cards from."""
        return _catalog(self.pipeline)[0]

    def ingest(
        self, paths: list[str] | None, query: str, progress: gr.Progress = _PROGRESS
    ) -> tuple[Any, ...]:
        """Index uploaded files; refresh the Corpus tab, the header, filters and examples."""
        # Nothing to refresh: skip the Corpus tab, header, filters and examples.
        unchanged = (gr.skip(),) * (2 + len(self.corpus_view.outputs()) + 4)
        if not paths:
            return unchanged + ("<p class='pc-warn'>Choose one or more files first.</p>", gr.skip())
        data_dir = self.settings.data_dir
        refused: list[tuple[str, str]] = []
        stored: list[Path] = []
        names: dict[str, str] = {}
        if len(paths) > MAX_FILES:
            refused.append((f"{len(paths) - MAX_FILES} more files", f"max {MAX_FILES}"))
        for raw in paths[:MAX_FILES]:
            original = Path(raw).name
            try:
                kept = store_upload(Path(raw), original, data_dir)
            except UploadRejected as exc:
                refused.append((original, str(exc)))
                continue
            stored.append(kept)
            names[str(kept)] = original
        report = None
        if stored:
            progress(0, desc="Reading files")

            def tick(stage: str, done: int, total: int) -> None:
                embed = stage == "embed"
                label = "Embedding chunks" if embed else "Writing papers"
                progress((done, total), desc=label, unit="texts" if embed else "papers")

            try:
                loaded, report = self.pipeline.ingest(stored, progress=tick)
            except Exception as exc:
                for path in stored:
                    discard(path, data_dir)
                html = render.ingest_html(None, refused + [("upload", _friendly(exc))])
                return unchanged + (html, None)
            kept_files = {Path(p.source.rsplit(":", 1)[0]).resolve() for p in loaded.papers}
            for path in stored:
                if path.resolve() not in kept_files:
                    # Nothing usable came from this file: keep no copy of it.
                    discard(path, data_dir)
        current, why = _catalog(self.pipeline)
        html = render.ingest_html(report, refused, names, papers_after=len(current))
        return (
            *self.corpus_updates(current, why, query),
            render.header_html(current, self.mode),
            gr.Dropdown(
                choices=_choices(
                    {p.primary_area for p in current.values() if p.primary_area}, "Any area"
                )
            ),
            gr.Dropdown(
                choices=_choices(
                    {p.decision for p in current.values() if p.decision}, "Any decision"
                )
            ),
            gr.Chatbot(examples=_examples(current)),
            html,
            None,
        )

    def api_ask(
        self,
        question: str,
        k: int = 0,
        area: str = "",
        keyword: str = "",
        decision: str = "",
        answerer: str = "auto",
        min_rating: float = 0,
    ) -> dict:
        """Answer one question (no chat history) with citations.

        Returns {"question", "answer", "refused", "citations": [{"n", "paper_id", "title",
        "url", "quote"}], "sources": [{"paper_id", "title", "score"}], "mode", "timings"};
        k=0 uses the server's top-k; answerer is auto, extractive or model; min_rating=0 keeps
        papers of any rating.
        """
        text = (question or "").strip()
        if not text:
            raise _user_error("Ask a question.")
        if len(text) > MAX_QUESTION_CHARS:
            raise _user_error(f"Questions are limited to {MAX_QUESTION_CHARS} characters.")
        if answerer not in ANSWERER_CHOICES:
            raise _user_error("answerer must be auto, extractive or model.")
        options = _options(
            k if k and k > 0 else None, area, keyword, decision, answerer, min_rating=min_rating
        )
        try:
            answer = self.pipeline.ask(text, None, options)
        except Exception as exc:
            raise _user_error(_friendly(exc)) from None
        return answer.payload()


def _wire(demo: gr.Blocks, ui: Layout, handlers: Handlers) -> None:
    """Connect the components' events to the handlers (inside the Blocks being built)."""
    chat_inputs, chat_outputs = ui.chat_inputs(), ui.chat_outputs()
    results_outputs = ui.results_outputs()
    corpus_outputs = ui.corpus_outputs()

    def answering(event: Any) -> None:
        # Every way of asking ends the same: answer, then show its matched set (if any).
        event.then(
            handlers.respond,
            chat_inputs,
            chat_outputs,
            api_visibility="private",
            concurrency_limit=ANSWER_CONCURRENCY,
            concurrency_id="answer",
            show_progress="hidden",
        ).then(
            handlers.show_results,
            [ui.conversation],
            results_outputs,
            api_visibility="private",
            show_progress="hidden",
        ).then(
            handlers.map_value,
            [ui.conversation],
            [ui.map_view.html],
            api_visibility="private",
            show_progress="hidden",
        )

    # A question typed or picked by the user gets every filter its words imply.
    answering(
        ui.question.submit(lambda: [], None, ui.dropped, api_visibility="private", queue=False)
    )
    answering(
        ui.chatbot.example_select(
            handlers.pick_example,
            None,
            [ui.question, ui.dropped],
            api_visibility="private",
            queue=False,
        )
    )
    ui.weak_btn.click(
        handlers.respond_weak,
        chat_inputs[1:],
        chat_outputs,
        api_visibility="private",
        concurrency_limit=ANSWER_CONCURRENCY,
        concurrency_id="answer",
        show_progress="hidden",
    ).then(handlers.show_results, [ui.conversation], results_outputs, api_visibility="private")
    for field, chip in zip(results.CHIP_FIELDS, ui.chips, strict=True):
        answering(
            chip.click(
                lambda conv, dr, field=field: handlers.drop_chip(field, conv, dr),
                [ui.conversation, ui.dropped],
                [ui.question, ui.dropped],
                api_visibility="private",
                queue=False,
            )
        )
    ui.chat_view.wire(handlers.catalog)
    for clear in (ui.new_chat.click, ui.chatbot.clear):
        # The chatbot's own trash button means the same as New chat.
        clear(handlers.restart, None, chat_outputs, api_visibility="private", queue=False).then(
            handlers.show_results, [ui.conversation], results_outputs, api_visibility="private"
        )
    demo.load(
        handlers.on_load,
        [ui.saved],
        [ui.chatbot, ui.sources, ui.conversation, ui.header, ui.notice, ui.question, ui.weak_btn],
        api_visibility="private",
        show_progress="hidden",
    ).then(handlers.show_results, [ui.conversation], results_outputs, api_visibility="private")
    ui.map_tab.select(
        handlers.map_value,
        [ui.conversation],
        [ui.map_view.html],
        api_visibility="private",
        show_progress="hidden",
    )
    ui.corpus_tab.select(
        handlers.refresh_corpus, [ui.corpus_view.search], corpus_outputs, api_visibility="private"
    )
    ui.corpus_view.wire(handlers.catalog)
    ui.ingest_btn.click(
        handlers.ingest,
        [ui.files, ui.corpus_view.search],
        [*corpus_outputs, ui.header, ui.area, ui.decision, ui.chatbot, ui.ingest_result, ui.files],
        api_visibility="private",
        concurrency_limit=1,
        concurrency_id="ingest",
    )
    gr.api(
        handlers.api_ask,
        api_name=API_NAME,
        concurrency_limit=ANSWER_CONCURRENCY,
        concurrency_id="answer",
    )
    # The map is built once per index revision; concurrent callers wait for that one build.
    gr.api(handlers.api_map, api_name="map", concurrency_limit=ANSWER_CONCURRENCY)
    gr.api(handlers.api_themes, api_name="themes", concurrency_limit=ANSWER_CONCURRENCY)


def _user_error(message: str) -> gr.Error:
    """An error for API callers; expected ones need no traceback in the server log."""
    return gr.Error(message, print_exception=False)


def _notice(problem: str) -> str:
    return f'<div class="pc-error" role="alert">⚠️ {render.esc(problem)}</div>' if problem else ""


def _stats(pipeline: Pipeline, papers: dict[str, Paper], problem: str = "") -> str:
    if problem:
        return _notice(problem)
    try:
        stats = pipeline.stats()
    except IndexError_ as exc:
        return _notice(str(exc))
    return render.stats_html(stats, papers)


def launch(
    demo: gr.Blocks,
    settings: Settings,
    host: str = "127.0.0.1",
    port: int = 7860,
    share: bool = False,
    auth: tuple[str, str] | None = None,
) -> tuple[str, str | None]:
    """Serve the app without blocking; returns the local and (with share) public URLs."""
    data_dir = settings.data_dir.resolve()
    _, local_url, share_url = demo.launch(
        server_name=host,
        server_port=port,
        share=share,
        auth=auth,
        auth_message="PaperChat: sign in to ask the papers.",
        prevent_thread_lock=True,
        quiet=True,
        show_error=False,
        max_file_size=MAX_UPLOAD_BYTES,
        # Defence in depth: Gradio must never serve the index, uploads or the .env file.
        blocked_paths=[str(data_dir), str(Path(".env").resolve())],
        # The Map tab's plotly.js, from the plotly package: no CDN.
        allowed_paths=[str(plotly_js())],
        footer_links=["api"],
        theme=THEME,
        css_paths=[CSS_PATH],
        enable_monitoring=False,
    )
    return local_url, share_url
