"""Evaluation metrics as pure functions: retrieval, answers, citations, refusals, cost.

Every function takes plain values (keys, texts, Answer objects, callables) and returns a number,
or None when the metric is undefined for the item (e.g. citation precision of an answer that
cites nothing); aggregates average only the defined values and report how many there were.
The definitions are written out in eval/README.md.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from rag.models import Answer, normalize_text
from rag.store.markup import readable

# -- retrieval ---------------------------------------------------------------------------------


def _dedupe(keys: Iterable[str]) -> list[str]:
    """Paper keys in first-seen order: several chunks of one paper count as one paper."""
    return list(dict.fromkeys(keys))


def recall_at(ranked: Sequence[str], gold: Collection[str], k: int) -> float | None:
    """Share of the gold papers found in the first k distinct papers; None without gold."""
    if not gold:
        return None
    top = set(_dedupe(ranked)[:k])
    return sum(1 for g in set(gold) if g in top) / len(set(gold))


def reciprocal_rank(ranked: Sequence[str], gold: Collection[str]) -> float | None:
    """1 / rank of the first gold paper in the list (0 when none is listed); None without gold."""
    if not gold:
        return None
    for rank, key in enumerate(_dedupe(ranked), start=1):
        if key in gold:
            return 1.0 / rank
    return 0.0


def ndcg_at(ranked: Sequence[str], gold: Collection[str], k: int = 10) -> float | None:
    """Binary-relevance nDCG@k: DCG of the list over DCG of an ideal list; None without gold."""
    if not gold:
        return None
    golds = set(gold)
    dcg = sum(
        1.0 / math.log2(rank + 1)
        for rank, key in enumerate(_dedupe(ranked)[:k], start=1)
        if key in golds
    )
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(golds), k) + 1))
    return dcg / ideal


def retrieval_metrics(ranked: Sequence[str], gold: Collection[str]) -> dict[str, float | None]:
    """recall@1/5/10, MRR and nDCG@10 of one ranked list of paper keys."""
    return {
        "recall@1": recall_at(ranked, gold, 1),
        "recall@5": recall_at(ranked, gold, 5),
        "recall@10": recall_at(ranked, gold, 10),
        "mrr": reciprocal_rank(ranked, gold),
        "ndcg@10": ndcg_at(ranked, gold, 10),
    }


# -- fact recall -------------------------------------------------------------------------------

# Function words only: a fact's content tokens are everything else, numbers included.
FACT_STOPWORDS = frozenset(
    "a an and are as at be by for from in into is it its of on or than that the their this to"
    " was were with".split()
)
FACT_TOKEN_SHARE = 0.8
_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def normalize_for_match(text: str) -> str:
    """NFKC, lower-case, every run of non-alphanumeric characters becomes one space."""
    folded = unicodedata.normalize("NFKC", text).lower()
    # Strip accents so "Schrödinger" and "Schrodinger" meet; NFKD splits the marks off.
    decomposed = unicodedata.normalize("NFKD", folded)
    folded = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _NON_ALNUM.sub(" ", folded).strip()


def fact_found(fact: str, answer_text: str) -> bool:
    """A fact is stated when its normalised form occurs as whole words, or ≥80% of its tokens do.

    The fact is read as answers show the abstract's markup ("$\\alpha$" as "α", "10\\%" as
    "10%"): a label copies the abstract's source text, an answer renders it."""
    fact_norm = normalize_for_match(readable(fact))
    text_norm = normalize_for_match(answer_text)
    if not fact_norm:
        return False
    # Padding with spaces makes the substring test respect word boundaries ("5" is not in "15").
    if f" {fact_norm} " in f" {text_norm} ":
        return True
    tokens = [t for t in fact_norm.split() if t not in FACT_STOPWORDS] or fact_norm.split()
    present = set(text_norm.split())
    found = sum(1 for t in tokens if t in present)
    return found >= math.ceil(FACT_TOKEN_SHARE * len(tokens) - 1e-9)


def fact_recall(facts: Sequence[str], answer_text: str, refused: bool) -> float | None:
    """Share of the facts the answer states; 0 for a refusal; None when there are no facts."""
    if not facts:
        return None
    if refused:
        # A refusal names the nearest papers, whose titles could match facts by accident.
        return 0.0
    return sum(1 for f in facts if fact_found(f, answer_text)) / len(facts)


# -- citations ---------------------------------------------------------------------------------


