"""What a results question asks for: the benchmark a best result is asked on ("the highest
top-1 accuracy on ImageNet") and the metric a superlative names ("the lowest word error rate")."""

from __future__ import annotations

import re
from typing import NamedTuple

from rag.lexicon import Lexicon


class BestOn(NamedTuple):
    """A best result asked on a named benchmark: the metric words before it, the name, where
    the name ends, and whether the words said a rival ('beats GPT-4o on MathVista')."""

    metric: str
    name: str
    end: int
    rival: bool


def best_on(question: str, lexicon: Lexicon) -> BestOn | None:
    """ "the highest top-1 accuracy on ImageNet": a best or rival word, up to three metric
    words, on/in/for, an optional "the" and a benchmark-like name (capitalised, with another
    capital or a digit); the first the question writes, or None."""
    words = lexicon.best_on_words
    tokens, at = [], 0
    for token in question.split():
        at = question.index(token, at)
        tokens.append((token, at))
        at += len(token)
    low = [t.lower() for t, _ in tokens]
    asking = words["best"] + words["rival"]
    for i in range(len(tokens)):
        said = next((n for n in (4, 1) if " ".join(low[i : i + n]) in asking), 0)
        if not said:
            continue
        rival = low[i] in words["rival"]
        for m in range(4):
            j = i + said + m
            if j + 1 >= len(tokens) or not all(_plain(t) for t, _ in tokens[i + said : j]):
                break
            if low[j] not in words["on"]:
                continue
            for k in (j + 2, j + 1) if low[j + 1] == "the" else (j + 1,):
                name = _name_at(tokens[k][0]) if k < len(tokens) else ""
                if name:
                    metric = " ".join(t for t, _ in tokens[i + said : j])
                    return BestOn(metric, name, tokens[k][1] + len(name), rival)
    return None


def _plain(token: str) -> bool:
    return all(c.isalnum() or c in "_@.-" for c in token)


def _name_at(token: str) -> str:
    """The benchmark-like name a token starts with ("ImageNet?" -> "ImageNet"), or ""."""
    run = token[: next((i for i, c in enumerate(token) if not (c.isalnum() or c in "_.-")), None)]
    if not run[:1].isupper() or not any(c.isupper() or c.isdigit() for c in run[1:]):
        return ""
    return run


def metric_of(words: str, lexicon: Lexicon) -> str:
    """The metric the words before a benchmark's name ask for ("FID", "top-1 accuracy"):
    empty when they name none ("the highest reported results on GSM8K"; "accuracy" alone is
    what most papers call their score, "top-1 accuracy" is a metric)."""
    # "the highest accuracy anyone reports on MMVP": the words marking the question go.
    kept = [w for w in words.split() if w.lower() not in lexicon.question_marking]
    words = " ".join(
        re.sub(r"(?i)^(?:(?:the|a|an|reported|stated)\s+)+", "", " ".join(kept)).split()
    )
    named = any(w.lower() not in lexicon.not_metric_words for w in words.split())
    return words if named else ""


def superlative_metric(question: str, lexicon: Lexicon) -> str:
    """The metric a superlative names when no measure of the lexicon does ("the highest AP on
    COCO for …" -> "AP", "the lowest word error rate" -> "word error rate"), or ""."""
    words = re.findall(r"[\w-]+|[^\w\s]", question)
    low = [w.lower() for w in words]
    at = next((i for i, w in enumerate(low) if w in lexicon.superlative_words), None)
    if at is None:
        return ""
    run: list[str] = []
    for word, lower in zip(words[at + 1 :], low[at + 1 :], strict=False):
        # It ends at a function word ("the highest AP on COCO", "the best IoU of any …").
        if not word[0].isalnum() or lower in lexicon.function_words:
            break
        run.append(word)
    return metric_of(" ".join(run[:4]), lexicon)
