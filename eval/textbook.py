"""The textbook LlamaIndex baseline, injected into the pipeline as its retriever."""

from __future__ import annotations

from collections.abc import Sequence

from rag.app.llama import LlamaEmbedding
from rag.models import Filters, Paper, SearchHit
from rag.protocols import Embedder, Mode


class TextbookRetriever:
    """LlamaIndex's textbook RAG retrieval: VectorStoreIndex over whole abstracts, dense only.

    Default settings (SentenceSplitter 1024/200, in-memory SimpleVectorStore); the only explicit
    argument is the embedding model, because LlamaIndex's default is OpenAI's. Asked through
    `Pipeline.using(retriever=...)`, it gets the same condenser, scorer and answerer as
    PaperChat's own retrieval, so the comparison isolates retrieval.
    """

    def __init__(
        self,
        papers: Sequence[Paper],
        documents: Embedder,
        queries: Embedder | None = None,
        progress: bool = False,
    ) -> None:
        from llama_index.core import Document, VectorStoreIndex

        # Sorted so ties in similarity resolve the same way on every run.
        ordered = sorted(papers, key=lambda p: p.id)
        self.papers = {p.id: p for p in ordered}
        docs = [Document(text=p.abstract, id_=p.id) for p in ordered]
        # Abstracts go through the on-disk cache (re-runs are cheap); queries are embedded
        # afresh like the pipeline's, so latencies compare.
        self.index = VectorStoreIndex.from_documents(
            docs, embed_model=LlamaEmbedding(documents), show_progress=progress
        )
        self.query_model = LlamaEmbedding(queries or documents)

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: Mode | None = None,
        filters: Filters | None = None,
        within: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The k best papers, one hit per paper (dense whatever the mode).

        Filters and `within` (the papers a follow-up or a named paper restricts to) are applied
        to the ranking, as a LlamaIndex app would post-filter a plain vector index.
        """
        k = k or 5
        allowed = set(within) if within is not None else None
        restricted = allowed is not None or (filters is not None and filters.active())
        # Restricted searches rank every paper, then keep those allowed.
        top = len(self.papers) if restricted else k
        retriever = self.index.as_retriever(similarity_top_k=top, embed_model=self.query_model)
        hits: list[SearchHit] = []
        for n in retriever.retrieve(query):
            pid = n.node.ref_doc_id
            if pid not in self.papers or any(h.paper.id == pid for h in hits):
                continue
            paper = self.papers[pid]
            if allowed is not None and pid not in allowed:
                continue
            if filters is not None and filters.active() and not filters.match(paper):
                continue
            score = float(n.score or 0.0)  # cosine: the same signal refusal reads as dense
            hits.append(SearchHit(paper=paper, score=score, dense=score))
        return hits[:k]