def cited_keys(answer: Answer, key_of: Mapping[str, str]) -> list[str]:
    """Keys of the papers the answer cites, in citation order, each once."""
    return _dedupe(key_of.get(c.paper_id, c.paper_id) for c in answer.citations)


def citation_precision(cited: Sequence[str], gold: Collection[str]) -> float | None:
    """Share of cited papers that are gold papers; None when nothing is cited."""
    papers = _dedupe(cited)
    if not papers:
        return None
    return sum(1 for k in papers if k in gold) / len(papers)


def citation_recall(cited: Sequence[str], gold: Collection[str]) -> float | None:
    """Share of gold papers that the answer cites; None without gold."""
    if not gold:
        return None
    papers = set(cited)
    return sum(1 for g in set(gold) if g in papers) / len(set(gold))


_MARKER = re.compile(r"\s*\[\s*\d+(?:\s*[,;]\s*\d+)*\s*\]")
_MARKUP = re.compile(r"^[\s*\-•]+|\*\*")


def claim_text(sentence: str) -> str:
    """An answer sentence without its [n] markers and list/bold markup: what it asserts."""
    return _MARKUP.sub("", _MARKER.sub("", sentence)).strip()


_ELLIPSIS = re.compile(r"\s*(?:…|\.\.\.)\s*")


def quote_is_verbatim(quote: str, abstract: str) -> bool:
    """Whether a quote occurs in the abstract (NFKC/whitespace-normalised).

    An ellipsis ("…" or "...") marks omitted text: each part around it must occur, in order.
    """
    text = normalize_text(abstract)
    parts = [p for p in _ELLIPSIS.split(normalize_text(quote)) if p]
    if not parts:
        return False
    pos = 0
    for part in parts:
        found = text.find(part, pos)
        if found < 0:
            return False
        pos = found + len(part)
    return True


def quote_sentences_verbatim(quote: str, abstract: str, split: Callable[[str], list[str]]) -> bool:
    """Whether every sentence of the quote occurs in the abstract, wherever it stands."""
    sentences = [s for s in split(normalize_text(quote)) if s.strip()]
    return bool(sentences) and all(quote_is_verbatim(s, abstract) for s in sentences)


# (claim, quote, paper key) → support score in 0..1; the runner passes the offline Scorer.
QuoteSupport = Callable[[str, str, str], float]
# (claim, cited paper keys) → best support score among the cited abstracts.
ClaimSupport = Callable[[str, Sequence[str]], float]


def quote_metrics(
    answer: Answer,
    abstracts: Mapping[str, str],
    key_of: Mapping[str, str],
    support: QuoteSupport,
    threshold: float,
    split: Callable[[str], list[str]],
) -> dict[str, float | None]:
    """Quote checks of an answer's citations.

    quote_verbatim: share of citations whose quote is one verbatim passage of the cited abstract
    (ellipses allowed); quote_sentences_verbatim: share whose every sentence is verbatim (text
    joined from separate places passes, invented text does not); quote_support: share of
    (sentence, citation) pairs whose quote has verbatim sentences and supports the sentence
    (support score ≥ threshold).
    """
    whole: dict[int, bool] = {}
    sentences: dict[int, bool] = {}
    for c in answer.citations:
        abstract = abstracts.get(key_of.get(c.paper_id, c.paper_id), "")
        whole[c.n] = quote_is_verbatim(c.quote, abstract)
        sentences[c.n] = quote_sentences_verbatim(c.quote, abstract, split)
    pairs = 0
    supported = 0
    for s in answer.sentences:
        for n in s.citations:
            cite = answer.citation(n)
            pairs += 1
            if cite is None or not sentences.get(n, False):
                continue
            key = key_of.get(cite.paper_id, cite.paper_id)
            if support(claim_text(s.text), cite.quote, key) >= threshold:
                supported += 1
    return {
        "quote_verbatim": sum(whole.values()) / len(whole) if whole else None,
        "quote_sentences_verbatim": sum(sentences.values()) / len(sentences) if sentences else None,
        "quote_support": supported / pairs if pairs else None,
    }


def faithfulness(answer: Answer) -> float | None:
    """Share of answer sentences the answerer marked supported; None when it has none."""
    if answer.refused or not answer.sentences:
        return None
    return sum(1 for s in answer.sentences if s.supported) / len(answer.sentences)


