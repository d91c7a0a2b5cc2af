"""Sentence-aware chunking: abstracts become windows of whole sentences."""

from __future__ import annotations

import re
import string

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
# A candidate boundary: end punctuation, optional closing quotes/brackets, whitespace.
_BOUNDARY = re.compile(r"[.!?]([\"'”’)\]]*)\s+")
# A list marker left on its own ("1.", "(ii)."): it introduces the next sentence.
_MARKER = re.compile(r"\(?(?:\d{1,2}|[ivxIVX]{1,4}|[a-zA-Z])\)?[.)]")
_LETTER = re.compile(r"[A-Za-z]")
# Characters of a word that may end in an abbreviation's period ("e.g", "et al").
_WORD_CHARS = frozenset(string.ascii_letters + ".")


def _letters(text: str) -> int:
    return len(_LETTER.findall(text))


def split_sentences(text: str) -> list[str]:
    """Split text into sentences that are verbatim substrings of it."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        dot = m.start()
        if text[dot] == ".":
            # The word before the period, scanned backwards (letters and dots, e.g. "e.g").
            i = dot
            while i > start and text[i - 1] in _WORD_CHARS:
                i -= 1
            word = text[i:dot].lstrip(".")
            if word and word.lower().rstrip(".") in _ABBREV:
                continue
            # Single initials ("J. Smith") are not boundaries.
            initial = dot - 1
            if (
                initial >= start
                and text[initial] in string.ascii_uppercase
                and (initial == start or text[initial - 1].isspace())
            ):
                continue
        # A lowercase continuation usually means an abbreviation we did not list.
        if text[m.end() : m.end() + 1].islower():
            continue
        # The sentence keeps its closing quote or bracket ('... "stop." Then').
        head = text[start : m.end(1)].rstrip()
        if head.strip():
            spans.append((start + len(head) - len(head.lstrip()), start + len(head)))
        start = m.end()
    rest = text[start:]
    if rest.strip():
        spans.append((start + len(rest) - len(rest.lstrip()), len(text.rstrip())))
    # Fragments too short to be sentences belong to a neighbour: a list marker to the next
    # sentence, anything else ("Yes!") to the previous one.
    merged: list[tuple[int, int]] = []
    carry: int | None = None
    for a, b in spans:
        if carry is not None:
            a, carry = carry, None
        frag = text[a:b]
        if _MARKER.fullmatch(frag) and (a, b) != spans[-1]:
            carry = a
        elif merged and _letters(frag) < 4:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    if carry is not None:
        merged.append((carry, spans[-1][1]))
    if len(merged) > 1 and _letters(text[slice(*merged[0])]) < 4:
        merged[1] = (merged[0][0], merged[1][1])
        merged.pop(0)
    return [text[a:b] for a, b in merged]


def chunk_paper(paper: Paper, cfg: ChunkSettings) -> list[Chunk]:
    """Cut one abstract into overlapping windows of whole sentences."""
    sents = split_sentences(paper.abstract)
    if not sents:
        return []  # nothing to embed; loaders reject empty abstracts before they get here
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
