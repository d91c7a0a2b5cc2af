"""The pipeline's seams: injected retrievers, answerers and embedders; the LlamaIndex faces."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import CountingEmbedder, MakeSettings
from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.response.schema import Response
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from rag.app.llama import QueryFailed, to_filters
from rag.app.options import AskOptions
from rag.app.pipeline import Pipeline
from rag.models import Answer, Conversation, Filters, Paper, SearchHit
from rag.protocols import Mode
from rag.store.embeddings import CachedEmbedder

QRONOS_Q = "How does Qronos correct quantization error in post-training quantization?"


@pytest.fixture
def pipe(make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder) -> Pipeline:
    """The real pipeline over the real sample index (embedded Chroma, the ONNX model)."""
    return Pipeline(make_settings(data_dir=sample_data_dir), embedder)


def titled(pipe: Pipeline, word: str) -> Paper:
    return next(p for p in pipe.catalog().values() if word in p.title)


# -- injection: any retriever, any answerer, one embedder for every part -------------------------


class ListRetriever:
    """A retriever that returns the papers it was given, in order, and records its calls."""

    def __init__(self, papers: Sequence[Paper]) -> None:
        self.papers = list(papers)
        self.calls: list[dict[str, Any]] = []

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: Mode | None = None,
        filters: Filters | None = None,
        within: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        self.calls.append({"query": query, "k": k, "mode": mode, "within": within})
        return [SearchHit(paper=p, score=1.0 / (i + 1)) for i, p in enumerate(self.papers)][:k]


class EchoAnswerer:
    """An answerer that names the papers it was given, in order."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def stream(self, question: str, hits: Sequence[SearchHit]) -> Iterator[str | Answer]:
        ids = [h.paper.id for h in hits]
        self.seen.append(ids)
        yield "papers: "
        yield ", ".join(ids)
        yield Answer(question=question, text="papers: " + ", ".join(ids), mode="model")


def test_an_injected_retriever_feeds_the_answer_and_answer_retrieved(pipe: Pipeline) -> None:
    qronos, other = titled(pipe, "Qronos"), titled(pipe, "SHAPO")
    third = titled(pipe, "MCP-SafetyBench")
    fake = ListRetriever([other, qronos, third])
    swapped = pipe.using(retriever=fake)
    answer = swapped.ask(QRONOS_Q, options=AskOptions(k=2, depth=3, answerer="extractive"))
    assert fake.calls == [{"query": QRONOS_Q, "k": 3, "mode": None, "within": None}]
    # The papers read for evidence come best-evidenced first, as the sources panel shows
    # them; the rest keep the retriever's order.
    assert answer.retrieved == [qronos.id, other.id, third.id]
    assert [s.paper.id for s in answer.sources] == answer.retrieved[:2]
    # The scorer still reads the real index: Qronos's sentences answer, SHAPO's do not.
    assert not answer.refused and answer.citations[0].paper_id == qronos.id
    # The original pipeline keeps its own retriever.
    assert pipe.ask(QRONOS_Q).retrieved[0] == qronos.id


def test_depth_ranks_more_papers_than_the_answer_reads(pipe: Pipeline) -> None:
    answer = pipe.ask(QRONOS_Q, options=AskOptions(k=3, depth=8))
    assert len(answer.retrieved) == 8 and len(answer.sources) == 3
    assert {s.paper.id for s in answer.sources} == set(answer.retrieved[:3])
    assert answer.standalone_question == QRONOS_Q


def test_an_injected_answerer_is_asked_through_the_pipeline(pipe: Pipeline) -> None:
    echo = EchoAnswerer()
    swapped = pipe.using(answerer=echo)
    parts = list(swapped.stream(QRONOS_Q, options=AskOptions(answerer="model", k=2)))
    answer = parts[-1]
    assert isinstance(answer, Answer) and not answer.error
    assert "".join(p for p in parts if isinstance(p, str)) == answer.text
    # It got the two retrieved papers as evidence, best-evidenced first.
    assert len(echo.seen) == 1 and set(echo.seen[0]) == set(answer.retrieved)
    assert titled(pipe, "Qronos").id in echo.seen[0]
    # Without the injection no model is configured, and the pipeline says so.
    plain = pipe.ask(QRONOS_Q, options=AskOptions(answerer="model"))
    assert "No model is configured" in plain.error