def faithfulness_rescored(
    answer: Answer, key_of: Mapping[str, str], support: ClaimSupport, threshold: float
) -> float | None:
    """Like faithfulness, but each sentence is re-scored here against the papers it cites.

    A sentence without citations counts as supported only when the answerer says so (the model
    answerer marks uncited factual sentences unsupported), so the two metrics differ only where
    the eval's own check disagrees with the answerer's self-report.
    """
    if answer.refused or not answer.sentences:
        return None
    ok = 0
    for s in answer.sentences:
        if not s.citations:
            ok += bool(s.supported)
            continue
        keys = [
            key_of.get(c.paper_id, c.paper_id)
            for n in s.citations
            if (c := answer.citation(n)) is not None
        ]
        ok += bool(keys) and support(claim_text(s.text), keys) >= threshold
    return ok / len(answer.sentences)


# -- refusals ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RefusalCounts:
    """Refusal confusion counts: positives are unanswerable items."""

    refused_unanswerable: int = 0  # true positives
    refused_answerable: int = 0  # false positives: refused wrongly
    answered_unanswerable: int = 0  # false negatives
    answered_answerable: int = 0  # true negatives

    @property
    def precision(self) -> float | None:
        """Share of refusals that were on unanswerable items; None without refusals."""
        n = self.refused_unanswerable + self.refused_answerable
        return self.refused_unanswerable / n if n else None

    @property
    def recall(self) -> float | None:
        """Share of unanswerable items that were refused; None without unanswerable items."""
        n = self.refused_unanswerable + self.answered_unanswerable
        return self.refused_unanswerable / n if n else None


def refusal_counts(outcomes: Iterable[tuple[bool, bool]]) -> RefusalCounts:
    """Count (unanswerable, refused) pairs into a confusion table."""
    tp = fp = fn = tn = 0
    for unanswerable, refused in outcomes:
        if unanswerable and refused:
            tp += 1
        elif refused:
            fp += 1
        elif unanswerable:
            fn += 1
        else:
            tn += 1
    return RefusalCounts(tp, fp, fn, tn)


def answered_correctly(refused: bool, cited: Sequence[str], gold: Collection[str]) -> bool | None:
    """An answerable item was answered (not refused) and cites at least one gold paper."""
    if not gold:
        return None
    return not refused and any(k in gold for k in cited)


# -- latency, tokens, cost ---------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100) with linear interpolation between ranks; None when empty."""
    if not values:
        return None
    xs = sorted(values)
    pos = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


# USD per million tokens (input, output), OpenAI list prices (2025). Unknown or local models
# cost 0 and are reported as unpriced, so a missing entry never looks like a free API.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-3.5-turbo": (0.50, 1.50),
    "o4-mini": (1.10, 4.40),
}


def price_of(model: str) -> tuple[float, float] | None:
    """(input, output) USD per million tokens for a model name, dated suffixes included."""
    name = model.strip().lower()
    if name in PRICES:
        return PRICES[name]
    # "gpt-4o-mini-2024-07-18" is priced as "gpt-4o-mini": longest known prefix wins.
    for known in sorted(PRICES, key=len, reverse=True):
        if name.startswith(known + "-"):
            return PRICES[known]
    return None


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int) -> float:
    """Cost of the tokens at the model's list price; 0 for unknown or local models."""
    price = price_of(model)
    if price is None:
        return 0.0
    return (prompt_tokens * price[0] + completion_tokens * price[1]) / 1_000_000


# -- judge output ------------------------------------------------------------------------------

_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def _judge_json(text: str) -> dict | None:
    """The first JSON object in a judge reply (code fences and chatter around it allowed)."""
    match = _JSON_OBJECT.search(text or "")
    if not match:
        return None
    try:
        obj = json.loads(match.group(0))
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None


def parse_faithfulness_judge(text: str) -> bool | None:
    """`{"supported": true|false}` → bool; None when the reply does not parse."""
    obj = _judge_json(text)
    if obj is None:
        return None
    value = obj.get("supported")
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def parse_correctness_judge(text: str) -> int | None:
    """`{"score": 1..5}` → int; None when the reply does not parse or is out of range."""
    obj = _judge_json(text)
    if obj is None:
        return None
    value = obj.get("score")
    if isinstance(value, bool):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and 1 <= value <= 5:
        return value
    return None


# -- aggregation -------------------------------------------------------------------------------


def mean(values: Iterable[float | None]) -> tuple[float | None, int]:
    """Mean of the defined values and how many there were."""
    xs = [float(v) for v in values if v is not None]
    return (sum(xs) / len(xs) if xs else None), len(xs)
