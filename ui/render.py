"""Pure rendering for the web app: answers, sources and corpus views as escaped HTML.

Nothing here imports Gradio, so every function is unit-tested without a browser. Every piece of
text that comes from an abstract, a question or a model goes through ``html.escape`` before it is
wrapped in our own tags: a planted ``<img onerror=...>`` renders as text, never as markup.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from rag.answers.wording import rating_said
from rag.models import Answer, Conversation, IngestReport, LoadError, Paper, SearchHit
from rag.store.markup import plain, readable, render

# One marker "[3]" or a group "[1, 3]"; runs after escaping, which leaves digits and brackets.
_CITE_GROUP = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
# The shortest bold span: "**Flex**ible **M**asked" is two, not "**M**asked **D**" one.
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
# An abstract's own emphasis ("so-called *superposition*", "_superposition_"); not snake_case.
_ITALIC = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])([^*_\n]*?[^\s*_])\1(?![\w*])")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^:?-{3,}:?$|^$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_VENUE_KIND = re.compile(r"\s+(?:poster|oral|spotlight|workshop|conference)\s*$", re.IGNORECASE)
_WORD = re.compile(r"\S+")

MAX_STORED_TURNS = 10
LOGO_SVG = (
    '<svg class="pc-logo" viewBox="0 0 32 32" width="34" height="34" aria-hidden="true">'
    '<rect x="3" y="2" width="20" height="26" rx="3" fill="var(--primary-500)"/>'
    '<path d="M8 9h10M8 13.5h10M8 18h6" stroke="white" stroke-width="2" '
    'stroke-linecap="round"/>'
    '<path d="M19 17h9a2 2 0 0 1 2 2v6a2 2 0 0 1-2 2h-4l-3.5 3v-3H19a2 2 0 0 1-2-2v-6a2 2 0 0 1 '
    '2-2z" fill="var(--secondary-400)"/></svg>'
)
EMPTY_SOURCES = (
    '<div class="pc-sources pc-empty"><p class="pc-empty-title">Sources</p>'
    "<p>Ask a question: the papers behind the answer appear here, with the sentences that "
    "support it highlighted.</p></div>"
)


def esc(text: object) -> str:
    """HTML-escape any value for text or attribute context."""
    return html.escape(str(text), quote=True)


def safe_url(url: str) -> str:
    """The URL when it is plain http(s) with a host, else '' (no javascript: or data: links)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return ""
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return ""
    return url.strip()


def anchor_id(turn: int, kind: str, n: int) -> str:
    """DOM id of a citation ('c') or paper card ('p') in the sources panel of one turn."""
    return f"pc-t{turn}-{kind}{n}"


# -- answers ----------------------------------------------------------------------------------


def _cite_links(escaped: str, turn: int | None, known: set[int]) -> str:
    """Turn [n] markers of escaped text into links to their source cards (or plain badges)."""

    def one(n: str) -> str:
        num = int(n)
        if turn is None:
            return f'<span class="pc-cite pc-pending">{num}</span>'
        if num not in known:
            return f'<span class="pc-cite pc-dead">{num}</span>'
        href = "#" + anchor_id(turn, "c", num)
        return f'<a class="pc-cite" href="{href}" title="Show source {num}">{num}</a>'

    def group(m: re.Match[str]) -> str:
        # Chips replace the brackets: "[1, 3]" reads as two adjacent numbered badges.
        return "".join(one(n.strip()) for n in m.group(1).split(","))

    return _CITE_GROUP.sub(group, escaped)


def _inline(raw: str, turn: int | None, known: set[int]) -> str:
    out = esc(readable(raw))
    out = _ITALIC.sub(r"<em>\2</em>", _BOLD.sub(r"<strong>\1</strong>", out))
    return _cite_links(out, turn, known)


def _flexible(needle: str) -> re.Pattern[str] | None:
    """Regex matching a sentence's words with any spacing and citation markers between them."""
    words = _WORD.findall(_CITE_GROUP.sub(" ", needle))
    if not words:
        return None
    gap = r"(?:\s|\[\d{1,3}(?:\s*,\s*\d{1,3})*\])+"
    return re.compile(gap.join(re.escape(w) for w in words))


