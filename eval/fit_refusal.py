"""Refit the refusal model (rag/data/refusal_model.json) on the 'fit' half of the evaluation items.

    python -m eval.fit_refusal --data-dir /work/idx            # golden, plus scale when present
    python -m eval.fit_refusal --data-dir /work/idx --dry-run  # print, do not write

Every item is asked as the product asks it (conversations replayed, nothing refused); the
signals of each question's final turn and whether the item is answerable are the training rows.
Questions that name an indexed paper, or whose every word one paper writes, are left out: the
product never refuses those (RefusalModel.refuses); so are collection answers (lists, counts,
comparisons), which the refusal model does not decide. The 'heldout' half (`Item.split`) is
never read here; report on it with `python -m eval --split heldout`.
"""

from __future__ import annotations

import argparse
import sys

from rag.answers.refusal import MODEL_FILE, fit
from rag.app.options import AskOptions
from rag.models import Conversation
from rag.settings import Settings

from .datasets import CorpusMissing, resolve
from .runner import open_pipeline


def rows_of(name: str, settings: Settings, split: str) -> tuple[list[dict[str, float]], list[bool]]:
    """Signals and labels of one dataset's items in a split."""
    try:
        dataset = resolve(name, None)
    except CorpusMissing as exc:
        print(f"skipped {name}: {exc}", file=sys.stderr)
        return [], []
    pipeline = open_pipeline(settings, dataset).pipeline
    # Never refusing while replaying: a refused earlier turn changes what a follow-up reads, so
    # the rows would depend on the model being refitted (and two fits could alternate).
    opts = AskOptions(answerer="extractive", refusal_threshold=0.0)
    rows, labels = [], []
    for item in dataset.items:
        if item.split != split:
            continue
        conversation = Conversation()
        for turn in item.all_turns:
            answer = pipeline.ask(turn, conversation, opts)
        if answer.named or not answer.signals or answer.signals["full_coverage"]:
            # Named papers and questions one paper spells out whole are never refused;
            # collection answers (lists, counts, comparisons) are not decided by the model.
            continue
        rows.append(answer.signals)
        labels.append(item.answerable)
    return rows, labels


def main(argv: list[str] | None = None) -> int:
    """Fit on the fit half and write the model file."""
    p = argparse.ArgumentParser(prog="python -m eval.fit_refusal", description=__doc__)
    p.add_argument("--data-dir", default=".paperchat", help="index base directory")
    p.add_argument("--l2", type=float, default=1.0, help="L2 penalty of the coefficients")
    p.add_argument("--dry-run", action="store_true", help="print the model, do not write it")
    args = p.parse_args(argv)
    settings = Settings(data_dir=args.data_dir)  # type: ignore[call-arg]
    rows: list[dict[str, float]] = []
    labels: list[bool] = []
    used = []
    for name in ("golden", "scale"):
        r, y = rows_of(name, settings, "fit")
        if r:
            used.append(f"{name}: {len(r)} items ({len(r) - sum(y)} unanswerable)")
        rows += r
        labels += y
    model = fit(rows, labels, l2=args.l2, note="fit half (Item.split) of " + "; ".join(used))
    print(model.model_dump_json(indent=2))
    if not args.dry_run:
        model.save(MODEL_FILE)
        print(f"wrote {MODEL_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
