"""Which papers an offline answer treats as named, which sentences it quotes, how its lead reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build_settings

from rag.embeddings import CachedEmbedder
from rag.models import Conversation, Plan
from rag.pipeline import AskOptions, Pipeline
from rag.planner import Planner


class NamingPlanner(Planner):
    """The rule planner, plus a fixed 'named' paper: a stand-in for a loose name match."""

    def __init__(self, pipeline: Pipeline, title_word: str) -> None:
        super().__init__(pipeline.catalog_view)
        self.ids = [p.id for p in pipeline.catalog().values() if title_word in p.title]

    def plan(
        self, question: str, conversation: Conversation | None = None, use_model: bool = True
    ) -> Plan:
        plan = super().plan(question, conversation, use_model)
        plan.paper_ids = list(self.ids)
        plan.named = ["loose name"]
        return plan


@pytest.fixture(scope="module")
def base(sample_index_dir: Path, embedder: CachedEmbedder) -> Pipeline:
    return Pipeline(build_settings(sample_index_dir), embedder=embedder)


def _with_planner(base: Pipeline, title_word: str) -> Pipeline:
    pipe = Pipeline(base.settings, embedder=base.embedder, index=base.index)
    pipe.planner = NamingPlanner(pipe, title_word)
    return pipe


QUESTION = "Which paper proposes a post-training quantization algorithm?"


def test_a_planner_name_retrieval_does_not_back_is_not_a_named_paper(base: Pipeline) -> None:
    # "When …" read as the name of a paper titled "… WHEN …": the question is about
    # quantization, so the answer must not be forced onto that paper.
    pipe = _with_planner(base, "WebDS")
    answer = pipe.ask(QUESTION, options=AskOptions(answerer="extractive"))
    assert answer.named == []
    assert not answer.refused
    assert "Qronos" in answer.citations[0].title
    assert all("WebDS" not in c.title for c in answer.citations)


def test_a_planner_name_retrieval_agrees_with_is_named(base: Pipeline) -> None:
    pipe = _with_planner(base, "Qronos")
    answer = pipe.ask(QUESTION, options=AskOptions(answerer="extractive"))
    assert answer.named == pipe.planner.ids  # type: ignore[attr-defined]
    assert [c.paper_id for c in answer.citations] == answer.named
