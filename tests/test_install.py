"""Install anywhere: a wheel in a fresh venv ingests and answers from a folder outside the repo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]


def _run(cmd: list[str | Path], cwd: Path, timeout: float = 1200) -> subprocess.CompletedProcess:
    # Nothing from the checkout or the test venv may leak in: no PYTHONPATH, no PAPERCHAT_*.
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "VIRTUAL_ENV"} and not k.startswith("PAPERCHAT_")
    }
    env["GRADIO_ANALYTICS_ENABLED"] = "False"
    done = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, (cmd, done.stdout[-2000:], done.stderr[-4000:])
    return done


def test_wheel_installs_ingests_and_answers_from_another_folder(
    tmp_path: Path, repo_root: Path, sample_path: Path
) -> None:
    wheels = tmp_path / "wheels"
    _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, repo_root],
        cwd=tmp_path,
    )
    (wheel,) = wheels.glob("paperchat-*.whl")
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], cwd=tmp_path)
    _run([venv / "bin" / "python", "-m", "pip", "install", "-q", wheel], cwd=tmp_path)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = _run(
        [
            venv / "bin" / "python",
            "-c",
            "import rag, prompts; print(rag.__file__, prompts.__file__)",
        ],
        cwd=elsewhere,
    ).stdout.split()
    assert all(Path(p).is_relative_to(venv) for p in where), where  # the installed copy

    paperchat = venv / "bin" / "paperchat"
    assert {"serve", "eval"} <= set(_run([paperchat, "--help"], cwd=elsewhere).stdout.split())

    corpus = elsewhere / "papers.txt"
    corpus.write_text(sample_path.read_text(encoding="utf-8"), encoding="utf-8")
    data = tmp_path / "index"
    report = json.loads(
        _run([paperchat, "ingest", "--json", "--data-dir", data, corpus], cwd=elsewhere).stdout
    )
    assert report["added"] == 19 and report["errors"] == []

    other = tmp_path / "other"
    other.mkdir()
    answer = json.loads(
        _run(
            [paperchat, "--data-dir", data, "ask", "--json", "How does Qronos reduce error?"],
            cwd=other,
        ).stdout
    )
    assert not answer["refused"] and not answer["error"]
    assert answer["citations"] and "Qronos" in answer["citations"][0]["title"]
