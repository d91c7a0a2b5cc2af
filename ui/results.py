"""The results table of collection answers and the Corpus tab: rows, columns, chips, exports.

Pure functions over PaperMatch/Paper/Plan (no Gradio), so the table the browser shows and the
file a user downloads come from the same rows.
"""

from __future__ import annotations

import base64
import hashlib
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rag.answers import charts
from rag.answers.export import WRITERS
from rag.models import Paper, PaperMatch, Plan
from rag.store.markup import plain

from .render import esc, safe_url

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# (header, PaperMatch attribute, Gradio datatype); Score is hidden when no row has one.
COLUMNS: list[tuple[str, str, str]] = [
    ("Title", "title", "str"),
    ("Area", "primary_area", "str"),
    ("Decision", "decision", "str"),
    ("Rating", "avg_rating", "number"),
    ("Ratings", "n_ratings", "number"),
    ("Score", "score", "number"),
    ("Keywords", "keywords", "str"),
    ("OpenReview", "url", "html"),
    ("ID", "paper_id", "str"),
]
ID_COLUMN = "ID"
WIDTHS = {
    "Title": "28%",
    "Area": "14%",
    "Decision": "8%",
    "Rating": "7%",
    "Ratings": "7%",
    "Score": "6%",
    "Keywords": "14%",
    "OpenReview": "8%",
    "ID": "8%",
}
EXPORT_TTL = 3600
EXPORT_LABELS = {".csv": "CSV", ".bib": "BibTeX", ".jsonl": "JSONL"}
# Plan filter fields a user can remove as chips, in display order, with their label.
CHIP_FIELDS = ("decision", "area", "keyword", "min_rating")
_CHIP_PREFIX = {"decision": "", "area": "Area: ", "keyword": "Keyword: ", "min_rating": "Rating ≥ "}


def from_papers(papers: Iterable[Paper]) -> list[PaperMatch]:
    """Catalog papers as unscored rows for the Corpus tab, sorted by title."""
    return [PaperMatch.of(p) for p in sorted(papers, key=lambda p: p.title.lower())]


def search(matches: Sequence[PaperMatch], query: str) -> list[PaperMatch]:
    """The matches containing every word of the query in title, area, decision, keywords or id."""
    terms = query.lower().split()
    if not terms:
        return list(matches)
    out = []
    for m in matches:
        hay = " ".join([m.title, m.primary_area, m.decision, " ".join(m.keywords), m.paper_id])
        if all(t in hay.lower() for t in terms):
            out.append(m)
    return out


def columns(matches: Sequence[PaperMatch], scored: bool = True) -> list[tuple[str, str, str]]:
    """The columns worth showing: none that is empty for every paper of the set."""
    kept = []
    for header, attr, kind in COLUMNS:
        if header in ("Title", ID_COLUMN):
            kept.append((header, attr, kind))
        elif attr == "score":
            if scored and matches:
                kept.append((header, attr, kind))
        elif any(_cell(m, attr) for m in matches):
            kept.append((header, attr, kind))
    return kept


def _cell(match: PaperMatch, attr: str) -> str | float | None:
    if attr == "score":
        return round(match.score, 4)
    if attr in ("avg_rating", "n_ratings"):
        # An unrated paper's cell is empty (None), never 0; numbers sort as numbers.
        value = getattr(match, attr)
        return None if value is None else round(value, 2)
    if attr == "title":
        # "**TandemFoilSet**" and "$\\alpha$" read as text; exports keep the stored title.
        return plain(match.title)
    if attr == "keywords":
        return ", ".join(match.keywords)
    if attr == "url":
        url = safe_url(match.url)
        return (
            f'<a href="{esc(url)}" target="_blank" rel="noopener noreferrer">OpenReview ↗</a>'
            if url
            else ""
        )
    return str(getattr(match, attr))


def table(
    matches: Sequence[PaperMatch], cols: Sequence[tuple[str, str, str]], limit: int = 500
) -> dict[str, object]:
    """A Gradio Dataframe value: headers and the first `limit` rows."""
    return {
        "headers": [h for h, _, _ in cols],
        "data": [[_cell(m, attr) for _, attr, _ in cols] for m in matches[:limit]],
    }


