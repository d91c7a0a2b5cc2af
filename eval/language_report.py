"""How well questions in another language are told from English ones (issue 27, item 7).

    python -m eval.language_report --data-dir /work/idx     # the scale index's vocabulary

Reads the search-box development set (eval/dev/languages/search_box.jsonl: 60 queries in
German, French, Spanish, Italian and Portuguese, 60 in English with slips, coined names and
foreign-looking words; written without running PaperChat) and the question corpus, split into
its fit and unseen styles (eval.style_report.DEFAULT_FIT). For each it prints how many
questions in another language the pipeline's LanguageReader detects, and how many English
ones it takes for another language. MIN_FOREIGN_WORDS was chosen on the development set.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from pathlib import Path

from .style_report import DEFAULT_FIT, open_pipeline, read_items

DEV = Path(__file__).parent / "dev" / "languages" / "search_box.jsonl"


def tally(rows: Iterable[tuple[str, str]], language_of: Callable[[str], str]) -> str:
    """'detected a/b in another language, c/d English taken for another' over (text, truth)."""
    other = english = caught = wrong = 0
    for text, truth in rows:
        said = language_of(text)
        if truth == "en":
            english += 1
            wrong += bool(said)
        else:
            other += 1
            caught += bool(said)
    return (
        f"detected {caught}/{other} in another language; "
        f"{wrong}/{english} English taken for another"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the detection on the development set and the corpus' two sides."""
    p = argparse.ArgumentParser(prog="python -m eval.language_report", description=__doc__)
    p.add_argument("--data-dir", type=Path, required=True, help="folder holding eval-scale")
    args = p.parse_args(argv)
    pipe = open_pipeline(args.data_dir / "eval-scale")
    dev = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line]
    items = read_items()
    sides = {
        "development set": [(d["query"], d["language"]) for d in dev],
        "corpus, fit styles": [(i.question, i.language) for i in items if i.style in DEFAULT_FIT],
        "corpus, unseen styles": [
            (i.question, i.language) for i in items if i.style not in DEFAULT_FIT
        ],
    }
    for name, rows in sides.items():
        print(f"{name} ({len(rows)}): {tally(rows, pipe.language)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
