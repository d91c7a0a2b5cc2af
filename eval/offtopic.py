"""Off-topic refusal at conference scale (issue 27, item 6): eval/offtopic.jsonl asked on the
scale index, refusal recall and precision per split.

    python -m eval.offtopic --index-dir /work/idx/eval-scale [--split report] [--out rows.json]

Items are off-topic questions (topics no indexed paper writes about: their key terms were
checked absent from the corpus text) and on-topic near-miss controls (topics one to a few papers
write about). A refusal is `Answer.refused`/`weak` or the absent wording (eval.style_metrics).
The absent-topic rule's paper count is fitted on the 'fit' split (`rag.answers.absent`); report on
'report'.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from .metrics import refusal_counts
from .style_metrics import says_absent
from .style_report import DEFAULT_FIT, open_pipeline, read_items

ITEMS = Path(__file__).with_name("offtopic.jsonl")


class OffTopicItem(BaseModel):
    """One line of eval/offtopic.jsonl."""

    id: str
    style: str
    question: str
    answerable: bool = Field(description="False: no indexed paper is about the topic.")
    topic: str | None = None
    terms: list[str] = Field(description="Regexes grepped in the corpus to check the label.")
    split: str = Field(pattern="^(fit|report)$")


def load_items(path: Path = ITEMS) -> list[OffTopicItem]:
    """The items; a bad line fails naming the file and line."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(OffTopicItem.model_validate_json(line))
        except ValueError as exc:
            raise ValueError(f"{path}:{n}: {exc}") from exc
    return out


def score(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Refusal recall and precision of rows (each with 'answerable' and 'refused')."""
    c = refusal_counts((not r["answerable"], r["refused"]) for r in rows)
    return {
        "items": len(rows),
        "refusal_recall": c.recall,
        "refusal_precision": c.precision,
        "false_refusals": sum(r["refused"] for r in rows if r["answerable"]),
        "missed": [r["id"] for r in rows if not r["answerable"] and not r["refused"]],
        "refused_answerable": [r["id"] for r in rows if r["answerable"] and r["refused"]],
    }


def read_as(pipe: Any, question: str) -> str:
    """The text the pipeline reads a topic from: the offline plan's topic, else the question."""
    return pipe.planner.plan(question, None, False).topic or question


def fit_k(pipe: Any, split: str, ks: Sequence[int] = (1, 2, 3, 5, 10)) -> int:
    """The absent-topic rule alone on a split, per paper count k: pick the largest
    k whose precision stays >= 0.9 (then `rag.answers.absent.MIN_PAPERS`)."""
    items = [i for i in load_items() if split == "all" or i.split == split]
    for k in ks:
        rows = [
            {
                "id": i.id,
                "answerable": i.answerable,
                "refused": pipe.absent(read_as(pipe, i.question), k) is not None,
            }
            for i in items
        ]
        print(f"k={k}", json.dumps(score(rows)))
    # The confidence above which an unwritten word is decoration: off-topic questions of the
    # split against the labelled corpus' answerable questions of the fit styles (English, one
    # paper) that write a word no paper writes.
    off = sorted(
        pipe.ask(i.question).confidence or 0.0
        for i in items
        if not i.answerable and pipe.absent(read_as(pipe, i.question))
    )
    answerable = []
    for item in read_items():
        if (
            item.answerable
            and item.style.value in DEFAULT_FIT
            and item.kind.value in ("lookup", "detail", "search", "metadata")
            and item.language == "en"
            and not item.turns
            and pipe.absent(read_as(pipe, item.question))
        ):
            answerable.append(pipe.ask(item.question).confidence or 0.0)
    above = sorted(c for c in answerable if off and c > off[-1])
    print(f"off-topic confidences (max {off[-1] if off else None}): {off}")
    print(f"answerable with an unwritten word: {sorted(answerable)}")
    if off and above:
        print(f"MAX_CONFIDENCE = {round((off[-1] + above[0]) / 2, 2)}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Ask every item and print the scores per split."""
    p = argparse.ArgumentParser(prog="python -m eval.offtopic", description=__doc__)
    p.add_argument("--index-dir", type=Path, required=True, help="the scale index's data dir")
    p.add_argument("--split", choices=("fit", "report", "all"), default="all")
    p.add_argument("--out", type=Path, help="write the rows as JSON")
    p.add_argument("--fit", action="store_true", help="score the absent-topic rule per k")
    args = p.parse_args(argv)
    pipe = open_pipeline(args.index_dir)
    if args.fit:
        return fit_k(pipe, args.split)
    papers = len(pipe.catalog())
    rows = []
    for item in load_items():
        if args.split != "all" and item.split != args.split:
            continue
        answer = pipe.ask(item.question)
        rows.append(
            {
                "id": item.id,
                "split": item.split,
                "style": item.style,
                "answerable": item.answerable,
                "refused": says_absent(answer),
                "head": answer.text[:160],
            }
        )
    print(f"{len(rows)} items on {papers} papers in {args.index_dir}")
    for split in ("fit", "report"):
        part = [r for r in rows if r["split"] == split]
        if part:
            print(split, json.dumps(score(part)))
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
