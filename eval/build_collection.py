"""Builds eval/collection.jsonl: list, count, filter and compare items over the 4,302 corpus.

Gold rule (stated, reproducible, independent of PaperChat's matcher): a paper belongs to a
topic when its title, keywords or abstract match one of the topic's regular expressions below
(case-insensitive; each pattern is the topic phrase with optional plural and the acronym the
papers use). Metadata counts come from the corpus fields. Items alternate between the `tune`
split (thresholds were chosen on it) and the `report` split (the numbers we report).

    python -m eval.build_collection            # rewrites eval/collection.jsonl
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from .datasets import EVAL_DIR, SHARED_CORPUS

# topic as asked -> gold patterns (regex over title, keywords and abstract)
TOPICS: dict[str, list[str]] = {
    "graph neural networks": [r"\bgraph neural networks?\b", r"\bGNNs?\b"],
    "protein design": [r"\bprotein design\b"],
    "federated learning": [r"\bfederated learning\b"],
    "knowledge distillation": [r"\bknowledge distillation\b"],
    "continual learning": [r"\bcontinual learning\b"],
    "mechanistic interpretability": [r"\bmechanistic interpretability\b"],
    "flow matching": [r"\bflow matching\b"],
    "video generation": [r"\bvideo generation\b"],
    "machine unlearning": [r"\bmachine unlearning\b"],
    "speculative decoding": [r"\bspeculative decoding\b"],
    "mixture of experts": [r"\bmixture[- ]of[- ]experts?\b", r"\bMoEs?\b"],
    "retrieval-augmented generation": [r"\bretrieval[- ]augmented generation\b", r"\bRAG\b"],
    "model merging": [r"\bmodel merging\b"],
    "watermarking": [r"\bwatermark(?:ing|s)?\b"],
    "membership inference": [r"\bmembership inference\b"],
    "sparse autoencoders": [r"\bsparse autoencoders?\b", r"\bSAEs?\b"],
    "neural operators": [r"\bneural operators?\b"],
    "time series forecasting": [r"\btime[- ]series forecasting\b"],
    "causal discovery": [r"\bcausal discovery\b"],
    "optimal transport": [r"\boptimal transport\b"],
    "spiking neural networks": [r"\bspiking neural networks?\b", r"\bSNNs?\b"],
    "gaussian splatting": [r"\bgaussian splatting\b"],
    "autonomous driving": [r"\bautonomous driving\b"],
    "sign language": [r"\bsign language\b"],
    "in-context learning": [r"\bin[- ]context learning\b", r"\bICL\b"],
    "offline reinforcement learning": [r"\boffline reinforcement learning\b", r"\boffline RL\b"],
    "diffusion models": [r"\bdiffusion models?\b"],
    "text-to-image generation": [r"\btext[- ]to[- ]image generation\b"],
    "neural architecture search": [r"\bneural architecture search\b", r"\bNAS\b"],
    "neural radiance fields": [r"\bneural radiance fields?\b", r"\bNeRFs?\b"],
}
LIST_FORMS = [
    "Which papers are about {t}?",
    "List the papers on {t}.",
    "What papers study {t}?",
    "Show me all papers about {t}.",
    "Are there papers on {t}?",
]
COUNT_FORMS = ["How many papers study {t}?", "How many papers are about {t}?"]
AREA_NAMES = {
    "reinforcement learning": ("the RL area", "reinforcement learning"),
    "optimization": ("the optimization area", "optimization"),
    "learning theory": ("the learning theory area", "learning theory"),
    "generative models": ("the generative models area", "generative models"),
    "interpretability and explainable AI": ("the interpretability area", "interpretability"),
}
# Named-paper comparisons: method or benchmark names as they open the titles.
COMPARE_NAMES = [
    ("MCP-SafetyBench", "FRABench"),
    ("Hubble", "SPIRAL"),
    ("MCP-SafetyBench", "Hubble"),
    ("FRABench", "SPIRAL"),
]
COMPARE_TOPICS = ["superposition", "speculative decoding", "model merging", "sign language"]


def text_of(p: dict) -> str:
    return " ".join([p["title"], " ".join(p.get("keywords") or []), p["abstract"]])


def _case(pattern: str) -> re.Pattern[str]:
    # Acronym patterns (GNN, RAG, SAE) are matched case-sensitively: "rag" is a word too.
    core = re.sub(r"\\b|\?|s\?", "", pattern)
    return re.compile(pattern, 0 if core.isupper() else re.IGNORECASE)


def build(corpus: Path) -> list[dict]:
    from rag.store.loaders import load_paths

    from .datasets import SEED

    papers = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line]
    indexed = len({p.key for p in load_paths([corpus, SEED]).papers})

    def gold_of(patterns: list[str], keep=lambda p: True) -> list[str]:
        rx = [_case(x) for x in patterns]
        return sorted(
            p["openreview_id"] for p in papers if keep(p) and any(r.search(text_of(p)) for r in rx)
        )

    none = {"decision": None, "area": None, "keyword": None}
    items: list[dict] = []
    for i, (topic, patterns) in enumerate(TOPICS.items()):
        items.append(
            {
                "kind": "list",
                "question": LIST_FORMS[i % len(LIST_FORMS)].format(t=topic),
                "intent": "list",
                "filters": none,
                "patterns": patterns,
                "gold_ids": gold_of(patterns),
            }
        )
        if i % 2 == 0:
            g = gold_of(patterns)
            items.append(
                {
                    "kind": "count",
                    "question": COUNT_FORMS[(i // 2) % 2].format(t=topic),
                    "intent": "count",
                    "filters": none,
                    "patterns": patterns,
                    "count": len(g),
                    "exact": False,
                    "gold_ids": g,
                }
            )
        if i % 3 == 0:
            oral = gold_of(patterns, lambda p: p.get("decision") == "Oral")
            items.append(
                {
                    "kind": "filter",
                    "question": f"Which oral papers are about {topic}?",
                    "intent": "list",
                    "filters": {**none, "decision": "Oral"},
                    "patterns": patterns,
                    "gold_ids": oral,
                }
            )
    for decision in ("Oral", "Poster"):
        n = sum(p.get("decision") == decision for p in papers)
        items.append(
            {
                "kind": "count",
                "question": f"How many {decision.lower()}s are there?",
                "intent": "count",
                "filters": {**none, "decision": decision},
                "count": n,
                "exact": True,
            }
        )
    items.append(
        {
            "kind": "count",
            "question": "How many papers does the index hold?",
            "intent": "count",
            "filters": none,
            # The scale index holds the corpus and the 19-paper sample, twins stored once.
            "count": indexed,
            "exact": True,
        }
    )
    for area, (said, _) in AREA_NAMES.items():
        full = next(p["primary_area"] for p in papers if p["primary_area"].startswith(area))
        n = sum(p["primary_area"] == full for p in papers)
        items.append(
            {
                "kind": "count",
                "question": f"How many papers are in {said}?",
                "intent": "count",
                "filters": {**none, "area": full},
                "count": n,
                "exact": True,
            }
        )
    area_topics = [
        ("reinforcement learning", "the RL area", "offline RL", "offline reinforcement learning"),
        ("optimization", "the optimization area", "federated learning", "federated learning"),
        ("generative models", "the generative models area", "flow matching", "flow matching"),
        (
            "learning theory",
            "the learning theory area",
            "in-context learning",
            "in-context learning",
        ),
    ]
    for area, said, asked, topic in area_topics:
        full = next(p["primary_area"] for p in papers if p["primary_area"].startswith(area))
        items.append(
            {
                "kind": "filter",
                "question": f"Papers in {said} on {asked}",
                "intent": "list",
                "filters": {**none, "area": full},
                "patterns": TOPICS[topic],
                "gold_ids": gold_of(TOPICS[topic], lambda p, f=full: p["primary_area"] == f),
            }
        )
    for a, b in COMPARE_NAMES:
        ids = []
        for name in (a, b):
            hits = [p["openreview_id"] for p in papers if p["title"].startswith(name)]
            if len(hits) != 1:
                sys.exit(f"compare name {name!r} matches {len(hits)} titles")
            ids.append(hits[0])
        items.append(
            {
                "kind": "compare",
                "question": f"Compare {a} and {b}.",
                "intent": "compare",
                "filters": none,
                "gold_ids": ids,
            }
        )
    for topic in COMPARE_TOPICS:
        items.append(
            {
                "kind": "compare",
                "question": f"Compare the two papers on {topic}.",
                "intent": "compare",
                "filters": none,
                "gold_ids": [],  # any two papers on the topic; success = answered, two cited
            }
        )
    for n, item in enumerate(items, 1):
        item["id"] = f"c{n:03d}"
        item["split"] = "tune" if n % 2 else "report"
    return [{"id": it.pop("id"), **it} for it in items]


def main() -> int:
    items = build(SHARED_CORPUS)
    out = EVAL_DIR / "collection.jsonl"
    out.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    print(f"wrote {len(items)} items to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