def _spans(text: str, needles: Iterable[str]) -> list[tuple[int, int]]:
    """Merged spans where each needle occurs first in text (exactly, else word by word)."""
    found: list[tuple[int, int]] = []
    for needle in needles:
        needle = needle.strip()
        if not needle:
            continue
        pos = text.find(needle)
        if pos >= 0:
            found.append((pos, pos + len(needle)))
            continue
        pattern = _flexible(needle)
        match = pattern.search(text) if pattern else None
        if match:
            found.append(match.span())
    return _merge(found)


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _line_html(
    line: str, turn: int | None, known: set[int], unsupported: Sequence[str]
) -> tuple[str, set[str]]:
    """One line of answer text with unsupported sentences wrapped; returns the ones it marked."""
    marked: set[str] = set()
    found: list[tuple[int, int]] = []
    for sentence in unsupported:
        hit = _spans(line, [sentence])
        if hit:
            found.extend(hit)
            marked.add(sentence)
    spans = _merge(found)
    parts: list[str] = []
    cursor = 0
    for start, end in spans:
        parts.append(_inline(line[cursor:start], turn, known))
        parts.append(
            '<span class="pc-unsupported" title="Not backed by the sources it cites">'
            + _inline(line[start:end], turn, known)
            + "</span>"
        )
        cursor = end
    parts.append(_inline(line[cursor:], turn, known))
    return "".join(parts), marked


def _blocks(text: str, turn: int | None, known: set[int], unsupported: Sequence[str]) -> str:
    """Paragraphs and bullet lists from plain answer text, without a Markdown parser."""
    out: list[str] = []
    marked: set[str] = set()
    para: list[str] = []
    items: list[str] = []
    rows: list[list[str]] = []

    def flush() -> None:
        if para:
            out.append("<p>" + "<br>".join(para) + "</p>")
            para.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{i}</li>" for i in items) + "</ul>")
            items.clear()
        if rows:
            head, *body = rows
            cells = "".join(f"<th>{c}</th>" for c in head)
            trs = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in body)
            out.append(
                f'<table class="pc-table"><thead><tr>{cells}</tr></thead><tbody>{trs}</tbody>'
                "</table>"
            )
            rows.clear()

    for raw in text.splitlines():
        if not raw.strip():
            flush()
            continue
        if _TABLE_ROW.match(raw):
            # A comparison's Markdown table: cells rendered one by one, the rule row dropped.
            if para or items:
                flush()
            cells = [c.strip() for c in raw.strip().strip("|").split("|")]
            if not all(_TABLE_RULE.match(c) for c in cells):
                rendered_cells = []
                for c in cells:
                    html_cell, hit = _line_html(c, turn, known, unsupported)
                    marked |= hit
                    rendered_cells.append(html_cell)
                rows.append(rendered_cells)
            continue
        if rows:
            flush()
        bullet = _BULLET.match(raw)
        body = raw[bullet.end() :] if bullet else raw.strip()
        rendered, hit = _line_html(body, turn, known, unsupported)
        marked |= hit
        if bullet:
            if para:
                flush()
            items.append(rendered)
        else:
            if items:
                flush()
            para.append(rendered)
    flush()
    missed = [s for s in unsupported if s not in marked]
    if missed:
        # Sentences we could not locate in the text are still listed, never silently dropped.
        out.append(
            '<ul class="pc-unsupported-list">'
            + "".join(
                f'<li><span class="pc-unsupported">{_inline(s, turn, known)}</span></li>'
                for s in missed
            )
            + "</ul>"
        )
    return "".join(out)


def stream_html(partial: str) -> str:
    """An answer still being written: escaped text, citation markers not yet linkable."""
    body = _blocks(partial, None, set(), [])
    return f'<div class="pc-answer pc-streaming">{body}<span class="pc-caret"></span></div>'


def pending_html() -> str:
    """Placeholder shown between submit and the first streamed token."""
    return (
        '<div class="pc-answer pc-streaming">'
        '<span class="pc-thinking">Searching the papers…</span></div>'
    )


