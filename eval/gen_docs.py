"""Write docs/questions.md from the labelled example questions (rag/data/examples.jsonl).

python eval/gen_docs.py          # rewrite the page
python eval/gen_docs.py --check  # exit 1 when the checked-in page is out of date
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rag.questions.examples import load_examples, questions_markdown

PAGE = Path(__file__).resolve().parents[1] / "docs" / "questions.md"


def main(argv: list[str] | None = None) -> int:
    """Rewrite the page, or with --check say whether it is current."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--check", action="store_true", help="fail when the page is out of date")
    args = p.parse_args(argv)
    text = questions_markdown(load_examples()) + "\n"
    if args.check:
        current = PAGE.exists() and PAGE.read_text(encoding="utf-8") == text
        if not current:
            print(f"{PAGE} is out of date: run python eval/gen_docs.py", file=sys.stderr)
        return 0 if current else 1
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
