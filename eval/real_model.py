"""Optional eval run against a real model: a GGUF file served by xllamacpp on loopback.

    python -m eval.real_model MODEL.gguf --limit 4 --top-k 2 --data-dir /work/idx

Asks the first N answerable held-out golden items (single turn) through the product's OpenAI
path and reports citation precision (cited papers that are gold), the share of the model's
sentences it cited itself, that were attributed after the fact, and that stayed unsupported.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rag.app.options import AskOptions
from rag.settings import Settings

from . import metrics as M
from .datasets import resolve
from .runner import open_pipeline
from .xllamacpp_server import start


def main(argv: list[str] | None = None) -> int:
    """Run the items, print one line per answer and the summary as JSON."""
    p = argparse.ArgumentParser(prog="python -m eval.real_model", description=__doc__)
    p.add_argument("model", type=Path)
    p.add_argument("--limit", type=int, default=4)
    p.add_argument("--top-k", type=int, default=2, help="sources per prompt (keeps it short)")
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--data-dir", default=".paperchat")
    args = p.parse_args(argv)
    server = start(args.model)
    try:
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None,
            data_dir=args.data_dir,
            openai_base_url=server.base_url,
            openai_api_key="local",
            llm={
                "provider": "openai",
                "model": args.model.stem,
                "max_tokens": args.max_tokens,
                # A small CPU model on a busy machine takes minutes per answer.
                "timeout": 900.0,
                "max_retries": 0,
            },
            retrieval={"top_k": args.top_k},
        )
        dataset = resolve("golden")
        pipeline = open_pipeline(settings, dataset).pipeline
        key_of = {pid: paper.key for pid, paper in pipeline.catalog().items()}
        items = [i for i in dataset.items if i.split == "heldout" and i.answerable and not i.turns][
            : args.limit
        ]
        counts = {"sentences": 0, "cited": 0, "attributed": 0, "unsupported": 0, "framing": 0}
        precisions: list[float] = []
        rows = []
        for item in items:
            answer = pipeline.ask(item.question, options=AskOptions(answerer="model", k=args.top_k))
            for s in answer.sentences:
                counts["sentences"] += 1
                if s.attributed:
                    counts["attributed"] += 1
                elif not s.supported:
                    counts["unsupported"] += 1
                elif s.citations:
                    counts["cited"] += 1
                else:
                    counts["framing"] += 1
            cited = M.cited_keys(answer, key_of)
            precision = M.citation_precision(cited, set(item.gold_keys))
            if precision is not None:
                precisions.append(precision)
            row = {
                "id": item.id,
                "refused": answer.refused,
                "error": answer.error,
                "citation_precision": precision,
                "seconds": answer.timings.get("total"),
                "text": answer.text[:300],
            }
            rows.append(row)
            print(json.dumps(row, ensure_ascii=False), file=sys.stderr, flush=True)
        total = max(counts["sentences"], 1)
        summary = {
            "model": args.model.name,
            "items": len(items),
            "top_k": args.top_k,
            "citation_precision": round(sum(precisions) / len(precisions), 3)
            if precisions
            else None,
            "share_cited_by_model": round(counts["cited"] / total, 3),
            "share_attributed": round(counts["attributed"] / total, 3),
            "share_unsupported": round(counts["unsupported"] / total, 3),
            "share_framing": round(counts["framing"] / total, 3),
            "counts": counts,
        }
        print(json.dumps(summary, indent=2))
    finally:
        server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