def answer_html(answer: Answer, turn: int) -> str:
    """A finished answer: escaped text, [n] linked to its source card, weak sentences marked."""
    known = {c.n for c in answer.citations}
    unsupported = [s.text for s in answer.sentences if not s.supported]
    parts = ['<div class="pc-answer">']
    if answer.error:
        parts.append(f'<div class="pc-error" role="alert">⚠️ {esc(answer.error)}</div>')
    if answer.refused and not answer.error:
        parts.append('<div class="pc-refused">Not answered by the collection</div>')
    if answer.weak:
        parts.append(
            '<div class="pc-weak">Weak evidence: the closest sentences, shown on request; '
            "they may not answer the question</div>"
        )
    if answer.text.strip():
        parts.append(_blocks(answer.text, turn, known, unsupported))
    if unsupported:
        parts.append(
            '<p class="pc-note">⚠ Sentences marked like <span class="pc-unsupported">this</span> '
            "could not be verified against the sources they cite.</p>"
        )
    attributed = [s for s in answer.sentences if s.attributed]
    if attributed:
        items = "".join(
            f"<li>{esc(readable(s.text))} → attributed to "
            + ", ".join(f"[{n}]" for n in s.citations)
            + "</li>"
            for s in attributed
        )
        parts.append(
            '<p class="pc-note">The model cited nothing for these sentences; each is '
            "<b>attributed</b> to the source sentence that supports it best:</p>"
            f'<ul class="pc-attributed">{items}</ul>'
        )
    if not answer.complete and not answer.error:
        parts.append('<p class="pc-note">⚠ The answer stopped midway and is incomplete.</p>')
    if answer.refused and answer.sources:
        links = "".join(
            f'<li><a class="pc-near" href="#{anchor_id(turn, "p", i)}">'
            f"{esc(plain(h.paper.title))}</a></li>"
            for i, h in enumerate(answer.sources, 1)
        )
        parts.append(
            f'<p class="pc-near-title">Nearest papers:</p><ol class="pc-near-list">{links}</ol>'
        )
        if answer.refused and not answer.error:
            parts.append(
                '<p class="pc-note">“Show the closest evidence anyway” answers from them, '
                "marked weak.</p>"
            )
    if not answer.error:
        parts.append(_footer(answer))
    parts.append("</div>")
    return "".join(parts)


def _footer(answer: Answer) -> str:
    if answer.mode == "model" and answer.model:
        who = f"model {esc(answer.model)}"
    else:
        who = "extractive (quoted from abstracts)"
    total = answer.timings.get("total")
    if total is None and answer.timings:
        total = sum(answer.timings.values())
    took = f" · {total:.2f} s" if total else ""
    return f'<div class="pc-answer-meta">{who}{took}</div>'


def question_html(question: str) -> str:
    """A user's question as inert text (brackets escaped too, so no Markdown link forms)."""
    text = esc(question).replace("[", "&#91;").replace("]", "&#93;").replace("\n", "<br>")
    return f'<div class="pc-question">{text}</div>'


def error_html(message: str) -> str:
    """A friendly failure message in the chat."""
    return f'<div class="pc-answer"><div class="pc-error" role="alert">⚠️ {esc(message)}</div></div>'


def chat_messages(conversation: Conversation | None) -> list[dict[str, str]]:
    """The chatbot's messages for a whole conversation."""
    messages: list[dict[str, str]] = []
    for i, turn in enumerate(conversation.turns if conversation else [], 1):
        messages.append({"role": "user", "content": question_html(turn.question)})
        messages.append({"role": "assistant", "content": answer_html(turn.answer, i)})
    return messages


# -- sources panel ----------------------------------------------------------------------------


def highlight(text: str, quotes: Iterable[str]) -> str:
    """Escaped text with each quote (whole, else sentence by sentence) wrapped in <mark>."""
    needles: list[str] = []
    for quote in quotes:
        quote = quote.strip()
        if not quote:
            continue
        if _spans(text, [quote]):
            needles.append(quote)
        else:
            # '…' marks skipped text: each side's sentences, never the bare '.' left between.
            needles.extend(
                sentence
                for part in quote.split("…")
                for sentence in _SENTENCE_END.split(part.strip())
                if any(c.isalnum() for c in sentence)
            )
    spans = _spans(text, needles)
    # Quotes are found in the stored text; the reader sees it rendered (18× for 18\times).
    shown = render(text, markdown=False)
    marked = [any(a <= o < b for a, b in spans) for o in shown.origin]
    parts: list[str] = []
    run_start = 0
    for i in range(1, len(shown.text) + 1):
        if i == len(shown.text) or marked[i] != marked[run_start]:
            chunk = esc(shown.text[run_start:i])
            parts.append(f"<mark>{chunk}</mark>" if marked[run_start] else chunk)
            run_start = i
    return "".join(parts)


