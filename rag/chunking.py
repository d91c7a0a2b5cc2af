"""Sentence-aware chunking: abstracts become windows of whole sentences."""

from __future__ import annotations

import re

from .models import Chunk, Paper
from .settings import ChunkSettings

# Tokens ending in a period that do not end a sentence in research prose.
_ABBREV = {
    "e.g",
    "i.e",
    "et al",
    "etc",
    "vs",
    "cf",
    "fig",
    "figs",
    "eq",
    "eqs",
    "sec",
    "no",
    "approx",
    "resp",
    "al",
    "dr",
    "prof",
    "mr",
    "ms",
    "st",
    "ref",
    "refs",
    "tab",
    "viz",
}
# A candidate boundary: end punctuation, optional closing quote/bracket, whitespace.
_BOUNDARY = re.compile(r"[.!?][\"'”’)\]]*\s+")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences that are verbatim substrings of it."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        head = text[start : m.start() + 1].rstrip()
        nxt = text[m.end() : m.end() + 1]
        word = re.search(r"([A-Za-z][A-Za-z.]*)\.$", head)
        if word and word.group(1).lower().rstrip(".") in _ABBREV:
            continue
        # Single initials ("J. Smith") are not boundaries; a lowercase
        # continuation usually means an abbreviation we did not list.
        if re.search(r"(?:^|\s)[A-Z]\.$", head) or (nxt and nxt.islower()):
            continue
        if head:
            spans.append((start, start + len(head)))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text.rstrip())))
    # Fragments like "2." or "(ii)." belong to their neighbour, not on their own.
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and len(re.findall(r"[A-Za-z]", text[a:b])) < 4:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    if len(merged) > 1 and len(re.findall(r"[A-Za-z]", text[slice(*merged[0])])) < 4:
        merged[1] = (merged[0][0], merged[1][1])
        merged.pop(0)
    return [text[a:b] for a, b in merged]


def chunk_paper(paper: Paper, cfg: ChunkSettings) -> list[Chunk]:
    """Cut one abstract into overlapping windows of whole sentences."""
    sents = split_sentences(paper.abstract)
    step = cfg.sentences - cfg.overlap
    chunks: list[Chunk] = []
    start = 0
    while True:
        end = min(start + cfg.sentences, len(sents))
        chunks.append(
            Chunk(
                id=f"{paper.id}#{len(chunks)}",
                paper_id=paper.id,
                position=len(chunks),
                sentence_start=start,
                sentence_end=end,
                text=" ".join(sents[start:end]),
            )
        )
        if end >= len(sents):
            break
        start += step
    return chunks


def embed_text(paper: Paper, chunk: Chunk, cfg: ChunkSettings) -> str:
    """The text the embedding model sees for a chunk (title-prefixed when configured)."""
    return f"{paper.title}. {chunk.text}" if cfg.title_prefix else chunk.text
