"""The committed regression baseline: offline golden-set numbers that must not drop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .datasets import EVAL_DIR
from .runner import QUALITY_METRICS

BASELINE_PATH = EVAL_DIR / "baseline.json"
# One item of the golden set moves a mean by 1/57 ≈ 0.018; a drop beyond that is a real change.
TOLERANCE = 0.02


def make_baseline(results: dict[str, Any], tolerance: float = TOLERANCE) -> dict[str, Any]:
    """The baseline document for a run's first (primary) configuration."""
    primary = results["configurations"][0]
    prov = results["provenance"]
    return {
        "about": "Offline golden-set numbers; update deliberately with "
        "`paperchat eval --dataset golden --write-baseline`.",
        "dataset": prov["dataset"]["name"],
        "config": {
            "retriever": primary["config"]["retriever"],
            "answerer": primary["config"]["answerer"],
        },
        "tolerance": tolerance,
        "metrics": {k: primary["metrics"].get(k) for k in QUALITY_METRICS},
        "provenance": {
            "created": prov["created"],
            "commit": prov["code"]["commit"],
            "dirty": prov["code"]["dirty"],
            "dataset_sha256": prov["dataset"]["sha256"],
            "corpus_sha256": [f["sha256"] for f in prov["corpus"]["files"]],
            "papers": prov["corpus"]["papers"],
        },
    }


def write_baseline(results: dict[str, Any], path: Path = BASELINE_PATH) -> dict[str, Any]:
    """Write the baseline file for a run; returns what was written."""
    doc = make_baseline(results)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return doc


def read_baseline(path: Path = BASELINE_PATH) -> dict[str, Any]:
    """The committed baseline."""
    return json.loads(path.read_text(encoding="utf-8"))


def regressions(metrics: dict[str, float | None], baseline: dict[str, Any]) -> list[str]:
    """Messages for every baseline metric that dropped by more than the tolerance."""
    tolerance = float(baseline.get("tolerance", TOLERANCE))
    out = []
    for name, base in baseline["metrics"].items():
        if base is None:
            continue
        value = metrics.get(name)
        if value is None:
            out.append(f"{name} is no longer measured (baseline {base:.4f})")
        elif value < base - tolerance:
            out.append(
                f"{name} dropped to {value:.4f} from the baseline {base:.4f} "
                f"(tolerance {tolerance})"
            )
    return out