def paper_card(
    paper: Paper,
    turn: int,
    index: int,
    cites: Sequence[int] = (),
    quotes: Sequence[str] = (),
    score: float | None = None,
) -> str:
    """One paper in the sources panel: metadata, link, abstract with quotes highlighted."""
    anchors = "".join(
        f'<span class="pc-anchor" id="{anchor_id(turn, "c", n)}"></span>' for n in cites
    )
    badges = "".join(f'<span class="pc-badge">{n}</span>' for n in cites)
    url = safe_url(paper.url)
    title = esc(plain(paper.title))
    if url:
        title = f'<a href="{esc(url)}" target="_blank" rel="noopener noreferrer">{title}</a>'
    meta = []
    if paper.decision:
        meta.append(f'<span class="pc-decision">{esc(paper.decision)}</span>')
    if paper.primary_area:
        meta.append(f'<span class="pc-area">{esc(paper.primary_area)}</span>')
    if paper.avg_rating is not None:
        said = rating_said(paper.avg_rating, paper.n_ratings)
        meta.append(f'<span class="pc-rating">rating {esc(said)}</span>')
    if score is not None:
        meta.append(f'<span class="pc-score">score {score:.3f}</span>')
    keywords = "".join(f'<span class="pc-kw">{esc(k)}</span>' for k in paper.keywords[:8])
    link = (
        f'<a class="pc-openreview" href="{esc(url)}" target="_blank" rel="noopener noreferrer">'
        "OpenReview ↗</a>"
        if url
        else ""
    )
    return (
        f'<article class="pc-card" id="{anchor_id(turn, "p", index)}">{anchors}'
        f'<div class="pc-card-head">{badges}<h4 class="pc-title">{title}</h4></div>'
        + (f'<div class="pc-meta">{"".join(meta)}</div>' if meta else "")
        + (f'<div class="pc-keywords">{keywords}</div>' if keywords else "")
        + f'<p class="pc-abstract">{highlight(paper.abstract, quotes)}</p>'
        + f'<div class="pc-card-foot">{link}<span class="pc-id">{esc(paper.id)}</span></div>'
        "</article>"
    )


def _turn_section(question: str, answer: Answer, turn: int, active: bool) -> str:
    hits: dict[str, SearchHit] = {h.paper.id: h for h in answer.sources}
    cards: list[str] = []
    if answer.error:
        cards.append('<p class="pc-lead">Answering failed, so this answer has no sources.</p>')
    elif not answer.sources and not answer.citations:
        cards.append(
            '<p class="pc-lead">No paper matched this question. If filters are set in '
            "Settings, try loosening them.</p>"
        )
    elif answer.refused or not answer.citations:
        lead = (
            "The collection does not answer this. Nearest papers:"
            if answer.refused
            else "No citations in this answer. Retrieved papers:"
        )
        cards.append(f'<p class="pc-lead">{lead}</p>')
        for i, hit in enumerate(answer.sources, 1):
            cards.append(paper_card(hit.paper, turn, i, score=hit.score))
    else:
        order: list[str] = []
        cites: dict[str, list[int]] = {}
        quotes: dict[str, list[str]] = {}
        titles: dict[str, tuple[str, str]] = {}
        for c in sorted(answer.citations, key=lambda c: c.n):
            if c.paper_id not in cites:
                order.append(c.paper_id)
                cites[c.paper_id], quotes[c.paper_id] = [], []
                titles[c.paper_id] = (c.title, c.url)
            cites[c.paper_id].append(c.n)
            quotes[c.paper_id].append(c.quote)
        for i, pid in enumerate(order, 1):
            hit = hits.get(pid)
            # A citation whose paper is not among the sources still gets a card from its quote.
            paper = hit.paper if hit else _stub_paper(pid, *titles[pid], quotes[pid])
            cards.append(paper_card(paper, turn, i, cites[pid], quotes[pid]))
        others = [h for h in answer.sources if h.paper.id not in cites]
        if others:
            items = "".join(
                f'<li>{esc(h.paper.title)} <span class="pc-score">{h.score:.3f}</span></li>'
                for h in others
            )
            cards.append(
                f'<details class="pc-others"><summary>Also retrieved ({len(others)})</summary>'
                f"<ul>{items}</ul></details>"
            )
    hidden = "" if active else " hidden"
    return (
        f'<section class="pc-turn" data-turn="{turn}" id="pc-t{turn}"{hidden}>'
        f'<p class="pc-for">Sources for answer {turn}: <q>{esc(_clip(question, 140))}</q></p>'
        + "".join(cards)
        + "</section>"
    )


