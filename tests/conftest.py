"""Shared fixtures: paths, isolated settings, one ONNX model, a sample index, servers."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from openai_server import FakeOpenAIServer

from eval.procs import CHROMA_BIN, ChromaServer, free_port, stop_process  # noqa: F401 (re-exported)
from rag.app.pipeline import Pipeline
from rag.cues import Cues
from rag.lexicon import Lexicon, load_lexicon
from rag.protocols import Progress
from rag.questions.router import Router, router_for
from rag.settings import Settings
from rag.store.embeddings import CachedEmbedder, LocalEmbedder
from rag.store.index import PaperIndex
from rag.store.loaders import load_paths

REPO_ROOT = Path(__file__).resolve().parents[1]
# Read before any test runs: the autouse fixture below removes PAPERCHAT_* variables.
_SHARED_ENV = os.environ.get("PAPERCHAT_SHARED_DATA")
CORPUS_NAME = "iclr2026_accepted.jsonl"

MakeSettings = Callable[..., Settings]


# -- environment -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's PAPERCHAT_*/OPENAI_* variables (and keys) out of every test."""
    for name in list(os.environ):
        if name.startswith(("PAPERCHAT_", "OPENAI_")):
            monkeypatch.delenv(name, raising=False)
    # Chroma and Gradio must never phone home from tests.
    monkeypatch.setenv("ANONYMIZED_TELEMETRY", "False")
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")


# -- paths -------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's root directory."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def sample_path(repo_root: Path) -> Path:
    """The 19-abstract seed corpus that ships with the project."""
    return repo_root / "data" / "iclr2026_seed_abstracts.txt"


@pytest.fixture(scope="session")
def shared_data(repo_root: Path) -> Path | None:
    """`../shared/data` (or $PAPERCHAT_SHARED_DATA); None when the directory is absent."""
    path = Path(_SHARED_ENV) if _SHARED_ENV else repo_root.parent / "shared" / "data"
    return path if path.is_dir() else None


@pytest.fixture
def corpus_path(shared_data: Path | None) -> Path:
    """The 4,302-paper JSONL; skips the test when it is not available."""
    if shared_data is None or not (shared_data / CORPUS_NAME).is_file():
        pytest.skip(f"{CORPUS_NAME} not available (set PAPERCHAT_SHARED_DATA)")
    return shared_data / CORPUS_NAME


# -- settings ----------------------------------------------------------------------------------


def build_settings(data_dir: Path, **overrides: Any) -> Settings:
    """Settings for data_dir that ignore any `.env` file; overrides use field names."""
    return Settings(_env_file=None, data_dir=data_dir, **overrides)  # type: ignore[call-arg]


def pipeline_over(
    root: Path, papers: Sequence[dict[str, object]], embedder: CachedEmbedder
) -> Pipeline:
    """A pipeline over an index of these papers (JSONL records), every one of them ingested."""
    path = root / "papers.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in papers) + "\n")
    pipe = Pipeline(build_settings(root / "data"), embedder=embedder)
    _, report = pipe.ingest([path])
    assert report.added == len(papers) and not report.errors
    return pipe


@pytest.fixture
def make_settings(tmp_path: Path) -> MakeSettings:
    """Factory: `make_settings(data_dir=None, **overrides)`; data_dir defaults to tmp/data."""

    def make(data_dir: Path | None = None, **overrides: Any) -> Settings:
        return build_settings(data_dir or tmp_path / "data", **overrides)

    return make


# -- embeddings --------------------------------------------------------------------------------


