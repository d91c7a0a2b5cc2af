"""Train the question router (rag/questions/router.py) from the labelled question corpus.

    python eval/train_router.py            # write rag/data/router.npz + router.json
    python eval/train_router.py --cv       # choose the L2 strength by 5-fold CV first
    python eval/train_router.py --check    # exit 1 when the shipped weights are stale

Reads eval/questions/*.jsonl as plain JSON (only id, style, question, turns, kind and
answer_type are used), embeds each question with the bundled MiniLM and fits the two linear
heads. Deterministic: the same corpus gives the same weights.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from rag.lexicon import load_lexicon
from rag.questions.router import (
    WEIGHTS,
    Head,
    corpus_hash,
    features,
    fit_softmax,
    load_manifest,
    names_read,
    routed_text,
    save,
)
from rag.store.catalog import Catalog
from rag.store.embeddings import LocalEmbedder, embedder_key
from rag.store.loaders import load_paths

QUESTIONS = Path(__file__).parent / "questions"
# The styles a split fits on; the others are held out (and the reverse).
FIT_STYLES = ("formal", "casual", "search", "lowercase", "paraphrase")
HELD_STYLES = ("typos", "title", "two-part", "non-native", "follow-up", "other-language")
L2_GRID = (1e-5, 3e-5, 1e-4, 3e-4)
DEFAULT_L2 = 1e-5  # chosen by --cv (5-fold on the fit styles): 0.775 vs 0.774 at 3e-5


EXAMPLES = Path(__file__).parent / "router_examples.jsonl"


def load_rows(folder: Path = QUESTIONS, examples: Path | None = EXAMPLES) -> list[dict]:
    """Every labelled item of the corpus files (raw JSON objects), plus the project's example
    questions (eval/label_examples.py) unless `examples` is None, sorted by id."""
    rows = []
    paths = sorted(folder.glob("*.jsonl")) + ([examples] if examples else [])
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise SystemExit(f"{path}:{n}: invalid JSON: {exc}") from exc
            for field in ("id", "style", "question", "kind"):
                if not row.get(field):
                    raise SystemExit(f"{path}:{n}: missing field {field!r}")
            rows.append(row)
    return sorted(rows, key=lambda r: r["id"])


SHARED = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "iclr2026_seed_abstracts.txt"


def corpus_catalog(shared: Path = SHARED) -> Catalog:
    """The catalog the corpus questions are asked over: the 4,302 papers plus the sample."""
    corpus = shared / "iclr2026_accepted.jsonl"
    if not corpus.is_file():
        raise SystemExit(f"{corpus} is missing: the router is trained with the paper catalog")
    return Catalog(load_paths([corpus, SAMPLE]).papers)


def name_counts(rows: Iterable[dict], catalog: Catalog) -> list[int]:
    """How many papers the router is told each question names (router.names_read: the
    planner's exact name lookup, or the paper a follow-up points back at); the example
    questions carry theirs, counted over the catalog they were asked of."""
    lexicon = load_lexicon()
    return [
        r["names"]
        if "names" in r
        else names_read(
            len(catalog.names.mentions(r["question"], False)),
            r["question"],
            bool(r.get("turns")),
            lexicon,
        )
        for r in rows
    ]


def names_hash(names: Sequence[int]) -> str:
    """A digest of the names feature the router was fitted with: it moves when the lexicon or
    the name index changes how many papers a question names, which the corpus hash cannot
    see (weights fitted on other counts than inference reads are stale)."""
    return hashlib.sha256(json.dumps(list(names)).encode("ascii")).hexdigest()[:16]


def stale(out: Path, rows: Sequence[dict], shared: Path) -> str:
    """Why the weights at `out` are stale for these rows ('' when they are not); the names
    feature is checked when the paper catalog is at hand."""
    manifest = load_manifest(out)
    digest = corpus_hash(rows)
    if manifest.get("corpus_hash") != digest:
        return f"corpus {digest}, weights {manifest.get('corpus_hash')}"
    if (shared / "iclr2026_accepted.jsonl").is_file():
        catalog = corpus_catalog(shared)
        names = names_hash(name_counts([*rows, *plain_copies(rows)], catalog))
        if manifest.get("names_hash") != names:
            return f"names feature {names}, weights {manifest.get('names_hash')}"
    return ""


def plain_copies(rows: Sequence[dict]) -> list[dict]:
    """Each row asked in lowercase without punctuation, as a search box or a hurried typist
    writes it: the kind and answer type do not change. Fitted beside the rows, they carried
    over to styles the fit never saw (eval/router_report.py: 0.699/0.702 -> 0.712/0.715)."""
    return [{**r, "question": _PUNCTUATION.sub("", r["question"].lower())} for r in rows]


_PUNCTUATION = re.compile(r"[?!.,;:]")


def texts(rows: Iterable[dict]) -> list[str]:
    """What the router embeds for each item: the question as the pipeline reads it, its chat
    shorthand written out ("whats" -> "what is", Lexicon.written_out), after its turns."""
    lexicon = load_lexicon()
    return [routed_text(lexicon.written_out(r["question"]), r.get("turns")) for r in rows]


def fit_heads(
    x: np.ndarray, rows: Sequence[dict], kinds: Sequence[str], types: Sequence[str], l2: float
) -> tuple[Head, Head]:
    """Fit the kind head on every row and the answer-type head on the rows that have one."""
    y = np.array([kinds.index(r["kind"]) for r in rows])
    kind = Head(*fit_softmax(x, y, len(kinds), l2), tuple(kinds))
    typed = [i for i, r in enumerate(rows) if r.get("answer_type")]
    ya = np.array([types.index(rows[i]["answer_type"]) for i in typed])
    answer = Head(*fit_softmax(x[typed], ya, len(types), l2), tuple(types))
    return kind, answer


def cross_validate(x: np.ndarray, rows: Sequence[dict], kinds, types, folds: int = 5) -> float:
    """The L2 strength with the best 5-fold kind accuracy on these rows."""
    order = np.random.default_rng(0).permutation(len(rows))
    best, best_acc = DEFAULT_L2, -1.0
    for l2 in L2_GRID:
        right = 0
        for f in range(folds):
            test = order[f::folds]
            train = np.setdiff1d(order, test)
            kind, _ = fit_heads(x[train], [rows[i] for i in train], kinds, types, l2)
            pred = kind.probabilities(x[test]).argmax(axis=1)
            right += sum(kinds[p] == rows[i]["kind"] for p, i in zip(pred, test, strict=True))
        acc = right / len(rows)
        print(f"l2={l2:g}: {folds}-fold kind accuracy {acc:.3f}", file=sys.stderr)
        if acc > best_acc:
            best, best_acc = l2, acc
    return best


def question_marking(rows: Sequence[dict], min_share: float = 0.02) -> list[str]:
    """Words that mark questions rather than topics: in at least `min_share` of the English
    questions that have a topic, and inside that item's labelled topic at most 5% of those
    times (e.g. "which", "papers", "hey"); learned, so no list of openers is written by hand."""
    seen: dict[str, int] = {}
    topical: dict[str, int] = {}
    asked = [r for r in rows if r.get("topic") and r.get("language", "en") == "en"]
    for r in asked:
        topic = set(r["topic"].lower().split())
        for word in set(r["question"].lower().replace("?", " ").replace(",", " ").split()):
            seen[word] = seen.get(word, 0) + 1
            topical[word] = topical.get(word, 0) + (word in topic)
    floor = max(2, int(min_share * len(asked)))
    return sorted(w for w, n in seen.items() if n >= floor and topical[w] <= 0.05 * n)


def labels(rows: Sequence[dict]) -> tuple[list[str], list[str]]:
    """The kinds and answer types present, sorted."""
    kinds = sorted({r["kind"] for r in rows})
    types = sorted({r["answer_type"] for r in rows if r.get("answer_type")})
    return kinds, types


def train(
    out: Path, styles: Sequence[str] | None = None, shared: Path = SHARED, l2: float = DEFAULT_L2
) -> str:
    """Fit the router on the labelled rows (only those of `styles` when given: a style split's
    fit side) and write it to `out`; returns what was written, for the log."""
    every = load_rows()
    rows = every if styles is None else [r for r in every if r["style"] in styles]
    digest = corpus_hash(rows)
    embedder = LocalEmbedder()
    catalog = corpus_catalog(shared)
    plain = plain_copies(rows)
    names, plain_names = name_counts(rows, catalog), name_counts(plain, catalog)
    x = features(embedder, texts(rows), names)
    kinds, types = labels(every)  # every kind, even one the fit styles lack
    x_plain = features(embedder, texts(plain), plain_names)
    kind, answer = fit_heads(np.vstack([x, x_plain]), rows + plain, kinds, types, l2)
    extra = {
        "names_hash": names_hash([*names, *plain_names]),
        "l2": l2,
        "items": len(rows),
        **({"styles": list(styles)} if styles else {}),
    }
    save(out, kind, answer, embedder_key(embedder), digest, extra)
    return f"{out}: {len(rows)} items, {len(kinds)} kinds, l2={l2:g}, corpus {digest}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=WEIGHTS)
    parser.add_argument("--cv", action="store_true", help="choose L2 by CV on the fit styles")
    parser.add_argument("--shared", type=Path, default=SHARED, help="folder of the corpus")
    parser.add_argument(
        "--check", action="store_true", help="only check the corpus and names-feature hashes"
    )
    args = parser.parse_args(argv)
    rows = load_rows()
    if args.check:
        why = stale(args.out, rows, args.shared)
        if why:
            print(f"stale router weights: {why}", file=sys.stderr)
        return 1 if why else 0
    l2 = DEFAULT_L2
    if args.cv:
        embedder, catalog = LocalEmbedder(), corpus_catalog(args.shared)
        x = features(embedder, texts(rows), name_counts(rows, catalog))
        fit = [i for i, r in enumerate(rows) if r["style"] in FIT_STYLES]
        l2 = cross_validate(x[fit], [rows[i] for i in fit], *labels(rows))
    print(train(args.out, None, args.shared, l2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
