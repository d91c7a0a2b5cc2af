"""The `paperchat` CLI as scripts use it: `python -m rag ... --json` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import MakeSettings, run_cli

from rag.store.chunking import chunk_paper
from rag.store.loaders import load_paths

pytestmark = pytest.mark.slow

INGEST_KEYS = {"added", "updated", "unchanged", "removed", "errors"}
STATS_KEYS = {"papers", "chunks", "embedding_model", "collection", "chroma"}
RESULT_KEYS = {
    "paper_id",
    "title",
    "score",
    "abstract",
    "url",
    "keywords",
    "avg_rating",
    "n_ratings",
}
GOOD = {
    "id": "X1",
    "title": "A Good Record",
    "abstract": "We propose a method that does something useful for graph learning. It works well.",
    "keywords": "graphs; learning",
}


def ok_json(done: subprocess.CompletedProcess[str], code: int = 0) -> dict[str, Any]:
    """The JSON a command printed, after checking its exit code."""
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    return json.loads(done.stdout)


def test_ingest_stats_search_json_on_the_sample(tmp_path: Path, sample_path: Path) -> None:
    data = tmp_path / "data"
    report = ok_json(run_cli("ingest", "--json", "--data-dir", data, sample_path, cwd=tmp_path))
    assert set(report) == INGEST_KEYS
    assert (report["added"], report["updated"], report["unchanged"], report["removed"]) == (
        19,
        0,
        0,
        0,
    )
    assert report["errors"] == []
    fresh = run_cli("ingest", "--json", "--data-dir", tmp_path / "d2", sample_path, cwd=tmp_path)
    assert "ingest embed" in fresh.stderr and "19/19" in fresh.stderr  # progress bar on stderr

    again = ok_json(run_cli("ingest", "--json", "--data-dir", data, sample_path, cwd=tmp_path))
    assert (again["added"], again["unchanged"]) == (0, 19)

    stats = ok_json(run_cli("stats", "--json", "--data-dir", data, cwd=tmp_path))
    assert set(stats) == STATS_KEYS
    assert stats["papers"] == 19 and stats["chunks"] >= 19
    assert stats["embedding_model"] == "all-MiniLM-L6-v2-onnx-int8"
    assert stats["chroma"] == "embedded" and stats["collection"].startswith("papers-")

    found = ok_json(run_cli("search", "--json", "--data-dir", data, "Qronos", cwd=tmp_path))
    assert set(found) == {"query", "results"} and found["query"] == "Qronos"
    results = found["results"]
    assert len(results) == 5
    assert all(set(r) == RESULT_KEYS for r in results)
    assert results[0]["abstract"].startswith("We introduce Qronos")
    assert len({r["paper_id"] for r in results}) == len(results)  # one entry per paper
    scores = [r["score"] for r in results]
    assert scores == sorted(scores, reverse=True)
    assert all(isinstance(r["keywords"], list) and isinstance(r["url"], str) for r in results)

    k2 = ok_json(run_cli("search", "--json", "-k", "2", "--data-dir", data, "SHAPO", cwd=tmp_path))
    assert len(k2["results"]) == 2 and "SHAPO" in k2["results"][0]["abstract"]


def test_data_dir_from_the_environment(tmp_path: Path, sample_index_dir: Path) -> None:
    env = {"PAPERCHAT_DATA_DIR": str(sample_index_dir)}
    stats = ok_json(run_cli("stats", "--json", cwd=tmp_path, env=env))
    assert stats["papers"] == 19


def test_rejected_records_exit_1_and_name_file_and_line(tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    source.write_text(
        json.dumps(GOOD) + "\n" + "{broken json\n" + json.dumps({"title": "x"}) + "\n",
        encoding="utf-8",
    )
    data = tmp_path / "data"
    report = ok_json(run_cli("ingest", "--json", "--data-dir", data, source, cwd=tmp_path), 1)
    assert report["added"] == 1
    assert [(e["file"], e["line"]) for e in report["errors"]] == [
        (str(source), 2),
        (str(source), 3),
    ]
    assert all(set(e) == {"file", "line", "message"} and e["message"] for e in report["errors"])

    text = run_cli("ingest", "--data-dir", data, source, cwd=tmp_path)
    assert text.returncode == 1
    assert f"{source}:2" in text.stderr and "Traceback" not in text.stderr


def test_unusable_input_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    done = run_cli("ingest", "--json", "--data-dir", tmp_path / "data", missing, cwd=tmp_path)
    assert done.returncode == 2
    report = json.loads(done.stdout)
    assert report["errors"][0]["file"] == str(missing)
    assert "Traceback" not in done.stderr


def test_prune_through_the_cli(
    tmp_path: Path, sample_data_dir: Path, make_settings: MakeSettings
) -> None:
    source = tmp_path / "one.jsonl"
    source.write_text(json.dumps(GOOD) + "\n", encoding="utf-8")
    done = run_cli(
        "ingest", "--json", "--prune", "--data-dir", sample_data_dir, source, cwd=tmp_path
    )
    report = ok_json(done)
    assert (report["added"], report["unchanged"], report["removed"]) == (1, 0, 19)
    stats = ok_json(run_cli("stats", "--json", "--data-dir", sample_data_dir, cwd=tmp_path))
    (paper,) = load_paths([source]).papers
    expected_chunks = len(chunk_paper(paper, make_settings().chunking))
    assert (stats["papers"], stats["chunks"]) == (1, expected_chunks)


def test_search_on_an_empty_index_says_so(tmp_path: Path) -> None:
    done = run_cli("search", "--json", "--data-dir", tmp_path / "empty", "anything", cwd=tmp_path)
    assert ok_json(done) == {"query": "anything", "results": []}
    assert "index is empty" in done.stderr


def test_invalid_settings_exit_2_without_echoing_secrets(tmp_path: Path) -> None:
    secret = "sk-cli-secret-123456789"
    env = {"OPENAI_API_KEY": secret, "PAPERCHAT_CHROMA__PORT": secret}
    done = run_cli("stats", "--json", "--data-dir", tmp_path / "d", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert "invalid settings" in done.stderr and "port" in done.stderr
    assert secret not in done.stderr and secret not in done.stdout


def test_unknown_local_model_exits_2_with_a_message(tmp_path: Path) -> None:
    env = {"PAPERCHAT_EMBEDDING__MODEL": "bge-large-en"}
    done = run_cli("stats", "--json", "--data-dir", tmp_path / "d", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert "bge-large-en" in done.stderr and "Traceback" not in done.stderr


def test_global_options_work_before_and_after_the_subcommand(sample_index_dir: Path) -> None:
    cwd = sample_index_dir.parent
    before = ok_json(run_cli("--json", "--data-dir", sample_index_dir, "stats", cwd=cwd))
    after = ok_json(run_cli("stats", "--data-dir", sample_index_dir, "--json", cwd=cwd))
    mixed = ok_json(run_cli("--data-dir", sample_index_dir, "stats", "--json", cwd=cwd))
    assert before == after == mixed and before["papers"] == 19


def test_help_lists_the_plugin_commands(tmp_path: Path) -> None:
    done = run_cli("--help", cwd=tmp_path)
    assert done.returncode == 0
    for name in ("ingest", "ask", "chat", "serve", "eval"):
        assert f"    {name} " in done.stdout, name


@pytest.mark.parametrize("command", ["ask", "chat"])
def test_answering_without_an_index_exits_2_and_creates_nothing(
    tmp_path: Path, command: str
) -> None:
    missing = tmp_path / "no-such-dir"
    args = [command, "--data-dir", missing] + (["What is Qronos?"] if command == "ask" else [])
    done = run_cli(*args, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "no index" in done.stderr and str(missing) in done.stderr
    assert "Traceback" not in done.stderr
    assert not missing.exists()


def test_ask_on_an_empty_index_exits_2(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert ok_json(run_cli("stats", "--json", "--data-dir", data, cwd=tmp_path))["papers"] == 0
    done = run_cli("ask", "--data-dir", data, "What is Qronos?", cwd=tmp_path)
    assert done.returncode == 2 and "holds no papers" in done.stderr


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question_is_a_usage_error(sample_index_dir: Path, question: str) -> None:
    done = run_cli("ask", "--data-dir", sample_index_dir, question, cwd=sample_index_dir.parent)
    assert done.returncode == 2
    assert "usage: paperchat ask" in done.stderr and "question is empty" in done.stderr


def test_chat_json_prints_one_object_per_turn(sample_index_dir: Path) -> None:
    turns = ["What is Qronos?", "", "new", "Which paper proposes SHAPO?", "quit"]
    done = subprocess.run(
        [sys.executable, "-m", "rag", "chat", "--json", "--data-dir", str(sample_index_dir)],
        input="\n".join(turns) + "\n",
        cwd=sample_index_dir.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2, lines  # two questions; the blank line and `new` print nothing
    first, second = (json.loads(line) for line in lines)
    assert first["question"] == "What is Qronos?" and "Qronos" in first["citations"][0]["title"]
    assert "SHAPO" in second["answer"]


def test_help_and_parsing_import_no_heavy_library(tmp_path: Path) -> None:
    # Start-up cost is measured by eval/bench_cli.py; this guards the cause: what gets imported.
    probe = (
        "import sys\n"
        "from rag.app.cli import build_parser\n"
        "build_parser().parse_args(['ask', 'q'])\n"
        "heavy = {'chromadb', 'llama_index', 'gradio', 'onnxruntime', 'openai', 'pydantic'}\n"
        "print(sorted(heavy & {m.split('.')[0] for m in sys.modules}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_an_offline_ask_imports_no_llamaindex_gradio_or_openai(sample_index_dir: Path) -> None:
    # The first answer's start-up is measured by eval/bench_cli.py; this guards what the offline
    # path imports: LlamaIndex, the UI and the openai SDK only load when their parts are used.
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('MODULES=' + ','.join(sorted("
        "{m.split('.')[0] for m in sys.modules})) + '\\n'))\n"
        "from rag.app.cli import main\n"
        "sys.argv = ['paperchat', 'ask', '--json', '--data-dir', sys.argv[1], sys.argv[2]]\n"
        "raise SystemExit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(sample_index_dir), "How does Qronos correct errors?"],
        cwd=sample_index_dir.parent,
        capture_output=True,
        text=True,
        timeout=120,
    )
    answer = ok_json(done)
    assert "Qronos" in answer["citations"][0]["title"]
    line = next(x for x in done.stderr.splitlines() if x.startswith("MODULES="))
    imported = set(line.removeprefix("MODULES=").split(","))
    # It really searched the index and embedded the question ...
    assert {"chromadb", "onnxruntime"} <= imported
    # ... without the libraries only other paths need.
    # (numba: bm25s imports it for a backend PaperChat does not use.)
    assert not {"llama_index", "gradio", "openai", "numba"} & imported
