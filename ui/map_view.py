"""The Map tab: the conference map (plotly.js in a gr.HTML), its paper cards and highlights.

gr.Plot emits no click events, so the map is drawn by plotly.js inside a gr.HTML: the figure
comes from a server function once per index revision, a click asks another for the paper's
card, and the component's value ({"revision", "highlight"}) rings the current answer's papers
without sending the figure again. plotly.js is the copy the plotly package ships, served by
the app itself (offline).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gradio as gr

from rag.app.pipeline import Pipeline
from rag.map.figure import figure
from rag.models import Answer

from . import render

log = logging.getLogger("paperchat.ui")


def plotly_js() -> Path:
    """The plotly.js bundle the plotly package ships."""
    import plotly

    return Path(plotly.__file__).with_name("package_data") / "plotly.min.js"


TEMPLATE = (
    '<div class="pc-map"><div class="pc-map-plot" id="pc-map-plot"></div>'
    '<aside class="pc-map-card" id="pc-map-card"><p class="pc-map-hint">Hover a point for its '
    "title; click it for the paper's card. Drag to zoom, double-click to zoom out; the buttons "
    "colour the papers by theme, area, decision or rating.</p></aside></div>"
)

MAP_JS = """
const plot = element.querySelector('.pc-map-plot');
const card = element.querySelector('.pc-map-card');
let shown = null;  // revision drawn
let at = {};       // paper id -> point index
const state = () => { try { return JSON.parse(props.value || '{}'); } catch (e) { return {}; } };
const ring = () => {
  if (!plot.data) return;
  const main = plot.data[0];
  const ids = (state().highlight || []).filter((id) => id in at);
  const pick = (arr) => ids.map((id) => arr[at[id]]);
  Plotly.restyle(plot, {x: [pick(main.x)], y: [pick(main.y)], customdata: [ids],
    hovertext: [pick(main.hovertext)]}, [plot.data.length - 1]);
};
const draw = async () => {
  const rev = state().revision || '';
  if (shown === rev && plot.data) { ring(); return; }
  shown = rev;
  const fig = await server.map_figure();
  if (!fig || !fig.data) {
    plot.innerHTML = `<p class="pc-map-empty">${(fig && fig.message) || 'No map yet.'}</p>`;
    return;
  }
  at = {};
  fig.data[0].customdata.forEach((id, i) => { at[id] = i; });
  await Plotly.react(plot, fig.data, fig.layout,
    {displaylogo: false, responsive: true, scrollZoom: true});
  if (!plot.__pcClick) {
    plot.__pcClick = true;
    plot.on('plotly_click', async (ev) => {
      const id = ev.points && ev.points[0] && ev.points[0].customdata;
      if (!id) return;
      card.innerHTML = await server.map_card(id);
    });
  }
  ring();
};
// A tab shown after loading gives the plot its size only then.
new ResizeObserver(() => { if (plot.data) Plotly.Plots.resize(plot); }).observe(plot);
watch('value', draw);
draw();
"""


def _server_fn(fn: Callable[..., Any], name: str) -> Callable[[Any], Any]:
    """fn as a gr.HTML server function called `name`: Gradio hands it the script's arguments
    as one list, and marks it with an attribute, which a bound method refuses."""

    def call(data: Any = None) -> Any:
        args = data if isinstance(data, list) else ([] if data is None else [data])
        return fn(*args)

    call.__name__ = call.__qualname__ = name
    return call


class MapView:
    """The Map tab's component and the server functions it calls."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        script = f'<script src="gradio_api/file={plotly_js()}"></script>'
        self.html = gr.HTML(
            value=json.dumps({"revision": "", "highlight": []}),
            html_template=TEMPLATE,
            js_on_load=MAP_JS,
            head=script,
            # Gradio marks each server function with an attribute, which a bound method
            # refuses: plain functions named as the page's script calls them.
            server_functions=[
                _server_fn(self.map_figure, "map_figure"),
                _server_fn(self.map_card, "map_card"),
            ],
            elem_id="pc-map-view",
            padding=False,
        )

    def map_figure(self) -> dict[str, Any]:
        """The map's plotly figure (no highlight), or a message when there is none."""
        try:
            cmap = self.pipeline.conference_map()
            if not len(cmap):
                return {"message": "The index holds no papers yet: add some in the Corpus tab."}
            return figure(cmap, self.pipeline.catalog())
        except Exception:
            log.exception("building the conference map failed")
            return {"message": "The map could not be built; see the server log."}

    def map_card(self, paper_id: str) -> str:
        """A clicked paper's card, its theme above it."""
        paper = self.pipeline.catalog().get(str(paper_id))
        if paper is None:
            return ""
        theme = self.pipeline.conference_map().theme_of().get(paper.id)
        head = (
            f'<p class="pc-map-theme">Theme: {render.esc(theme.label)} ({theme.size} papers)</p>'
            if theme
            else ""
        )
        return head + render.paper_card(paper, turn=0, index=0)

    def value(self, answer: Answer | None) -> str:
        """The component's value: the index revision and the answer's papers to ring."""
        revision = self.pipeline.index.revision() or ""
        return json.dumps({"revision": revision, "highlight": answer.paper_ids() if answer else []})