class CountingEmbedder:
    """Wraps a real embedder and records every text it is asked to embed (a fake at the edge)."""

    def __init__(self, inner: Any, fail_after: int | None = None) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache_key = getattr(inner, "cache_key", inner.name)
        self.texts: list[str] = []
        self.calls = 0
        # Raise once this many texts have been embedded, like a crash or Ctrl-C mid-ingest.
        self.fail_after = fail_after

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Embed through the inner model, counting texts; raise when the budget runs out."""
        self.calls += 1
        if self.fail_after is not None and len(self.texts) + len(texts) > self.fail_after:
            raise SimulatedCrash(f"simulated crash after {len(self.texts)} texts")
        self.texts.extend(texts)
        return self.inner.embed(texts, progress)

    def embed_query(self, text: str) -> np.ndarray:
        """A query vector from the inner model (not counted: ingest counts passages)."""
        return self.inner.embed_query(text)


class SimulatedCrash(RuntimeError):
    """Raised by CountingEmbedder to interrupt an ingest."""


@pytest.fixture(scope="session")
def local_model() -> LocalEmbedder:
    """The bundled ONNX MiniLM, loaded once per session (wrap it, don't mutate it)."""
    model = LocalEmbedder()
    model.embed(["load the model once"])
    return model


@pytest.fixture(scope="session")
def embedder(local_model: LocalEmbedder) -> CachedEmbedder:
    """A memory-cached embedder over the session's model: repeated texts cost nothing."""
    return CachedEmbedder(local_model, None, memory_items=50_000)


@pytest.fixture
def counting(embedder: CachedEmbedder) -> Callable[..., CountingEmbedder]:
    """Factory: `counting(fail_after=None)` → a fresh CountingEmbedder over the session model.

    It counts every text the code under test asks to embed; the vectors come from the shared
    session `embedder`, so repeated texts cost no model time.
    """
    return lambda fail_after=None: CountingEmbedder(embedder, fail_after)


# -- a sample index, built once ----------------------------------------------------------------


@pytest.fixture(scope="session")
def sample_index_dir(
    tmp_path_factory: pytest.TempPathFactory, sample_path: Path, embedder: CachedEmbedder
) -> Path:
    """Data dir holding the 19 sample papers (default settings). Read-only: copy to modify."""
    data_dir = tmp_path_factory.mktemp("sample-index") / "data"
    settings = build_settings(data_dir)
    index = PaperIndex(settings, embedder)
    index.ingest(load_paths([sample_path]).papers)
    # Release Chroma's handles so copies of the directory are taken from a quiet database.
    index.client.close()
    return data_dir


@pytest.fixture(scope="session")
def collection_index_dir(
    tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder
) -> Path:
    """Data dir holding tests/fixtures/collection.jsonl: 28 ICLR 2026 papers with areas,
    decisions and keywords (10 on graph neural networks). Read-only: copy to modify."""
    data_dir = tmp_path_factory.mktemp("collection-index") / "data"
    index = PaperIndex(build_settings(data_dir), embedder)
    index.ingest(load_paths([REPO_ROOT / "tests" / "fixtures" / "collection.jsonl"]).papers)
    index.client.close()
    return data_dir


@pytest.fixture
def sample_data_dir(sample_index_dir: Path, tmp_path: Path) -> Path:
    """A private, writable copy of the sample index's data dir."""
    target = tmp_path / "sample-data"
    shutil.copytree(sample_index_dir, target)
    return target


# -- servers -----------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A real `chroma run` on a free loopback port for the session; yields (host, port)."""
    if not CHROMA_BIN.is_file():
        pytest.skip(f"{CHROMA_BIN} not found (pip install chromadb)")
    server = ChromaServer(tmp_path_factory.mktemp("chroma-server")).start()
    try:
        yield server.host, server.port
    finally:
        server.stop()


@pytest.fixture
def openai_server() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI-protocol server on loopback (no key required; set `.api_key` to require)."""
    server = FakeOpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()


# -- the CLI -----------------------------------------------------------------------------------


def run_cli(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run `python -m rag ARGS` in a subprocess (cwd keeps any repo `.env` out of reach)."""
    return subprocess.run(
        [sys.executable, "-m", "rag", *map(str, args)],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def lexicon() -> Lexicon:
    """The shipped lexicon, loaded once."""
    return load_lexicon()


@pytest.fixture(scope="session")
def cues(lexicon: Lexicon) -> Cues:
    """The shipped lexicon's sentence cues, compiled once."""
    return Cues(lexicon)


@pytest.fixture(scope="session")
def router(embedder: CachedEmbedder) -> Router:
    """The shipped router on the session's embedder."""
    return router_for(embedder)
