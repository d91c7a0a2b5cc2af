"""The conference map as a plotly figure: the web app's Map tab and `paperchat map`'s page.

The figure is plain plotly JSON (dicts), built without plotly's Python validation, so the app
can hand it to plotly.js as it is. One scatter trace holds every paper; buttons recolour it
by theme, primary area, decision or rating (plotly `update`: marker colours, which legend
entries show, the theme labels); a last trace rings the papers of the current answer.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from rag.map.conference_map import ConferenceMap
from rag.models import Paper
from rag.store.markup import plain

HIGHLIGHT = "This answer's papers"
GREY = "#cbd5e1"
RATING_SCALE = "Viridis"


def _palette(n: int) -> list[str]:
    from plotly.colors import qualitative

    colours = qualitative.Dark24 + qualitative.Light24 + qualitative.Alphabet
    return [colours[i % len(colours)] for i in range(n)]


def rating(paper: Paper) -> float | None:
    """The paper's average reviewer rating, when the index records one."""
    # Read defensively: ratings arrive in the catalog with another change (issue 29, item 1).
    value = getattr(paper, "avg_rating", None)
    return float(value) if isinstance(value, int | float) else None


def hover_text(paper: Paper, theme: str) -> str:
    """A point's hover label: title, theme, area, decision, rating."""
    lines = [f"<b>{_wrap(html.escape(plain(paper.title)))}</b>", f"Theme: {html.escape(theme)}"]
    if paper.primary_area:
        lines.append(f"Area: {html.escape(paper.primary_area)}")
    if paper.decision:
        lines.append(f"Decision: {html.escape(paper.decision)}")
    score = rating(paper)
    if score is not None:
        count = getattr(paper, "n_ratings", None)
        lines.append(f"Rating: {score:.2f}" + (f" ({count} ratings)" if count else ""))
    return "<br>".join(lines)


def _wrap(text: str, width: int = 70) -> str:
    out, line = [], ""
    for word in text.split():
        if line and len(line) + len(word) > width:
            out.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "<br>".join([*out, line]) if line else "<br>".join(out)


