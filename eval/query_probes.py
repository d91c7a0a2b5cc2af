"""Query-side retrieval probes on the product retriever: acronym expansion and question bigrams.

Each probe changes only the question side (what is embedded or how the top 50 are re-ranked),
so it runs on an existing index in a minute, without the fusion lab's caches:

    python eval/query_probes.py --data-dir /work/idx [--dataset scale]

- **acronyms**: corpus-defined acronyms in the question written out as the abstracts define
  them ("LLMs" -> "large language models (LLMs)"), in the dense query only and in both queries.
- **bigrams**: the hybrid top 50 re-ranked by score + lam * (IDF-weighted adjacent question
  stem pairs the paper also writes adjacently) / the candidates' maximum; lam is chosen on the
  `fit` half, every lam is printed.

Prints R@1 / R@5 / MRR per split, and on paraphrase items, for single-turn answerable items.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval.datasets import Item, resolve, split_of  # noqa: E402
from eval.runner import open_pipeline  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.store.catalog import Catalog  # noqa: E402

LAMBDAS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5)
_ACRONYM = re.compile(r"\b[A-Z][A-Za-z]*[A-Z]s?\b")


def expander(cat: Catalog) -> Callable[[str], str]:
    """Write each acronym the corpus defines unambiguously out, the acronym kept in brackets."""
    spelled = {
        key.split("|", 1)[0]: text.lower()
        for key, text in cat.acronym_text.items()
        if tuple(key.split("|", 1)[1].split("_")) == cat.acronyms.get(key.split("|", 1)[0])
    }

    def one(m: re.Match[str]) -> str:
        stems = cat.terms(m.group(0))
        text = spelled.get(stems[0]) if stems else None
        return f"{text} ({m.group(0)})" if text else m.group(0)

    return lambda q: _ACRONYM.sub(one, q)


def score(ranked: Sequence[Sequence[str]], items: Sequence[Item]) -> str:
    """R@1 / R@5 / MRR of ranked content keys against the items' gold keys."""
    r1 = r5 = mrr = 0.0
    for keys, it in zip(ranked, items, strict=True):
        rank = next((i for i, k in enumerate(keys, 1) if k in it.gold_keys), None)
        r1 += rank == 1
        r5 += bool(rank and rank <= 5)
        mrr += 1 / rank if rank else 0.0
    n = max(len(items), 1)
    return f"{r1 / n:.3f} / {r5 / n:.3f} / {mrr / n:.3f}"


def table(name: str, rows: dict[str, list[list[str]]], items: list[Item]) -> None:
    """One markdown table: each variant on held-out, held-out paraphrase and fit items."""
    cols = {
        "held-out": lambda it: split_of(it.id) == "heldout",
        "held-out paraphrase": lambda it: split_of(it.id) == "heldout" and it.style == "paraphrase",
        "fit": lambda it: split_of(it.id) == "fit",
    }
    counts = {c: sum(map(f, items)) for c, f in cols.items()}
    print(f"\n{name}: R@1 / R@5 / MRR\n")
    print("| variant | " + " | ".join(f"{c} (n={counts[c]})" for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for variant, ranked in rows.items():
        cells = []
        for f in cols.values():
            pick = [i for i, it in enumerate(items) if f(it)]
            cells.append(score([ranked[i] for i in pick], [items[i] for i in pick]))
        print(f"| {variant} | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--data-dir", default=".paperchat", help="index base directory")
    p.add_argument("--dataset", action="append", help="golden and/or scale (default both)")
    args = p.parse_args(argv)
    settings = Settings(_env_file=None, data_dir=Path(args.data_dir))  # type: ignore[call-arg]
    for name in args.dataset or ["golden", "scale"]:
        ds = resolve(name, None)
        pipe = open_pipeline(settings, ds).pipeline
        cat = pipe.catalog_view()
        items = [it for it in ds.items if it.answerable and not it.turns]
        search = pipe.retriever.search
        rows: dict[str, list[list[str]]] = {}
        for mode in ("dense", "hybrid"):
            rows[f"{mode} (shipped)"] = [
                [h.paper.key for h in search(it.question, k=10, mode=mode)] for it in items
            ]
        expand = expander(cat)
        embedder = pipe.retriever.embedder
        plain = embedder.embed_query
        try:
            # The dense query alone written out: BM25 keeps the question's own words.
            embedder.embed_query = lambda q, e=expand, f=plain: f(e(q))  # type: ignore[method-assign]
            for mode in ("dense", "hybrid"):
                rows[f"{mode}, acronyms written out (dense query)"] = [
                    [h.paper.key for h in search(it.question, k=10, mode=mode)] for it in items
                ]
        finally:
            embedder.embed_query = plain  # type: ignore[method-assign]
        rows["hybrid, acronyms written out (both queries)"] = [
            [h.paper.key for h in search(expand(it.question), k=10)] for it in items
        ]
        rows.update(bigram_rows(pipe, cat, items))
        table(name, rows, items)
    return 0


def bigram_rows(pipe, cat: Catalog, items: list[Item]) -> dict[str, list[list[str]]]:
    """The hybrid top 50 re-ranked with question-bigram matches, one row per lambda."""
    pairs: list[set[tuple[str, str]]] = []
    df: Counter[tuple[str, str]] = Counter()
    for i in range(len(cat)):
        units = [cat.title_terms[i], *cat.keyword_terms[i], *cat.sentence_terms[i]]
        got = {pair for u in units for pair in zip(u, u[1:], strict=False)}
        pairs.append(got)
        df.update(got)
    pos = {pid: i for i, pid in enumerate(cat.ids)}
    n = len(cat)
    cands = []
    for it in items:
        terms = cat.terms(it.question)
        wanted = set(zip(terms, terms[1:], strict=False))
        hits = pipe.retriever.search(it.question, k=50)
        cands.append(
            [
                (
                    h.paper.key,
                    h.score,
                    sum(math.log(1 + n / df[b]) for b in wanted if b in pairs[pos[h.paper.id]]),
                )
                for h in hits
            ]
        )
    rows = {}
    for lam in LAMBDAS[1:]:
        ranked = []
        for cand in cands:
            top = max((c[2] for c in cand), default=0.0) or 1.0
            ranked.append([c[0] for c in sorted(cand, key=lambda c: -(c[1] + lam * c[2] / top))])
        rows[f"hybrid + question bigrams, lam {lam}"] = [r[:10] for r in ranked]
    return rows


if __name__ == "__main__":
    raise SystemExit(main())
