"""Validate the evaluation datasets eval/golden.jsonl and eval/scale.jsonl.

Checks, per file: every line is a JSON object with the required fields, ids are unique, types
are known, conversation items carry their turns, every gold key is the content key of a paper in
the corresponding corpus (golden: the seed abstracts; scale: the accepted-papers JSONL plus the
seed abstracts), answerable items have facts, and every fact occurs (case-insensitive,
whitespace-normalised) in at least one of the item's gold abstracts. The optional `style` field,
when present, must be one of STYLES (absent means the default, abstract-worded style).

Usage:
    python eval/check_datasets.py [--golden PATH] [--scale PATH] [--seed PATH] [--corpus PATH]

Exit status is 0 when no problem is found, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from rag.models import content_key, normalize_text  # noqa: E402

TYPES = ("lookup", "detail", "multi", "conversation", "unanswerable")
REQUIRED = ("id", "type", "question", "gold_keys", "facts", "turns")
MIN_PER_AREA = 4
STYLES = ("paraphrase",)  # optional `style` field; absent = verbatim-ish (the default)

DEFAULT_GOLDEN = REPO / "eval" / "golden.jsonl"
DEFAULT_SCALE = REPO / "eval" / "scale.jsonl"
DEFAULT_SEED = REPO / "data" / "iclr2026_seed_abstracts.txt"
DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "iclr2026_accepted.jsonl"


@dataclass
class CorpusPaper:
    key: str
    abstract: str
    primary_area: str = ""


@dataclass
class Report:
    name: str
    problems: list[str] = field(default_factory=list)
    types: Counter = field(default_factory=Counter)
    areas: Counter = field(default_factory=Counter)
    styles: Counter = field(default_factory=Counter)
    items: int = 0

    def add(self, where: str, message: str) -> None:
        self.problems.append(f"{self.name}:{where}: {message}")


def _norm(text: str) -> str:
    return normalize_text(text).lower()


def read_seed(path: Path) -> dict[str, CorpusPaper]:
    """Abstracts separated by blank lines; a short single-line first block is a heading."""
    blocks = [b.strip() for b in path.read_text(encoding="utf-8").split("\n\n") if b.strip()]
    if blocks and "\n" not in blocks[0] and len(blocks[0]) < 200:
        blocks = blocks[1:]
    return {content_key(b): CorpusPaper(content_key(b), b) for b in blocks}


def read_corpus(path: Path) -> dict[str, CorpusPaper]:
    papers: dict[str, CorpusPaper] = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            rec = json.loads(line)
            key = content_key(rec["abstract"])
            papers[key] = CorpusPaper(key, rec["abstract"], rec.get("primary_area") or "")
    return papers


def check_file(
    path: Path,
    corpus: dict[str, CorpusPaper] | None,
    *,
    with_area: bool,
    areas: set[str] | None = None,
) -> Report:
    """Validate one dataset file; corpus None skips the gold-key and fact checks."""
    report = Report(path.name)
    seen: set[str] = set()
    with path.open(encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    for n, line in enumerate(lines, 1):
        where = f"{n}"
        if not line.strip():
            report.add(where, "blank line")
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            report.add(where, f"invalid JSON: {exc}")
            continue
        if not isinstance(item, dict):
            report.add(where, "not a JSON object")
            continue
        report.items += 1
        missing = [f for f in REQUIRED + (("area",) if with_area else ()) if f not in item]
        if missing:
            report.add(where, f"missing fields {missing}")
            continue
        where = f"{n} ({item['id']})"
        _check_item(item, where, report, seen, corpus, with_area, areas)
    if with_area and areas:
        for area in sorted(areas):
            if report.areas[area] < MIN_PER_AREA:
                report.add("areas", f"only {report.areas[area]} items for area {area!r}")
    return report


def _check_item(
    item: dict,
    where: str,
    report: Report,
    seen: set[str],
    corpus: dict[str, CorpusPaper] | None,
    with_area: bool,
    areas: set[str] | None,
) -> None:
    iid, typ, question = item["id"], item["type"], item["question"]
    gold, facts, turns = item["gold_keys"], item["facts"], item["turns"]
    if not isinstance(iid, str) or not iid:
        report.add(where, "id must be a non-empty string")
    elif iid in seen:
        report.add(where, "duplicate id")
    seen.add(iid)
    if typ not in TYPES:
        report.add(where, f"unknown type {typ!r}")
    report.types[typ] += 1
    if not isinstance(question, str) or not question.strip():
        report.add(where, "question must be a non-empty string")
    if "style" in item:
        style = item["style"]
        if style not in STYLES:
            allowed = ", ".join(STYLES)
            report.add(where, f"unknown style {style!r} (allowed: {allowed}; omit for default)")
        else:
            report.styles[style] += 1
    if not isinstance(gold, list) or not all(isinstance(k, str) for k in gold):
        report.add(where, "gold_keys must be a list of strings")
        return
    if not isinstance(facts, list) or not all(isinstance(f, str) and f.strip() for f in facts):
        report.add(where, "facts must be a list of non-empty strings")
        return
    if len(set(gold)) != len(gold):
        report.add(where, "duplicate gold key")

    if typ == "conversation":
        if (
            not isinstance(turns, list)
            or len(turns) < 2
            or not all(isinstance(t, str) and t.strip() for t in turns)
        ):
            report.add(where, "conversation needs turns: a list of at least 2 strings")
        elif turns[-1] != question:
            report.add(where, "question must equal the last turn")
    elif turns is not None:
        report.add(where, "turns must be null for non-conversation items")

    if typ == "unanswerable":
        if gold or facts:
            report.add(where, "unanswerable items need empty gold_keys and facts")
    else:
        if not gold:
            report.add(where, "answerable item without gold_keys")
        if not facts:
            report.add(where, "answerable item without facts")
        if typ == "multi" and len(gold) < 2:
            report.add(where, "multi item needs at least 2 gold keys")
        if typ == "lookup" and len(gold) != 1:
            report.add(where, "lookup item needs exactly 1 gold key")

    if with_area:
        area = item["area"]
        if typ == "unanswerable":
            if area not in (None, ""):
                report.add(where, "unanswerable items carry area null")
        else:
            if areas is not None and area not in areas:
                report.add(where, f"unknown area {area!r}")
            report.areas[area] += 1

    if corpus is None:
        return
    abstracts = []
    for key in gold:
        paper = corpus.get(key)
        if paper is None:
            report.add(where, f"gold key {key} not in corpus")
        else:
            abstracts.append(_norm(paper.abstract))
    if with_area and gold and gold[0] in corpus and typ != "unanswerable":
        expected = corpus[gold[0]].primary_area
        if expected and item["area"] != expected:
            report.add(where, f"area {item['area']!r} differs from gold paper's {expected!r}")
    if abstracts:
        for fact in facts:
            if not any(_norm(fact) in a for a in abstracts):
                report.add(where, f"fact not found in any gold abstract: {fact!r}")


def _summary(report: Report) -> str:
    types = ", ".join(f"{t}={report.types[t]}" for t in TYPES if report.types[t])
    styles = "".join(f", style {s}={n}" for s, n in sorted(report.styles.items()))
    return f"{report.name}: {report.items} items ({types}{styles})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden", type=Path, default=DEFAULT_GOLDEN)
    parser.add_argument("--scale", type=Path, default=DEFAULT_SCALE)
    parser.add_argument("--seed", type=Path, default=DEFAULT_SEED)
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--areas", action="store_true", help="print item counts per area")
    args = parser.parse_args(argv)

    seed = read_seed(args.seed)
    reports = [check_file(args.golden, seed, with_area=False)]

    if args.corpus.exists():
        corpus = read_corpus(args.corpus)
        for key, paper in seed.items():
            corpus.setdefault(key, paper)
        areas = {p.primary_area for p in corpus.values() if p.primary_area}
        reports.append(check_file(args.scale, corpus, with_area=True, areas=areas))
    else:
        print(f"note: {args.corpus} not found; scale gold keys and facts not checked")
        reports.append(check_file(args.scale, None, with_area=True))

    problems = [p for r in reports for p in r.problems]
    for r in reports:
        print(_summary(r))
        if args.areas and r.areas:
            for area, count in sorted(r.areas.items(), key=lambda kv: str(kv[0])):
                print(f"  {count:3d}  {area}")
    for p in problems:
        print(p)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
