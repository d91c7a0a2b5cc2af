"""Fusion lab: score every paper once per question, then compare fusion variants in numpy.

Caches, per dataset item, BM25 over every paper and the cosine of the question to every stored
chunk vector, so a variant costs milliseconds instead of a full evaluation run. Items are split
into a fitting half and a held-out half by a hash of their id (Item.split, the project's one
split); weights and thresholds are chosen on `fit` only; the table reports both halves and all.

    python eval/fusion_lab.py --data-dir /work/idx           # prints a markdown table
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval import metrics as M  # noqa: E402
from eval.datasets import resolve, split_of  # noqa: E402
from rag.models import content_key  # noqa: E402
from rag.retrieval.hybrid import KeywordIndex  # noqa: E402
from rag.settings import Settings  # noqa: E402
from rag.store.embeddings import make_embedder  # noqa: E402
from rag.store.index import PaperIndex  # noqa: E402
from rag.store.loaders import load_paths  # noqa: E402


def features(name: str, data_dir: Path, cache: Path) -> dict:
    """Per-item signals over all papers (cached in an .npz)."""
    if cache.is_file():
        return dict(np.load(cache, allow_pickle=True))
    ds = resolve(name)
    settings = Settings(_env_file=None, data_dir=data_dir / f"eval-{name}")  # type: ignore[call-arg]
    embedder = make_embedder(settings)
    index = PaperIndex(settings, embedder)
    if not index.catalog():
        index.ingest(load_paths(ds.corpus).papers)
    keywords = KeywordIndex(index)
    catalog = index.catalog()
    ids = list(keywords.bm25().ids)
    pos = {pid: i for i, pid in enumerate(ids)}
    keys = [content_key(catalog[pid].abstract) for pid in ids]
    owner, vecs = [], []
    batch = 400
    for lo in range(0, len(ids), batch):
        got = index.chunk_vectors(ids[lo : lo + batch])
        for pid, rows in got.items():
            for _s, _e, v in rows:
                owner.append(pos[pid])
                vecs.append(np.asarray(v, dtype=np.float32))
    chunk_mat = np.stack(vecs)
    items = [it for it in ds.items if it.answerable and not it.turns]
    bm25 = np.stack([keywords.bm25().scores(it.question) for it in items]).astype(np.float32)
    qv = np.stack([embedder.embed_query(it.question) for it in items])
    out = {
        "ids": np.array(ids),
        "keys": np.array(keys),
        "titles": np.array([catalog[pid].title for pid in ids]),
        "owner": np.array(owner),
        "chunks": chunk_mat,
        "item_ids": np.array([it.id for it in items]),
        "questions": np.array([it.question for it in items]),
        "gold": np.array(["|".join(it.gold_keys) for it in items]),
        "group": np.array([it.group for it in items]),
        "bm25": bm25,
        "qv": qv,
    }
    out["whole"] = whole_vectors(embedder, [catalog[pid] for pid in ids])
    np.savez(cache, **out)
    return out


def whole_vectors(embedder, papers) -> np.ndarray:
    """Vectors of the whole abstracts (truncated by the model), as the textbook baseline embeds."""
    return embedder.embed([p.abstract for p in papers])


# Question clauses: split at punctuation and at words that start a new clause, so "Which
# method …, so geometry stays smooth …, and adds a metric …" gives one text per facet.
_CLAUSE = re.compile(
    r"\s*(?:[,;:()?]|\b(?:but|while|whereas|instead of|rather than|so that|so|which|that|with|"
    r"by|where|e\.g\.|i\.e\.)\b)\s*",
    re.IGNORECASE,
)


def clauses(question: str, min_words: int = 4) -> list[str]:
    """The question cut into clauses of at least `min_words` words (short ones join the last)."""
    out: list[str] = []
    for part in (p.strip() for p in _CLAUSE.split(question)):
        if not part:
            continue
        if out and len(part.split()) < min_words:
            out[-1] += " " + part
        else:
            out.append(part)
    return out or [question]


def extra_signals(name: str, data: dict, data_dir: Path, cache_dir: Path) -> dict:
    """Sentence, clause, title and keyword-list vectors (cached; session 16's variants)."""
    cache = cache_dir / f"fusion-{name}-extra.npz"
    if cache.is_file():
        return dict(np.load(cache, allow_pickle=True))
    from rag.store.chunking import split_sentences

    settings = Settings(_env_file=None, data_dir=data_dir / f"eval-{name}")  # type: ignore[call-arg]
    embedder = make_embedder(settings, cache=False)
    catalog = PaperIndex(settings, embedder).catalog()
    papers = [catalog[str(pid)] for pid in data["ids"]]
    sents, owner = [], []
    for i, p in enumerate(papers):
        for s in split_sentences(p.abstract):
            sents.append(s)
            owner.append(i)
    facets, facet_owner = [], []
    for i, q in enumerate(data["questions"]):
        for c in clauses(str(q)):
            facets.append(c)
            facet_owner.append(i)
    out = {
        "sent_v": embedder.embed(sents),
        "sent_owner": np.array(owner),
        "facet_v": embedder.embed(facets),
        "facet_owner": np.array(facet_owner),
        "title_v": embedder.embed([p.title for p in papers]),
        "kw_v": embedder.embed([", ".join(p.keywords) or p.title for p in papers]),
    }
    np.savez(cache, **out)
    return out


def title_bm25(data: dict) -> np.ndarray:
    """[items, papers] BM25 of each question over the paper titles alone."""
    import bm25s

    from rag.text import bm25_tokens

    model = bm25s.BM25()
    model.index(bm25_tokens([str(t) for t in data["titles"]]), show_progress=False)
    vocab = model.vocab_dict
    rows = []
    for q in data["questions"]:
        known = [t for t in bm25_tokens([str(q)], ids=False)[0] if t in vocab]
        rows.append(model.get_scores(known) if known else np.zeros(len(data["ids"])))
    return np.stack(rows).astype(np.float32)


def per_paper_max(sims: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """Best chunk similarity of each paper (-1 for papers without chunks)."""
    best = np.full(n, -1.0, dtype=np.float32)
    np.maximum.at(best, owner, sims)
    return best


def evaluate(rankings: list[list[str]], data: dict, mask: np.ndarray) -> dict[str, float]:
    """R@1/5/10 and MRR over the masked items."""
    r1, r5, r10, rr = [], [], [], []
    for ranked, gold, m in zip(rankings, data["gold"], mask, strict=True):
        if not m:
            continue
        g = str(gold).split("|")
        r1.append(M.recall_at(ranked, g, 1))
        r5.append(M.recall_at(ranked, g, 5))
        r10.append(M.recall_at(ranked, g, 10))
        rr.append(M.reciprocal_rank(ranked, g))
    f = lambda xs: float(np.mean(xs)) if xs else float("nan")  # noqa: E731
    return {"n": len(r1), "R@1": f(r1), "R@5": f(r5), "R@10": f(r10), "MRR": f(rr)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", type=Path, default=Path(".paperchat"))
    ap.add_argument("--dataset", action="append", default=None)
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp"))
    ap.add_argument(
        "--fit", action="store_true", help="fit rag.retrieval.fusion's weights (fit halves)"
    )
    ap.add_argument(
        "--extra",
        action="store_true",
        help="also embed every sentence, each question clause, titles and keyword lists "
        "(cached in fusion-DATASET-extra.npz; the sentences take minutes)",
    )
    args = ap.parse_args(argv)
    names = args.dataset or ["scale", "golden"]
    loaded = {n: features(n, args.data_dir, args.cache_dir / f"fusion-{n}.npz") for n in names}
    for n, data in loaded.items():
        data["title_bm25"] = title_bm25(data)
        if "whole" not in data:  # a cache written before whole-abstract vectors were kept
            settings = Settings(_env_file=None, data_dir=args.data_dir / f"eval-{n}")  # type: ignore[call-arg]
            embedder = make_embedder(settings)
            catalog = PaperIndex(settings, embedder).catalog()
            data["whole"] = whole_vectors(embedder, [catalog[str(pid)] for pid in data["ids"]])
            np.savez(
                args.cache_dir / f"fusion-{n}.npz",
                **{k: v for k, v in data.items() if not k.startswith("_") and k != "title_bm25"},
            )
    if args.extra:
        for n, data in loaded.items():
            data.update(extra_signals(n, data, args.data_dir, args.cache_dir))
    if args.fit:
        from eval.fusion_variants import fit_pooled

        pairs = [
            (d, np.array([split_of(str(i)) == "fit" for i in d["item_ids"]]))
            for d in loaded.values()
        ]
        w, b = fit_pooled(pairs)
        print("LEARNED_WEIGHTS =", tuple(round(float(x), 3) for x in w), "bias", round(b, 3))
        return 0
    for name, data in loaded.items():
        report(name, data)
    return 0


def report(name: str, data: dict) -> None:
    from eval.fusion_variants import VARIANTS

    splits = np.array([split_of(str(i)) for i in data["item_ids"]])
    para = np.array(["paraphrase" in str(g) for g in data["group"]])
    masks = {
        "held-out": splits == "heldout",
        "held-out para": (splits == "heldout") & para,
        "fit": splits == "fit",
        "all": np.ones(len(splits), dtype=bool),
        "all para": para,
    }
    print(f"\n### {name}: " + ", ".join(f"{k} n={int(m.sum())}" for k, m in masks.items()))
    head = "| variant | " + " | ".join(f"{k} R@1 / R@5 / MRR" for k in masks) + " |"
    print(head)
    print("|" + "---|" * (len(masks) + 1))
    for vname, fn in VARIANTS.items():
        try:
            rankings = fn(data, splits == "fit")
        except KeyError as exc:  # a signal this cache lacks (e.g. PRF runs of an old session)
            print(f"| {vname} | (skipped: no {exc} in the cache) |")
            continue
        cells = []
        for m in masks.values():
            r = evaluate(rankings, data, m)
            cells.append(f"{r['R@1']:.3f} / {r['R@5']:.3f} / {r['MRR']:.3f}")
        print(f"| {vname} | " + " | ".join(cells) + " |")
    print("chosen on the fit half:", data.get("_chosen"))


if __name__ == "__main__":
    raise SystemExit(main())