def _categories(values: list[str], label: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Per-point colours and (legend name, colour) of categorical values, largest first."""
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    order = sorted(counts, key=lambda v: (-counts[v], v))
    colour = dict(zip(order, _palette(len(order)), strict=True))
    if f"(no {label})" in colour:
        colour[f"(no {label})"] = GREY
    return [colour[v] for v in values], [(f"{v} ({counts[v]})", colour[v]) for v in order]


def figure(
    cmap: ConferenceMap, papers: Mapping[str, Paper], highlight: Iterable[str] = ()
) -> dict[str, Any]:
    """The map as a plotly figure dict; `highlight` ids are ringed."""
    ids = [pid for pid in cmap.ids if pid in papers]
    at = {pid: i for i, pid in enumerate(cmap.ids)}
    themes = cmap.theme_of()
    rows = [papers[pid] for pid in ids]
    xs = [cmap.x[at[pid]] for pid in ids]
    ys = [cmap.y[at[pid]] for pid in ids]
    modes: dict[str, tuple[list[Any], list[tuple[str, str]]]] = {
        "Theme": _categories([themes[pid].label for pid in ids], "theme")
    }
    if any(p.primary_area for p in rows):
        modes["Area"] = _categories([p.primary_area or "(no area)" for p in rows], "area")
    if any(p.decision for p in rows):
        modes["Decision"] = _categories([p.decision or "(no decision)" for p in rows], "decision")
    ratings = [rating(p) for p in rows]
    if any(r is not None for r in ratings):
        modes["Rating"] = (ratings, [])

    main = {
        "type": "scatter",
        "mode": "markers",
        "name": "papers",
        "x": xs,
        "y": ys,
        "customdata": ids,
        "hovertext": [hover_text(p, themes[p.id].label) for p in rows],
        "hovertemplate": "%{hovertext}<extra></extra>",
        "marker": {
            "size": 6,
            "opacity": 0.8,
            "color": modes["Theme"][0],
            # Used only while colours are ratings (numbers); names ignore it.
            "colorscale": RATING_SCALE,
            "showscale": False,
            "colorbar": {"title": {"text": "rating"}, "thickness": 12},
        },
        "showlegend": False,
    }
    legend = []  # legend-only traces: one per category of each colouring
    for mode, (_, entries) in modes.items():
        for name, colour in entries:
            legend.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "x": [None],
                    "y": [None],
                    "name": name,
                    "legendgroup": mode,
                    "marker": {"size": 9, "color": colour},
                    "visible": mode == "Theme",
                    "hoverinfo": "skip",
                }
            )
    ringed = [pid for pid in dict.fromkeys(highlight) if pid in at and pid in papers]
    ring = {
        "type": "scatter",
        "mode": "markers",
        "name": HIGHLIGHT,
        "x": [cmap.x[at[pid]] for pid in ringed],
        "y": [cmap.y[at[pid]] for pid in ringed],
        "customdata": ringed,
        "hovertext": [hover_text(papers[pid], themes[pid].label) for pid in ringed],
        "hovertemplate": "%{hovertext}<extra></extra>",
        "marker": {
            "size": 13,
            "color": "rgba(0,0,0,0)",
            "line": {"width": 2.5, "color": "#111827"},
        },
        "showlegend": True,
        "visible": True,
    }
    traces = [main, *legend, ring]
    labels = _theme_labels(cmap, set(ids))
    buttons = []
    for mode, (colours, _) in modes.items():
        # One value per trace: the papers, the legend entries, the ring.
        restyle = {
            "visible": [True] + [t["legendgroup"] == mode for t in legend] + [True],
            "marker.color": [colours]
            + [t["marker"]["color"] for t in legend]
            + [ring["marker"]["color"]],
            "marker.showscale": [mode == "Rating"] + [False] * (len(legend) + 1),
        }
        relayout = {"annotations": labels if mode == "Theme" else []}
        buttons.append({"label": mode, "method": "update", "args": [restyle, relayout]})
    layout = {
        "title": {
            "text": f"{len(ids):,} papers in {len(cmap.themes)} themes",
            "x": 0.99,
            "xanchor": "right",
        },
        "hovermode": "closest",
        "dragmode": "zoom",
        "xaxis": {"visible": False},
        "yaxis": {"visible": False, "scaleanchor": "x"},
        "margin": {"l": 10, "r": 10, "t": 70, "b": 10},
        "plot_bgcolor": "white",
        "legend": {"itemclick": False, "itemdoubleclick": False, "font": {"size": 10}},
        "annotations": labels,
        "updatemenus": [
            {
                "type": "buttons",
                "direction": "right",
                "x": 0.01,
                "y": 1.07,
                "xanchor": "left",
                "yanchor": "bottom",
                "showactive": True,
                "buttons": buttons,
                "pad": {"r": 4, "t": 0},
            }
        ],
    }
    return {"data": traces, "layout": layout}


def _theme_labels(cmap: ConferenceMap, shown: set[str]) -> list[dict[str, Any]]:
    """A label at the middle (median position) of each theme's papers."""
    import numpy as np

    out = []
    members: dict[int, list[int]] = {}
    for i, (pid, t) in enumerate(zip(cmap.ids, cmap.theme, strict=True)):
        if pid in shown:
            members.setdefault(t, []).append(i)
    for theme in cmap.themes:
        rows = members.get(theme.id)
        if not rows:
            continue
        x = float(np.median([cmap.x[i] for i in rows]))
        y = float(np.median([cmap.y[i] for i in rows]))
        short = theme.label.split(" · ")[0]
        out.append(
            {
                "x": x,
                "y": y,
                "text": html.escape(short),
                "showarrow": False,
                "font": {"size": 10, "color": "#111827"},
                "bgcolor": "rgba(255,255,255,0.7)",
            }
        )
    return out


# The standalone page: a click shows the paper's card beside the map (no server to ask).
_PAGE_SCRIPT = """
const plot = document.getElementsByClassName('plotly-graph-div')[0];
const cards = JSON.parse(document.getElementById('pc-map-papers').textContent);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;',
  '>': '&gt;', '"': '&quot;'})[c]);
plot.on('plotly_click', (ev) => {
  const id = ev.points[0].customdata;
  const p = cards[id];
  const card = document.getElementById('pc-map-card');
  if (!p || !card) return;
  const title = p.url ? `<a href="${esc(p.url)}" target="_blank" rel="noopener">${esc(p.title)}</a>`
    : esc(p.title);
  card.innerHTML = `<h3 class="pc-card-title">${title}</h3>` +
    `<p class="pc-card-meta">${esc(p.meta)}</p><p>${esc(p.abstract)}</p>` +
    `<p class="pc-card-id">${esc(id)}</p>`;
});
"""


def card_data(papers: Mapping[str, Paper], cmap: ConferenceMap) -> dict[str, dict[str, str]]:
    """What the standalone page's card shows for each paper."""
    themes = cmap.theme_of()
    out = {}
    for pid in cmap.ids:
        p = papers.get(pid)
        if p is None:
            continue
        meta = [f"Theme: {themes[pid].label}", p.primary_area, p.decision]
        score = rating(p)
        if score is not None:
            meta.append(f"rating {score:.2f}")
        out[pid] = {
            "title": plain(p.title),
            "url": p.url,
            "meta": " · ".join(m for m in meta if m),
            "abstract": plain(p.abstract),
        }
    return out


def standalone_html(
    cmap: ConferenceMap, papers: Mapping[str, Paper], highlight: Iterable[str] = ()
) -> str:
    """The map as one self-contained HTML page: plotly.js embedded, works offline."""
    import plotly.io as pio

    plot = pio.to_html(
        figure(cmap, papers, highlight),
        include_plotlyjs=True,
        full_html=False,
        config={"displaylogo": False, "responsive": True, "scrollZoom": True},
        default_height="88vh",
        post_script=_PAGE_SCRIPT,
    )
    data = json.dumps(card_data(papers, cmap), ensure_ascii=False).replace("</", "<\\/")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>Conference map — {len(cmap):,} papers</title><style>"
        "body{font-family:system-ui,sans-serif;margin:0;display:flex;gap:12px}"
        "#pc-map-plot{flex:3;min-width:0}#pc-map-card{flex:1;padding:12px;max-height:96vh;"
        "overflow:auto;font-size:14px}.pc-card-meta{color:#475569}.pc-card-id{color:#94a3b8}"
        "</style></head><body>"
        f'<script type="application/json" id="pc-map-papers">{data}</script>'
        f'<div id="pc-map-plot">{plot}</div>'
        '<aside id="pc-map-card"><p>Click a paper to see its card.</p></aside>'
        "</body></html>"
    )


def write_html(
    path: str | Path,
    cmap: ConferenceMap,
    papers: Mapping[str, Paper],
    highlight: Iterable[str] = (),
) -> Path:
    """Write the standalone page; returns the path."""
    target = Path(path)
    target.write_text(standalone_html(cmap, papers, highlight), encoding="utf-8")
    return target
