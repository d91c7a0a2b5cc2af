"""Check the labelled question corpus against the papers and compute its rule-based gold sets.

    python -m eval.questions.build [--write] [--corpus PATH] [--seed PATH] [FILE ...]

Reads `papers.jsonl` and `collection.jsonl` (or the files given), validates every item with
`schema.Item`, and, when the 4,302-paper JSONL is present, checks what needs the papers:

- every gold key is the content key of a paper of the item's corpus;
- every fact occurs (case-insensitive, whitespace-normalised) in a gold paper's abstract or title;
- every named paper (method name or exact title) occurs in a gold paper's title or abstract, or,
  for items without gold keys, in some paper's title;
- every `filters.area` is a primary area of the corpus;
- (printed, not failing) questions whose text breaks their style's form (`style_problems`);
- off-topic items (unanswerable, no `missing`): the topic phrase occurs in no title, abstract or
  keyword list, and at least one of its words (4+ letters, with an optional plural) occurs nowhere.

It computes `gold_keys` and `count` of every item with a `gold_rule` (and the counts of `more`
sides): the papers where any pattern matches any listed field, case-insensitively, within the
item's filters. A `rating` item's set (every paper within its filters when it names no topic) is
ordered best-rated first (average, then number of ratings, then corpus order) and cut after the
best RATING_KEEP (ties kept); its `count` is the whole set's size and `top_rating` its best rating.
No question text may occur twice in a file, and off-topic items must match nothing. Over
`iclr2026` the 19 sample abstracts take part only when no catalog filter applies (they have no
title, area, decision, keywords or rating). `--write` stores the computed fields back into the
files (re-runnable) and regenerates the kind x style table in README.md.
Exit status 0 when no problem is found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from eval.questions.schema import (
    CORPUS_FILES,
    AnswerType,
    Corpus,
    GoldRule,
    Item,
    QuestionKind,
    Style,
    load_items,
)
from rag.models import content_key, normalize_text

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FILES = tuple(HERE / name for name in CORPUS_FILES)
README = HERE / "README.md"
SEED = REPO / "data" / "iclr2026_seed_abstracts.txt"
CORPUS_NAME = "iclr2026_accepted.jsonl"
# Kinds whose every answer type must occur in every style (the router learns the answer type too).
ANSWER_TYPE_KINDS = ("lookup", "detail")
QUOTES = r"[\"'“”‘’«»「」《》]"
# The kinds each file holds (writer A: papers, writer B: collection); every kind x style cell of a
# file must have at least MIN_CELL items (MIN_CELL_COMMON for the common kinds).
FILE_KINDS = {
    "papers.jsonl": (
        "lookup",
        "detail",
        "search",
        "metadata",
        "compare",
        "define",
        "similar",
        "results",
    ),
    "collection.jsonl": (
        "list",
        "count",
        "breakdown",
        "share",
        "more",
        "authors",
        "citations",
        "rating",
        "themes",
    ),
}
MIN_CELL, MIN_CELL_COMMON = 4, 6
COMMON_KINDS = frozenset({"lookup", "detail", "search", "list", "count"})
# A rating item keeps the best-rated RATING_KEEP papers of its set as gold_keys (ties at the cut
# kept): enough to score a top-k answer without storing thousands of keys.
RATING_KEEP = 50
TABLE_START, TABLE_END = "<!-- kind-style-table:start -->", "<!-- kind-style-table:end -->"


def default_corpus() -> Path:
    """../shared/data/iclr2026_accepted.jsonl, or under $PAPERCHAT_SHARED_DATA."""
    shared = os.environ.get("PAPERCHAT_SHARED_DATA")
    return (Path(shared) if shared else REPO.parent / "shared" / "data") / CORPUS_NAME


# Hyphen, non-breaking hyphen, figure dash, en and em dash, horizontal bar, minus sign.
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))


@dataclass(frozen=True)
class CorpusPaper:
    """The fields of one paper the checks and rules read."""

    key: str
    abstract: str
    title: str = ""
    keywords: str = ""
    area: str = ""
    decision: str = ""
    rating: float | None = None
    n_ratings: int = 0
    sample: bool = False

    def field(self, name: str) -> str:
        """The text of a rule field ('title', 'abstract' or 'keywords'), its dashes as '-' (a
        rule's "vision[- ]language" is meant to match "vision–language" too)."""
        text = {"title": self.title, "abstract": self.abstract, "keywords": self.keywords}[name]
        return text.translate(_DASHES)


def read_seed(path: Path) -> list[CorpusPaper]:
    """The sample: abstracts separated by blank lines after a one-line heading."""
    blocks = [b.strip() for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    if blocks and "\n" not in blocks[0] and len(blocks[0]) < 200:
        blocks = blocks[1:]
    return [CorpusPaper(content_key(b), b, sample=True) for b in blocks]


def read_corpus(path: Path) -> list[CorpusPaper]:
    """The accepted papers, one JSON object per line."""
    papers = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                papers.append(
                    CorpusPaper(
                        key=content_key(rec["abstract"]),
                        abstract=rec["abstract"],
                        title=rec.get("title") or "",
                        keywords="; ".join(rec.get("keywords") or []),
                        area=rec.get("primary_area") or "",
                        decision=rec.get("decision") or "",
                        rating=rec.get("avg_rating"),
                        n_ratings=rec.get("n_ratings") or 0,
                    )
                )
    return papers


def _norm(text: str) -> str:
    return normalize_text(text).lower()


class Papers:
    """Both corpora, with the look-ups the checks need built once."""

    def __init__(self, corpus: list[CorpusPaper], sample: list[CorpusPaper]) -> None:
        self.corpus, self.sample = corpus, sample
        # a sample abstract that is also an accepted paper resolves to the paper (title, rating)
        self.by_key = {p.key: p for p in sample + corpus}
        # Some sample abstracts are also accepted papers: count each paper once.
        self.extra = [p for p in sample if p.key not in {c.key for c in corpus}]
        self.sample_keys = {p.key for p in sample}
        self.areas = {p.area for p in corpus}
        self.titles = {_norm(p.title) for p in corpus}
        everything = [_norm(f"{p.title}\n{p.abstract}\n{p.keywords}") for p in corpus + sample]
        self.blob = "\n".join(everything)
        self.vocabulary = set(re.findall(r"[a-z0-9]+", self.blob))

    def universe(self, item: Item) -> list[CorpusPaper]:
        """The papers a rule of this item ranges over."""
        if item.corpus is Corpus.SAMPLE:
            return self.sample
        if item.filters.catalog_only() or item.filters.min_rating is not None:
            return self.corpus
        return self.corpus + self.extra

    def matching(self, item: Item, rule: GoldRule) -> list[str]:
        """Keys of the papers in the item's universe and filters that the rule matches."""
        f = item.filters
        regexes = [re.compile(p, re.IGNORECASE) for p in rule.patterns]
        keys = []
        for paper in self.universe(item):
            if f.decision and paper.decision != f.decision:
                continue
            if f.area and paper.area != f.area:
                continue
            if f.title and _norm(paper.title) != _norm(f.title):
                continue
            if f.keyword and _norm(f.keyword) not in [_norm(k) for k in paper.keywords.split("; ")]:
                continue
            if f.min_rating is not None and (paper.rating is None or paper.rating < f.min_rating):
                continue
            texts = [paper.field(name) for name in rule.fields]
            if not regexes or any(r.search(t) for r in regexes for t in texts):
                keys.append(paper.key)
        return keys

    def absent_words(self, topic: str) -> list[str]:
        """Words of the topic (4+ letters) that occur nowhere, even with a plural ending."""
        words = [w for w in re.findall(r"[a-z0-9]+", _norm(topic)) if len(w) >= 4]
        return [
            w for w in words if not {w, w + "s", w + "es", w.removesuffix("s")} & self.vocabulary
        ]


def best_rated(keys: list[str], papers: Papers) -> tuple[list[str], float | None]:
    """The keys best-rated first, cut after RATING_KEEP (ties kept), and the best rating."""
    position = {k: i for i, k in enumerate(keys)}

    def rank(key: str) -> tuple[float, int, int]:
        paper = papers.by_key[key]
        rating = paper.rating if paper.rating is not None else -1.0
        return (-rating, -paper.n_ratings, position[key])

    ordered = sorted(keys, key=rank)
    rated = [papers.by_key[k].rating for k in ordered if papers.by_key[k].rating is not None]
    if len(ordered) > RATING_KEEP:
        cut = rank(ordered[RATING_KEEP - 1])[0]
        ordered = ordered[:RATING_KEEP] + [k for k in ordered[RATING_KEEP:] if rank(k)[0] == cut]
    return ordered, (rated[0] if rated else None)


def compute(item: Item, papers: Papers) -> Item:
    """The item with gold_keys/count (and side counts) recomputed from its rules."""
    update: dict[str, object] = {}
    rule = item.gold_rule
    if rule is None and item.kind is QuestionKind.RATING and item.answerable:
        rule = GoldRule(patterns=[])  # no topic: every paper within the filters
    if rule is not None:
        keys = papers.matching(item, rule)
        update |= {"gold_keys": keys, "count": len(keys)}
        if item.kind is QuestionKind.RATING:
            update["gold_keys"], update["top_rating"] = best_rated(keys, papers)
    if item.sides:
        update["sides"] = [
            side.model_copy(
                update={"count": len(papers.matching(item, side.gold_rule))}
                if side.gold_rule
                else {}
            )
            for side in item.sides
        ]
    return item.model_copy(update=update) if update else item


def corpus_problems(item: Item, papers: Papers) -> list[str]:
    """What is wrong with the item given the papers (empty when nothing)."""
    out = []
    allowed = papers.sample_keys if item.corpus is Corpus.SAMPLE else set(papers.by_key)
    unknown = [k for k in item.gold_keys if k not in allowed]
    if unknown:
        out.append(f"gold_keys: not papers of corpus {item.corpus.value!r}: {unknown}")
    gold = [papers.by_key[k] for k in item.gold_keys if k in papers.by_key]
    gold_text = [_norm(f"{p.title}\n{p.abstract}") for p in gold]
    for fact in item.facts:
        if not any(_norm(fact) in text for text in gold_text):
            out.append(f"facts: {fact!r} occurs in no gold abstract or title")
    for name in item.named:
        if gold_text:
            if not any(_norm(name) in text for text in gold_text):
                out.append(f"named: {name!r} occurs in no gold paper's title or abstract")
        elif _norm(name) not in papers.titles:
            out.append(f"named: {name!r} is not a title of the corpus")
    if item.answerable and item.gold_rule is not None and not papers.matching(item, item.gold_rule):
        out.append("gold_rule: matches no paper (an answerable item needs some)")
    if not item.answerable and item.missing is None and (item.count or item.gold_keys):
        out.append(f"off-topic item matches {item.count or len(item.gold_keys)} papers")
    if item.filters.area and item.filters.area not in papers.areas:
        out.append(f"filters.area: {item.filters.area!r} is not a primary area of the corpus")
    if not item.answerable and item.missing is None:
        topic = _norm(item.topic)
        if re.search(rf"\b{re.escape(topic)}", papers.blob):
            out.append(f"topic: off-topic phrase {item.topic!r} occurs in the corpus")
        elif not papers.absent_words(item.topic):
            out.append(f"topic: every word of off-topic {item.topic!r} occurs in the corpus")
    return out


def table(items: Sequence[Item]) -> str:
    """Markdown table of item counts per kind (rows) and style (columns)."""
    cells = Counter((i.kind, i.style) for i in items)
    kinds = [k for k in QuestionKind if any(i.kind is k for i in items)]
    head = "| kind | " + " | ".join(s.value for s in Style) + " | total |"
    rule = "|---|" + "---:|" * (len(Style) + 1)
    rows = [head, rule]
    for kind in kinds:
        counts = [cells[(kind, s)] for s in Style]
        rows.append(f"| {kind.value} | " + " | ".join(map(str, counts)) + f" | {sum(counts)} |")
    totals = [sum(cells[(k, s)] for k in kinds) for s in Style]
    rows.append("| **total** | " + " | ".join(map(str, totals)) + f" | {sum(totals)} |")
    return "\n".join(rows)


def answer_type_table(items: Sequence[Item]) -> str:
    """Markdown table of lookup/detail/search items per answer type (rows) and style (columns)."""
    cells = Counter((i.kind, i.answer_type, i.style) for i in items if i.answer_type)
    head = "| kind | answer type | " + " | ".join(s.value for s in Style) + " |"
    rows = [head, "|---|---|" + "---:|" * len(Style)]
    for kind in (QuestionKind.LOOKUP, QuestionKind.DETAIL, QuestionKind.SEARCH):
        for answer in AnswerType:
            counts = [cells[(kind, answer, s)] for s in Style]
            if any(counts):
                cols = " | ".join(map(str, counts))
                rows.append(f"| {kind.value} | {answer.value} | {cols} |")
    return "\n".join(rows)


def thin_cells(items: Sequence[Item], kinds: Iterable[str]) -> list[str]:
    """The kind x style cells of the given kinds with fewer items than required.

    For lookup and detail also every style x answer type cell that has no item.
    """
    cells = Counter((i.kind.value, i.style.value) for i in items)
    typed = Counter((i.kind.value, i.style.value, i.answer_type) for i in items)
    out = []
    for kind in kinds:
        need = MIN_CELL_COMMON if kind in COMMON_KINDS else MIN_CELL
        out += [
            f"{kind} x {s.value}: {cells[(kind, s.value)]} < {need}"
            for s in Style
            if cells[(kind, s.value)] < need
        ]
        if kind in ANSWER_TYPE_KINDS:
            out += [
                f"{kind} x {s.value} x {a.value}: none"
                for s in Style
                for a in AnswerType
                if not typed[(kind, s.value, a)]
            ]
    return out


def style_problems(items: Sequence[Item]) -> list[str]:
    """Items whose text breaks the form of its style, one message each.

    Search-box fragments have 2-6 words, lowercase questions no capitals or punctuation,
    title-style questions a quotation, zh/ja questions CJK characters. Printed by the build (a
    test holds papers.jsonl to it), not a schema rule, so older files still load.
    """
    out = []
    for item in items:
        q = item.question
        if item.style is Style.SEARCH and not 2 <= len(q.split()) <= 6:
            out.append(f"{item.id}: a search-box fragment has 2-6 words: {q!r}")
        if item.style is Style.LOWERCASE and (q != q.lower() or re.search(r"[?.!,;]", q)):
            out.append(f"{item.id}: lowercase questions have no capitals or punctuation: {q!r}")
        if item.style is Style.TITLE and not re.search(QUOTES, q):
            out.append(f"{item.id}: a title-style question quotes a title or phrase: {q!r}")
        if item.language in ("zh", "ja") and not re.search(r"[\u3040-\u30ff\u4e00-\u9fff]", q):
            out.append(f"{item.id}: a {item.language} question has no CJK characters: {q!r}")
    return out


def summary(items: Sequence[Item]) -> str:
    """A few lines on the corpus' make-up (answerable share, sample share, languages)."""
    n = len(items) or 1
    unanswerable = sum(not i.answerable for i in items)
    near = sum(not i.answerable and i.missing is not None for i in items)
    sample = sum(i.corpus is Corpus.SAMPLE for i in items)
    langs = Counter(i.language for i in items if i.language != "en")
    return (
        f"{len(items)} items; unanswerable {unanswerable} ({unanswerable / n:.0%}: "
        f"{unanswerable - near} off-topic, {near} near misses); over the sample {sample} "
        f"({sample / n:.0%}); other languages: "
        + ", ".join(f"{lang} {c}" for lang, c in langs.most_common())
    )


def write_jsonl(path: Path, items: Iterable[Item]) -> None:
    """Store items one per line, fields in schema order, non-ASCII kept."""
    # top_rating only where set, so files without rating items keep their shape
    dumps = [
        i.model_dump(mode="json", exclude={"top_rating"} if i.top_rating is None else None)
        for i in items
    ]
    lines = [json.dumps(d, ensure_ascii=False) for d in dumps]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def update_readme(path: Path, items: Sequence[Item]) -> None:
    """Replace the generated table (between the markers) in the README."""
    text = path.read_text(encoding="utf-8")
    if TABLE_START not in text or TABLE_END not in text:
        raise SystemExit(f"{path}: the table markers {TABLE_START} / {TABLE_END} are missing")
    head, rest = text.split(TABLE_START, 1)
    _, tail = rest.split(TABLE_END, 1)
    body = (
        f"{TABLE_START}\n{table(items)}\n\n{summary(items)}\n\n"
        f"Answer types (kind x answer type x style):\n\n{answer_type_table(items)}\n{TABLE_END}"
    )
    path.write_text(head + body + tail, encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Validate (and with --write, complete) the corpus files; print problems and counts."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path, help="default: papers + collection")
    parser.add_argument("--corpus", type=Path, default=None, help="iclr2026_accepted.jsonl")
    parser.add_argument("--seed", type=Path, default=SEED, help="the 19 sample abstracts")
    parser.add_argument("--write", action="store_true", help="store computed fields, README")
    args = parser.parse_args(argv)
    files = args.files or [f for f in FILES if f.exists()]
    corpus_path = args.corpus or default_corpus()
    papers = None
    if corpus_path.is_file():
        papers = Papers(read_corpus(corpus_path), read_seed(args.seed))
    else:
        print(f"{corpus_path} not found: schema checks only", file=sys.stderr)
    problems: list[str] = []
    everything: list[Item] = []
    ids: dict[str, str] = {}
    for path in files:
        items, found = load_items(path)
        problems += found
        if papers is not None:
            items = [compute(i, papers) for i in items]
            for item in items:
                problems += [f"{path.name} ({item.id}): {p}" for p in corpus_problems(item, papers)]
            if args.write and not found:
                write_jsonl(path, items)
        for warning in style_problems(items):
            print(f"{path.name}: style: {warning}", file=sys.stderr)
        for cell in thin_cells(items, FILE_KINDS.get(path.name, ())):
            print(f"{path.name}: thin cell {cell}", file=sys.stderr)
        seen: set[str] = set()
        for item in items:
            if item.question in seen:
                problems.append(f"{path.name} ({item.id}): question text twice in the file")
            seen.add(item.question)
            if item.id in ids and ids[item.id] != path.name:
                problems.append(f"{path.name} ({item.id}): id also used in {ids[item.id]}")
            ids[item.id] = path.name
        everything += items
    print(table(everything))
    print(summary(everything))
    print(answer_type_table(everything))
    if args.write and README.exists():
        update_readme(README, everything)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
