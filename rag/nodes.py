"""The node shape of PaperChat's chunks and papers: LlamaIndex nodes and the metadata Chroma
stores with them (a leaf: it imports only the typed objects and LlamaIndex's schema)."""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores.utils import node_to_metadata_dict

from rag.models import Chunk, Paper


def paper_metadata(paper: Paper) -> dict[str, Any]:
    """Metadata every PaperChat node carries (Chroma needs flat values: keywords joined)."""
    meta: dict[str, Any] = {
        "paper_id": paper.id,
        "title": paper.title,
        "keywords": "; ".join(paper.keywords),
        "primary_area": paper.primary_area,
        "decision": paper.decision,
        "url": paper.url,
    }
    # Chroma stores no nulls: an unrated paper has no rating key (absent, never 0).
    if paper.avg_rating is not None:
        meta["avg_rating"] = paper.avg_rating
    if paper.n_ratings is not None:
        meta["n_ratings"] = paper.n_ratings
    return meta


def chunk_node(paper: Paper, chunk: Chunk) -> TextNode:
    """A chunk as a LlamaIndex node; the paper is its source document (its ref_doc_id)."""
    return TextNode(
        id_=chunk.id,
        text=chunk.text,
        relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=paper.id)},
        metadata={
            **paper_metadata(paper),
            "position": chunk.position,
            "sentence_start": chunk.sentence_start,
            "sentence_end": chunk.sentence_end,
        },
    )


def chunk_record(paper: Paper, chunk: Chunk) -> dict[str, Any]:
    """The Chroma metadata of a stored chunk: its node in LlamaIndex's stored form, so that a
    LlamaIndex `ChromaVectorStore` over PaperChat's collection reads it back as that node."""
    return node_to_metadata_dict(chunk_node(paper, chunk), remove_text=True, flat_metadata=True)


def paper_node(paper: Paper) -> TextNode:
    """A whole paper as a LlamaIndex node: its abstract, with its metadata."""
    return TextNode(id_=paper.id, text=paper.abstract, metadata=paper_metadata(paper))
