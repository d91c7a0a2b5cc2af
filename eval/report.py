"""Writing a run's outputs: results.json, report.md and PNG charts."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import metrics as M
from .datasets import split_of

RETRIEVAL_COLUMNS = (
    ("recall@1", "recall@1"),
    ("recall@5", "recall@5"),
    ("recall@10", "recall@10"),
    ("mrr", "MRR"),
    ("ndcg@10", "nDCG@10"),
)
ANSWER_COLUMNS = (
    ("fact_recall", "fact recall"),
    ("citation_precision", "cit. precision"),
    ("citation_recall", "cit. recall"),
    ("quote_verbatim", "quote verbatim"),
    ("quote_sentences_verbatim", "quote sent. verbatim"),
    ("quote_support", "quote support"),
    ("faithfulness", "faithfulness"),
    ("faithfulness_rescored", "faithf. rescored"),
    ("answered_correctly", "answered correctly"),
    ("refusal_precision", "refusal precision"),
    ("refusal_recall", "refusal recall"),
)
LATENCY_COLUMNS = (
    ("answer_p50", "answer p50 ms"),
    ("answer_p95", "answer p95 ms"),
    ("retrieve_p50", "retrieval p50 ms"),
    ("retrieve_p95", "retrieval p95 ms"),
)
# The bars chart shows these; latency has its own chart.
CHART_RETRIEVAL = [k for k, _ in RETRIEVAL_COLUMNS]
CHART_ANSWERS = [
    "fact_recall",
    "citation_precision",
    "citation_recall",
    "quote_support",
    "faithfulness_rescored",
    "answered_correctly",
    "refusal_precision",
    "refusal_recall",
]


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _table(
    configs: Sequence[dict[str, Any]],
    columns: Sequence[tuple[str, str]],
    section: str,
    higher_is_better: bool = True,
    digits: int = 3,
) -> list[str]:
    """A markdown table, one row per configuration; the best value of each column in bold."""
    head = "| Configuration | " + " | ".join(label for _, label in columns) + " |"
    rule = "|---|" + "|".join("---:" for _ in columns) + "|"
    best: dict[str, float] = {}
    if len(configs) > 1:
        for key, _ in columns:
            values = [c[section].get(key) for c in configs if c[section].get(key) is not None]
            if values:
                best[key] = max(values) if higher_is_better else min(values)
    rows = [head, rule]
    for c in configs:
        cells = []
        for key, _ in columns:
            value = c[section].get(key)
            text = _fmt(value, digits)
            if key in best and value == best[key]:
                text = f"**{text}**"
            cells.append(text)
        rows.append(f"| {c['config']['label']} | " + " | ".join(cells) + " |")
    return rows


SPLIT_SLICES = (
    ("held-out", lambda r: split_of(r["id"]) == "heldout"),
    ("held-out paraphrase", lambda r: split_of(r["id"]) == "heldout" and "paraphrase" in r["type"]),
    ("all paraphrase", lambda r: "paraphrase" in r["type"]),
)


def split_tables(configs: Sequence[dict[str, Any]]) -> list[str]:
    """Retrieval on the held-out half (eval.datasets.split_of) and on paraphrase items."""
    lines = []
    for title, keep in SPLIT_SLICES:
        rows = []
        for c in configs:
            items = [r for r in c["items"] if r["answerable"] and keep(r)]
            if not items:
                continue
            means = {
                m: M.mean(r["metrics"].get(m) for r in items)[0]
                for m in ("recall@1", "recall@5", "mrr")
            }
            rows.append({"config": c["config"], "split": {**means, "n": len(items)}})
        if rows:
            lines += ["", f"### Retrieval, {title} items (n={rows[0]['split']['n']})", ""]
            cols = (("recall@1", "recall@1"), ("recall@5", "recall@5"), ("mrr", "MRR"))
            lines += _table(rows, cols, "split")
    return lines


def main_tables(results: dict[str, Any]) -> list[str]:
    """The retrieval, answer and latency tables (what the closing note pastes)."""
    configs = results["configurations"]
    lines = ["### Retrieval (paper level)", ""]
    lines += _table(configs, RETRIEVAL_COLUMNS, "metrics")
    lines += split_tables(configs)
    lines += ["", "### Answers", ""]
    lines += _table(configs, ANSWER_COLUMNS, "metrics")
    lines += ["", "### Latency", ""]
    lines += _table(configs, LATENCY_COLUMNS, "latency_ms", higher_is_better=False, digits=1)
    return lines


def _provenance_lines(prov: dict[str, Any]) -> list[str]:
    code = prov["code"]
    commit = (code.get("commit") or "unknown")[:12]
    dirty = " (uncommitted changes)" if code.get("dirty") else ""
    ds = prov["dataset"]
    corpus = prov["corpus"]
    files = ", ".join(f"`{f['path']}` (sha256 {f['sha256'][:12]}…)" for f in corpus["files"])
    subset = f" of {ds['items_in_file']}" if ds["items"] != ds["items_in_file"] else ""
    types = ", ".join(f"{t} {n}" for t, n in ds["types"].items())
    s = prov["settings"]
    return [
        f"- Created {prov['created']} from code `{commit}`{dirty}.",
        f"- Dataset `{ds['path']}` (sha256 {ds['sha256'][:12]}…): {ds['items']}{subset} items "
        f"({types}).",
        f"- Corpus {files}: {corpus['papers']} papers, {corpus['chunks']} chunks in collection "
        f"`{corpus['collection']}`.",
        f"- Embedding `{s['embedding']['model'] or 'default'}` ({s['embedding']['provider']}), "
        f"chunking {s['chunking']['sentences']} sentence(s), top_k {s['retrieval']['top_k']}, "
        f"min_evidence {s['retrieval']['min_evidence']}, LLM provider {s['llm']['provider']}.",
    ]


def render_markdown(results: dict[str, Any], charts: Sequence[str] = ()) -> str:
    """report.md: provenance, the main tables, usage, per-type breakdown, misses, charts."""
    prov = results["provenance"]
    configs = results["configurations"]
    primary = configs[0]
    lines = [f"# PaperChat evaluation: {prov['dataset']['name']} set", ""]
    lines += _provenance_lines(prov)
    lines += [
        "",
        "Metric definitions: `eval/README.md`. Bold marks the best configuration per column. "
        "Retrieval metrics use the top 10 papers; answers use the configured top_k.",
        "",
    ]
    lines += main_tables(results)

    used = [c for c in configs if c.get("usage")]
    if used:
        lines += ["", "### Tokens and cost", ""]
        lines += [
            "| Configuration | model | prompt tokens | completion tokens | cost USD | "
            "judge tokens | judge cost USD |",
            "|---|---|---:|---:|---:|---:|---:|",
        ]
        for c in used:
            u = c["usage"]
            price = "" if u["priced"] else " (unpriced: counted as 0)"
            lines.append(
                f"| {c['config']['label']} | {u['model']}{price} | {u['prompt_tokens']} | "
                f"{u['completion_tokens']} | {u['cost_usd']:.4f} | "
                f"{u['judge_prompt_tokens'] + u['judge_completion_tokens']} | "
                f"{u['judge_cost_usd']:.4f} |"
            )
    judged = [c for c in configs if c.get("judge")]
    if judged:
        lines += ["", "### Model judge", ""]
        lines += [
            "| Configuration | judge faithfulness | judge correctness (1-5) | judged | "
            "parse failures | call errors |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        for c in judged:
            j = c["judge"]
            lines.append(
                f"| {c['config']['label']} | {_fmt(j['judge_faithfulness'])} | "
                f"{_fmt(j['judge_correctness'], 2)} | {j['judged']} | "
                f"{j['judge_parse_failures']} | {j['judge_errors']} |"
            )

    lines += ["", f"### By question type ({primary['config']['label']})", ""]
    lines += [
        "| type | items | recall@5 | MRR | fact recall | cit. precision | cit. recall | refused |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t, row in primary["by_type"].items():
        lines.append(
            f"| {t} | {row['n']} | {_fmt(row['recall@5'])} | {_fmt(row['mrr'])} | "
            f"{_fmt(row['fact_recall'])} | {_fmt(row['citation_precision'])} | "
            f"{_fmt(row['citation_recall'])} | {_fmt(row['refused'])} |"
        )

    lines += ["", f"### Misses ({primary['config']['label']})", ""]
    lines += _misses(primary["items"])
    if any(c.get("errors") for c in configs):
        lines += ["", "Answer errors: "]
        lines += [f"- {c['config']['label']}: {c['errors']}" for c in configs if c.get("errors")]
    if charts:
        lines += ["", "### Charts", ""]
        lines += [f"![{Path(name).stem}]({name})" for name in charts]
    return "\n".join(lines) + "\n"


def _misses(items: Sequence[dict[str, Any]], limit: int = 25) -> list[str]:
    """Items where retrieval missed gold in the top 5, or the refusal decision was wrong."""
    rows = []
    for r in items:
        m = r["metrics"]
        why = []
        if r["answerable"] and (m.get("recall@5") or 0.0) < 1.0:
            why.append(f"recall@5 {_fmt(m.get('recall@5'), 2)}")
        if r["answerable"] and r["refused"]:
            why.append("refused an answerable question")
        elif r["answerable"] and not m.get("answered_correctly"):
            why.append("answered without citing a gold paper")
        if not r["answerable"] and not r["refused"]:
            why.append("answered an unanswerable question")
        if why:
            question = r["question"].replace("|", "\\|")
            rows.append(f"| {r['id']} | {r['type']} | {question} | {'; '.join(why)} |")
    if not rows:
        return ["None."]
    shown = rows[:limit]
    more = ["", f"…and {len(rows) - limit} more (see results.json)."] if len(rows) > limit else []
    return ["| id | type | question | miss |", "|---|---|---|---|", *shown, *more]


# -- charts ------------------------------------------------------------------------------------


def _pyplot() -> Any:
    # Imported only when charts are drawn: matplotlib is slow to import and needs no display.
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def metrics_chart(results: dict[str, Any], path: Path) -> None:
    """Grouped bars: each metric, one bar per configuration (retrieval above, answers below)."""
    plt = _pyplot()
    configs = results["configurations"]
    fig, axes = plt.subplots(2, 1, figsize=(13, 8.5))
    colors = plt.get_cmap("tab10").colors
    for ax, names, title in (
        (axes[0], CHART_RETRIEVAL, "Retrieval (paper level, top 10)"),
        (axes[1], CHART_ANSWERS, "Answers"),
    ):
        width = 0.8 / max(len(configs), 1)
        for i, c in enumerate(configs):
            values = [c["metrics"].get(n) for n in names]
            xs = [j + (i - (len(configs) - 1) / 2) * width for j in range(len(names))]
            heights = [v if v is not None else 0.0 for v in values]
            bars = ax.bar(xs, heights, width, label=c["config"]["label"], color=colors[i % 10])
            for bar, v in zip(bars, values, strict=True):
                label = "n/a" if v is None else f"{v:.2f}"
                ax.annotate(
                    label,
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center",
                    va="bottom",
                    fontsize=7,
                    rotation=90,
                    xytext=(0, 2),
                    textcoords="offset points",
                )
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels([n.replace("_", " ") for n in names], fontsize=9)
        ax.set_ylim(0, 1.18)
        ax.set_ylabel("score (0–1)")
        ax.set_title(title, fontsize=11, loc="left")
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
    axes[0].legend(
        loc="upper center",
        ncol=min(len(configs), 4),
        fontsize=9,
        frameon=False,
        bbox_to_anchor=(0.5, 1.22),
    )
    name = results["provenance"]["dataset"]["name"]
    papers = results["provenance"]["corpus"]["papers"]
    fig.suptitle(f"{name} set, {papers} papers", fontsize=12, y=0.995)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def latency_chart(results: dict[str, Any], path: Path) -> None:
    """Box plots of answer and retrieval latency per configuration, p50/p95 in the labels."""
    plt = _pyplot()
    configs = results["configurations"]
    fig, axes = plt.subplots(1, 2, figsize=(13, 1.6 + 0.7 * len(configs)))
    for ax, key, title in (
        (axes[0], "answer", "Answer latency (ms, whole ask)"),
        (axes[1], "retrieve", "Retrieval latency (ms)"),
    ):
        data = [[r["latency_ms"][key] for r in c["items"]] for c in configs]
        labels = []
        for c in configs:
            lat = c["latency_ms"]
            labels.append(
                f"{c['config']['label']}\np50 {_fmt(lat[f'{key}_p50'], 1)} · "
                f"p95 {_fmt(lat[f'{key}_p95'], 1)}"
            )
        ax.boxplot(data, vert=False, whis=(5, 95), showfliers=True, widths=0.6)
        ax.set_yticks(range(1, len(configs) + 1))
        ax.set_yticklabels(labels, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel("milliseconds (whiskers: p5–p95)")
        ax.set_title(title, fontsize=11, loc="left")
        ax.grid(axis="x", alpha=0.3)
        ax.set_xlim(left=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_outputs(results: dict[str, Any], out: Path, charts: bool = True) -> list[Path]:
    """results.json, report.md and (unless disabled) metrics.png and latency.png in out."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    results_path = out / "results.json"
    results_path.write_text(
        json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    written.append(results_path)
    chart_names: list[str] = []
    if charts:
        metrics_chart(results, out / "metrics.png")
        latency_chart(results, out / "latency.png")
        chart_names = ["metrics.png", "latency.png"]
        written += [out / n for n in chart_names]
    report = out / "report.md"
    report.write_text(render_markdown(results, chart_names), encoding="utf-8")
    written.append(report)
    return written
