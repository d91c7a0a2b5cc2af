"""Bar charts of a set of papers (per primary area, orals vs posters, top keywords) as PNG.

Figures are built with the object API on an Agg canvas: no pyplot, so no global figure state
shared between requests of the web app.
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from rag.models import Plan, QuestionKind

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

NO_AREA = "(no area)"
ORAL_COLOR = "#d97706"
POSTER_COLOR = "#6366f1"
OTHER_COLOR = "#94a3b8"
MAX_BARS = 15


class Charted(Protocol):
    """What a chart reads from a paper (Paper and PaperMatch both have it)."""

    primary_area: str
    decision: str
    keywords: list[str]


def _label(text: str, limit: int = 38) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _figure(rows: int) -> tuple[Figure, Axes]:
    # matplotlib (~0.25 s) is imported when a chart is drawn, not when the app starts.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, max(2.2, 0.36 * rows + 1.1)), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _barh(
    title: str, labels: Sequence[str], stacks: Sequence[tuple[str, list[int], str]]
) -> Figure:
    """A horizontal bar chart, largest first at the top, with stacked series."""
    fig, ax = _figure(len(labels))
    y = list(range(len(labels)))
    left = [0] * len(labels)
    for name, values, color in stacks:
        ax.barh(y, values, left=left, color=color, label=name, height=0.7)
        left = [a + b for a, b in zip(left, values, strict=True)]
    for yi, total in zip(y, left, strict=True):
        ax.text(total, yi, f" {total:,}", va="center", fontsize=8)
    ax.set_yticks(y, [_label(lab) for lab in labels], fontsize=8)
    ax.invert_yaxis()
    ax.set_title(title, fontsize=10, loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlim(0, max(left, default=1) * 1.15 or 1)
    if any(name for name, _, _ in stacks):
        ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def _decision_kind(decision: str) -> str:
    d = decision.lower()
    return "oral" if "oral" in d else "poster" if "poster" in d else "other"


def area_decision_chart(
    papers: Iterable[Charted], title: str = "Papers per primary area"
) -> Figure:
    """Papers per primary area, each bar split into orals, posters and the rest."""
    per: dict[str, Counter[str]] = {}
    for p in papers:
        per.setdefault(p.primary_area or NO_AREA, Counter())[_decision_kind(p.decision)] += 1
    ranked = sorted(per, key=lambda a: (-sum(per[a].values()), a))[:MAX_BARS]
    series = [
        (name, [per[a][kind] for a in ranked], color)
        for name, kind, color in (
            ("Oral", "oral", ORAL_COLOR),
            ("Poster", "poster", POSTER_COLOR),
            ("Other", "other", OTHER_COLOR),
        )
        if any(per[a][kind] for a in ranked)
    ]
    return _barh(title, ranked, series)


def counts_chart(counts: Counter[str], title: str, color: str = POSTER_COLOR) -> Figure:
    """One bar per label, the largest MAX_BARS counts."""
    top = counts.most_common(MAX_BARS)
    return _barh(title, [k for k, _ in top], [("", [v for _, v in top], color)])


def area_counts(papers: Iterable[Charted], orals_only: bool = False) -> Counter[str]:
    """Papers (or orals) per primary area; papers without an area are not counted."""
    return Counter(
        p.primary_area
        for p in papers
        if p.primary_area and (not orals_only or _decision_kind(p.decision) == "oral")
    )


def keyword_counts(papers: Iterable[Charted]) -> Counter[str]:
    """Papers per keyword, case-folded so 'LLM' and 'llm' count once."""
    counts: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for p in papers:
        # A keyword listed twice by one paper counts once for it.
        for folded in {k.strip().lower() for k in p.keywords} - {""}:
            counts[folded] += 1
        for k in p.keywords:
            shown.setdefault(k.strip().lower(), k.strip())
    return Counter({shown[k]: v for k, v in counts.items()})


def corpus_charts(papers: Sequence[Charted]) -> dict[str, Figure]:
    """The Corpus tab's charts, only those the metadata can fill (title -> figure)."""
    charts: dict[str, Figure] = {}
    areas = area_counts(papers)
    if areas:
        charts["Papers per primary area"] = counts_chart(areas, "Papers per primary area")
    orals = area_counts(papers, orals_only=True)
    if orals:
        charts["Orals per primary area"] = counts_chart(orals, "Orals per primary area", ORAL_COLOR)
    keywords = keyword_counts(papers)
    if keywords:
        charts["Top keywords"] = counts_chart(keywords, "Top keywords", OTHER_COLOR)
    return charts


