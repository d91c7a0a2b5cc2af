"""Refusal calibration: sweep the refusal model's threshold, count right and wrong refusals."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rag.app.options import AskOptions
from rag.app.pipeline import Pipeline
from rag.models import Conversation
from rag.protocols import Mode

from . import metrics as M
from .datasets import Item

# 0.20 … 0.70: below 0.2 nothing is refused, above 0.7 nearly everything is.
DEFAULT_THRESHOLDS: tuple[float, ...] = tuple(round(0.20 + 0.025 * i, 3) for i in range(21))


@dataclass(frozen=True)
class Row:
    """Outcomes of one dataset at one threshold."""

    threshold: float
    answerable: int
    answered_correctly: int  # answered and cites a gold paper
    answered_wrongly: int  # answered, but cites no gold paper
    refused_wrongly: int  # refused an answerable question
    unanswerable: int
    unanswerable_refused: int

    @property
    def correct_rate(self) -> float:
        """Share of answerable questions answered with a gold citation."""
        return self.answered_correctly / self.answerable if self.answerable else 0.0

    @property
    def refusal_recall(self) -> float:
        """Share of unanswerable questions refused."""
        return self.unanswerable_refused / self.unanswerable if self.unanswerable else 0.0

    @property
    def balanced(self) -> float:
        """Mean of the two rates: each kind of mistake weighs the same whatever the counts."""
        return (self.correct_rate + self.refusal_recall) / 2


def sweep(
    pipeline: Pipeline,
    items: Sequence[Item],
    thresholds: Sequence[float] = DEFAULT_THRESHOLDS,
    retriever: Mode = "hybrid",
    progress: bool = False,
) -> list[Row]:
    """Ask every item (conversations replayed) at every threshold, with the extractive answerer.

    Whole asks rather than a replay of the refusal rule, so the sweep measures the pipeline as
    it is, including follow-ups whose earlier turns were refused.
    """
    from tqdm import tqdm

    key_of = {pid: p.key for pid, p in pipeline.catalog().items()}
    bar = tqdm(
        total=len(items) * len(thresholds),
        desc="calibrate",
        unit="q",
        file=sys.stderr,
        disable=not progress,
    )
    rows: list[Row] = []
    try:
        for t in thresholds:
            # The refusal model's probability cut-off: P(answerable) below t refuses. It
            # travels as an option: the pipeline's model and settings stay as they are.
            opts = AskOptions(retrieval=retriever, answerer="extractive", refusal_threshold=t)
            counts = dict.fromkeys(
                ("answerable", "correct", "wrong", "refused_wrongly", "unanswerable", "refused"), 0
            )
            for item in items:
                conversation = Conversation()
                for question in item.all_turns:
                    answer = pipeline.ask(question, conversation, opts)
                bar.update(1)
                if not item.answerable:
                    counts["unanswerable"] += 1
                    counts["refused"] += answer.refused
                    continue
                counts["answerable"] += 1
                cited = M.cited_keys(answer, key_of)
                if answer.refused:
                    counts["refused_wrongly"] += 1
                elif M.answered_correctly(False, cited, set(item.gold_keys)):
                    counts["correct"] += 1
                else:
                    counts["wrong"] += 1
            rows.append(
                Row(
                    threshold=t,
                    answerable=counts["answerable"],
                    answered_correctly=counts["correct"],
                    answered_wrongly=counts["wrong"],
                    refused_wrongly=counts["refused_wrongly"],
                    unanswerable=counts["unanswerable"],
                    unanswerable_refused=counts["refused"],
                )
            )
    finally:
        bar.close()
    return rows


def suggest(tables: Mapping[str, Sequence[Row]]) -> float:
    """The threshold with the best mean balanced score over the datasets.

    Datasets count equally (not by item count). Among tied thresholds the middle one wins, so
    the suggestion sits inside the plateau rather than on its edge.
    """
    thresholds = sorted({r.threshold for rows in tables.values() for r in rows})
    if not thresholds:
        raise ValueError("no calibration rows")
    score: dict[float, float] = {}
    for t in thresholds:
        per = [r.balanced for rows in tables.values() for r in rows if r.threshold == t]
        score[t] = sum(per) / len(per)
    best = max(score.values())
    tied = [t for t in thresholds if best - score[t] <= 1e-9]
    return tied[len(tied) // 2]


def format_table(rows: Sequence[Row], current: float | None, suggested: float | None) -> list[str]:
    """Markdown table of one dataset's sweep; the current and suggested rows are marked."""
    lines = [
        "| min_evidence | answered correctly | answered wrongly | refused wrongly | "
        "unanswerable refused | balanced |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        marks = []
        if current is not None and abs(r.threshold - current) < 1e-9:
            marks.append("current")
        if suggested is not None and abs(r.threshold - suggested) < 1e-9:
            marks.append("suggested")
        note = f" ({', '.join(marks)})" if marks else ""
        lines.append(
            f"| {r.threshold:.3f}{note} | {r.answered_correctly}/{r.answerable} | "
            f"{r.answered_wrongly}/{r.answerable} | {r.refused_wrongly}/{r.answerable} | "
            f"{r.unanswerable_refused}/{r.unanswerable} | {r.balanced:.3f} |"
        )
    return lines


def calibration_chart(
    tables: Mapping[str, Sequence[Row]], current: float, suggested: float, path: Path
) -> None:
    """Rates against the threshold, one panel per dataset, current and suggested marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(tables), figsize=(6.5 * len(tables), 4.2), squeeze=False)
    for ax, (name, rows) in zip(axes[0], tables.items(), strict=True):
        ts = [r.threshold for r in rows]
        ax.plot(ts, [r.correct_rate for r in rows], "o-", label="answered correctly")
        ax.plot(
            ts,
            [r.refused_wrongly / r.answerable if r.answerable else 0 for r in rows],
            "s-",
            label="refused wrongly (answerable)",
        )
        ax.plot(ts, [r.refusal_recall for r in rows], "^-", label="unanswerable refused")
        ax.plot(ts, [r.balanced for r in rows], "k--", label="balanced")
        ax.axvline(current, color="grey", linestyle=":", label=f"current {current:.3f}")
        ax.axvline(suggested, color="red", linestyle="-.", label=f"suggested {suggested:.3f}")
        ax.set_xlabel("refusal threshold (P(answerable))")
        ax.set_ylabel("share of items")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{name} set", loc="left")
        ax.grid(alpha=0.3)
    # Below the panels: inside, the legend would hide the curves where they cross.
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_calibration(
    tables: Mapping[str, Sequence[Row]],
    current: float,
    suggested: float,
    out: Path,
    provenance: Mapping[str, Any],
    charts: bool = True,
) -> list[Path]:
    """calibration.json, calibration.md and calibration.png in out."""
    out.mkdir(parents=True, exist_ok=True)
    data = {
        "current": current,
        "suggested": suggested,
        "rule": "max over thresholds of the mean (over datasets) of "
        "(answered-correctly rate + unanswerable-refused rate) / 2; middle of ties",
        "provenance": dict(provenance),
        "tables": {
            name: [{**asdict(r), "balanced": round(r.balanced, 4)} for r in rows]
            for name, rows in tables.items()
        },
    }
    paths = [out / "calibration.json", out / "calibration.md"]
    paths[0].write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    md = [
        "# Refusal calibration",
        "",
        f"Suggested `retrieval.min_evidence` = **{suggested:.3f}** (current {current:.3f}).",
        "",
    ]
    for name, rows in tables.items():
        md += [f"## {name} set", "", *format_table(rows, current, suggested), ""]
    if charts:
        calibration_chart(tables, current, suggested, out / "calibration.png")
        md += ["![calibration](calibration.png)", ""]
        paths.append(out / "calibration.png")
    paths[1].write_text("\n".join(md), encoding="utf-8")
    return paths