def _stub_paper(pid: str, title: str, url: str, quotes: Sequence[str]) -> Paper:
    return Paper(id=pid, key="", title=title, url=url, abstract=" ".join(quotes))


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def sources_html(conversation: Conversation | None) -> str:
    """The sources panel: one section per answer, the latest shown, older ones on citation click."""
    turns = conversation.turns if conversation else []
    if not turns:
        return EMPTY_SOURCES
    last = len(turns)
    sections = [
        _turn_section(t.question, t.answer, i, active=(i == last)) for i, t in enumerate(turns, 1)
    ]
    return '<div class="pc-sources">' + "".join(sections) + "</div>"


# -- header, mode and examples ----------------------------------------------------------------


def venue_name(papers: Iterable[Paper]) -> str:
    """The most common venue without its track ('ICLR 2026 Poster' -> 'ICLR 2026'), or ''."""
    counts = Counter(_VENUE_KIND.sub("", p.venue).strip() for p in papers if p.venue.strip())
    return counts.most_common(1)[0][0] if counts else ""


def corpus_line(papers: Mapping[str, Paper]) -> str:
    """One-line description of the loaded corpus."""
    n = len(papers)
    if not n:
        return "The index is empty: upload abstracts in the Corpus tab to start."
    venue = venue_name(papers.values())
    what = f"{venue} paper abstracts" if venue else "research-paper abstracts"
    noun = what if n != 1 else what.replace("abstracts", "abstract")
    return f"Ask {n:,} {noun} a question — every claim in the answer cites the paper it came from."


def header_html(papers: Mapping[str, Paper], mode: Mapping[str, str] | None = None) -> str:
    """Title block with the corpus description and, when given, the answer mode."""
    return (
        f'<div class="pc-header"><div class="pc-head-text"><div class="pc-brand">{LOGO_SVG}'
        '<h1 class="pc-h1">PaperChat</h1></div>'
        f'<p class="pc-sub" id="pc-corpus-line">{esc(corpus_line(papers))}</p></div>'
        + (mode_html(mode) if mode else "")
        + "</div>"
    )


def mode_html(info: Mapping[str, str]) -> str:
    """Which answerer is active (from Pipeline.mode_info) and the .env setting to switch."""
    model = info.get("mode") == "model"
    badge = f"Model · {esc(info.get('model', ''))}" if model else "Offline · extractive"
    cls = "pc-mode-model" if model else "pc-mode-extractive"
    return (
        f'<details class="pc-mode {cls}" id="pc-mode"><summary><span class="pc-mode-badge">'
        f"{badge}</span></summary><p>{esc(info.get('detail', ''))}</p>"
        f'<p class="pc-switch">{_code_env(info.get("switch", ""))}</p></details>'
    )


def _code_env(text: str) -> str:
    """Escaped text with NAME=value settings shown as code."""
    return re.sub(r"\b([A-Z][A-Z0-9]*_[A-Z0-9_]+(?:=[^\s,;)]+)?)", r"<code>\1</code>", esc(text))


def _short_name(title: str) -> str:
    """A paper's short name ('SHAPO: Sharpness-…' -> 'SHAPO'), or '' when it has none."""
    head = title.split(":", 1)[0].strip()
    if ":" in title and 1 <= len(head.split()) <= 3 and len(head) <= 30:
        return head
    if len(title.split()) <= 2 and len(title) <= 30:
        return title.strip()
    return ""


