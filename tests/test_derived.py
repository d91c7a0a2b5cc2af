"""Derived indexes stored beside Chroma: loaded when current, rebuilt whenever they may be stale."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import MakeSettings

from rag.app.options import AskOptions
from rag.app.pipeline import Pipeline
from rag.cues import Cues
from rag.models import Paper
from rag.settings import Settings
from rag.store.catalog import Catalog, catalog_artifact
from rag.store.derived import FORMAT, DerivedStore, Reader, Writer
from rag.store.embeddings import CachedEmbedder
from rag.store.loaders import load_paths

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = [
    "How does Qronos correct quantization error?",
    "Which paper is about safe exploration?",
    "What is Zorblax?",
]
NEW_PAPER = {
    "openreview_id": "zorb1",
    "title": "Zorblax: Gated Lattice Routing for Sparse Experts",
    "abstract": "We introduce Zorblax, a gated lattice router for mixture-of-experts models. "
    "Zorblax assigns tokens to experts along a learned lattice. It halves routing cost on "
    "three language modelling benchmarks.",
}
ARTIFACTS = ("papers", "catalog", "bm25", "latent-8")


def settings_for(make_settings: MakeSettings, data_dir: Path) -> Settings:
    # LSA from 10 papers at 8 dimensions, so the 19-paper sample stores latent factors too.
    return make_settings(data_dir=data_dir, retrieval={"lsa_min_papers": 10, "lsa_dims": 8})


def answers(pipe: Pipeline) -> list[tuple[str, list[str]]]:
    out = []
    for q in QUESTIONS:
        a = pipe.ask(q, options=AskOptions(answerer="extractive"))
        out.append((a.text, a.retrieved))
    return out


def builds(pipe: Pipeline) -> set[str]:
    return {k.removeprefix("build ") for k in pipe.derived.timings if k.startswith("build")}


def loads(pipe: Pipeline) -> set[str]:
    return {k.removeprefix("load ") for k in pipe.derived.timings if k.startswith("load")}


def add_paper(data_dir: Path) -> Path:
    path = data_dir.parent / "new.jsonl"
    path.write_text(json.dumps(NEW_PAPER) + "\n")
    return path


def test_ingest_stores_them_and_a_new_process_answers_alike_from_the_stored_copies(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    settings = settings_for(make_settings, sample_data_dir)
    first = Pipeline(settings, embedder=embedder)
    first.ingest([add_paper(sample_data_dir)])
    revision = first.index.revision()
    for name in ARTIFACTS:
        assert first.derived.stored_revision(name) == revision, name
    built = answers(first)

    second = Pipeline(settings, embedder=embedder)
    assert answers(second) == built
    assert builds(second) == set()
    assert {"papers", "catalog", "bm25", "latent-8"} <= loads(second)
    # Answers from stored copies are those of indexes built in memory without any store.
    shutil_rmtree(second.derived.root)
    bare = Pipeline(settings, embedder=embedder)
    bare.derived.save = lambda *a, **k: False  # type: ignore[method-assign]
    assert answers(bare) == built
    assert builds(bare) >= {"catalog", "bm25", "latent-8"}


def test_another_process_ingesting_is_seen_never_answered_from_stale_copies(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    settings = settings_for(make_settings, sample_data_dir)
    reader = Pipeline(settings, embedder=embedder)
    before = reader.ask("What is Zorblax?", options=AskOptions(answerer="extractive"))
    assert "zorb1" not in before.retrieved
    writer = Pipeline(settings, embedder=embedder)
    writer.ingest([add_paper(sample_data_dir)])
    after = reader.ask("What is Zorblax?", options=AskOptions(answerer="extractive"))
    assert after.retrieved[0] == "zorb1"
    assert "zorb1" in reader.catalog_view().by_id
    assert reader.keywords.bm25().ids == list(reader.catalog())


@pytest.mark.parametrize(
    "damage", ["missing", "truncated", "garbled", "format", "version", "revision"]
)
def test_a_missing_corrupt_or_foreign_file_is_rebuilt(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder, damage: str
) -> None:
    settings = settings_for(make_settings, sample_data_dir)
    first = Pipeline(settings, embedder=embedder)
    expected = answers(first)
    home = first.derived.root / "catalog"
    manifest = json.loads((home / "manifest.json").read_text())
    folder = home / manifest["token"]
    if damage == "missing":
        (folder / "vocab.json").unlink()
    elif damage == "truncated":
        data = (folder / "indices.npy").read_bytes()
        (folder / "indices.npy").write_bytes(data[: len(data) // 2])
    elif damage == "garbled":
        # Same size, so only reading it can tell.
        size = (folder / "state.json").stat().st_size
        (folder / "state.json").write_text("x" * size)
    elif damage == "version":
        # Written by an older build of the catalog (its artifact's version was raised).
        manifest["version"] -= 1
        (home / "manifest.json").write_text(json.dumps(manifest))
    else:
        manifest["format" if damage == "format" else "revision"] = (
            FORMAT + 1 if damage == "format" else "someone-else"
        )
        (home / "manifest.json").write_text(json.dumps(manifest))

    second = Pipeline(settings, embedder=embedder)
    assert answers(second) == expected
    assert "catalog" in builds(second)
    if damage == "version":
        # The other artifacts are of their own versions still: loaded, not rebuilt.
        assert "bm25" not in builds(second)
    # ... and rewritten: the next process loads it.
    assert second.derived.stored_revision("catalog") == second.index.revision()
    third = Pipeline(settings, embedder=embedder)
    assert answers(third) == expected
    assert "catalog" not in builds(third)


# Ingests NEW_PAPER, then dies by SIGKILL where the argument says (a child process).
_KILLED_INGEST = """
import os, signal, sys
from dataclasses import replace
from pathlib import Path
from rag.store.derived import DerivedStore
from rag.app.pipeline import Pipeline
from rag.settings import Settings

