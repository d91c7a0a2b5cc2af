"""Learn the lexicon's `question_marking` words: words people's questions write outside their
topics ("which", "papers", "hey", "lol"), from the labelled question corpus.

    python -m eval.question_marking [--corpus ../shared/data/iclr2026_accepted.jsonl] [--write]

The rule is eval/train_router.py's `question_marking` (frequent in questions, almost never in
their labelled topics): at the router's floor (2% of the questions) for any word, and at a lower
floor (MIN_SHARE) for words (almost) no paper of the corpus writes ("lol", "got": RARE_SHARE)
and none names in its keywords, since they are no topic the collection uses. A typing slip of a
word the papers write ("difusion") is a misspelt topic, never a marking word. The planner reads
the topic without these words; the off-topic rule never calls them absent.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rag.answers.absent import english_words
from rag.lexicon import LEXICON
from rag.text import slip_of, words

from .questions.schema import CORPUS_FILES, QUESTIONS_DIR
from .train_router import question_marking

MIN_SHARE = 0.003
ROUTER_SHARE = 0.02
# A word written by at most this share of the papers is no topic word the collection uses.
RARE_SHARE = 0.0025
DEFAULT_CORPUS = Path(__file__).parents[1] / ".." / "shared" / "data" / "iclr2026_accepted.jsonl"


def learn(corpus: Path) -> list[str]:
    """The learned words (sorted)."""
    rows = [
        json.loads(line)
        for name in CORPUS_FILES
        for line in (QUESTIONS_DIR / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    df: dict[str, int] = {}
    named: set[str] = set()  # keyword words: what papers name their topics with
    papers = 0
    for line in corpus.read_text(encoding="utf-8").splitlines():
        p = json.loads(line)
        papers += 1
        for w in set(words(" ".join([p["title"], p["abstract"], *p.get("keywords", [])]))):
            df[w] = df.get(w, 0) + 1
        named.update(words(" ".join(p.get("keywords", []))))
    written = set(df)
    common = set(question_marking(rows, ROUTER_SHARE))
    # Words people's questions write that (almost) no paper does: "hey", "got", "please".
    rare = {
        w
        for w in question_marking(rows, MIN_SHARE)
        if w.isalpha()
        and len(w) > 2
        and df.get(w, 0) <= RARE_SHARE * papers
        and w not in named
        # A slip of a word the papers write is a misspelt topic (4 letters up: short words
        # lie one edit from many others by chance).
        and (w in written or len(w) < 4 or not slip_of(w, written))
    }
    # Words no paper writes that two questions or more write outside their topics ("stuff",
    # "ok", "gimme"): a topic's own unwritten words ("sourdough") are in its labelled topic.
    # An English word is spelt as meant ("stuff" is no slip of "staff").
    english = english_words()
    unwritten = {
        w
        for w in question_marking(rows, 0.0)
        if w.isalpha()
        and len(w) > 1
        and w not in written
        and (len(w) < 4 or w in english or not slip_of(w, written))
    }
    return sorted(common | rare | unwritten)



def main(argv: list[str] | None = None) -> int:
    """Print the words; with --write store them in the lexicon."""
    p = argparse.ArgumentParser(prog="python -m eval.question_marking", description=__doc__)
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    p.add_argument("--write", action="store_true")
    args = p.parse_args(argv)
    if not args.corpus.exists():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 1
    found = learn(args.corpus)
    print(" ".join(found))
    if args.write:
        lex = json.loads(LEXICON.read_text(encoding="utf-8"))
        lex["question_marking"] = found
        LEXICON.write_text(json.dumps(lex, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
