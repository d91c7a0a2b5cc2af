"""The shape of the code: names imported from where they are defined, nothing reached through a
third part, a library without UI. The rules live in eval/import_graph.py."""

from __future__ import annotations

from pathlib import Path

from eval import import_graph as G


def test_the_project_keeps_its_import_rules() -> None:
    assert G.problems() == []


def test_the_rules_catch_what_they_forbid(tmp_path: Path) -> None:
    # A re-export, a reach through the index, a UI import in the library and LlamaIndex loaded
    # on import outside the modules that need it (through a peer too), in a tiny tree.
    rag = tmp_path / "rag"
    (rag / "app").mkdir(parents=True)
    (rag / "__init__.py").write_text("")
    (rag / "app" / "__init__.py").write_text("")
    (rag / "models.py").write_text("class Paper: ...\n")
    (rag / "retrieval.py").write_text("from .models import Paper\n")
    (rag / "support.py").write_text(
        "from .retrieval import Paper\nimport gradio\n\n"
        "def f(pipeline):\n    return pipeline.index.embedder\n"
    )
    (rag / "app" / "llama.py").write_text("import llama_index.core\n\ndef chunk_node(): ...\n")
    (rag / "condense.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import llama_index.core\n\n"
        "def f():\n    from llama_index.core.llms import ChatMessage\n"
    )  # type-only and where used: allowed
    (rag / "index.py").write_text("from .app.llama import chunk_node\n")
    for pkg in ("ui", "eval"):
        (tmp_path / pkg).mkdir()
    found = G.problems(tmp_path, extra=())
    assert any("imports 'Paper' from rag.retrieval" in p for p in found)
    assert any("reaches index.embedder" in p for p in found)
    assert any("imports gradio" in p for p in found)
    llama = "rag.index loads llama_index on import (rag.index -> rag.app.llama"
    assert any(llama in p for p in found)
    assert len(found) == 4


def test_the_graph_lists_each_peer_and_name() -> None:
    graph = G.graph(G.imports(G.project_files()))
    assert "Paper" in graph["rag.retrieval.hybrid"]["rag.models"]
    # The pipeline is the one module that wires retrieval, scoring and answering together.
    assert {
        "rag.retrieval.hybrid",
        "rag.retrieval.support",
        "rag.answers.extractive",
        "rag.answers.generate",
    } <= set(graph["rag.app.pipeline"])
    assert "rag.retrieval.hybrid" not in graph["rag.retrieval.support"]
    assert "rag.answers.extractive" not in graph["rag.answers.generate"]


def test_an_import_cycle_and_a_long_file_are_caught(tmp_path: Path) -> None:
    # A cycle closed by a function-level import and one closed under TYPE_CHECKING.
    rag = tmp_path / "rag"
    rag.mkdir()
    (rag / "__init__.py").write_text("")
    (rag / "a.py").write_text("from .b import x\n")
    (rag / "b.py").write_text("def x():\n    from .c import y\n")
    (rag / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import z\n"
    )
    (rag / "d.py").write_text("from . import e\n")
    (rag / "e.py").write_text("y = 1\n" * (G.MAX_LINES + 1))
    found = G.imports(G.project_files(tmp_path), tmp_path)
    assert G.cycles(found, tmp_path) == ["import cycle among 3 modules: rag.a, rag.b, rag.c"]
    assert G.long_files(tmp_path) == [f"rag/e.py has {G.MAX_LINES + 1} lines (at most 700)"]
    (rag / "c.py").write_text("y = 1\n")
    assert G.cycles(G.imports(G.project_files(tmp_path), tmp_path), tmp_path) == []


def test_the_long_files_still_allowed_only_shrink() -> None:
    for rel, allowed in G.LONG_FILES.items():
        n = len((G.REPO / rel).read_text(encoding="utf-8").splitlines())
        assert G.MAX_LINES < n <= allowed, f"{rel}: {n} lines; update LONG_FILES"


def test_the_compiled_regexes_do_not_grow() -> None:
    # Vocabulary belongs in data, not in new patterns: the count may only come down.
    from eval import count_regexes as R

    assert sum(R.counts().values()) <= R.CEILING
