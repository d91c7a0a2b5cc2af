"""Learn the lexicon's `topic_keyness`: which words papers name their topics with, from the
paper corpus; its threshold and rare-word cut fitted on the labelled questions of some styles
and reported on the others.

    python -m eval.topic_words [--corpus ../shared/data/iclr2026_accepted.jsonl] [--write]

A word's keyness (Catalog.keyness, read here from the corpus's catalog as the planner reads
its own) is the share of the papers writing it that write it in their title or keywords:
"quantization", "jailbreak" name topics; "concern", "examine", "roughly" and "number" are
written in abstracts but almost never name one. The planner reads a topic without the words
the collection writes that are not key (rag/questions/topic.py, `named`), unless a key pair
holds them ("code generation", "world models", "question answering": "code" alone is written
far more often than it names a topic). A word few papers write stays (an off-topic topic, a
typing slip: the absent rule and the respelling read those).

Fit: the keyness threshold is chosen on the fit styles' labelled topics (each question word
the papers write: inside its item's labelled topic or not) and its accuracy reported on the
unseen styles (eval/style_report.py's default split).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from rag.lexicon import LEXICON, load_lexicon
from rag.store.catalog import Catalog
from rag.store.loaders import load_paths

from .questions.schema import CORPUS_FILES, QUESTIONS_DIR, Style
from .style_report import DEFAULT_FIT

DEFAULT_CORPUS = Path(__file__).parents[1] / ".." / "shared" / "data" / "iclr2026_accepted.jsonl"
# A pair of stems holds a loose one when at least this many papers name topics with it.
PAIR_MIN = 2
# Words fewer papers write stay: their keyness is noise, and dropping one ("poker", "drug")
# widens the topic most. Fitted with the threshold, from these candidates.
MIN_DFS = (5, 10, 20, 40, 80)
# Keyness is read in collections this large (the 19-paper sample's titles say nothing).
MIN_PAPERS = 1000
THRESHOLDS = tuple(t / 100 for t in range(5, 61, 5))


def kept(catalog: Catalog, terms: Sequence[str], i: int, threshold: float, min_df: int) -> bool:
    """Whether the i-th stem is kept, as rag/questions/topic.py::named reads it: written by
    fewer than `min_df` papers, at least `threshold` times as key as the most key stem, or in
    a pair with a neighbour that PAIR_MIN papers name topics with."""
    top = max((catalog.keyness(t) for t in terms), default=0.0)
    pairs = catalog.named_pairs
    return (
        catalog.df(terms[i]) < min_df
        or catalog.keyness(terms[i]) >= threshold * top
        or (i > 0 and pairs.get((terms[i - 1], terms[i]), 0) >= PAIR_MIN)
        or (i + 1 < len(terms) and pairs.get((terms[i], terms[i + 1]), 0) >= PAIR_MIN)
    )


# (style, the question's stems, which of them are in its labelled topic)
Labelled = tuple[str, list[str], list[bool]]


def labelled(rows: Sequence[dict], framing: frozenset[str], catalog: Catalog) -> list[Labelled]:
    """The stems of each English question with a topic, each marked in its topic or not;
    without the words the planner reads as the question's frame before (`framing`)."""
    out = []
    for r in rows:
        if not r.get("topic") or r.get("language", "en") != "en":
            continue
        gold = set(catalog.terms(r["topic"]))
        terms = [t for t in catalog.terms(r["question"]) if t not in framing]
        out.append((r["style"], terms, [t in gold for t in terms]))
    return out


def accuracy(
    data: Sequence[Labelled], catalog: Catalog, threshold: float, min_df: int = MIN_DFS[0]
) -> float:
    """Share of the questions whose written stems are kept exactly when they are topic words
    (a question's topic read right as a whole)."""
    ok = 0
    for _style, terms, topical in data:
        written = [i for i, stem in enumerate(terms) if catalog.df(stem)]
        held = {i for i in written if kept(catalog, terms, i, threshold, min_df)}
        ok += all((i in held) == topical[i] for i in written)
    return ok / max(len(data), 1)


def learn(corpus: Path, fit: Sequence[str] = DEFAULT_FIT) -> tuple[dict, list[str]]:
    """The learned lexicon field (`topic_keyness`) and the lines of its report."""
    # The catalog the planner reads, so the fit sees the stems and counts it will.
    catalog = Catalog(load_paths([corpus]).papers)
    rows = [
        json.loads(line)
        for name in CORPUS_FILES
        for line in (QUESTIONS_DIR / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    lexicon = load_lexicon()
    said = (
        lexicon.question_marking
        | lexicon.function_words
        | lexicon.question_words
        | lexicon.domain_stopwords
        | lexicon.paper_nouns
    )
    data = labelled(rows, frozenset(t for w in said for t in catalog.terms(w)), catalog)
    fitted = [d for d in data if d[0] in fit]
    unseen = [d for d in data if d[0] not in fit]
    report = [f"{len(fitted)} fit questions ({', '.join(fit)}), {len(unseen)} unseen ones"]
    report.append("share of questions whose written words are all kept or dropped right:")
    scores = {}
    for d in MIN_DFS:
        for t in THRESHOLDS:
            scores[t, d] = accuracy(fitted, catalog, t, d)
            report.append(
                f"threshold {t:.2f}, min_df {d}: fit {scores[t, d]:.3f}, "
                f"unseen {accuracy(unseen, catalog, t, d):.3f}"
            )
    report.append(
        f"keep all: fit {accuracy(fitted, catalog, 0):.3f}, unseen "
        f"{accuracy(unseen, catalog, 0):.3f}"
    )
    # Ties go to the lower threshold and the fewer rare words kept.
    best, min_df = max(scores, key=lambda td: (scores[td], -td[0], -td[1]))
    report.append(f"chosen on fit: threshold {best:.2f}, min_df {min_df}")
    learned = {"share": best, "pair_papers": PAIR_MIN, "min_df": min_df, "min_papers": MIN_PAPERS}
    return learned, report


def main(argv: list[str] | None = None) -> int:
    """Print the fit report; with --write store the learned words in the lexicon."""
    p = argparse.ArgumentParser(prog="python -m eval.topic_words", description=__doc__)
    p.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    p.add_argument("--write", action="store_true")
    p.add_argument(
        "--reverse", action="store_true", help="fit on the unseen styles, report on the fit ones"
    )
    args = p.parse_args(argv)
    if not args.corpus.exists():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 1
    fit = DEFAULT_FIT
    if args.reverse:
        fit = tuple(s.value for s in Style if s.value not in DEFAULT_FIT)
    found, report = learn(args.corpus, fit)
    print("\n".join(report))
    if args.write and not args.reverse:
        lex = json.loads(LEXICON.read_text(encoding="utf-8"))
        lex["topic_keyness"] = found
        LEXICON.write_text(json.dumps(lex, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
