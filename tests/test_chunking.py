"""Sentence splitting and sentence-window chunking of abstracts."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag.models import Paper, content_key
from rag.settings import ChunkSettings
from rag.store.chunking import chunk_paper, embed_text, split_sentences, window_tokenizer
from rag.store.loaders import load_paths


def paper(abstract: str, title: str = "A Title", pid: str = "p1") -> Paper:
    return Paper(id=pid, key=content_key(abstract), title=title, abstract=abstract)


def spans_in_order(text: str, sentences: list[str]) -> bool:
    """Every sentence is a verbatim, non-overlapping substring, in order."""
    pos = 0
    for s in sentences:
        found = text.find(s, pos)
        if found < 0:
            return False
        pos = found + len(s)
    return True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "We use e.g. transformers and CNNs. It works.",
            ["We use e.g. transformers and CNNs.", "It works."],
        ),
        (
            "Smith et al. showed this first. We extend it.",
            ["Smith et al. showed this first.", "We extend it."],
        ),
        (
            "Accuracy rises from 91.5 to 95.2%. Cost falls by 3.5x.",
            ["Accuracy rises from 91.5 to 95.2%.", "Cost falls by 3.5x."],
        ),
        (
            "We study the hard case, i.e. the noisy one. See Fig. 2 for details. Done!",
            ["We study the hard case, i.e. the noisy one.", "See Fig. 2 for details.", "Done!"],
        ),
        (
            "Does it scale? Yes, to 8B parameters! We release the code.",
            ["Does it scale?", "Yes, to 8B parameters!", "We release the code."],
        ),
        (
            'They said "it works." Then we tested it.',
            ['They said "it works."', "Then we tested it."],
        ),
        (
            "We make two contributions. 1. A new loss. 2. A new benchmark.",
            ["We make two contributions.", "1. A new loss.", "2. A new benchmark."],
        ),
        ("J. Smith proposed it. We follow.", ["J. Smith proposed it.", "We follow."]),
        ("No final punctuation here", ["No final punctuation here"]),
        ("  Padded sentence one.  Padded two.  ", ["Padded sentence one.", "Padded two."]),
        ("", []),
    ],
)
def test_split_sentences_cases(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_split_keeps_every_seed_sentence_verbatim(sample_path: Path) -> None:
    papers = load_paths([sample_path]).papers
    assert len(papers) == 19
    for p in papers:
        sents = split_sentences(p.abstract)
        assert sents, p.id
        assert spans_in_order(p.abstract, sents), p.id
        # Sentences tile the abstract: only the whitespace between them is dropped.
        assert " ".join(sents) == p.abstract, p.id
        assert all(s == s.strip() and s for s in sents)


@pytest.mark.corpus
def test_split_tiles_every_corpus_abstract(corpus_path: Path) -> None:
    papers = load_paths([corpus_path]).papers
    assert len(papers) > 4000
    counts = []
    for p in papers:
        sents = split_sentences(p.abstract)
        assert " ".join(sents) == p.abstract, p.id
        counts.append(len(sents))
    # Abstracts run to a handful of sentences; a splitter that never splits gives 1.
    assert 5 <= sorted(counts)[len(counts) // 2] <= 12


@pytest.mark.parametrize(("size", "overlap"), [(1, 0), (2, 1), (3, 1), (3, 0), (5, 2)])
def test_chunks_are_overlapping_windows_covering_all_sentences(size: int, overlap: int) -> None:
    sents = [f"Sentence number {i} says something distinct." for i in range(7)]
    p = paper(" ".join(sents))
    cfg = ChunkSettings(windows="sentences", sentences=size, overlap=overlap)
    chunks = chunk_paper(p, cfg)
    assert [c.position for c in chunks] == list(range(len(chunks)))
    assert len({c.id for c in chunks}) == len(chunks)
    assert all(c.id == f"p1#{c.position}" and c.paper_id == "p1" for c in chunks)
    assert chunks[0].sentence_start == 0 and chunks[-1].sentence_end == 7
    covered = set()
    for prev, cur in zip(chunks, chunks[1:], strict=False):
        assert cur.sentence_start == prev.sentence_end - overlap
    for c in chunks:
        assert 1 <= c.sentence_end - c.sentence_start <= size
        assert c.text == " ".join(sents[c.sentence_start : c.sentence_end])
        assert c.text in p.abstract
        covered.update(range(c.sentence_start, c.sentence_end))
    assert covered == set(range(7))


def test_short_abstract_is_one_chunk() -> None:
    p = paper("Only one sentence in this abstract, but a long one.")
    chunks = chunk_paper(p, ChunkSettings(windows="sentences", sentences=3, overlap=1))
    assert len(chunks) == 1
    assert chunks[0].text == p.abstract
    assert (chunks[0].sentence_start, chunks[0].sentence_end) == (0, 1)


def test_empty_abstract_gives_no_chunks() -> None:
    assert chunk_paper(paper("   "), ChunkSettings()) == []


def test_embed_text_prefixes_title_only_when_asked() -> None:
    p = paper("First sentence here. Second sentence here.", title="Qronos")
    chunk = chunk_paper(p, ChunkSettings(windows="sentences", sentences=1, overlap=0))[1]
    assert embed_text(p, chunk, ChunkSettings(title_prefix=True)) == (
        "Qronos. Second sentence here."
    )
    assert embed_text(p, chunk, ChunkSettings(title_prefix=False)) == "Second sentence here."


def test_chunking_signature_differs_per_setting() -> None:
    sigs = {
        ChunkSettings(windows="sentences", sentences=s, overlap=o, title_prefix=t).signature
        for s, o, t in [(1, 0, True), (1, 0, False), (3, 1, True), (3, 0, True), (2, 1, True)]
    }
    fit = {
        ChunkSettings(window_tokens=n, title_prefix=t).signature
        for n, t in [(256, True), (256, False), (128, True)]
    }
    assert len(sigs) == 5 and len(fit) == 3 and not sigs & fit
    # Fit windows ignore the sliding-window sizes, so those must not split collections.
    assert ChunkSettings(sentences=5).signature == ChunkSettings().signature == "f256t"


def _tokens(text: str) -> int:
    return len(window_tokenizer().encode(text).ids)  # special tokens included, as the model sees it


def test_fit_window_is_the_whole_abstract_when_it_fits() -> None:
    p = paper("A short abstract. It has two sentences.", title="Qronos")
    chunks = chunk_paper(p, ChunkSettings())
    assert len(chunks) == 1
    assert chunks[0].text == p.abstract
    assert (chunks[0].sentence_start, chunks[0].sentence_end) == (0, 2)


@pytest.mark.parametrize("budget", [32, 64, 128, 256])
@pytest.mark.parametrize("title", [True, False])
def test_fit_windows_are_few_near_equal_and_within_budget(budget: int, title: bool) -> None:
    lengths = [3, 9, 4, 12, 6, 5, 8, 3, 10, 7, 4, 6]
    sents = [f"Sentence {i} " + " ".join(["word"] * n) + "." for i, n in enumerate(lengths)]
    p = paper(" ".join(sents), title="Learning Sparse Graph Operators")
    cfg = ChunkSettings(window_tokens=budget, title_prefix=title)
    chunks = chunk_paper(p, cfg)
    # Every sentence once, in order, no overlap.
    assert [c.sentence_start for c in chunks[1:]] == [c.sentence_end for c in chunks[:-1]]
    assert chunks[0].sentence_start == 0 and chunks[-1].sentence_end == len(sents)
    sizes = [_tokens(embed_text(p, c, cfg)) for c in chunks]
    assert max(sizes) <= budget
    # As few windows as greedy packing of whole sentences needs (greedy is the minimum).
    overhead = _tokens(embed_text(p, chunks[0], cfg)) - _tokens(chunks[0].text) + 2
    greedy, room = 1, budget - overhead
    for s in sents:
        need = _tokens(s) - 2
        if need > room:
            greedy, room = greedy + 1, budget - overhead
        room -= need
    assert len(chunks) == greedy
    if budget >= 64:  # near-equal: no window is a leftover scrap of the others
        assert min(sizes) >= max(sizes) / 2, sizes


def test_fit_sentence_longer_than_budget_stands_alone() -> None:
    long = "Long " + " ".join(["token"] * 80) + "."
    p = paper(f"Short one. {long} Short two.")
    chunks = chunk_paper(p, ChunkSettings(window_tokens=40, title_prefix=False))
    assert [c.text for c in chunks] == ["Short one.", long, "Short two."]