class QueryRecorder(CountingEmbedder):
    """The real model, recording the queries it embeds too."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.queries: list[str] = []

    def embed_query(self, text: str) -> Any:
        self.queries.append(text)
        return self.inner.embed_query(text)


def test_one_embedder_serves_retrieval_and_scoring(
    make_settings: MakeSettings, sample_data_dir: Path, embedder: CachedEmbedder
) -> None:
    recorder = QueryRecorder(embedder)
    pipe = Pipeline(make_settings(data_dir=sample_data_dir), recorder)
    answer = pipe.ask(QRONOS_Q, options=AskOptions(retrieval="dense"))
    assert not answer.refused and pipe.embedder is recorder
    # The injected model embedded the question for dense retrieval and for sentence ranking:
    # no part built or reached another embedder.
    assert recorder.queries.count(QRONOS_Q) == 2


def test_thresholds_travel_as_options_not_settings(pipe: Pipeline) -> None:
    question = "Which method keeps reinforcement learning agents safe while exploring?"
    strict = pipe.ask(question, options=AskOptions(refusal_threshold=1.0))
    assert strict.refused and strict.confidence is not None and strict.confidence < 1.0
    assert pipe.refusal.threshold < 1.0
    assert not pipe.ask(question).refused
    with pytest.raises(Exception, match="frozen"):
        pipe.settings.retrieval.min_evidence = 1.0  # type: ignore[misc]


# -- the LlamaIndex retriever --------------------------------------------------------------------


def test_as_retriever_is_a_llamaindex_retriever_over_hybrid_search(pipe: Pipeline) -> None:
    retriever = pipe.as_retriever(k=4)
    assert isinstance(retriever, BaseRetriever)
    nodes = retriever.retrieve(QRONOS_Q)
    assert all(isinstance(n, NodeWithScore) for n in nodes) and len(nodes) == 4
    hits = pipe.search(QRONOS_Q, k=4)
    assert [n.node.node_id for n in nodes] == [h.paper.id for h in hits]
    assert [n.score for n in nodes] == [h.score for h in hits]
    top = nodes[0].node
    assert isinstance(top, TextNode) and "Qronos" in top.metadata["title"]
    assert top.get_content() == titled(pipe, "Qronos").abstract


def test_as_retriever_returns_chunks_of_the_best_papers(pipe: Pipeline) -> None:
    nodes = pipe.as_retriever(k=2, granularity="chunk").retrieve(QRONOS_Q)
    qronos = titled(pipe, "Qronos")
    first = nodes[0].node
    assert first.ref_doc_id == qronos.id and first.metadata["paper_id"] == qronos.id
    # A window of whole sentences (the whole abstract when it fits the model's tokens).
    start, end = first.metadata["sentence_start"], first.metadata["sentence_end"]
    assert isinstance(start, int) and end > start
    assert first.get_content() in qronos.abstract
    assert {n.node.metadata["paper_id"] for n in nodes} <= {
        h.paper.id for h in pipe.search(QRONOS_Q, k=2)
    }


def test_metadata_filters_map_to_paperchat_filters(pipe: Pipeline) -> None:
    # The sample has titles only (no areas or decisions): filter on them.
    safety = MetadataFilters(
        filters=[MetadataFilter(key="title", value="safety", operator=FilterOperator.CONTAINS)]
    )
    nodes = pipe.as_retriever(k=10, filters=safety).retrieve("reinforcement learning agents")
    assert [n.node.metadata["title"] for n in nodes] == ["MCP-SafetyBench"]
    qronos = titled(pipe, "Qronos")
    only = MetadataFilters(
        filters=[MetadataFilter(key="paper_id", value=[qronos.id], operator=FilterOperator.IN)]
    )
    found = pipe.as_retriever(filters=only).retrieve("safe exploration in reinforcement learning")
    assert [n.node.node_id for n in found] == [qronos.id]
    oral = MetadataFilters(filters=[MetadataFilter(key="decision", value="Oral")])
    assert pipe.as_retriever(filters=oral).retrieve("reinforcement learning") == []


def test_metadata_filters_paperchat_cannot_honour_are_refused() -> None:
    assert to_filters(
        MetadataFilters(
            filters=[
                MetadataFilter(
                    key="primary_area", value="learning", operator=FilterOperator.CONTAINS
                ),
                MetadataFilter(key="title", value="Q"),
            ]
        )
    ) == (Filters(area="learning", title="Q"), None)
    with pytest.raises(ValueError, match="cannot filter on 'year'"):
        to_filters(MetadataFilters(filters=[MetadataFilter(key="year", value=2026)]))
    with pytest.raises(ValueError, match="AND only"):
        to_filters(
            MetadataFilters(
                filters=[
                    MetadataFilter(key="title", value="a"),
                    MetadataFilter(key="title", value="b"),
                ],
                condition=FilterCondition.OR,
            )
        )
    with pytest.raises(ValueError, match="operator"):
        to_filters(
            MetadataFilters(
                filters=[MetadataFilter(key="decision", value="Oral", operator=FilterOperator.NE)]
            )
        )


# -- the LlamaIndex query engine -----------------------------------------------------------------


def test_as_query_engine_answers_with_the_pipeline_answer(pipe: Pipeline) -> None:
    engine = pipe.as_query_engine()
    assert isinstance(engine, BaseQueryEngine)
    response = engine.query(QRONOS_Q)
    assert isinstance(response, Response)
    answer = response.metadata["answer"]  # type: ignore[index]
    assert isinstance(answer, Answer)
    assert str(response) == answer.text and "[1]" in answer.text
    assert [n.node.node_id for n in response.source_nodes] == [s.paper.id for s in answer.sources]
    assert response.source_nodes[0].node.node_id == answer.citations[0].paper_id
    # Exactly what ask answers: the engine is ask, not a second path.
    direct = pipe.ask(QRONOS_Q)
    assert direct.text == answer.text and direct.retrieved == answer.retrieved


def test_query_engine_keeps_a_conversation_for_follow_ups(pipe: Pipeline) -> None:
    chat = Conversation()
    engine = pipe.as_query_engine(conversation=chat)
    engine.query(QRONOS_Q)
    follow = engine.query("What does it correct?")
    answer = follow.metadata["answer"]  # type: ignore[index]
    assert "Qronos" in answer.standalone_question and len(chat.turns) == 2


def test_query_engine_raises_when_the_question_cannot_be_answered(pipe: Pipeline) -> None:
    engine = pipe.as_query_engine(options=AskOptions(answerer="model"))
    with pytest.raises(QueryFailed, match="No model is configured") as info:
        engine.query(QRONOS_Q)
    assert info.value.answer.error
