"""Sentence-aware chunking: abstracts become windows of whole sentences."""

from __future__ import annotations

import functools
import re
import string

from tokenizers import Tokenizer

from rag.models import Chunk, Paper
from rag.settings import ChunkSettings
from rag.text import LIST_ITEM

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
_MARKER = re.compile(rf"\(?{LIST_ITEM}\)?[.)]", re.IGNORECASE)
# Characters of a word that may end in an abbreviation's period ("e.g", "et al").
_WORD_CHARS = frozenset(string.ascii_letters + ".")


def _letters(text: str) -> int:
    return sum(c in string.ascii_letters for c in text)


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
    """Cut one abstract into windows of whole sentences, as the chunk settings say."""
    sents = split_sentences(paper.abstract)
    if not sents:
        return []  # nothing to embed; loaders reject empty abstracts before they get here
    if cfg.windows == "fit":
        spans = _fit_spans(paper, sents, cfg)
    else:
        spans = _sliding_spans(len(sents), cfg.sentences, cfg.overlap)
    return [
        Chunk(
            id=f"{paper.id}#{n}",
            paper_id=paper.id,
            position=n,
            sentence_start=a,
            sentence_end=b,
            text=" ".join(sents[a:b]),
        )
        for n, (a, b) in enumerate(spans)
    ]


def _sliding_spans(n: int, size: int, overlap: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    while True:
        end = min(start + size, n)
        spans.append((start, end))
        if end >= n:
            return spans
        start += size - overlap


@functools.cache
def window_tokenizer() -> Tokenizer:
    """The tokenizer chunk windows are counted with."""
    # Window sizes are counted with the bundled model's WordPiece vocabulary (the one bge, e5
    # and gte small models share), so the chunking does not depend on which model embeds.
    from rag.store.embeddings import BUNDLED_TOKENIZER

    tok = Tokenizer.from_file(str(BUNDLED_TOKENIZER))
    tok.no_truncation()  # the file has truncation and padding to 128 baked in
    tok.no_padding()
    return tok


def _fit_spans(paper: Paper, sents: list[str], cfg: ChunkSettings) -> list[tuple[int, int]]:
    """Fewest windows that each fit the token budget (title included), as equal as can be."""
    heads = [f"{paper.title}. "] if cfg.title_prefix else []
    encoded = window_tokenizer().encode_batch([*heads, *sents], add_special_tokens=False)
    counts = [len(e.ids) for e in encoded]
    title = counts[0] if heads else 0
    # A sentence longer than the budget is a window of its own (the model truncates it).
    cap = max(cfg.window_tokens - 2 - title, *counts[len(heads) :])  # 2: [CLS] and [SEP]
    return _balanced(counts[len(heads) :], cap)


def _balanced(sizes: list[int], cap: int) -> list[tuple[int, int]]:
    """Contiguous groups of at most `cap`: as few as possible, then least sum of squares."""
    n = len(sizes)
    pre = [0]
    for x in sizes:
        pre.append(pre[-1] + x)
    inf = (n + 1, 0.0)
    # best[i]: (groups, sum of squared sizes) for the first i sentences; cut[i]: last start.
    best: list[tuple[int, float]] = [(0, 0.0)] + [inf] * n
    cut = [0] * (n + 1)
    for i in range(1, n + 1):
        for a in range(i - 1, -1, -1):
            size = pre[i] - pre[a]
            if size > cap:
                break
            cand = (best[a][0] + 1, best[a][1] + size * size)
            if cand < best[i]:
                best[i], cut[i] = cand, a
    spans: list[tuple[int, int]] = []
    end = n
    while end > 0:
        spans.append((cut[end], end))
        end = cut[end]
    return spans[::-1]


def embed_text(paper: Paper, chunk: Chunk, cfg: ChunkSettings) -> str:
    """The text the embedding model sees for a chunk (title-prefixed when configured)."""
    return f"{paper.title}. {chunk.text}" if cfg.title_prefix else chunk.text