def example_questions(papers: Iterable[Paper], n: int = 4) -> list[str]:
    """Example questions drawn from the corpus: named methods and frequent keywords."""
    papers = sorted(papers, key=lambda p: p.key or p.id)
    # Derived titles count when they are a coined name ("SHAPO: …"), not a clipped sentence.
    named = [(p, _short_name(p.title)) for p in papers if not p.title.endswith("…")]
    named = [(p, name) for p, name in named if name]
    counts = Counter(
        k.strip().lower() for p in papers for k in p.keywords if 2 <= len(k.strip()) <= 40
    )
    topics = [k for k, c in counts.most_common(n) if c >= 2]
    by_name = [f"What does {name} propose?" for _, name in named]
    if len(by_name) > n:
        # Spread the picks over the corpus rather than taking its first few papers.
        step = len(by_name) / n
        by_name = [by_name[int(i * step)] for i in range(n)]
    by_topic = [f"Which papers study {k}?" for k in topics]
    mixed: list[str] = []
    for a, b in zip(by_name + [""] * n, by_topic + [""] * n, strict=False):
        mixed.extend(x for x in (a, b) if x)
    if not mixed:
        fallback = [p for p in papers if not p.title.endswith("…")][:n]
        mixed = [f"What is “{_clip(p.title, 60)}” about?" for p in fallback]
    return list(dict.fromkeys(mixed))[:n]


# -- corpus tab -------------------------------------------------------------------------------


def stats_html(stats: Mapping[str, Any], papers: Mapping[str, Paper]) -> str:
    """Corpus statistics as a row of figures."""
    decisions = Counter(p.decision for p in papers.values() if p.decision)
    areas = {p.primary_area for p in papers.values() if p.primary_area}
    figures = [
        ("Papers", f"{int(stats.get('papers', len(papers))):,}"),
        ("Chunks", f"{int(stats.get('chunks', 0)):,}"),
        ("Embedding model", str(stats.get("embedding_model", "?"))),
    ]
    if areas:
        # A corpus without areas (the sample) shows no "0 primary areas".
        figures.insert(2, ("Primary areas", f"{len(areas):,}"))
    if decisions:
        figures.append(("Decisions", " · ".join(f"{k} {v:,}" for k, v in decisions.most_common())))
    cells = "".join(
        f'<div class="pc-stat"><div class="pc-stat-v">{esc(v)}</div>'
        f'<div class="pc-stat-k">{esc(k)}</div></div>'
        for k, v in figures
    )
    return f'<div class="pc-stats" id="pc-stats" data-papers="{len(papers)}">{cells}</div>'


def ingest_html(
    report: IngestReport | None,
    refused: Sequence[tuple[str, str]] = (),
    names: Mapping[str, str] | None = None,
    papers_after: int | None = None,
) -> str:
    """What an upload did: counts, files refused before loading, and each rejected record."""
    names = names or {}
    parts = ['<div class="pc-ingest">']
    if report is not None:
        counts = (
            f"Added <b>{report.added}</b> · updated <b>{report.updated}</b> · unchanged "
            f"<b>{report.unchanged}</b> · rejected <b>{len(report.errors)}</b>"
        )
        if papers_after is not None:
            counts += f" — the index now holds <b>{papers_after:,}</b> papers"
        cls = "pc-ok" if not report.errors and not refused else "pc-warn"
        parts.append(f'<p class="{cls}">{counts}.</p>')
    if refused:
        items = "".join(f"<li><code>{esc(n)}</code>: {esc(why)}</li>" for n, why in refused)
        parts.append(
            f'<p class="pc-warn">Files not accepted:</p><ul class="pc-rejects">{items}</ul>'
        )
    if report is not None and report.errors:
        items = "".join(f"<li>{_error_line(e, names)}</li>" for e in report.errors[:200])
        more = len(report.errors) - 200
        if more > 0:
            items += f"<li>… and {more:,} more</li>"
        parts.append(f'<p class="pc-warn">Rejected records:</p><ul class="pc-rejects">{items}</ul>')
    parts.append("</div>")
    return "".join(parts)


def _error_line(error: LoadError, names: Mapping[str, str]) -> str:
    # Show the name the user uploaded, not our sanitised path inside the data directory.
    file = names.get(error.file, error.file.rsplit("/", 1)[-1])
    where = f"{file}:{error.line}" if error.line is not None else file
    return f"<code>{esc(where)}</code> {esc(error.message)}"