def die(*_a, **_k):
    os.kill(os.getpid(), signal.SIGKILL)

data_dir, where, new = sys.argv[1], sys.argv[2], sys.argv[3]
if where == "before-derived":
    Pipeline.build_derived = die
else:  # "mid-save": files of the first artifact written, its manifest not yet
    real = DerivedStore.save
    def save(self, artifact, revision, value):
        inner = artifact.save
        def killed(v, w):
            inner(v, w)
            die()
        return real(self, replace(artifact, save=killed), revision, value)
    DerivedStore.save = save
settings = Settings(_env_file=None, data_dir=Path(data_dir),
                    retrieval={"lsa_min_papers": 10, "lsa_dims": 8})
Pipeline(settings).ingest([new])
"""


@pytest.mark.parametrize("where", ["before-derived", "mid-save"])
def test_sigkill_between_chroma_and_the_derived_files_is_rebuilt_not_answered_from(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder, where: str
) -> None:
    settings = settings_for(make_settings, sample_data_dir)
    first = Pipeline(settings, embedder=embedder)
    first.build_derived()  # stored at the old revision
    # That was an earlier process: it read the vectors (the map), and an embedded Chroma
    # client keeps what it read; `after` below must open the database afresh.
    first.index.client.close()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILLED_INGEST,
            str(sample_data_dir),
            where,
            str(add_paper(sample_data_dir)),
        ],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    after = Pipeline(settings, embedder=embedder)
    answer = after.ask("What is Zorblax?", options=AskOptions(answerer="extractive"))
    assert answer.retrieved[0] == "zorb1"
    assert {"catalog", "bm25"} <= builds(after)
    assert after.derived.stored_revision("catalog") == after.index.revision()


def test_adding_papers_reuses_the_unchanged_papers_rows(
    sample_path: Path, tmp_path: Path, cues: Cues
) -> None:
    papers = load_paths([sample_path], cues).papers
    artifact = catalog_artifact(cues)
    old = artifact.build({p.id: p for p in papers[:-2]}, None)
    changed = papers[0].model_copy(update={"abstract": papers[0].abstract + " We add one."})
    now = {p.id: p for p in [changed, *papers[1:]]}
    grown = artifact.build(now, old)
    fresh = Catalog(list(now.values()), cues=cues)
    assert_same(grown, fresh)
    kept = dict(zip(old.ids, old.rows, strict=True))
    assert all(grown.rows[i] is kept[pid] for i, pid in enumerate(grown.ids[1:-2], start=1))
    assert grown.rows[0] is not kept[changed.id]
    # A stored catalog is read back the same, also as the previous one of a later build.
    store = DerivedStore(tmp_path, "c")
    assert store.save(artifact, "r1", grown)
    assert_same(store.load(artifact, "r1", now), fresh)
    again = store.get(artifact, "r2", now)
    assert_same(again, fresh)
    assert again.rows[5] == grown.rows[5]


def assert_same(a: Catalog, b: Catalog) -> None:
    assert a.ids == b.ids
    assert a.state() == b.state()
    assert dict(a.postings) == dict(b.postings)
    for i in range(len(b.ids)):
        assert a.title_terms[i] == b.title_terms[i]
        assert a.keyword_terms[i] == b.keyword_terms[i]
        assert a.sentences[i] == b.sentences[i]
        assert a.sentence_terms[i] == b.sentence_terms[i]
        assert a.abstract_terms[i] == b.abstract_terms[i]
        assert a.papers[i] == b.papers[i]
    for word in ("Qronos", "RNNs", "KV-Cache", "GPT-7", "When", "OverRIDE"):
        assert a.papers_with(word) == b.papers_with(word), word
    assert a.names.find("What does Qronos do?") == b.names.find("What does Qronos do?")


def test_rows_and_arrays_round_trip(tmp_path: Path) -> None:
    out = Writer(tmp_path)
    out.rows("r", ['{"a":1}', "[2,3]", '"é"'])
    rows = Reader(tmp_path).rows("r")
    assert list(rows) == [{"a": 1}, [2, 3], "é"] and rows[-1] == "é"
    with pytest.raises(IndexError):
        rows[3]


def test_papers_round_trip_lazily(tmp_path: Path, sample_path: Path) -> None:
    from rag.store.derived import PAPERS

    papers = {p.id: p for p in load_paths([sample_path]).papers}
    store = DerivedStore(tmp_path, "c")
    store.save(PAPERS, "r", papers)
    table = store.load(PAPERS, "r", {})
    assert list(table) == list(papers) and len(table) == len(papers)
    assert all(isinstance(table[pid], Paper) and table[pid] == p for pid, p in papers.items())


@pytest.mark.slow
def test_server_deployment_keeps_them_in_its_data_directory(
    chroma_server: tuple[str, int],
    make_settings: MakeSettings,
    embedder: CachedEmbedder,
    sample_path: Path,
    tmp_path: Path,
) -> None:
    import uuid

    host, port = chroma_server
    settings = make_settings(
        data_dir=tmp_path / "app",
        chroma={"host": host, "port": port, "collection": f"t{uuid.uuid4().hex[:12]}"},
    )
    writer = Pipeline(settings, embedder=embedder)
    writer.ingest([sample_path])
    expected = answers(writer)
    app = Pipeline(settings, embedder=embedder)
    assert answers(app) == expected and builds(app) == set()
    # Another app process on another data directory builds them once from the server.
    other = Pipeline(settings.model_copy(update={"data_dir": tmp_path / "app2"}), embedder=embedder)
    assert answers(other) == expected and {"catalog", "bm25"} <= builds(other)
    writer.ingest([add_paper(tmp_path / "app")])
    assert app.ask("What is Zorblax?").retrieved[0] == "zorb1"


def shutil_rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def test_papers_are_read_from_chroma_in_pages_when_no_copy_is_stored(
    make_settings: MakeSettings,
    sample_data_dir: Path,
    embedder: CachedEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One get of every paper fails past ~32k papers (SQLite's variable limit in Chroma).
    from rag.store import index as index_module

    settings = settings_for(make_settings, sample_data_dir)
    stored = dict(Pipeline(settings, embedder=embedder).catalog())
    monkeypatch.setattr(index_module, "STATE_PAGE", 4)
    pipe = Pipeline(settings, embedder=embedder)
    shutil_rmtree(pipe.derived.root)
    read = pipe.catalog()
    assert "papers" not in loads(pipe)
    assert list(read) == list(stored) and len(read) == 19
    assert all(read[pid].model_dump() == stored[pid].model_dump() for pid in stored)