class Rated(Charted, Protocol):
    """What a rating chart reads (Paper and PaperMatch both have it)."""

    avg_rating: float | None


RATING_BIN = 0.5


def rating_chart(papers: Iterable[Rated], title: str = "Papers per average rating") -> Figure:
    """A histogram of average ratings in half-point bins, orals and posters stacked; unrated
    papers are left out (they have no place on the axis)."""
    per: dict[float, Counter[str]] = {}
    for p in papers:
        if p.avg_rating is not None:
            low = RATING_BIN * int(p.avg_rating / RATING_BIN)
            per.setdefault(low, Counter())[_decision_kind(p.decision)] += 1
    fig, ax = _figure(8)
    fig.set_size_inches(7.5, 3.4)
    edges = sorted(per)
    bottom = [0] * len(edges)
    for name, kind, color in (
        ("Oral", "oral", ORAL_COLOR),
        ("Poster", "poster", POSTER_COLOR),
        ("Other", "other", OTHER_COLOR),
    ):
        values = [per[e][kind] for e in edges]
        if any(values):
            ax.bar(edges, values, width=RATING_BIN * 0.9, bottom=bottom, align="edge",
                   color=color, label=name)  # fmt: skip
            bottom = [a + b for a, b in zip(bottom, values, strict=True)]
    ax.set_xlabel("average reviewer rating", fontsize=8)
    ax.set_ylabel("papers", fontsize=8)
    ax.set_title(title, fontsize=10, loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(labelsize=8)
    if len(ax.get_legend_handles_labels()[0]) > 1:
        ax.legend(fontsize=8, frameon=False)
    return fig


def area_rating_chart(papers: Iterable[Rated], title: str = "Mean rating per area") -> Figure:
    """Each primary area's mean rating, best first, with its number of rated papers."""
    per: dict[str, list[float]] = {}
    for p in papers:
        if p.avg_rating is not None:
            per.setdefault(p.primary_area or NO_AREA, []).append(p.avg_rating)
    means = {a: sum(v) / len(v) for a, v in per.items()}
    ranked = sorted(means, key=lambda a: (-means[a], a))[:MAX_BARS]
    fig, ax = _figure(len(ranked))
    y = list(range(len(ranked)))
    ax.barh(y, [means[a] for a in ranked], color=POSTER_COLOR, height=0.7)
    for yi, a in zip(y, ranked, strict=True):
        ax.text(means[a], yi, f" {means[a]:.2f} ({len(per[a]):,})", va="center", fontsize=8)
    ax.set_yticks(y, [_label(a) for a in ranked], fontsize=8)
    ax.invert_yaxis()
    low = min(means.values(), default=0.0)
    # The means differ by tenths: the axis starts near them so the differences show, and the
    # title says so.
    ax.set_xlim(max(0.0, low - 0.5), max(means.values(), default=1.0) + 0.6)
    ax.set_title(title + " (axis does not start at 0)", fontsize=10, loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    ax.tick_params(axis="x", labelsize=8)
    return fig


def answer_chart(papers: Sequence[Rated], plan: Plan | None) -> Figure | None:
    """The chart of a rating answer's papers: mean rating per area when grouped by area,
    else their rating histogram; None for other answers or papers without ratings."""
    n = sum(p.avg_rating is not None for p in papers)
    if plan is None or plan.kind != QuestionKind.RATING or not n:
        return None
    if plan.group_by == "area":
        return area_rating_chart(papers, f"Mean rating per area of {n:,} rated papers")
    return rating_chart(papers, f"{n:,} rated papers per average rating")


def has_breakdown(papers: Sequence[Charted]) -> bool:
    """Whether a per-area chart says anything: some paper has an area or a decision."""
    return any(p.primary_area or p.decision for p in papers)


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG bytes."""
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()


def write_png(fig: Figure, path: str | Path) -> Path:
    """Write the figure as a PNG file; returns the path."""
    target = Path(path)
    target.write_bytes(png_bytes(fig))
    return target
