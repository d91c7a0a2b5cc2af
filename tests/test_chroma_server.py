"""Server mode: the same index through HttpClient against a real `chroma run`."""

from __future__ import annotations

import json
import socket
import time
import uuid
from pathlib import Path

import pytest
from conftest import MakeSettings, run_cli

from eval.procs import free_port
from rag.retrieval.hybrid import HybridRetriever, KeywordIndex
from rag.settings import Settings
from rag.store.chroma import IndexUnavailableError, chroma_client
from rag.store.embeddings import CachedEmbedder
from rag.store.index import PaperIndex
from rag.store.loaders import load_paths

QUERIES = [
    "Qronos",
    "post-training quantization of language models",
    "safe exploration in reinforcement learning",
    "how do neurons represent information",
]


def server_settings(
    make_settings: MakeSettings, server: tuple[str, int], data_dir: Path | None = None
) -> Settings:
    # A collection prefix per test: the server outlives each test.
    prefix = f"t{uuid.uuid4().hex[:12]}"
    host, port = server
    return make_settings(
        data_dir=data_dir, chroma={"host": host, "port": port, "collection": prefix}
    )


@pytest.mark.slow
def test_server_mode_matches_embedded_mode(
    chroma_server: tuple[str, int],
    make_settings: MakeSettings,
    embedder: CachedEmbedder,
    sample_path: Path,
    sample_data_dir: Path,
) -> None:
    settings = server_settings(make_settings, chroma_server)
    server = PaperIndex(settings, embedder)
    report = server.ingest(load_paths([sample_path]).papers)
    assert report.added == 19
    stats = server.stats()
    assert stats["chroma"] == "server" and stats["papers"] == 19

    embedded_settings = make_settings(data_dir=sample_data_dir)
    embedded = PaperIndex(embedded_settings, embedder)
    assert stats["chunks"] == embedded.stats()["chunks"]
    via_server = HybridRetriever(server, embedder, KeywordIndex(server), settings)
    via_disk = HybridRetriever(embedded, embedder, KeywordIndex(embedded), embedded_settings)
    for query in QUERIES:
        a = via_server.search(query, k=5)
        b = via_disk.search(query, k=5)
        assert [h.paper.id for h in a] == [h.paper.id for h in b], query
        assert [h.score for h in a] == pytest.approx([h.score for h in b], abs=1e-6)
        assert [h.dense for h in a] == pytest.approx([h.dense for h in b], abs=1e-4)
    assert via_server.search("Qronos", k=1)[0].paper.abstract.startswith("We introduce Qronos")


@pytest.mark.slow
def test_server_readers_see_other_clients_writes(
    chroma_server: tuple[str, int],
    make_settings: MakeSettings,
    embedder: CachedEmbedder,
    sample_path: Path,
) -> None:
    settings = server_settings(make_settings, chroma_server)
    papers = load_paths([sample_path]).papers
    writer = PaperIndex(settings, embedder)
    reader = PaperIndex(settings, embedder)
    writer.ingest(papers[:10])
    assert len(reader.catalog()) == 10
    before = reader.revision()
    writer.ingest(papers, prune=True)
    assert len(reader.catalog()) == 19
    assert reader.revision() != before


@pytest.mark.slow
def test_cli_against_the_server(
    chroma_server: tuple[str, int], make_settings: MakeSettings, sample_path: Path, tmp_path: Path
) -> None:
    settings = server_settings(make_settings, chroma_server)
    host, port = chroma_server
    env = {
        "PAPERCHAT_CHROMA__HOST": host,
        "PAPERCHAT_CHROMA__PORT": str(port),
        "PAPERCHAT_CHROMA__COLLECTION": settings.chroma.collection,
        "PAPERCHAT_DATA_DIR": str(tmp_path / "data"),
    }
    done = run_cli("ingest", "--json", sample_path, cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["added"] == 19
    done = run_cli("stats", "--json", cwd=tmp_path, env=env)
    stats = json.loads(done.stdout)
    assert stats["chroma"] == "server" and stats["papers"] == 19
    assert stats["collection"].startswith(settings.chroma.collection)
    # Nothing was written to an embedded index on the local disk.
    assert not (tmp_path / "data" / "chroma").exists()


def test_unreachable_server_is_a_clear_error(
    make_settings: MakeSettings, embedder: CachedEmbedder
) -> None:
    port = free_port()
    settings = make_settings(chroma={"host": "127.0.0.1", "port": port, "timeout": 2})
    with pytest.raises(IndexUnavailableError) as info:
        PaperIndex(settings, embedder).stats()
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message and "chroma run" in message


def test_silent_server_times_out_with_a_clear_error(
    make_settings: MakeSettings, embedder: CachedEmbedder
) -> None:
    # Accepts TCP connections and never answers: a frozen or partitioned host.
    with socket.socket() as hole:
        hole.bind(("127.0.0.1", 0))
        hole.listen(16)
        port = hole.getsockname()[1]
        settings = make_settings(chroma={"host": "127.0.0.1", "port": port, "timeout": 0.5})
        started = time.monotonic()
        with pytest.raises(IndexUnavailableError, match="did not answer within 0.5 s"):
            PaperIndex(settings, embedder).stats()
        assert time.monotonic() - started < 5


def test_requests_after_connecting_are_bounded_by_the_timeout(
    chroma_server: tuple[str, int], make_settings: MakeSettings
) -> None:
    host, port = chroma_server
    client = chroma_client(make_settings(chroma={"host": host, "port": port, "timeout": 3}))
    session = client._server._session  # type: ignore[attr-defined]
    assert session.timeout.read == 3 and session.timeout.connect == 3


@pytest.mark.slow
def test_cli_reports_unreachable_server_with_exit_2(tmp_path: Path) -> None:
    env = {"PAPERCHAT_CHROMA__HOST": "127.0.0.1", "PAPERCHAT_CHROMA__PORT": str(free_port())}
    done = run_cli("stats", "--json", "--data-dir", tmp_path / "d", cwd=tmp_path, env=env)
    assert done.returncode == 2
    assert "Index unavailable" in done.stderr and "Traceback" not in done.stderr
