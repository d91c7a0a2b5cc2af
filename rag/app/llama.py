"""PaperChat as LlamaIndex parts: a retriever, a query engine, an embedding model and the node
form of papers.

The rest of PaperChat never imports LlamaIndex on the offline path (its import costs over a
second): this module is imported when one of these parts is asked for.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.base.response.schema import Response
from llama_index.core.schema import (
    NodeWithScore,
    QueryBundle,
)
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)
from pydantic import PrivateAttr

from rag.models import Answer, Conversation, Filters, SearchHit
from rag.nodes import chunk_node, paper_node
from rag.protocols import Embedder, Mode

if TYPE_CHECKING:
    from rag.protocols import Asker

Granularity = Literal["paper", "chunk"]

# LlamaIndex metadata keys (as on PaperChat's nodes) -> the PaperChat filter they set.
_FILTER_KEYS = {
    "primary_area": "area",
    "area": "area",
    "keywords": "keyword",
    "keyword": "keyword",
    "decision": "decision",
    "title": "title",
}
# PaperChat filters match case-insensitively, area/keyword/title as substrings.
_TEXT_OPS = {
    FilterOperator.EQ,
    FilterOperator.CONTAINS,
    FilterOperator.TEXT_MATCH,
    FilterOperator.TEXT_MATCH_INSENSITIVE,
}


def hit_nodes(hits: Sequence[SearchHit], granularity: Granularity = "paper") -> list[NodeWithScore]:
    """Search hits as scored nodes: one per paper, or each paper's best-matching chunks.

    A chunk carries its paper's fused score; a paper only keyword search found has no chunk
    and comes as its whole abstract.
    """
    out: list[NodeWithScore] = []
    for hit in hits:
        if granularity == "chunk" and hit.chunks:
            out.extend(
                NodeWithScore(node=chunk_node(hit.paper, c), score=hit.score) for c in hit.chunks
            )
        else:
            out.append(NodeWithScore(node=paper_node(hit.paper), score=hit.score))
    return out


def to_filters(metadata: MetadataFilters | None) -> tuple[Filters, list[str] | None]:
    """LlamaIndex metadata filters as PaperChat filters, plus the paper ids a `paper_id` filter
    allows; anything PaperChat cannot honour exactly is refused rather than ignored."""
    found: dict[str, Any] = {}
    within: list[str] | None = None
    for f in _flatten(metadata):
        if f.key == "paper_id" and f.operator in (FilterOperator.IN, FilterOperator.EQ):
            values = f.value if isinstance(f.value, list) else [f.value]
            ids = [str(v) for v in values]
            within = ids if within is None else [i for i in within if i in ids]
            continue
        if f.key == "avg_rating":
            # The one numeric filter: "rated at least x".
            if f.operator != FilterOperator.GTE or isinstance(f.value, bool | str | list):
                raise ValueError(
                    f"PaperChat filters 'avg_rating' with '>=' and a number; got "
                    f"{f.operator.value!r} {f.value!r}"
                )
            if "min_rating" in found:
                raise ValueError("two filters on 'avg_rating': PaperChat takes one value per field")
            found["min_rating"] = float(f.value)  # type: ignore[arg-type]
            continue
        field = _FILTER_KEYS.get(f.key)
        if field is None:
            raise ValueError(
                f"PaperChat cannot filter on {f.key!r}: use one of "
                f"{sorted({*_FILTER_KEYS, 'paper_id', 'avg_rating'})}"
            )
        ops = {FilterOperator.EQ} if field == "decision" else _TEXT_OPS
        if f.operator not in ops or not isinstance(f.value, str):
            raise ValueError(
                f"PaperChat filters {f.key!r} with one text value and operator "
                f"{sorted(o.value for o in ops)}; got {f.operator.value!r} {f.value!r}"
            )
        if field in found:
            raise ValueError(f"two filters on {f.key!r}: PaperChat takes one value per field")
        found[field] = f.value
    return Filters(**found), within


def _flatten(metadata: MetadataFilters | None) -> list[MetadataFilter]:
    if metadata is None:
        return []
    if metadata.condition not in (None, FilterCondition.AND) and len(metadata.filters) > 1:
        raise ValueError("PaperChat combines filters with AND only")
    out: list[MetadataFilter] = []
    for f in metadata.filters:
        if isinstance(f, MetadataFilters):
            out.extend(_flatten(f))
        elif isinstance(f, MetadataFilter):
            out.append(f)
        else:  # ExactMatchFilter, the older form
            out.append(MetadataFilter(key=f.key, value=f.value))
    return out


class PaperChatRetriever(BaseRetriever):
    """PaperChat's hybrid search (BM25 and dense chunks fused per paper) for LlamaIndex."""

    def __init__(
        self,
        pipeline: Asker,
        k: int | None = None,
        mode: Mode | None = None,
        filters: Filters | MetadataFilters | None = None,
        granularity: Granularity = "paper",
    ) -> None:
        super().__init__()
        self.pipeline = pipeline
        self.k, self.mode, self.granularity = k, mode, granularity
        if isinstance(filters, MetadataFilters):
            self.filters, self.within = to_filters(filters)
        else:
            self.filters, self.within = filters or Filters(), None

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        hits = self.pipeline.retriever.search(
            query_bundle.query_str,
            k=self.k,
            mode=self.mode,
            filters=self.filters,
            within=self.within,
        )
        return hit_nodes(hits, self.granularity)


class QueryFailed(RuntimeError):
    """The question could not be answered (no index, model unreachable, …); `.answer` says why."""

    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.error)
        self.answer = answer


class PaperChatQueryEngine(BaseQueryEngine):
    """PaperChat as a LlamaIndex query engine: `query()` is `Pipeline.ask`, wrapped.

    The Response's text is the cited answer, its source_nodes the papers it was composed from
    and `metadata["answer"]` the PaperChat Answer (citations, quotes, support, timings).
    A conversation, when given, makes each query a follow-up of the previous ones.
    """

    def __init__(
        self,
        pipeline: Asker,
        options: Any = None,
        conversation: Conversation | None = None,
    ) -> None:
        super().__init__(callback_manager=None)
        self.pipeline = pipeline
        self.options = options
        self.conversation = conversation

    def _get_prompt_modules(self) -> dict[str, Any]:
        return {}

    def _query(self, query_bundle: QueryBundle) -> Response:
        answer = self.pipeline.ask(query_bundle.query_str, self.conversation, self.options)
        if answer.error:
            raise QueryFailed(answer)
        return Response(
            response=answer.text,
            source_nodes=hit_nodes(answer.sources),
            metadata={"answer": answer},
        )

    async def _aquery(self, query_bundle: QueryBundle) -> Response:
        return await asyncio.to_thread(self._query, query_bundle)


class LlamaEmbedding(BaseEmbedding):
    """Exposes a PaperChat embedder to LlamaIndex components that take `embed_model=`."""

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder, **kwargs: object) -> None:
        super().__init__(model_name=embedder.name, **kwargs)  # type: ignore[arg-type]
        self._embedder = embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._embedder.embed_query(query).tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._embedder.embed([text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._embedder.embed(texts).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)