def datatypes(cols: Sequence[tuple[str, str, str]]) -> list[str]:
    """The Dataframe datatype of each column."""
    return [kind for _, _, kind in cols]


def caption(shown: int, matched: int, total: int, query: str, noun: str = "papers") -> str:
    """The line above a table: how many rows of how many, and the search applied."""
    q = query.strip()
    text = f"{matched:,} of {total:,} {noun} match “{esc(q)}”" if q else f"{total:,} {noun}"
    return text + (f" (showing the first {shown:,})" if shown < matched else "")


def row_id(row: Sequence[object] | None, headers: Sequence[str]) -> str:
    """The paper id of a clicked row (the row as the browser sent it)."""
    if not row or ID_COLUMN not in headers:
        return ""
    i = list(headers).index(ID_COLUMN)
    return str(row[i]) if i < len(row) else ""


def chips(plan: Plan | None) -> list[tuple[str, str]]:
    """The plan's applied filters as (field, label) chips, e.g. ('decision', 'Oral ×')."""
    if plan is None:
        return []
    out = []
    for field in CHIP_FIELDS:
        value = getattr(plan.filters, field)
        if value:
            shown = f"{value:g}" if isinstance(value, float) else value
            out.append((field, f"{_CHIP_PREFIX[field]}{shown} ×"))
    return out


def chart_html(fig: Figure, alt: str) -> str:
    """A chart as an inline PNG image (no file for Gradio to serve)."""
    data = base64.b64encode(charts.png_bytes(fig)).decode("ascii")
    return f'<img class="pc-chart" alt="{esc(alt)}" src="data:image/png;base64,{data}">'


def answer_chart_html(matches: Sequence[PaperMatch], plan: Plan | None = None) -> str:
    """The chart of an answer's papers: a rating answer's rating chart, else the per-area
    (orals vs posters) chart; '' with nothing to plot."""
    if (fig := charts.answer_chart(matches, plan)) is not None:
        # Its title says which rating chart it is: per area, or the papers per rating.
        return chart_html(fig, fig.axes[0].get_title(loc="left"))
    if not charts.has_breakdown(matches):
        return ""
    fig = charts.area_decision_chart(matches, f"{len(matches):,} matched papers per primary area")
    return chart_html(fig, "Matched papers per primary area, orals and posters")


def counts_chart_html(counts: dict[str, int], title: str) -> str:
    """A bar chart of labelled counts (the largest charts.MAX_BARS), or '' with none."""
    if not counts:
        return ""
    return chart_html(charts.counts_chart(Counter(counts), title), title)


def corpus_charts_html(papers: Sequence[Paper]) -> str:
    """The Corpus tab's charts side by side; only those the metadata can fill."""
    figs = charts.corpus_charts(papers)
    if not figs:
        return ""
    cells = "".join(f'<div class="pc-chart-cell">{chart_html(f, t)}</div>' for t, f in figs.items())
    return f'<div class="pc-charts">{cells}</div>'


def write_exports(matches: Sequence[PaperMatch], directory: Path, stem: str) -> dict[str, Path]:
    """Write the set in every export format; file names carry a hash of the content."""
    directory.mkdir(parents=True, exist_ok=True)
    cutoff = time.time() - EXPORT_TTL
    for old in directory.iterdir():
        # Gradio copies a file into its own cache when it serves it: old ones can go.
        if old.stat().st_mtime < cutoff:
            old.unlink(missing_ok=True)
    out: dict[str, Path] = {}
    for suffix, writer in WRITERS.items():
        text = writer(matches)
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]
        path = directory / f"{stem}-{digest}{suffix}"
        if not path.exists():
            path.write_text(text, encoding="utf-8")
        out[suffix] = path
    return out


def export_dir() -> Path:
    """A fresh temporary directory for one app's export files (Gradio may serve temp files)."""
    return Path(tempfile.mkdtemp(prefix="paperchat-export-"))
