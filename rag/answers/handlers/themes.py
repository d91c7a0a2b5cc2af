"""The conference's themes: the main ones with their sizes, or how big the theme on a topic is,
answered from the conference map's clusters (rag/map/conference_map.py, rag/map/themes.py)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from rag.answers.handlers.context import Context
from rag.answers.handlers.quoting import cite, paper_match
from rag.map.conference_map import ConferenceMap
from rag.map.themes import Theme
from rag.models import Answer, Filters, PaperMatch, Plan
from rag.retrieval.matching import Match
from rag.store.markup import bold

CENTRAL = 3  # central papers cited for the theme asked about
NEXT = 2  # other themes named beside it
# A topic no paper writes: its theme is the one holding most of the papers nearest it by
# meaning, this many of them.
NEAREST = 20
RULE = "themes: k-means clusters of the papers' vectors, named by c-TF-IDF keywords"


def _ordinal(n: int) -> str:
    """'the largest', 'the 2nd largest', ... ."""
    if n == 1:
        return "the largest"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"the {n}{suffix} largest"


def _share(theme: Theme, total: int) -> str:
    papers = "paper" if theme.size == 1 else "papers"
    return f"{theme.size:,} {papers} ({100 * theme.size / total:.1f}%)"


class ThemesHandler:
    """Answers QuestionKind.THEMES from the map of the index as it is now."""

    def __init__(self, conference_map: Callable[[], ConferenceMap]) -> None:
        self.conference_map = conference_map

    def __call__(self, ctx: Context, question: str, plan: Plan) -> Answer:
        """The main themes (no topic in the plan) or the theme of `plan.topic`, with sizes, the
        most central papers cited and a chart of papers per theme."""
        cmap = self.conference_map()
        if not cmap.themes:
            return Answer(
                question=question, text="The index holds no papers yet.", refused=True, plan=plan
            )
        ranked = sorted(cmap.themes, key=lambda t: (-t.size, t.id))
        at = {pid: i for i, pid in enumerate(ctx.cat.ids)}
        cited: list[PaperMatch] = []

        def cite_theme(theme: Theme, count: int) -> str:
            marks = []
            for pid in theme.paper_ids[:count]:
                if pid in at:
                    cited.append(paper_match(ctx, Match(at[pid], float(theme.size), "theme")))
                    marks.append(f"[{len(cited)}]")
            return " ".join(marks)

        total = len(cmap)
        if plan.topic:
            lines, chart = self._size(ctx, plan.topic, cmap, ranked, cite_theme)
        else:
            lines = [
                f"The {total:,} papers fall into {len(ranked)} themes: papers clustered by "
                "their vectors (k-means), each theme named by its most distinctive keywords "
                "(c-TF-IDF). Largest first, each with its most central paper:"
            ]
            lines += [f"- {bold(t.label)}: {_share(t, total)} {cite_theme(t, 1)}" for t in ranked]
            chart = {t.label: t.size for t in ranked}
        return Answer(
            question=question,
            text="\n".join(lines),
            citations=cite(cited),
            plan=plan,
            papers=cited,
            count=None if plan.topic else len(ranked),
            rule=RULE,
            chart=chart,
        )

    def _size(
        self,
        ctx: Context,
        topic: str,
        cmap: ConferenceMap,
        ranked: list[Theme],
        cite_theme: Callable[[Theme, int], str],
    ) -> tuple[list[str], dict[str, int]]:
        """Lines answering "how big is the theme on <topic>", and the topic's papers per theme
        (label -> count, most first)."""
        total = len(cmap)
        theme_of = dict(zip(cmap.ids, cmap.theme, strict=True))
        by_id = {t.id: t for t in cmap.themes}
        matched = [ctx.cat.ids[m.index] for m in ctx.matcher.match(topic, Filters())[0]]
        written = bool(matched)
        if not written:
            # No paper writes the topic: the papers nearest it by meaning stand for it.
            dense = ctx.matcher.dense(topic, ctx.cat)
            matched = [ctx.cat.ids[int(i)] for i in np.argsort(-dense)[:NEAREST] if dense[i] > 0]
        counts = np.bincount(
            [theme_of[pid] for pid in matched if pid in theme_of], minlength=len(cmap.themes)
        )
        if not counts.sum():
            return [f"No paper is close enough to “{topic}” to place it in a theme."], {}
        order = [by_id[int(i)] for i in np.argsort(-counts, kind="stable") if counts[i]]
        best = order[0]
        if written:
            lead = (
                f"{int(counts.sum()):,} papers match “{topic}” in their title, keywords or "
                f"abstract; most of them ({counts[best.id]:,}) are in the theme {bold(best.label)}"
            )
        else:
            lead = (
                f"No paper writes “{topic}”; of the {int(counts.sum())} papers nearest it by "
                f"meaning, {counts[best.id]} are in the theme {bold(best.label)}"
            )
        lines = [
            f"{lead}: {best.size:,} of the {total:,} papers ({100 * best.size / total:.1f}%), "
            f"{_ordinal(ranked.index(best) + 1)} of {len(ranked)} themes. Its most central "
            f"papers: {cite_theme(best, CENTRAL)}."
        ]
        rest = order[1 : 1 + NEXT]
        if rest:
            lines.append("The others are mostly in:")
            lines += [
                f"- {bold(t.label)}: {counts[t.id]:,} of its {_share(t, total)} {cite_theme(t, 1)}"
                for t in rest
            ]
        chart = {t.label: int(counts[t.id]) for t in order}
        return lines, chart
