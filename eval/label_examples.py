"""Label the project's own example questions with a reference planner, for the router.

    python eval/label_examples.py --planner-from /work/main --shared ../shared/data

The example phrasings the project's evaluations and tests ask (the first turn of each item of
eval/golden.jsonl, eval/scale.jsonl, eval/collection.jsonl and the question literals of
tests/) are planned by the rules planner of the checkout given (the phrase-rule planner these
evaluations were written against), and written with their kind, answer type and the number of
catalog papers they name to eval/router_examples.jsonl. eval/train_router.py adds them to the
corpus; eval/router_report.py leaves them out, so its generalisation numbers are the corpus'.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "eval" / "router_examples.jsonl"
CALLS = (".ask", "_plan", "rule_plan", "plan")

# Run in the reference checkout: kind, answer type and names of each question.
_LABEL = """
import json, sys
sys.path.insert(0, sys.argv[3] + "/tests")
from rag.store.catalog import Catalog
from rag.store.loaders import load_paths
from rag.questions.planner import rule_plan
from rag.qtype import question_type
from rag.models import Paper
from tests.test_collection import PAPERS
loaded = load_paths([sys.argv[1] + "/iclr2026_accepted.jsonl", sys.argv[2]]).papers
catalog = Catalog([*loaded, *(Paper(key=str(p["id"]), **p) for p in PAPERS)])
out = []
for q in json.load(sys.stdin):
    plan = rule_plan(q, catalog)
    out.append([q, plan.kind.value, plan.answer_type or question_type(q),
                len(catalog.names.mentions(q, False))])
json.dump(out, sys.stdout)
"""


def eval_questions() -> list[str]:
    """The first question of every item of the project's evaluation sets."""
    out = []
    for name in ("golden", "scale", "collection"):
        for line in (ROOT / "eval" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.append(json.loads(line)["question"])
    return out


def test_questions() -> list[str]:
    """Question literals of the tests: first arguments of ask/plan calls and the first
    string of each tuple in a parametrize table."""
    out = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                first = node.args[0]
                if any(name == c.lstrip(".") for c in CALLS) and isinstance(first, ast.Constant):
                    out.append(first.value)
            if isinstance(node, ast.Tuple) and node.elts:
                first = node.elts[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    text = first.value
                    if len(text.split()) >= 2 and text.rstrip().endswith("?"):
                        out.append(text)
    return [q for q in out if isinstance(q, str) and 1 <= len(q.split()) <= 60]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--planner-from", type=Path, required=True)
    parser.add_argument("--shared", type=Path, required=True)
    args = parser.parse_args()
    questions = list(dict.fromkeys(eval_questions() + test_questions()))
    checkout = args.planner_from.resolve()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _LABEL,
            str(args.shared.resolve()),
            str(ROOT / "data" / "iclr2026_seed_abstracts.txt"),
            str(checkout),
        ],
        input=json.dumps(questions),
        capture_output=True,
        text=True,
        cwd=checkout,
        env={**os.environ, "PYTHONPATH": f"{checkout}:{checkout}/tests"},
        check=True,
    )
    rows = json.loads(done.stdout)
    with OUT.open("w", encoding="utf-8") as f:
        for n, (question, kind, answer_type, names) in enumerate(rows, 1):
            item = {
                "id": f"ex{n:04d}",
                "style": "example",
                "question": question,
                "kind": kind,
                "answer_type": answer_type if kind in ("lookup", "detail", "search") else None,
                "names": names,
            }
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
    print(f"{OUT}: {len(rows)} example questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
