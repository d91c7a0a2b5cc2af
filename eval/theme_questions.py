"""How the rules planner reads the theme question set (tests/fixtures/theme_questions.jsonl).

    python eval/theme_questions.py

Prints, for the fit split (the questions the theme vocabulary was written against) and the
held-out split separately, how many questions get the right kind and, for theme questions, the
right topic ("" for the main themes), and each miss. Planned over the 19-paper sample's catalog.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rag.lexicon import load_lexicon  # noqa: E402
from rag.questions.planner import rule_plan  # noqa: E402
from rag.questions.router import router_for  # noqa: E402
from rag.store.catalog import Catalog  # noqa: E402
from rag.store.embeddings import LocalEmbedder  # noqa: E402
from rag.store.loaders import load_paths  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "theme_questions.jsonl"
SAMPLE = ROOT / "data" / "iclr2026_seed_abstracts.txt"


def main() -> int:
    catalog = Catalog(load_paths([SAMPLE]).papers)
    router, lexicon = router_for(LocalEmbedder()), load_lexicon()
    items = [json.loads(line) for line in FIXTURE.read_text().splitlines() if line.strip()]
    for split in ("fit", "held-out"):
        rows = [q for q in items if q["split"] == split]
        kind_ok = topic_ok = themes = 0
        misses = []
        for q in rows:
            plan = rule_plan(q["question"], catalog, router=router, lexicon=lexicon)
            right_kind = plan.kind.value == q["kind"]
            kind_ok += right_kind
            if q["kind"] == "themes":
                themes += 1
                want = q.get("topic", "").lower()
                right_topic = right_kind and plan.topic.lower() == want
                topic_ok += right_topic
            else:
                right_topic = True
            if not (right_kind and right_topic):
                misses.append(
                    f"  {q['style']}: {q['question']!r} -> {plan.kind.value} {plan.topic!r}"
                )
        print(f"{split}: kind {kind_ok}/{len(rows)}, theme topic {topic_ok}/{themes}")
        print("\n".join(misses))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
