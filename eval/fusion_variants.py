"""Fusion variants compared by eval/fusion_lab.py: each maps cached signals to rankings."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Variant = Callable[[dict, np.ndarray], list[list[str]]]
VARIANTS: dict[str, Variant] = {}
CAND = 50


def variant(name: str) -> Callable[[Variant], Variant]:
    def deco(fn: Variant) -> Variant:
        VARIANTS[name] = fn
        return fn

    return deco


def _dense_all(data: dict) -> np.ndarray:
    """[items, papers] best chunk cosine per paper."""
    if "_dmax" not in data:
        sims = data["qv"] @ data["chunks"].T  # items x chunks
        data["_dmax"] = _per_paper_max(sims, data["owner"], len(data["ids"]))
    return data["_dmax"]


def _per_paper_max(sims: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """[rows, papers] the best of each paper's vectors (`owner` maps a vector to its paper)."""
    out = np.full((sims.shape[0], n), -1.0, dtype=np.float32)
    for i in range(sims.shape[0]):
        np.maximum.at(out[i], owner, sims[i])
    return out


def _centroids(vectors: np.ndarray, owner: np.ndarray, n: int) -> np.ndarray:
    """[papers, dim] the normalised mean of each paper's vectors."""
    cent = np.zeros((n, vectors.shape[1]), dtype=np.float32)
    np.add.at(cent, owner, vectors)
    return cent / np.clip(np.linalg.norm(cent, axis=1, keepdims=True), 1e-9, None)


def _rank(data: dict, scores: np.ndarray, k: int = 10) -> list[list[str]]:
    keys = data["keys"]
    return [[str(keys[j]) for j in np.argsort(-row, kind="stable")[:k]] for row in scores]


@variant("bm25")
def v_bm25(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, data["bm25"])


@variant("dense (max chunk)")
def v_dense(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, _dense_all(data))


@variant("textbook LlamaIndex baseline (dense, whole abstracts, no title)")
def v_textbook(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, _whole_sims(data))


def _candidates(row: np.ndarray, k: int = CAND) -> np.ndarray:
    return np.argsort(-row, kind="stable")[:k]


def convex_today(data: dict, w: float = 0.75, cand: int = CAND) -> np.ndarray:
    """Today's convex fusion: BM25 / its max + dense min-max over its own top candidates."""
    bm, de = data["bm25"], _dense_all(data)
    out = np.full(bm.shape, -np.inf, dtype=np.float32)
    for i in range(bm.shape[0]):
        bc = _candidates(bm[i], cand)
        bc = bc[bm[i, bc] > 0]
        dc = _candidates(de[i], cand)
        top = bm[i, bc].max() if len(bc) else 1.0
        lo, hi = de[i, dc].min(), de[i, dc].max()
        span = (hi - lo) or 1.0
        s = np.zeros(bm.shape[1], dtype=np.float32)
        s[bc] += w * bm[i, bc] / top
        s[dc] += (1 - w) * (de[i, dc] - lo) / span
        union = np.union1d(bc, dc)
        out[i, union] = s[union]
    return out


@variant("convex w=0.75 (today)")
def v_today(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, convex_today(data))


