"""Reliability under faults, hostile input and misuse: real processes, a real Chroma, loopback only.

Issue 6. Every scenario here drives the code the way production would hit it: `python -m rag`
subprocesses killed with SIGKILL, a `chroma run` server stopped and restarted under a live
Pipeline, a fake OpenAI server scripted to fail, and files built to break the loaders.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import build_settings, run_cli
from openai_server import Behavior, FakeOpenAIServer, structured_schema

from eval.procs import App, ChromaServer, free_port
from rag.app.pipeline import Pipeline
from rag.models import Conversation, Paper
from rag.settings import Settings
from rag.store.chroma import IndexBusyError, IndexUnavailableError, collection_name
from rag.store.chunking import chunk_paper
from rag.store.embeddings import CachedEmbedder
from rag.store.index import PaperIndex
from rag.store.loaders import MAX_FILE_BYTES, SUPPORTED_SUFFIXES, load_paths

HOSTILE = Path(__file__).resolve().parent / "hostile"
SECRET = "sk-test-SECRET123"
QUESTION = "Which paper proposes sharpness-aware policy optimization for safe exploration?"
SHAPO_TITLE_WORD = "SHAPO"

# -- shared helpers ----------------------------------------------------------------------------


def replicate_corpus(sample: Path, out: Path, n: int, start: int = 0) -> list[Paper]:
    """Write n distinct papers (the sample's abstracts, each made unique) to a JSONL file."""
    base = load_paths([sample]).papers
    with out.open("w", encoding="utf-8") as fh:
        for i in range(start, start + n):
            p = base[i % len(base)]
            record = {
                "id": f"rep-{i:05d}",
                "title": f"{p.title} (replica {i})",
                # A distinct closing sentence gives each replica its own content key.
                "abstract": f"{p.abstract} This replica number {i} exists for reliability tests.",
            }
            fh.write(json.dumps(record) + "\n")
    return load_paths([out]).papers


def expected_chunks(papers: list[Paper], settings: Settings) -> dict[str, str]:
    """chunk id -> paper id of every chunk a complete ingest of these papers stores."""
    return {c.id: p.id for p in papers for c in chunk_paper(p, settings.chunking)}


# Runs in a fresh interpreter so no Chroma client of the test process caches a stale view.
_PROBE = """
import json, sys
from rag.store.chroma import chroma_client, collection_name
from rag.settings import Settings
s = Settings(data_dir=sys.argv[1])
c = chroma_client(s)
name = collection_name(s)
chunks = c.get_collection(name, embedding_function=None).get(include=["metadatas", "documents"])
papers = c.get_collection(name + ".papers", embedding_function=None).get(include=["metadatas"])
print(json.dumps({
    "chunks": [[i, m["paper_id"]] for i, m in zip(chunks["ids"], chunks["metadatas"])],
    "texts": dict(zip(chunks["ids"], chunks["documents"])),
    "papers": {m["paper_id"]: m["status"] for m in papers["metadatas"]},
}))
"""


def probe(data_dir: Path, env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """Chunks (id, paper_id) and paper statuses stored under data_dir, read by a new process."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(data_dir)],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def assert_consistent(state: dict[str, Any], papers: list[Paper], settings: Settings) -> None:
    """Every paper ready with exactly its chunks: no duplicates, no orphans, nothing missing."""
    want = expected_chunks(papers, settings)
    ids = [cid for cid, _ in state["chunks"]]
    assert len(ids) == len(set(ids)), "duplicate chunk ids"
    assert state["papers"] == {p.id: "ready" for p in papers}
    orphans = [cid for cid, pid in state["chunks"] if state["papers"].get(pid) != "ready"]
    assert not orphans, f"{len(orphans)} chunks without a ready paper, e.g. {orphans[:3]}"
    assert dict(state["chunks"]) == want
    assert len(ids) == sum(len(chunk_paper(p, settings.chunking)) for p in papers)


class Proc:
    """A subprocess whose stderr is read by a thread, each piece stamped with its arrival time."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.popen = subprocess.Popen(
            args,
            cwd=cwd,
            env={**os.environ, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[tuple[float, str]] = []
        self._out: list[str] = []
        self.ended: float | None = None
        self._readers = [
            threading.Thread(target=self._read, daemon=True),
            threading.Thread(target=self._read_stdout, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self) -> None:
        assert self.popen.stderr is not None
        buf = ""
        while chunk := self.popen.stderr.read(1):
            buf += chunk
            if chunk in "\r\n":
                self.lines.append((time.monotonic(), buf))
                buf = ""
        if buf:
            self.lines.append((time.monotonic(), buf))

    def _read_stdout(self) -> None:
        assert self.popen.stdout is not None
        self._out.append(self.popen.stdout.read())

    def _join(self) -> None:
        for reader in self._readers:
            reader.join(timeout=5)

    def first(self, needle: str) -> float | None:
        """Arrival time of the first stderr piece containing needle."""
        return next((t for t, line in list(self.lines) if needle in line), None)

    def wait_for(self, needle: str, timeout: float) -> float:
        """Block until needle appears on stderr; fail if the process ends or time runs out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (t := self.first(needle)) is not None:
                return t
            if self.popen.poll() is not None:
                self._join()
                if (t := self.first(needle)) is not None:
                    return t
                pytest.fail(
                    f"process exited ({self.popen.returncode}) before {needle!r}:\n"
                    + self.stderr[-2000:]
                )
            time.sleep(0.01)
        self.kill()
        pytest.fail(f"{needle!r} not seen within {timeout:.0f} s:\n{self.stderr[-2000:]}")

    def finish(self, timeout: float) -> int:
        """Wait for the exit code (killing the process if it overruns)."""
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        self.ended = time.monotonic()
        self._join()
        return self.popen.returncode

    def kill(self) -> None:
        """SIGKILL: no cleanup handler, no flush, like a power cut or the OOM killer."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(timeout=30)
        self.ended = time.monotonic()

    @property
    def stdout(self) -> str:
        """Everything read from stdout (complete once the process has ended)."""
        return "".join(self._out)

    @property
    def stderr(self) -> str:
        """Everything read from stderr so far."""
        return "".join(line for _, line in self.lines)


def ingest_env(server: FakeOpenAIServer) -> dict[str, str]:
    """Environment for CLI ingests that embed through the fake server (fast, deterministic)."""
    return {
        "PAPERCHAT_EMBEDDING__PROVIDER": "openai",
        "PAPERCHAT_EMBEDDING__MODEL": "fake-embed",
        "PAPERCHAT_EMBEDDING__BATCH_SIZE": "256",
        "OPENAI_BASE_URL": server.base_url,
    }


def fake_embed_settings(data_dir: Path, server: FakeOpenAIServer, **kw: Any) -> Settings:
    """In-process settings matching ingest_env."""
    return build_settings(
        data_dir,
        embedding={"provider": "openai", "model": "fake-embed", "batch_size": 256},
        openai_base_url=server.base_url,
        **kw,
    )


def ingest_cmd(*paths: Path, data_dir: Path) -> list[str]:
    """argv of `python -m rag ingest`."""
    return [sys.executable, "-m", "rag", "ingest", *map(str, paths), "--data-dir", str(data_dir)]


@pytest.fixture
def fake_embed_server() -> Iterator[FakeOpenAIServer]:
    """A fake OpenAI server used only for embeddings."""
    with FakeOpenAIServer() as server:
        yield server


# -- 1. ingest killed midway -------------------------------------------------------------------


@pytest.mark.slow
def test_sigkill_midway_then_rerun_leaves_a_consistent_complete_index(
    tmp_path: Path, sample_path: Path, fake_embed_server: FakeOpenAIServer, record_property: Any
) -> None:
    corpus = tmp_path / "corpus.jsonl"
    papers = replicate_corpus(sample_path, corpus, 600)
    data = tmp_path / "data"
    env = ingest_env(fake_embed_server)
    settings = fake_embed_settings(data, fake_embed_server)
    # Slow every embedding call a little, so the run spans several seconds after batch one.
    fake_embed_server.queue(*[Behavior(delay=0.15)] * 400, kind="embeddings")

    first = Proc(ingest_cmd(corpus, data_dir=data), tmp_path, env)
    # The "write" bar appears once the first batch of papers is stored.
    first.wait_for("ingest write", timeout=180)
    first.kill()
    assert first.popen.returncode == -signal.SIGKILL

    mid = probe(data, env, tmp_path)
    ready = {pid for pid, st in mid["papers"].items() if st == "ready"}
    assert 0 < len(ready) < len(papers), "the kill must land midway"
    # Even mid-crash: no chunk without a paper record, and ready papers are complete.
    assert all(pid in mid["papers"] for _, pid in mid["chunks"])
    want = expected_chunks([p for p in papers if p.id in ready], settings)
    got_ready = {cid: pid for cid, pid in mid["chunks"] if pid in ready}
    assert got_ready == want

    fake_embed_server.reset()
    again = run_cli(
        "ingest", corpus, "--data-dir", data, "--json", cwd=tmp_path, env=env, timeout=300
    )
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads(again.stdout)
    # The re-run skips what was finished and does the rest, including half-written papers.
    assert report["unchanged"] == len(ready)
    assert report["added"] == len(papers) - len(ready)
    assert_consistent(probe(data, env, tmp_path), papers, settings)

    fake_embed_server.reset()
    third = run_cli("ingest", corpus, "--data-dir", data, "--json", cwd=tmp_path, env=env)
    assert json.loads(third.stdout)["unchanged"] == len(papers)
    assert not fake_embed_server.requests_to("/embeddings"), "a finished index re-embedded"
    chunks = len(expected_chunks(papers, settings))
    record_property(
        "summary",
        f"killed with {len(ready)}/{len(papers)} papers ready; re-run added "
        f"{report['added']}; {chunks} chunks, 0 duplicates, 0 orphans",
    )


@pytest.mark.slow
def test_sigkill_while_replacing_changed_papers_leaves_no_stale_chunks(
    tmp_path: Path, sample_path: Path, fake_embed_server: FakeOpenAIServer, record_property: Any
) -> None:
    base = load_paths([sample_path]).papers
    v1 = replicate_corpus(sample_path, tmp_path / "v1.jsonl", 300)
    data = tmp_path / "data"
    env = ingest_env(fake_embed_server)
    settings = fake_embed_settings(data, fake_embed_server)
    assert (
        run_cli(
            "ingest", tmp_path / "v1.jsonl", "--data-dir", data, cwd=tmp_path, env=env
        ).returncode
        == 0
    )
    # Version 2 keeps every id but shortens each abstract: papers that needed several windows
    # lose chunks, so any chunk left over from version 1 shows up as a stale id.
    v2_file = tmp_path / "v2.jsonl"
    with v2_file.open("w", encoding="utf-8") as fh:
        for i in range(300):
            sentences = re.split(r"(?<=\.)\s+", base[i % len(base)].abstract)
            abstract = f"Revision {i} of this study. " + " ".join(sentences[:3])
            fh.write(
                json.dumps({"id": f"rep-{i:05d}", "title": f"Revised {i}", "abstract": abstract})
                + "\n"
            )
    v2 = load_paths([v2_file]).papers
    assert {p.id for p in v2} == {p.id for p in v1}
    assert len(expected_chunks(v2, settings)) < len(expected_chunks(v1, settings))

    fake_embed_server.queue(*[Behavior(delay=0.3)] * 200, kind="embeddings")
    run = Proc(ingest_cmd(v2_file, data_dir=data), tmp_path, env)
    run.wait_for("ingest write", timeout=180)
    run.kill()
    mid = probe(data, env, tmp_path)
    fresh = {p.id: chunk_paper(p, settings.chunking) for p in v2}
    # Done = ready with version 2's chunks. Ids alone cannot tell: a paper that fits one window
    # keeps the id of its only chunk across versions, so the stored text decides.
    done = [
        pid
        for pid, st in mid["papers"].items()
        if st == "ready"
        and {c: mid["texts"][c] for c, owner in mid["chunks"] if owner == pid}
        == {c.id: c.text for c in fresh[pid]}
    ]
    assert 0 < len(done) < len(v2), "the kill must land midway through the rewrite"

    fake_embed_server.reset()
    again = run_cli("ingest", v2_file, "--data-dir", data, "--json", cwd=tmp_path, env=env)
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads(again.stdout)
    assert report["unchanged"] == len(done)
    assert report["unchanged"] + report["updated"] + report["added"] == len(v2)
    final = probe(data, env, tmp_path)
    assert_consistent(final, v2, settings)
    stale = set(expected_chunks(v1, settings)) - set(expected_chunks(v2, settings))
    assert not stale & {cid for cid, _ in final["chunks"]}
    record_property(
        "summary",
        f"rewrite killed with {len(done)}/{len(v2)} replaced; re-run finished, "
        f"{len(stale)} stale chunk ids gone",
    )


# -- 4. two ingests at once --------------------------------------------------------------------


def test_second_writer_is_refused_clearly_and_changes_nothing(
    sample_data_dir: Path,
    embedder: CachedEmbedder,
    tmp_path: Path,
    sample_path: Path,
    record_property: Any,
) -> None:
    settings = build_settings(sample_data_dir)
    holder = PaperIndex(settings, embedder)
    other = PaperIndex(settings, embedder, client=holder.client)
    extra = replicate_corpus(sample_path, tmp_path / "extra.jsonl", 3, start=9000)
    before = set(holder.catalog())
    with holder.writing():
        t0 = time.monotonic()
        with pytest.raises(IndexBusyError, match=r"Another ingest is writing .*Try again"):
            other.ingest(extra, wait=0.5)
        assert 0.4 < time.monotonic() - t0 < 5
    assert set(other.catalog()) == before
    # Once the lock is free the same call goes through.
    report = other.ingest(extra, wait=0.5)
    assert report.added == 3 and set(other.catalog()) == before | {p.id for p in extra}
    record_property("summary", "in-process: IndexBusyError after the wait, nothing written")


def holds_open(pid: int, path: Path) -> bool:
    """Whether process pid has path open (it has entered the ingest lock: waiting or holding)."""
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if Path(os.readlink(fd)) == path:
                return True
        except OSError:
            continue
    return False


def wait_holds_open(proc: Proc, path: Path, timeout: float) -> None:
    """Block until proc has the lock file open."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.popen.poll() is None, proc.stderr[-2000:]
        if holds_open(proc.popen.pid, path):
            return
        time.sleep(0.05)
    pytest.fail(f"process never opened {path}")


@pytest.mark.slow
def test_two_ingest_processes_at_once_one_is_refused_one_waits_none_corrupts(
    tmp_path: Path, sample_path: Path, fake_embed_server: FakeOpenAIServer, record_property: Any
) -> None:
    a_papers = replicate_corpus(sample_path, tmp_path / "a.jsonl", 300)
    b_papers = replicate_corpus(sample_path, tmp_path / "b.jsonl", 40, start=5000)
    data = tmp_path / "data"
    env = ingest_env(fake_embed_server)
    settings = fake_embed_settings(data, fake_embed_server)
    lock = (data / f"{collection_name(settings)}.lock").resolve()

    a = Proc(ingest_cmd(tmp_path / "a.jsonl", data_dir=data), tmp_path, env)
    a.wait_for("ingest write", timeout=180)
    # Freeze A while it holds the lock, mid-ingest: a slow ingest, seen from outside.
    a.popen.send_signal(signal.SIGSTOP)
    try:
        refused = Proc(ingest_cmd(tmp_path / "b.jsonl", data_dir=data), tmp_path, env)
        wait_holds_open(refused, lock, timeout=120)
        # The CLI waits 30 s for the lock, then gives up with a message naming the cause.
        assert refused.finish(timeout=120) == 2
        assert re.search(r"Another ingest is writing .*Try again", refused.stderr)
        assert "Traceback" not in refused.stderr

        waiter = Proc(ingest_cmd(tmp_path / "b.jsonl", data_dir=data), tmp_path, env)
        wait_holds_open(waiter, lock, timeout=120)
    finally:
        a.popen.send_signal(signal.SIGCONT)
    assert a.finish(timeout=300) == 0, a.stderr[-2000:]
    assert waiter.finish(timeout=300) == 0, waiter.stderr[-2000:]
    a_done = a.first(f" {len(a_papers)}/{len(a_papers)} ")  # A's last write, before it unlocks
    b_started = waiter.first("ingest embed")
    assert a_done is not None and b_started is not None
    assert b_started >= a_done, "B started writing while A held the lock"
    assert "added 40" in waiter.stdout
    assert_consistent(probe(data, env, tmp_path), a_papers + b_papers, settings)
    record_property(
        "summary",
        f"CLI refused after its 30 s wait (exit 2); a waiter landed after the holder; "
        f"{len(a_papers) + len(b_papers)} papers consistent",
    )


# -- 2. Chroma server lost while the app runs --------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["stopped", "crashed"])
def test_lost_chroma_server_gives_clear_message_then_same_pipeline_recovers(
    tmp_path: Path, sample_path: Path, embedder: CachedEmbedder, sig: int, record_property: Any
) -> None:
    server = ChromaServer(tmp_path / "chroma").start()
    try:
        settings = build_settings(
            tmp_path / "data", chroma={"host": "127.0.0.1", "port": server.port}
        )
        pipe = Pipeline(settings, embedder=embedder)
        pipe.ingest([sample_path])
        conversation = Conversation()
        first = pipe.ask(QUESTION, conversation)
        assert not first.error and SHAPO_TITLE_WORD in first.citations[0].title

        server.stop(sig)
        t0 = time.monotonic()
        down = pipe.ask(QUESTION, conversation)
        assert down.error.startswith("Index unavailable"), down.error
        assert f"127.0.0.1:{server.port}" in down.error and "chroma run" in down.error
        took = time.monotonic() - t0
        assert took < 15, "the user waited too long for the message"
        with pytest.raises(IndexUnavailableError):
            pipe.search(QUESTION)
        with pytest.raises(IndexUnavailableError):
            pipe.stats()

        server.start()  # same port, same path
        back = pipe.ask(QUESTION, conversation)
        assert not back.error
        assert back.text == first.text
        # Only answered turns join the history: the outage left no hole in it.
        assert [t.answer.text for t in conversation.turns] == [first.text, back.text]
        assert pipe.stats()["papers"] == 19
        name = signal.Signals(sig).name
        record_property("summary", f"{name}: message in {took:.2f} s; same Pipeline recovered")
    finally:
        server.stop()


# -- 3. model server faults: clear message, retry where sensible, the conversation goes on -------


def _fake_model(body: dict[str, Any]) -> str:
    """Answers like a well-behaved model: the first sentence of source 1, cited."""
    text = body["messages"][-1]["content"]
    if text.startswith("Rewrite the user's last message"):
        last = text.split("Last message:", 1)[1].split("Standalone question:", 1)[0].strip()
        cited = re.findall(r"\[\d+\] ([^;\n)]+)", text)
        return f"{last} ({cited[0]})" if cited else last
    abstract = re.search(r'<source n="1">\s*Title: .*?\nAbstract: (.*?)\n</source>', text, re.S)
    assert abstract, "no source 1 in the prompt"
    first = re.split(r"(?<=\.)\s+", abstract.group(1))[0]
    return f"{first} [1]"


def test_model_faults_give_clear_messages_and_the_conversation_continues(
    sample_data_dir: Path,
    embedder: CachedEmbedder,
    openai_server: FakeOpenAIServer,
    record_property: Any,
) -> None:
    openai_server.default_responder = _fake_model
    settings = build_settings(
        sample_data_dir,
        openai_base_url=openai_server.base_url,
        llm={"provider": "openai", "model": "fake-chat", "max_retries": 1, "timeout": 1.0},
    )
    pipe = Pipeline(settings, embedder=embedder)
    conv = Conversation()
    chat = "/chat/completions"

    def turn(question: str) -> Any:
        """The answer, its condense/answer requests (the model's plan request apart), seconds."""
        before = len(openai_server.requests_to(chat))
        t0 = time.monotonic()
        answer = pipe.ask(question, conv)
        took = time.monotonic() - t0
        sent = [r.body for r in openai_server.requests_to(chat)[before:]]
        assert sum(structured_schema(b) is not None for b in sent) == 1, "one plan per question"
        return answer, sum(structured_schema(b) is None for b in sent), took

    ok, _, _ = turn(QUESTION)
    assert not ok.error and ok.mode == "model" and SHAPO_TITLE_WORD in ok.citations[0].title

    # 429 on every attempt: one retry (max_retries=1), then a message saying so.
    openai_server.queue(Behavior(), Behavior(status=429), Behavior(status=429))
    limited, calls, _ = turn("Which tasks is it evaluated on?")
    assert "rate-limited (429)" in limited.error and calls == 3  # condense + 2 answer attempts

    after, _, _ = turn("Which tasks is it evaluated on?")
    assert not after.error and after.citations
    # The follow-up was resolved from the earlier good turn: the context survived the failure.
    condense = openai_server.requests_to(chat)[-2].body["messages"][-1]["content"]
    assert ok.citations[0].title in condense

    # A single 500 is retried transparently: the user sees an answer, not an error.
    openai_server.queue(Behavior(), Behavior(status=500))
    retried, calls, _ = turn("What does it improve?")
    assert not retried.error and retried.citations and calls == 3

    # A stuck server: timeouts end in a clear message within (retries + 1) x timeout + backoff.
    openai_server.queue(Behavior(), Behavior(delay=3.0), Behavior(delay=3.0))
    slow, _, took = turn("What does it improve?")
    assert "timed out" in slow.error and took < 8

    # The stream is cut after a few words: the answer is marked incomplete, with a message.
    openai_server.queue(Behavior(), Behavior(drop_after=3))
    dropped, _, _ = turn("What does it improve?")
    assert "midway" in dropped.error and dropped.complete is False

    final, _, _ = turn("Which paper proposes sharpness-aware policy optimization?")
    assert not final.error and SHAPO_TITLE_WORD in final.citations[0].title
    # Failed turns stay out of the history, so follow-ups resolve against real answers.
    assert [t.answer for t in conv.turns] == [ok, after, retried, final]
    for message in (limited.error, slow.error, dropped.error):
        assert "Traceback" not in message and "http" not in message.lower()
    record_property(
        "summary",
        f"429, timeout ({took:.1f} s), drop: messages; 500 retried; {len(conv.turns)} turns, "
        "follow-ups resolved after each fault",
    )


# -- 5. hostile input --------------------------------------------------------------------------

GOOD_ABSTRACT = (
    "We study a robust retrieval method for research abstracts that keeps working under hostile "
    "input, and we show that it rejects malformed files while keeping valid records intact."
)


def _committed(name: str) -> Any:
    def build(tmp: Path) -> Path:
        return Path(shutil.copy(HOSTILE / name, tmp / name))

    return build


def _jsonl(name: str, **fields: Any) -> Any:
    def build(tmp: Path) -> Path:
        path = tmp / name
        path.write_text(json.dumps({"id": "hostile-x", **fields}) + "\n", encoding="utf-8")
        return path

    return build


def _zip_bomb(name: str) -> Any:
    """A ~200 KB archive that inflates to 200 MB: opening it would be the bug."""

    def build(tmp: Path) -> Path:
        path = tmp / name
        zero = b"\0" * (1 << 20)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("p.jsonl", "w") as fh:
            for _ in range(200):
                fh.write(zero)
        return path

    return build


def _sparse(name: str, size: int) -> Any:
    """A file that reports `size` bytes without using the disk (a sparse file)."""

    def build(tmp: Path) -> Path:
        path = tmp / name
        with path.open("wb") as fh:
            fh.write(b'{"abstract": "')
            fh.truncate(size)
        return path

    return build


def _deep_json(tmp: Path) -> Path:
    path = tmp / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    return path


# name -> (builder, the message the user must see). Every case is rejected with nothing stored.
HOSTILE_REJECTED: dict[str, tuple[Any, str]] = {
    "binary": (_committed("binary.jsonl"), r"not a text file \(contains NUL bytes\)"),
    "png-as-csv": (_committed("image.csv"), r"not a text file \(contains NUL bytes\)"),
    "truncated-json": (_committed("truncated.json"), r"invalid JSON: Unterminated string"),
    "truncated-jsonl": (_committed("truncated.jsonl"), r"invalid JSON: Unterminated string"),
    "utf16-bom": (_committed("utf16_bom.txt"), r"UTF-16; save it as UTF-8"),
    "utf16-no-bom": (_committed("utf16_nobom.jsonl"), r"not a text file"),
    "latin1": (_committed("latin1.csv"), r"not valid UTF-8 at byte \d+"),
    "wrong-shape": (_committed("wrong_shape.json"), r"expected an array of objects"),
    "empty": (_committed("empty.jsonl"), r"file is empty"),
    "bad-fields": (_committed("bad_fields.jsonl"), r"must be text, got number"),
    "zip": (_committed("archive.zip"), r"unsupported file type '\.zip'"),
    "zip-bomb": (_zip_bomb("bomb.zip"), r"unsupported file type '\.zip'"),
    "zip-bomb-as-jsonl": (_zip_bomb("bomb.jsonl"), r"not a text file|invalid JSON|not valid UTF"),
    "deep-nesting": (_deep_json, r"invalid JSON"),
    "giant-abstract": (
        _jsonl("giant.jsonl", title="Giant", abstract=GOOD_ABSTRACT + " x" * 50_000),
        r"abstract too long \(\d+ chars, maximum \d+\)",
    ),
    "giant-id": (
        _jsonl("giant-id.jsonl", id="i" * 1_000_000, abstract=GOOD_ABSTRACT),
        r"field 'id' too long",
    ),
    "giant-title": (
        _jsonl("giant-title.jsonl", title="T" * 1_000_000, abstract=GOOD_ABSTRACT),
        r"title too long \(\d+ chars, maximum \d+\)",
    ),
    "over-size": (_sparse("huge.jsonl", MAX_FILE_BYTES + 1), r"file too large"),
}
# Lists are not capped yet: 1 MB of keywords lands in every chunk's metadata (see the report).
GIANT_KEYWORDS = (
    _jsonl("giant-keywords.jsonl", keywords=["k" * 1000] * 1000, abstract=GOOD_ABSTRACT),
    r"keywords too long",
)


def _sample_state(pipe: Pipeline) -> tuple[dict[str, str], int]:
    return {pid: p.fingerprint() for pid, p in pipe.catalog().items()}, pipe.index.chunk_count()


def _check_rejected(pipe: Pipeline, path: Path, pattern: str, before: Any) -> None:
    t0 = time.monotonic()
    loaded, report = pipe.ingest([path])
    assert time.monotonic() - t0 < 20, "a hostile file must be refused quickly"
    mine = [e for e in report.errors if Path(e.file).name == path.name]
    assert mine and any(re.search(pattern, e.message) for e in mine), report.errors
    for e in mine:
        assert len(e.message) < 300, "error messages never echo the hostile content"
    assert not loaded.papers
    assert _sample_state(pipe) == before, "the other papers changed"
    answer = pipe.ask(QUESTION)
    assert not answer.error and SHAPO_TITLE_WORD in answer.citations[0].title


@pytest.mark.parametrize("case", list(HOSTILE_REJECTED))
def test_hostile_file_is_rejected_clearly_and_nothing_else_changes(
    case: str,
    sample_data_dir: Path,
    embedder: CachedEmbedder,
    tmp_path: Path,
) -> None:
    build, pattern = HOSTILE_REJECTED[case]
    pipe = Pipeline(build_settings(sample_data_dir), embedder=embedder)
    _check_rejected(pipe, build(tmp_path), pattern, _sample_state(pipe))


def test_giant_keyword_list_is_rejected(
    sample_data_dir: Path, embedder: CachedEmbedder, tmp_path: Path
) -> None:
    pipe = Pipeline(build_settings(sample_data_dir), embedder=embedder)
    _check_rejected(pipe, GIANT_KEYWORDS[0](tmp_path), GIANT_KEYWORDS[1], _sample_state(pipe))


def test_csv_injection_cells_are_stored_as_inert_text(
    sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    pipe = Pipeline(build_settings(sample_data_dir), embedder=embedder)
    loaded, report = pipe.ingest([HOSTILE / "csv_injection.csv"])
    assert report.added == 2 and not report.errors
    catalog = pipe.catalog()
    # Verbatim: nothing evaluated, nothing stripped; a formula is just characters here.
    assert catalog["hostile-csv-1"].title == "=cmd|' /C calc'!A0"
    assert catalog["hostile-csv-1"].abstract.startswith("=cmd|' /C calc'!A0 We study")
    assert catalog["hostile-csv-2"].title == "+SUM(1,2)"
    assert catalog["hostile-csv-2"].keywords == ["-1+1"]
    hits = pipe.search("robust retrieval method hostile input malformed files")
    assert {"hostile-csv-1", "hostile-csv-2"} <= {h.paper.id for h in hits}


def test_injected_instructions_and_markup_stay_inert_data(
    sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    from rag.answers.generate import format_sources
    from rag.prompts import load_prompts
    from ui import render

    pipe = Pipeline(build_settings(sample_data_dir), embedder=embedder)
    _, report = pipe.ingest([HOSTILE / "injection.jsonl"])
    assert report.added == 1
    paper = pipe.catalog()["hostile-inject"]
    assert paper.url == "", "javascript: links are dropped"
    conv = Conversation()
    answer = pipe.ask("Which paper reduces water use for greenhouse irrigation of tomatoes?", conv)
    assert not answer.error and answer.citations[0].paper_id == "hostile-inject"
    hits = pipe.search("greenhouse irrigation tomato water use", k=2)
    prompt = format_sources(load_prompts()["source"], hits)
    # The planted "</source> <source n=9>" cannot end its source early or forge a new one.
    assert prompt.count("</source>") == len(hits) and '<source n="9">' not in prompt
    # What the browser gets: the chat answer and the sources panel, planted markup as text.
    html = render.answer_html(answer, 0) + render.sources_html(conv)
    assert "&lt;script&gt;" in html or "&lt;b onmouseover" in html
    assert "<script" not in html and "<img" not in html and "<b onmouseover" not in html


@pytest.mark.slow
def test_cli_survives_the_whole_hostile_folder(sample_data_dir: Path, tmp_path: Path) -> None:
    out = run_cli("ingest", HOSTILE, "--data-dir", sample_data_dir, "-q", cwd=tmp_path)
    assert out.returncode == 1, out.stderr  # some records rejected, the good ones loaded
    assert "Traceback" not in out.stderr
    rejected = {
        line.split(":", 1)[0].rsplit("/", 1)[-1]
        for line in out.stderr.splitlines()
        if line.startswith("rejected ")
    }
    # Folders are walked for supported types only: the archive (and README) are skipped unread.
    walked = {p.name for p in HOSTILE.iterdir() if p.suffix in SUPPORTED_SUFFIXES}
    assert rejected == walked - {"csv_injection.csv", "injection.jsonl"}
    stats = run_cli("stats", "--data-dir", sample_data_dir, "--json", cwd=tmp_path)
    assert json.loads(stats.stdout)["papers"] == 19 + 3


# -- 5b. hostile uploads through the web app ---------------------------------------------------

# The upload handler refuses some files before the loader sees them, with its own words.
UI_MESSAGES = {
    "zip": r"unsupported file type \.zip",
    "zip-bomb": r"unsupported file type \.zip",
    "over-size": r"too large \(\d+(\.\d)? MB\); the limit is \d+ MB",
}
TRAVERSAL_NAMES = [
    "../../etc/passwd.jsonl",
    "..\\..\\windows\\win.jsonl",
    "/etc/passwd.jsonl",
    "a/../../../z.jsonl",
    "\uff0e\uff0e\uff0fwide.jsonl",  # fullwidth "../": NFKC turns it into a real "../"
    "....//....//dots.jsonl",
]


def _files_under(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file()} if root.exists() else set()


@pytest.fixture
def live_app(
    sample_data_dir: Path, embedder: CachedEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Pipeline, Any, str]]:
    """The real Gradio app served in-process on loopback: (pipeline, demo, url)."""
    pytest.importorskip("gradio")
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio-tmp"))
    from ui.app import build_demo, launch

    settings = build_settings(sample_data_dir)
    pipe = Pipeline(settings, embedder=embedder)
    demo = build_demo(pipe)
    url, _ = launch(demo, settings, port=free_port())
    try:
        yield pipe, demo, url
    finally:
        demo.close()


def _handler(demo: Any, name: str) -> Any:
    return next(f.fn for f in demo.fns.values() if f.name == name)


@pytest.mark.slow
def test_ui_upload_refuses_hostile_files_and_the_app_stays_up(
    live_app: tuple[Pipeline, Any, str], tmp_path: Path, record_property: Any
) -> None:
    import html as htmllib

    from gradio_client import Client

    pipe, demo, url = live_app
    ingest = _handler(demo, "ingest")
    uploads = pipe.settings.data_dir / "uploads"
    before = _sample_state(pipe)
    client = Client(url, verbose=False)
    for case, (build, pattern) in HOSTILE_REJECTED.items():
        folder = tmp_path / "in" / case
        folder.mkdir(parents=True)
        src = build(folder)
        out = ingest([str(src)], "")
        # The report is the second-to-last output (the file input is cleared last).
        report = htmllib.unescape(re.sub(r"<[^>]+>", " ", out[-2]))
        assert re.search(UI_MESSAGES.get(case, pattern), report), (case, report)
        assert src.name in report, "the message names the file"
        assert not _files_under(uploads), f"{case}: a copy of a rejected upload was kept"
        assert _sample_state(pipe) == before, case
        # Still up, through the public API, after every hostile file.
        result = client.predict(question=QUESTION, api_name="/ask")
        assert SHAPO_TITLE_WORD in result["citations"][0]["title"], case
    client.close()
    record_property(
        "summary", f"{len(HOSTILE_REJECTED)} files refused by the upload handler; API answered"
    )


@pytest.mark.slow
def test_ui_upload_names_cannot_escape_and_size_is_limited(
    live_app: tuple[Pipeline, Any, str], tmp_path: Path, record_property: Any
) -> None:
    import httpx

    from ui.uploads import MAX_UPLOAD_BYTES

    pipe, demo, url = live_app
    ingest = _handler(demo, "ingest")
    data = pipe.settings.data_dir.resolve()
    gradio_tmp = (tmp_path / "gradio-tmp").resolve()
    outside_before = _files_under(tmp_path) - _files_under(data) - _files_under(gradio_tmp)
    for i, name in enumerate(TRAVERSAL_NAMES):
        abstract = GOOD_ABSTRACT.replace("robust", f"robust variant-{i}")
        body = json.dumps({"id": f"trav-{i}", "title": f"Traversal {i}", "abstract": abstract})
        r = httpx.post(
            url + "gradio_api/upload", files={"files": (name, body.encode())}, timeout=30
        )
        assert r.status_code == 200, r.text
        (cached,) = r.json()
        assert Path(cached).resolve().is_relative_to(gradio_tmp)
        out = ingest([cached], "")
        assert "Added <b>1</b>" in out[-2], (name, out[-2])
    kept = _files_under(data / "uploads")
    assert len(kept) == len(TRAVERSAL_NAMES)
    for path in kept:
        assert path.resolve().parent == data / "uploads"
        assert re.fullmatch(r"[0-9a-f]{12}-[A-Za-z0-9._-]+\.jsonl", path.name), path.name
    outside_after = _files_under(tmp_path) - _files_under(data) - _files_under(gradio_tmp)
    assert outside_after == outside_before, "an upload was written outside the data directory"
    assert not Path("/etc/passwd.jsonl").exists() and not Path("/z.jsonl").exists()
    assert {f"trav-{i}" for i in range(len(TRAVERSAL_NAMES))} <= set(pipe.catalog())

    # Over the limit: Gradio refuses the body itself, before our handler or the disk see it.
    big = b"x" * (MAX_UPLOAD_BYTES + 1)
    r = httpx.post(url + "gradio_api/upload", files={"files": ("big.jsonl", big)}, timeout=60)
    assert r.status_code == 413 and "maximum allowed size" in r.text
    assert not any(p.stat().st_size > MAX_UPLOAD_BYTES for p in _files_under(gradio_tmp))
    record_property(
        "summary",
        f"{len(TRAVERSAL_NAMES)} traversal names stored under uploads/; "
        f"{MAX_UPLOAD_BYTES // 2**20} MiB + 1 byte refused (413)",
    )


# -- 6. security: secrets, auth ----------------------------------------------------------------


def _grep_tree(root: Path, needle: bytes) -> list[Path]:
    """Files under root whose bytes contain needle."""
    return [p for p in _files_under(root) if needle in p.read_bytes()]


@pytest.mark.slow
def test_api_key_never_appears_in_output_errors_reports_or_files(
    sample_index_dir: Path, tmp_path: Path, record_property: Any
) -> None:
    from concurrent.futures import ThreadPoolExecutor

    rejecting = FakeOpenAIServer(api_key="sk-the-right-one").start()  # our key gets a 401
    failing = FakeOpenAIServer(api_key=SECRET).start()  # accepts our key, then fails with 500
    failing.queue_error(500, times=100)
    failing.queue_error(500, times=100, kind="embeddings")
    unauthorized, server_error = "API key is missing or invalid (401)", "had an error (500)"

    def env(server: FakeOpenAIServer, **extra: str) -> dict[str, str]:
        return {
            "OPENAI_API_KEY": SECRET,
            "OPENAI_BASE_URL": server.base_url,
            "PAPERCHAT_LLM__PROVIDER": "openai",
            "PAPERCHAT_LLM__MAX_RETRIES": "1",
            **extra,
        }

    def data_copy(name: str, eval_index: bool = False) -> Path:
        # One index per process: embedded Chroma is not shared between processes.
        target = tmp_path / name
        shutil.copytree(sample_index_dir, target)
        if eval_index:
            shutil.copytree(sample_index_dir, target / "eval-golden")  # eval's index, built
        return target

    evalout = tmp_path / "evalout"
    jobs = {
        "ask-401": (["ask", QUESTION, "--data-dir", data_copy("d1")], env(rejecting)),
        "ask-500": (["ask", QUESTION, "--json", "--data-dir", data_copy("d2")], env(failing)),
        "ingest-401": (
            ["ingest", HOSTILE / "injection.jsonl", "--data-dir", tmp_path / "e1"],
            env(rejecting, PAPERCHAT_EMBEDDING__PROVIDER="openai"),
        ),
        "ingest-500": (
            ["ingest", HOSTILE / "injection.jsonl", "--data-dir", tmp_path / "e2"],
            env(failing, PAPERCHAT_EMBEDDING__PROVIDER="openai"),
        ),
        "eval-500": (
            [
                "eval",
                "--dataset",
                "golden",
                "--answerer",
                "model",
                "--limit",
                "2",
                "--no-charts",
                "--out",
                evalout,
                "-q",
                "--data-dir",
                data_copy("d3", eval_index=True),
            ],
            env(failing, PAPERCHAT_LLM__MAX_RETRIES="0"),
        ),
        # Invalid settings beside a key: the validation error must not echo the environment.
        "bad-settings": (
            ["stats", "--data-dir", tmp_path / "d4"],
            {"OPENAI_API_KEY": SECRET, "PAPERCHAT_LLM__TEMPERATURE": SECRET},
        ),
    }
    try:
        with ThreadPoolExecutor(max_workers=3) as pool:
            futures = {
                name: pool.submit(run_cli, *argv, cwd=tmp_path, env=e, timeout=300)
                for name, (argv, e) in jobs.items()
            }
            out = {name: f.result() for name, f in futures.items()}
        # The key really was sent: the 500s only come once the key has been accepted.
        assert failing.requests_to("/chat/completions") and failing.requests_to("/embeddings")
    finally:
        rejecting.stop()
        failing.stop()

    assert out["ask-401"].returncode == 1 and unauthorized in out["ask-401"].stdout
    assert server_error in json.loads(out["ask-500"].stdout)["error"]
    for name in ("ingest-401", "ingest-500"):
        assert out[name].returncode == 2 and "embedding request" in out[name].stderr
    assert unauthorized in out["ingest-401"].stderr and server_error in out["ingest-500"].stderr
    assert _files_under(evalout), out["eval-500"].stderr[-2000:]
    assert out["bad-settings"].returncode == 2 and "invalid settings" in out["bad-settings"].stderr
    leaks = [n for n, o in out.items() if "SECRET123" in o.stdout + o.stderr]
    assert not leaks, f"the key was printed by {leaks}"
    assert not _grep_tree(tmp_path, b"SECRET123"), "the key was written to disk"
    files = len(_files_under(tmp_path))
    record_property(
        "summary", f"{len(out)} CLI runs (401/500, eval report), {files} files: 0 leaks"
    )


@pytest.mark.slow
def test_auth_guards_app_and_api_and_the_key_stays_hidden(
    sample_data_dir: Path, tmp_path: Path, record_property: Any
) -> None:
    import httpx
    from gradio_client import Client

    model = FakeOpenAIServer(api_key="sk-the-right-one").start()
    env = {
        "OPENAI_API_KEY": SECRET,
        "OPENAI_BASE_URL": model.base_url,
        "PAPERCHAT_LLM__PROVIDER": "openai",
        "PAPERCHAT_LLM__MAX_RETRIES": "0",
        "GRADIO_TEMP_DIR": str(tmp_path / "gradio-tmp"),
    }
    app = App(sample_data_dir, tmp_path, ("--auth", "alice:wonder-land"), env=env)
    try:
        with pytest.raises(Exception):  # noqa: B017 - any refusal will do, nothing may answer
            Client(app.url, verbose=False).predict(question=QUESTION, api_name="/ask")
        with pytest.raises(Exception):  # noqa: B017
            Client(app.url, auth=("alice", "wrong"), verbose=False)
        for method, path in (
            ("GET", "config"),
            ("GET", "gradio_api/info"),
            ("POST", "gradio_api/call/ask"),
            ("POST", "gradio_api/upload"),
            ("GET", "gradio_api/queue/status"),
        ):
            r = httpx.request(method, app.url + path, json={"data": [QUESTION]}, timeout=30)
            assert r.status_code in (401, 403), (path, r.status_code, r.text[:200])
        client = Client(app.url, auth=("alice", "wonder-land"), verbose=False)
        offline = client.predict(question=QUESTION, answerer="extractive", api_name="/ask")
        assert (
            offline["question"] == QUESTION and SHAPO_TITLE_WORD in offline["citations"][0]["title"]
        )
        failed = client.predict(question=QUESTION, answerer="model", api_name="/ask")
        assert "API key is missing or invalid (401)" in failed["error"]
        with httpx.Client(base_url=app.url, timeout=30) as web:
            web.post("login", data={"username": "alice", "password": "wonder-land"})
            pages = [web.get(p).text for p in ("", "config", "gradio_api/info")]
        client.close()
    finally:
        app.stop()
        model.stop()
    seen = [json.dumps(offline), json.dumps(failed), app.output(), *pages]
    assert not [s for s in seen if "SECRET123" in s]
    assert not _grep_tree(tmp_path, b"SECRET123")
    record_property(
        "summary", "5 routes 401/403 and gradio_client refused without login; key hidden"
    )


@pytest.mark.slow
def test_frozen_chroma_server_gives_a_clear_message_within_the_timeout(
    tmp_path: Path, sample_path: Path, embedder: CachedEmbedder, record_property: Any
) -> None:
    server = ChromaServer(tmp_path / "chroma").start()
    try:
        settings = build_settings(
            tmp_path / "data", chroma={"host": "127.0.0.1", "port": server.port, "timeout": 2.0}
        )
        pipe = Pipeline(settings, embedder=embedder)
        pipe.ingest([sample_path])
        assert not pipe.ask(QUESTION).error
        assert server.proc is not None
        # Frozen, not dead: the port accepts connections, nothing answers (a hung host, a GC
        # pause, a network partition). Connection-refused tests cannot catch this one.
        server.proc.send_signal(signal.SIGSTOP)
        answers: list[Any] = []
        worker = threading.Thread(target=lambda: answers.append(pipe.ask(QUESTION)), daemon=True)
        t0 = time.monotonic()
        worker.start()
        worker.join(timeout=20)
        assert not worker.is_alive(), "the question hung on a frozen Chroma server"
        # The error names the server the index lives on (its words: rag/store/chroma.py).
        assert f"127.0.0.1:{server.port}" in answers[0].error, answers[0].error
        assert not answers[0].citations
        took = time.monotonic() - t0
        record_property("summary", f"SIGSTOP: message after {took:.1f} s (timeout 2 s)")
    finally:
        if server.proc is not None:
            server.proc.send_signal(signal.SIGCONT)
        server.stop()


@pytest.mark.slow
def test_running_app_reports_lost_chroma_and_recovers_without_restart(
    tmp_path: Path, sample_path: Path, embedder: CachedEmbedder, record_property: Any
) -> None:
    from gradio_client import Client

    server = ChromaServer(tmp_path / "chroma").start()
    app: App | None = None
    try:
        chroma = {"host": "127.0.0.1", "port": server.port}
        PaperIndex(build_settings(tmp_path / "ingest", chroma=chroma), embedder).ingest(
            load_paths([sample_path]).papers
        )
        env = {
            "PAPERCHAT_CHROMA__HOST": "127.0.0.1",
            "PAPERCHAT_CHROMA__PORT": str(server.port),
            "GRADIO_TEMP_DIR": str(tmp_path / "gradio-tmp"),
        }
        app = App(tmp_path / "app-data", tmp_path, env=env)
        client = Client(app.url, verbose=False)
        before = client.predict(question=QUESTION, api_name="/ask")
        assert not before["error"] and SHAPO_TITLE_WORD in before["citations"][0]["title"]
        server.stop(signal.SIGKILL)
        down = client.predict(question=QUESTION, api_name="/ask")
        assert f"127.0.0.1:{server.port}" in down["error"] and not down["citations"], down
        server.start()
        after = client.predict(question=QUESTION, api_name="/ask")
        assert not after["error"] and after["answer"] == before["answer"]
        assert app.proc.poll() is None and "Traceback" not in app.output()
        client.close()
        record_property("summary", "app process: 'Index unavailable' then answers again")
    finally:
        if app is not None:
            app.stop()
        server.stop()
