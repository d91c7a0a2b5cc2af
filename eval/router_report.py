"""How the learned router generalises to question styles it never saw (issue 27, item 3).

    python eval/router_report.py --shared ../shared/data [--regex-from /work/main]

Fits the router's heads on the FIT styles and reports on the HELD styles, then the reverse:
kind accuracy, answer-type accuracy and the kind confusion matrix on the unseen styles. With
`--regex-from DIR`, the rules planner of the checkout in DIR (the phrase-regex planner this
router replaces) plans the same items in a subprocess and its accuracy is printed beside.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from eval.train_router import (
    FIT_STYLES,
    HELD_STYLES,
    SHARED,
    corpus_catalog,
    fit_heads,
    labels,
    load_rows,
    name_counts,
    plain_copies,
    texts,
)
from rag.lexicon import load_lexicon
from rag.questions.parts import first_part
from rag.questions.router import features, load_manifest
from rag.store.embeddings import LocalEmbedder

# Run inside the other checkout: its rules planner's kind and answer type of each item.
_REGEX_PLANNER = """
import json, sys
from rag.store.catalog import Catalog
from rag.store.loaders import load_paths
from rag.questions.planner import rule_plan
from rag.qtype import question_type
shared, sample, items = sys.argv[1], sys.argv[2], json.load(sys.stdin)
catalog = Catalog(load_paths([shared + "/iclr2026_accepted.jsonl", sample]).papers)
out = {}
for item in items:
    plan = rule_plan(item["question"], catalog)
    out[item["id"]] = [str(plan.kind.value), question_type(item["question"])]
json.dump(out, sys.stdout)
"""


def regex_plans(checkout: Path, rows: Sequence[dict], shared: Path, sample: Path) -> dict:
    """The old rules planner's (kind, answer type) per item id, run in `checkout`."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    items = [{"id": r["id"], "question": r["question"]} for r in rows]
    done = subprocess.run(
        [sys.executable, "-c", _REGEX_PLANNER, str(shared), str(sample)],
        input=json.dumps(items),
        capture_output=True,
        text=True,
        cwd=checkout,
        env=env,
        check=True,
    )
    return json.loads(done.stdout)


def confusion(gold: Sequence[str], pred: Sequence[str], kinds: Sequence[str]) -> str:
    """A kind confusion matrix (rows gold, columns predicted) as text."""
    short = [k[:5] for k in kinds]
    pairs = Counter(zip(gold, pred, strict=True))
    lines = ["gold\\pred  " + " ".join(f"{s:>5}" for s in short)]
    for k in kinds:
        if not any(g == k for g in gold):
            continue
        cells = " ".join(f"{pairs[(k, p)] or '.':>5}" for p in kinds)
        lines.append(f"{k:<10} {cells}")
    return "\n".join(lines)


def accuracy(gold: Sequence[str], pred: Sequence[str]) -> float:
    """Share of equal pairs (0 when empty)."""
    return sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold) if gold else 0.0


def direction(x, x_plain, x_first, rows, fit_styles, kinds, types, l2, regex) -> str:
    """One direction's report: fit on `fit_styles` (each question also in lowercase without
    punctuation, `x_plain`, as eval/train_router.py fits), score the rest: the kind of each
    question's first part (`x_first`, as the planner routes it), the answer type of the whole."""
    fit = [i for i, r in enumerate(rows) if r["style"] in fit_styles]
    other = HELD_STYLES if fit_styles == FIT_STYLES else FIT_STYLES
    test = [i for i, r in enumerate(rows) if r["style"] in other]
    fitted = [rows[i] for i in fit]
    kind, answer = fit_heads(np.vstack([x[fit], x_plain[fit]]), fitted * 2, kinds, types, l2)
    pk = [kinds[j] for j in kind.probabilities(x_first[test]).argmax(axis=1)]
    pa = [types[j] for j in answer.probabilities(x[test]).argmax(axis=1)]
    gold_k = [rows[i]["kind"] for i in test]
    typed = [n for n, i in enumerate(test) if rows[i].get("answer_type")]
    gold_a = [rows[test[n]]["answer_type"] for n in typed]
    held = sorted({rows[i]["style"] for i in test})
    out = [
        f"fit on {', '.join(fit_styles)} ({len(fit)} items); "
        f"test on {', '.join(held)} ({len(test)} items)",
        f"  router: kind accuracy {accuracy(gold_k, pk):.3f}; answer-type accuracy "
        f"{accuracy(gold_a, [pa[n] for n in typed]):.3f} ({len(typed)} items)",
    ]
    if regex:
        rk = [regex[rows[i]["id"]][0] for i in test]
        ra = [regex[rows[test[n]]["id"]][1] for n in typed]
        out.append(
            f"  regex planner: kind accuracy {accuracy(gold_k, rk):.3f}; answer-type accuracy "
            f"{accuracy(gold_a, ra):.3f}"
        )
    unseen = sorted({k for k in gold_k} - {rows[i]["kind"] for i in fit})
    if unseen:
        seen = [n for n, k in enumerate(gold_k) if k not in unseen]
        acc = accuracy([gold_k[n] for n in seen], [pk[n] for n in seen])
        out.append(
            f"  kinds the fit styles never show: {', '.join(unseen)}; router kind accuracy on "
            f"the {len(seen)} items of kinds it saw: {acc:.3f}"
        )
    out.append("  per style (router kind accuracy, n):")
    for style in held:
        idx = [n for n, i in enumerate(test) if rows[i]["style"] == style]
        acc = accuracy([gold_k[n] for n in idx], [pk[n] for n in idx])
        extra = ""
        if regex:
            extra = f"  regex {accuracy([gold_k[n] for n in idx], [rk[n] for n in idx]):.3f}"
        out.append(f"    {style:<15} {acc:.3f} ({len(idx)}){extra}")
    out.append(confusion(gold_k, pk, kinds))
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--regex-from", type=Path, help="a checkout whose rules planner to score")
    args = parser.parse_args(argv)
    # The corpus only: the example questions the shipped router also learns from are no style.
    rows = load_rows(examples=None)
    kinds, types = labels(rows)
    l2 = float(load_manifest().get("l2", 1e-5))
    embedder, catalog = LocalEmbedder(), corpus_catalog(args.shared)
    x = features(embedder, texts(rows), name_counts(rows, catalog))
    plain = plain_copies(rows)
    x_plain = features(embedder, texts(plain), name_counts(plain, catalog))
    lexicon = load_lexicon()
    firsts = [{**r, "question": first_part(r["question"], lexicon)} for r in rows]
    x_first = features(embedder, texts(firsts), name_counts(firsts, catalog))
    regex = None
    if args.regex_from:
        sample = Path(__file__).resolve().parents[1] / "data" / "iclr2026_seed_abstracts.txt"
        regex = regex_plans(args.regex_from, rows, args.shared.resolve(), sample)
    print(f"{len(rows)} labelled questions; L2 {l2:g} (chosen by 5-fold CV on the fit styles)")
    for fit_styles in (FIT_STYLES, HELD_STYLES):
        print()
        print(direction(x, x_plain, x_first, rows, fit_styles, kinds, types, l2, regex))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
