"""The results table as Gradio components: search, sortable table, paper card, chart, downloads.

One `ResultsView` per place it appears (a collection answer in the Chat tab, the Corpus tab).
The set it shows lives in a `gr.State`; every update goes through `update`, so the table, the
caption and the three download files always describe the same rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import gradio as gr

from rag.models import Paper, PaperMatch

from . import render, results

ROW_LIMIT = 500


class ResultsView:
    """Search box, caption, table, clicked paper's card and export buttons over one set."""

    def __init__(self, name: str, export_dir: Path, scored: bool, noun: str = "papers") -> None:
        self.name = name
        self.export_dir = export_dir
        self.scored = scored
        self.noun = noun
        self.matches = gr.State([])
        with gr.Row(equal_height=True, elem_classes="pc-results-bar"):
            self.search = gr.Textbox(
                show_label=False,
                placeholder="Search these papers: title, keyword, area, id",
                elem_id=f"pc-{name}-search",
                scale=4,
            )
            self.downloads = {
                suffix: gr.DownloadButton(
                    label,
                    value=None,
                    size="sm",
                    variant="secondary",
                    interactive=False,
                    elem_id=f"pc-{name}-dl-{suffix[1:]}",
                    scale=0,
                    min_width=80,
                )
                for suffix, label in results.EXPORT_LABELS.items()
            }
        self.caption = gr.HTML("", elem_id=f"pc-{name}-caption", padding=False)
        self.table = gr.Dataframe(
            value={"headers": [h for h, _, _ in results.COLUMNS], "data": []},
            datatype=[kind for _, _, kind in results.COLUMNS],
            interactive=False,
            wrap=True,
            max_height=520,
            elem_id=f"pc-{name}-table",
            elem_classes="pc-results-table",
        )
        self.card = gr.HTML("", elem_id=f"pc-{name}-card", padding=False)

    def outputs(self) -> list[Any]:
        """The components `update` returns values for, in order."""
        return [self.matches, self.caption, self.table, self.card, *self.downloads.values()]

    def update(self, matches: Sequence[PaperMatch], query: str = "") -> tuple[Any, ...]:
        """New values for `outputs()`: the set, filtered by the search words."""
        shown = results.search(matches, query or "")
        # Columns follow the whole set, not the search: they do not jump while typing.
        cols = results.columns(matches, self.scored)
        files = results.write_exports(shown, self.export_dir, self.name) if shown else {}
        return (
            list(matches),
            results.caption(
                min(len(shown), ROW_LIMIT), len(shown), len(matches), query or "", self.noun
            ),
            gr.Dataframe(
                value=results.table(shown, cols, ROW_LIMIT),
                datatype=results.datatypes(cols),
                headers=[h for h, _, _ in cols],
                column_widths=[results.WIDTHS[h] for h, _, _ in cols],
            ),
            "",
            *(
                gr.DownloadButton(
                    value=str(files[s]) if s in files else None, interactive=s in files
                )
                for s in self.downloads
            ),
        )

    def wire(self, catalog: Callable[[], Mapping[str, Paper]]) -> None:
        """Search re-filters the set; a click on a row shows that paper's card."""
        self.search.change(
            lambda m, q: self.update(m or [], q),
            [self.matches, self.search],
            self.outputs(),
            api_visibility="private",
            trigger_mode="always_last",
            show_progress="hidden",
        )

        def open_card(table: Any, evt: gr.SelectData) -> str:
            headers = list(getattr(table, "columns", []))
            paper = catalog().get(results.row_id(evt.row_value, headers))
            if paper is None:
                return ""
            return render.paper_card(paper, turn=0, index=0)

        self.table.select(
            open_card, [self.table], [self.card], api_visibility="private", show_progress="hidden"
        )