@variant("rrf k=60")
def v_rrf(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, de = data["bm25"], _dense_all(data)
    out = np.zeros(bm.shape, dtype=np.float32)
    for i in range(bm.shape[0]):
        for row in (bm[i], de[i]):
            c = _candidates(row)
            out[i, c] += 1.0 / (60 + np.arange(1, len(c) + 1))
    return _rank(data, out)


def _zs(row: np.ndarray, cand: np.ndarray) -> np.ndarray:
    """Standardise scores by the mean and spread of the candidates' scores."""
    vals = row[cand]
    mu, sd = vals.mean(), vals.std() or 1.0
    return (row - mu) / sd


def _centroid_sims(data: dict, qv: np.ndarray) -> np.ndarray:
    """[items, papers] cosine of the question to each paper's mean chunk vector."""
    if "_cent" not in data:
        data["_cent"] = _centroids(data["chunks"], data["owner"], len(data["ids"]))
    return qv @ data["_cent"].T


def _second(data: dict) -> np.ndarray:
    """[items, papers] second-best chunk cosine per paper (the best when only one chunk)."""
    if "_d2" not in data:
        sims = data["qv"] @ data["chunks"].T
        dmax = _dense_all(data)
        out = np.full(dmax.shape, -1.0, dtype=np.float32)
        for i in range(sims.shape[0]):
            s = sims[i].copy()
            s[s >= dmax[i][data["owner"]] - 1e-7] = -1.0  # drop each paper's best
            np.maximum.at(out[i], data["owner"], s)
        out = np.where(out < -0.5, dmax, out)
        data["_d2"] = out
    return data["_d2"]


def zfuse(bm: np.ndarray, de: np.ndarray, w: float, cand: int = CAND) -> np.ndarray:
    """Sum of z-scored BM25 and dense over the union of both candidate lists."""
    out = np.full(bm.shape, -np.inf, dtype=np.float32)
    for i in range(bm.shape[0]):
        bc, dc = _candidates(bm[i], cand), _candidates(de[i], cand)
        union = np.union1d(bc, dc)
        s = w * _zs(bm[i], bc) + (1 - w) * _zs(de[i], dc)
        out[i, union] = s[union]
    return out


def _metric(data: dict, scores: np.ndarray, mask: np.ndarray) -> float:
    """Tuning objective on the masked items: MRR + R@5 (mean)."""
    keys = data["keys"]
    tot = 0.0
    for row, gold, m in zip(scores, data["gold"], mask, strict=True):
        if not m:
            continue
        g = set(str(gold).split("|"))
        order = np.argsort(-row, kind="stable")[:10]
        ranked = [str(keys[j]) for j in order]
        rr = next((1 / r for r, k in enumerate(ranked, 1) if k in g), 0.0)
        r5 = len(g & set(ranked[:5])) / len(g)
        tot += rr + r5
    return tot / max(int(mask.sum()), 1)


def _tuned(data: dict, tune: np.ndarray, make: Callable[[float], np.ndarray]) -> np.ndarray:
    grid = np.linspace(0.0, 1.0, 21)
    best = max(grid, key=lambda w: _metric(data, make(w), tune))
    data.setdefault("_chosen", {})[make.__qualname__] = float(best)
    return make(best)


@variant("z-score sum, w tuned")
def v_z(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, de = data["bm25"], _dense_all(data)
    return _rank(data, _tuned(data, tune, lambda w: zfuse(bm, de, w)))


@variant("z-score, dense=max+centroid, w tuned")
def v_zcent(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm = data["bm25"]
    de = 0.5 * _dense_all(data) + 0.5 * _centroid_sims(data, data["qv"])
    return _rank(data, _tuned(data, tune, lambda w: zfuse(bm, de, w)))


@variant("z-score, dense=max+2nd, w tuned")
def v_z2(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm = data["bm25"]
    de = 0.5 * _dense_all(data) + 0.5 * _second(data)
    return _rank(data, _tuned(data, tune, lambda w: zfuse(bm, de, w)))


def _rocchio(data: dict, first: np.ndarray, k: int = 5, beta: float = 0.5) -> np.ndarray:
    """Dense pseudo-relevance feedback: move the question toward its top-k papers' centroids."""
    _centroid_sims(data, data["qv"][:1])
    out = np.zeros_like(data["qv"])
    for i in range(first.shape[0]):
        top = np.argsort(-first[i])[:k]
        q = data["qv"][i] + beta * data["_cent"][top].mean(axis=0)
        out[i] = q / np.linalg.norm(q)
    sims = out @ data["chunks"].T
    res = np.full(first.shape, -1.0, dtype=np.float32)
    for i in range(sims.shape[0]):
        np.maximum.at(res[i], data["owner"], sims[i])
    return res


@variant("z-score + dense PRF (top-5 of z fusion)")
def v_zprf(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, de = data["bm25"], _dense_all(data)
    first = zfuse(bm, de, 0.5)
    first = np.where(np.isfinite(first), first, -1e9)
    de2 = _rocchio(data, first)
    return _rank(data, _tuned(data, tune, lambda w: zfuse(bm, de2, w)))


def _ranks(row: np.ndarray) -> np.ndarray:
    r = np.empty(len(row), dtype=np.float32)
    r[np.argsort(-row, kind="stable")] = np.arange(1, len(row) + 1)
    return r


def cand_features(bm: np.ndarray, de: np.ndarray, prf: np.ndarray | None, cand: int = CAND):
    """Per item: candidate indices and their feature matrix."""
    out = []
    for i in range(bm.shape[0]):
        bc, dc = _candidates(bm[i], cand), _candidates(de[i], cand)
        union = np.union1d(bc, dc)
        zb, zd = _zs(bm[i], bc)[union], _zs(de[i], dc)[union]
        rb, rd = _ranks(bm[i])[union], _ranks(de[i])[union]
        cols = [zb, zd, 1 / rb, 1 / rd, np.maximum(zb, zd)]
        if prf is not None:
            cols.append(_zs(prf[i], _candidates(prf[i], cand))[union])
        out.append((union, np.stack(cols, axis=1)))
    return out


def fit_logistic(feats, gold_sets, keys, tune, l2: float = 1.0, steps: int = 3000):
    """Pointwise logistic regression (gold candidate vs the rest) on the tuning items."""
    xs, ys = [], []
    for (union, f), g, m in zip(feats, gold_sets, tune, strict=True):
        if not m:
            continue
        xs.append(f)
        ys.append(np.array([str(keys[j]) in g for j in union], dtype=np.float32))
    x, y = np.concatenate(xs), np.concatenate(ys)
    mu, sd = x.mean(0), x.std(0) + 1e-9
    x = (x - mu) / sd
    w, b = np.zeros(x.shape[1]), 0.0
    pos = max(y.sum(), 1.0)
    cw = np.where(y > 0, (len(y) - pos) / pos, 1.0)  # balance the few positives
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = cw * (p - y)
        w -= 0.1 * (x.T @ g / len(y) + l2 * w / len(y))
        b -= 0.1 * g.mean()
    return w / sd, b - (mu / sd) @ w


def _apply(feats, shape, w, b) -> np.ndarray:
    out = np.full(shape, -np.inf, dtype=np.float32)
    for i, (union, f) in enumerate(feats):
        out[i, union] = f @ w + b
    return out


@variant("rrf k tuned (1..60)")
def v_rrfk(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, de = data["bm25"], _dense_all(data)

    def make(kk: float) -> np.ndarray:
        k = 1 + 59 * kk
        out = np.zeros(bm.shape, dtype=np.float32)
        for i in range(bm.shape[0]):
            for row in (bm[i], de[i]):
                c = _candidates(row)
                out[i, c] += 1.0 / (k + np.arange(1, len(c) + 1))
        return out

    return _rank(data, _tuned(data, tune, make))


@variant("learned (logistic on z, 1/rank, max z; fit half)")
def v_lr(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, de = data["bm25"], _dense_all(data)
    feats = cand_features(bm, de, None)
    golds = [set(str(g).split("|")) for g in data["gold"]]
    w, b = fit_logistic(feats, golds, data["keys"], tune)
    data.setdefault("_chosen", {})["lr"] = (w.round(3).tolist(), round(float(b), 3))
    return _rank(data, _apply(feats, bm.shape, w, b))


@variant("learned + dense PRF feature (fit half)")
def v_lrprf(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, de = data["bm25"], _dense_all(data)
    first = zfuse(bm, de, 0.5)
    prf = _rocchio(data, np.where(np.isfinite(first), first, -1e9))
    feats = cand_features(bm, de, prf)
    golds = [set(str(g).split("|")) for g in data["gold"]]
    w, b = fit_logistic(feats, golds, data["keys"], tune)
    data.setdefault("_chosen", {})["lrprf"] = (w.round(3).tolist(), round(float(b), 3))
    return _rank(data, _apply(feats, bm.shape, w, b))


def product_candidates(data: dict, i: int, n: int = CAND, bm_key: str = "bm25", qv_key: str = "qv"):
    """The Candidates hybrid retrieval builds for item i: top-n of each list, union re-scored."""
    from rag.retrieval.fusion import Candidates

    bm, de = data[bm_key][i], _dense_for(data, qv_key)[i]
    bc = _candidates(bm, n)
    bc = bc[bm[bc] > 0]
    dc = _candidates(de, n)
    union = np.union1d(bc, dc)
    brank = _ranks(bm)
    drank = np.full(len(de), n + 1, dtype=np.float32)
    drank[dc] = np.arange(1, len(dc) + 1)
    return union, Candidates(
        ids=[str(j) for j in union],
        bm25=bm[union].astype(np.float64),
        dense=de[union].astype(np.float64),
        bm25_rank=np.where(bm[union] > 0, brank[union], len(bm)).astype(np.float64),
        dense_rank=drank[union].astype(np.float64),
        bm25_pool=bm[bc].astype(np.float64),
        dense_pool=de[dc].astype(np.float64),
    )


def _dense_for(data: dict, qv_key: str) -> np.ndarray:
    if qv_key == "qv":
        return _dense_all(data)
    cache = f"_dmax_{qv_key}"
    if cache not in data:
        sims = data[qv_key] @ data["chunks"].T
        out = np.full((sims.shape[0], len(data["ids"])), -1.0, dtype=np.float32)
        for i in range(sims.shape[0]):
            np.maximum.at(out[i], data["owner"], sims[i])
        data[cache] = out
    return data[cache]


def shipped_scores(data: dict, weights=None, bm_key: str = "bm25", qv_key: str = "qv"):
    from rag.retrieval.fusion import LEARNED_WEIGHTS, learned

    bm = data["bm25"]
    out = np.full(bm.shape, -np.inf, dtype=np.float32)
    for i in range(bm.shape[0]):
        union, c = product_candidates(data, i, bm_key=bm_key, qv_key=qv_key)
        s = learned(c, weights or LEARNED_WEIGHTS)
        out[i, union] = [s[str(j)] for j in union]
    return out


@variant("learned, shipped weights (rag.retrieval.fusion; pooled fit halves)")
def v_shipped(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, shipped_scores(data))


def fit_pooled(datasets: list[tuple[dict, np.ndarray]]) -> tuple[np.ndarray, float]:
    """Fit the learned combination on the tuning items of several datasets together."""
    from rag.retrieval.fusion import features

    feats, golds, keys, masks = [], [], [], []
    for data, tune in datasets:
        for i in range(data["bm25"].shape[0]):
            union, c = product_candidates(data, i)
            # keys by candidate position: rewrite union to global key strings
            feats.append((np.arange(len(union)), features(c)))
            golds.append(
                {
                    j
                    for j, pid in enumerate(union)
                    if str(data["keys"][pid]) in set(str(data["gold"][i]).split("|"))
                }
            )
            keys.append(None)
            masks.append(bool(tune[i]))
    xs, ys = [], []
    for (idx, f), g, m in zip(feats, golds, masks, strict=True):
        if m:
            xs.append(f)
            ys.append(np.array([j in g for j in idx], dtype=np.float32))
    x, y = np.concatenate(xs), np.concatenate(ys)
    mu, sd = x.mean(0), x.std(0) + 1e-9
    x = (x - mu) / sd
    w, b = np.zeros(x.shape[1]), 0.0
    pos = max(y.sum(), 1.0)
    cw = np.where(y > 0, (len(y) - pos) / pos, 1.0)
    for _ in range(3000):
        p = 1 / (1 + np.exp(-(x @ w + b)))
        g = cw * (p - y)
        w -= 0.1 * (x.T @ g / len(y) + w / len(y))
        b -= 0.1 * g.mean()
    return w / sd, b - (mu / sd) @ w


@variant("bm25 + PRF (RM3-like, top-5 docs, 15 terms)")
def v_bm25prf(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, data["bm25_prf"])


@variant("dense, question framing stripped")
def v_dstrip(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, _dense_for(data, "qv_strip"))


@variant("learned (shipped weights) on bm25+PRF")
def v_l_prf(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, shipped_scores(data, bm_key="bm25_prf"))


@variant("learned (shipped weights) on stripped dense")
def v_l_strip(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, shipped_scores(data, qv_key="qv_strip"))


# --- Session 15: signals beyond one BM25 and one dense score per paper ---------------------


def _whole_sims(data: dict) -> np.ndarray:
    """[items, papers] cosine of the question to each whole-abstract vector (textbook style)."""
    if "_whole" not in data:
        data["_whole"] = data["qv"] @ data["whole"].T
    return data["_whole"]


def zfuse3(
    bm: np.ndarray, de: np.ndarray, extra: np.ndarray | None, w: float, wx: float, cand: int = CAND
) -> np.ndarray:
    """z-score fusion plus a third signal, z-scored over its own top candidates."""
    out = np.full(bm.shape, -np.inf, dtype=np.float32)
    for i in range(bm.shape[0]):
        bc, dc = _candidates(bm[i], cand), _candidates(de[i], cand)
        union = np.union1d(bc, dc)
        s = w * _zs(bm[i], bc) + (1 - w) * _zs(de[i], dc)
        if extra is not None and wx:
            xc = _candidates(extra[i], cand)
            s = s + wx * np.maximum(_zs(extra[i], xc), 0.0)
        out[i, union] = s[union]
    return out


def _tuned2(data: dict, tune: np.ndarray, make, grid_a, grid_b, tag: str) -> np.ndarray:
    best = max(
        ((a, b) for a in grid_a for b in grid_b), key=lambda ab: _metric(data, make(*ab), tune)
    )
    data.setdefault("_chosen", {})[tag] = tuple(round(float(x), 3) for x in best)
    return make(*best)


W_GRID = np.linspace(0.2, 0.8, 13)


@variant("z + whole-abstract dense (mix a tuned)")
def v_zwhole(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, dmax, whole = data["bm25"], _dense_all(data), _whole_sims(data)

    def make(w: float, a: float) -> np.ndarray:
        return zfuse(bm, a * dmax + (1 - a) * whole, w)

    return _rank(data, _tuned2(data, tune, make, W_GRID, np.linspace(0, 1, 5), "zwhole (w, a)"))


@variant("z + title BM25 as own signal (tuned)")
def v_ztitle(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, de, tb = data["bm25"], _dense_all(data), data["title_bm25"]

    def make(w: float, wx: float) -> np.ndarray:
        return zfuse3(bm, de, tb, w, wx)

    grid = [0.0, 0.1, 0.2, 0.35, 0.5]
    return _rank(data, _tuned2(data, tune, make, W_GRID, grid, "ztitle (w, wt)"))


def _confidence(row: np.ndarray, cand: int = CAND) -> float:
    """How far a retriever's leader stands above its own top candidates (z of the top score)."""
    c = _candidates(row, cand)
    vals = row[c]
    return float((vals[0] - vals.mean()) / (vals.std() or 1.0))


def zfuse_qdep(bm: np.ndarray, de: np.ndarray, w0: float, slope: float) -> np.ndarray:
    """z fusion whose BM25 share grows with BM25's confidence over dense's (per question)."""
    out = np.full(bm.shape, -np.inf, dtype=np.float32)
    for i in range(bm.shape[0]):
        bc, dc = _candidates(bm[i], CAND), _candidates(de[i], CAND)
        gap = _confidence(bm[i]) - _confidence(de[i])
        w = 1 / (1 + np.exp(-(np.log(w0 / (1 - w0)) + slope * gap)))
        union = np.union1d(bc, dc)
        s = w * _zs(bm[i], bc) + (1 - w) * _zs(de[i], dc)
        out[i, union] = s[union]
    return out


@variant("z, query-dependent w (BM25 vs dense leader confidence; tuned)")
def v_zq(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, de = data["bm25"], _dense_all(data)

    def make(w0: float, slope: float) -> np.ndarray:
        return zfuse_qdep(bm, de, w0, slope)

    grid = [0.0, 0.25, 0.5, 1.0, 2.0]
    return _rank(data, _tuned2(data, tune, make, W_GRID, grid, "zq (w0, slope)"))


@variant("z + whole + title (w, a, wt from the single-signal tunings)")
def v_zall(data: dict, tune: np.ndarray) -> list[list[str]]:
    bm, dmax, whole, tb = data["bm25"], _dense_all(data), _whole_sims(data), data["title_bm25"]
    chosen = data.get("_chosen", {})
    w, a = chosen.get("zwhole (w, a)", (0.5, 1.0))
    _w, wt = chosen.get("ztitle (w, wt)", (0.5, 0.0))
    return _rank(data, zfuse3(bm, a * dmax + (1 - a) * whole, tb, w, wt))


# -- session 16: sentence vectors, clause (facet) queries, title and keyword vectors -------------
# Signals from `fusion_lab.py --extra` (cached beside the main cache): every abstract sentence
# embedded alone, the question split into clauses embedded one by one, and the title and the
# keyword list each embedded as one short text.


def _sentence_max(data: dict) -> np.ndarray:
    """[items, papers] best single-sentence cosine per paper."""
    if "_smax" not in data:
        sims = data["qv"] @ data["sent_v"].T
        data["_smax"] = _per_paper_max(sims, data["sent_owner"], len(data["ids"]))
    return data["_smax"]


def _sentence_centroid(data: dict) -> np.ndarray:
    """[items, papers] cosine to the normalised mean of a paper's sentence vectors."""
    return data["qv"] @ _centroids(data["sent_v"], data["sent_owner"], len(data["ids"])).T


def _facet_mean(data: dict) -> np.ndarray:
    """[items, papers] mean over the question's clauses of each clause's best window cosine."""
    best = _per_paper_max(data["facet_v"] @ data["chunks"].T, data["owner"], len(data["ids"]))
    out = np.zeros((len(data["questions"]), best.shape[1]), dtype=np.float32)
    for i in range(out.shape[0]):
        out[i] = best[data["facet_owner"] == i].mean(axis=0)
    return out


@variant("dense: best single sentence (sentence vectors)")
def v_smax(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, _sentence_max(data))


@variant("dense: centroid of sentence vectors")
def v_scent(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, _sentence_centroid(data))


@variant("dense: mean over question clauses (facets)")
def v_facet(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, _facet_mean(data))


@variant("dense: title vector")
def v_title_vec(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, data["qv"] @ data["title_v"].T)


@variant("dense: keyword-list vector")
def v_kw_vec(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _rank(data, data["qv"] @ data["kw_v"].T)


def _z_mix(data: dict, tune: np.ndarray, other: np.ndarray, tag: str) -> list[list[str]]:
    """z fusion of BM25 with window dense mixed with another dense signal; w and mix tuned."""
    bm, dmax = data["bm25"], _dense_all(data)

    def make(w: float, a: float) -> np.ndarray:
        return zfuse(bm, (1 - a) * dmax + a * other, w)

    return _rank(data, _tuned2(data, tune, make, W_GRID, np.linspace(0, 1, 5), tag))


@variant("z + window/sentence-max mix (w, a tuned)")
def v_z_smax(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _z_mix(data, tune, _sentence_max(data), "z smax (w, a)")


@variant("z + window/facet mix (w, a tuned)")
def v_z_facet(data: dict, tune: np.ndarray) -> list[list[str]]:
    return _z_mix(data, tune, _facet_mean(data), "z facet (w, a)")


@variant("z + window/title+keyword vectors mix (w, a tuned)")
def v_z_tk(data: dict, tune: np.ndarray) -> list[list[str]]:
    tk = 0.5 * (data["qv"] @ data["title_v"].T + data["qv"] @ data["kw_v"].T)
    return _z_mix(data, tune, tk, "z title+kw (w, a)")
