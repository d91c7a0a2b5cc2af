"""The refusal decision: a logistic model over retrieval signals, fitted on evaluation items."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from rag.retrieval.support import Evidence

MODEL_FILE = Path(__file__).parents[1] / "data" / "refusal_model.json"
FEATURES = (
    "evidence",
    "best_sentence",
    "coverage",
    "full_coverage",
    "dense",
    "margin",
    "unused",
)

# Below this many papers most words of any question are used by none of them (the 19-paper
# sample), so a word no paper uses says nothing; in a conference's thousands it says the topic
# is absent ("wildfire", "glacier").
UNUSED_MIN_PAPERS = 1000


# Standardised signals are clipped to this many standard deviations.
CLIP = 3.0


def signals(evidence: Sequence[Evidence], unused: int = 0) -> dict[str, float]:
    """What retrieval says about a question: how well the best paper matches, and how clearly.

    `unused` counts the question's words that no indexed paper uses (0 in a small collection,
    see UNUSED_MIN_PAPERS); two or more count as two.
    """
    if not evidence:
        return {**dict.fromkeys(FEATURES, 0.0), "unused": float(min(unused, 2))}
    top = evidence[0]
    second = evidence[1].score if len(evidence) > 1 else 0.0
    return {
        "evidence": round(top.score, 4),
        "best_sentence": round(top.ranked[0].score if top.ranked else 0.0, 4),
        "coverage": round(top.spelled, 4),
        # Every word of the question in one paper: its topic is there, however it is phrased.
        "full_coverage": float(top.spelled >= 0.999),
        "dense": round(max((e.hit.dense or 0.0) for e in evidence), 4),
        "margin": round(top.score - second, 4),
        "unused": float(min(unused, 2)),
    }


class RefusalModel(BaseModel):
    """Logistic regression on standardised signals; P(answerable) below `threshold` refuses."""

    features: list[str] = Field(default_factory=lambda: list(FEATURES))
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    threshold: float = Field(default=0.5, description="Refuse when P(answerable) is below this.")
    max_false_refusals: float = Field(
        default=0.03, description="Share of answerable fit items the threshold may refuse."
    )
    fitted_on: str = Field(default="", description="Which items the model was fitted on.")

    def probability(self, sig: Mapping[str, float]) -> float:
        """P(the collection answers the question) for one question's signals."""
        x = (np.array([sig.get(f, 0.0) for f in self.features]) - self.mean) / self.scale
        # Beyond the range it was fitted on, a linear model extrapolates wildly.
        x = np.clip(x, -CLIP, CLIP)
        return float(1.0 / (1.0 + np.exp(-(x @ np.array(self.coef) + self.intercept))))

    def refuses(self, sig: Mapping[str, float]) -> bool:
        """Whether the signals say the collection is silent on the question."""
        # Every word of the question in one paper: its topic is there, however far the
        # dense score, which dominates the model, says the wording is from the abstract's.
        if sig.get("full_coverage"):
            return False
        return self.probability(sig) < self.threshold

    def save(self, path: Path = MODEL_FILE) -> None:
        """Write the model as JSON (the committed file the product loads)."""
        path.write_text(json.dumps(self.model_dump(), indent=2) + "\n", encoding="utf-8")


def load_refusal_model(path: Path = MODEL_FILE) -> RefusalModel:
    """The fitted refusal model; a missing or malformed file fails loudly."""
    try:
        return RefusalModel.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RuntimeError(f"{path}: cannot load the refusal model: {exc}") from exc


def fit(
    rows: Sequence[Mapping[str, float]],
    labels: Sequence[bool],
    l2: float = 1.0,
    note: str = "",
    max_false_refusals: float = 0.03,
) -> RefusalModel:
    """Fit P(answerable) by L2-regularised logistic regression (Newton steps), classes balanced."""
    X = np.array([[r[f] for f in FEATURES] for r in rows], dtype=float)
    y = np.array(labels, dtype=float)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    Z = np.hstack([np.clip((X - mean) / scale, -CLIP, CLIP), np.ones((len(X), 1))])
    # Few unanswerable items: weight each class to the same total, so refusals count.
    pos = max(y.sum(), 1.0)
    neg = max(len(y) - y.sum(), 1.0)
    w = np.where(y == 1, len(y) / (2 * pos), len(y) / (2 * neg))
    beta = np.zeros(Z.shape[1])
    penalty = np.full(Z.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(Z @ beta)))
        grad = Z.T @ (w * (p - y)) + penalty * beta
        hess = (Z * (w * p * (1 - p))[:, None]).T @ Z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    model = RefusalModel(
        mean=mean.round(6).tolist(),
        scale=scale.round(6).tolist(),
        coef=beta[:-1].round(6).tolist(),
        intercept=round(float(beta[-1]), 6),
        fitted_on=note,
        max_false_refusals=max_false_refusals,
    )
    model.threshold = choose_threshold(model, rows, labels, max_false_refusals)
    return model


def choose_threshold(
    model: RefusalModel,
    rows: Sequence[Mapping[str, float]],
    labels: Sequence[bool],
    max_false_refusals: float,
) -> float:
    """The highest cut-off that refuses at most that share of the answerable fit items.

    Refusing an answerable question costs the user the answer; so the cut-off sits just below
    the answerable items' lowest probabilities, and refuses whatever falls under it.
    """
    answerable = sorted(model.probability(r) for r, y in zip(rows, labels, strict=True) if y)
    if not answerable:
        return model.threshold
    allowed = int(max_false_refusals * len(answerable))
    # Just under the (allowed+1)-th lowest answerable probability, capped at 0.5.
    cut = answerable[allowed] - 1e-3
    return round(min(0.5, max(cut, 0.0)), 4)
