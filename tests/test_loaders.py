"""Loading abstracts from text, JSONL, JSON and CSV files: records, titles, dedup and errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rag.cues import Cues
from rag.models import LoadError, content_key, normalize_text
from rag.store import loaders, titles
from rag.store.loaders import LoadResult, load_file, load_paths
from rag.store.titles import derive_title

REPO = Path(__file__).resolve().parents[1]
SEED = REPO / "data" / "iclr2026_seed_abstracts.txt"
SHARED = Path(os.environ.get("PAPERCHAT_SHARED_DATA") or REPO.parent / "shared" / "data")
CORPUS = SHARED / "iclr2026_accepted.jsonl"

ABSTRACT_A = (
    "We present Hubble, a suite of open-source large language models for the scientific study "
    "of memorization, trained with controlled insertion of sensitive text."
)
ABSTRACT_B = (
    "We propose a novel method that improves calibration of classifiers under distribution "
    "shift by reweighting the training loss with estimated density ratios."
)
ABSTRACT_C = (
    "Graph neural networks struggle with long-range dependencies. We study oversquashing and "
    "show that rewiring the graph with a spectral criterion removes the bottleneck."
)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    """Create tmp_path/name (and its folders) with the given text or bytes."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def jsonl(*records: object) -> str:
    """JSON Lines text of the given records."""
    return "".join(json.dumps(r) + "\n" for r in records)


def messages(errors: list[LoadError]) -> list[tuple[int | None, str]]:
    """(line, message) of each error, for compact assertions."""
    return [(e.line, e.message) for e in errors]


# --- seed text format -----------------------------------------------------------------------


def test_seed_file_loads_19_abstracts_and_skips_heading() -> None:
    papers, errors = load_file(SEED)
    assert errors == []
    assert len(papers) == 19
    assert papers[0].abstract.startswith("Safe exploration is a prerequisite")
    assert papers[0].source == f"{SEED}:3"
    assert all("论文列表" not in p.abstract for p in papers)
    for paper in papers:
        assert paper.title_is_derived
        assert paper.key == content_key(paper.abstract)
        assert paper.id == f"h-{paper.key}"
        assert paper.abstract == normalize_text(paper.abstract)


def test_seed_titles_name_the_contribution() -> None:
    titles = [p.title for p in load_file(SEED)[0]]
    assert titles[0] == "SHAPO: Sharpness-Aware Policy Optimization"
    assert "Qronos" in titles
    assert "WebDS" in titles
    assert "MCP-SafetyBench" in titles  # unwrapped from \textbf{...}
    assert all(0 < len(t) <= 100 for t in titles)
    assert len(set(titles)) == len(titles)


def test_seed_file_is_shipped_byte_identical_to_shared_copy() -> None:
    shared = SHARED / SEED.name
    if not shared.exists():
        pytest.skip(f"{shared} not present")
    assert SEED.read_bytes() == shared.read_bytes()


def test_txt_heading_only_when_short_and_not_a_sentence(tmp_path: Path) -> None:
    path = write(tmp_path, "a.txt", f"My reading list\n\n{ABSTRACT_A}\n\n\n{ABSTRACT_B}\n")
    papers, errors = load_file(path)
    assert errors == []
    assert [p.source for p in papers] == [f"{path}:3", f"{path}:6"]

    no_heading = write(tmp_path, "b.txt", f"{ABSTRACT_A}\n\n{ABSTRACT_B}\n")
    assert len(load_file(no_heading)[0]) == 2


def test_txt_joins_wrapped_lines_of_one_abstract(tmp_path: Path) -> None:
    half = len(ABSTRACT_C) // 2
    wrapped = ABSTRACT_C[:half] + "\r\n   " + ABSTRACT_C[half:]
    papers, errors = load_file(write(tmp_path, "w.txt", wrapped + "\r\n"))
    assert errors == []
    assert papers[0].abstract == normalize_text(ABSTRACT_C[:half] + " " + ABSTRACT_C[half:])


# --- derived titles -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("abstract", "title"),
    [
        (
            "We introduce Qronos---a new post-training quantization algorithm that corrects.",
            "Qronos",
        ),
        (ABSTRACT_A, "Hubble"),
        (
            "In this work, we propose Sharpness-Aware Policy Optimization (SHAPO), a rule.",
            "SHAPO: Sharpness-Aware Policy Optimization",
        ),
        ("Our benchmark, named ULTRA-360, covers scenes at scale and many altitudes.", "ULTRA-360"),
        (
            "We propose TRACE (Truncated Reasoning AUC Evaluation). It works.",
            "TRACE: Truncated Reasoning AUC Evaluation",
        ),
    ],
)
def test_derived_title_uses_introduced_name(abstract: str, title: str, cues: Cues) -> None:
    assert derive_title(abstract, cues) == title


def test_derived_title_names_the_contribution(cues: Cues) -> None:
    assert derive_title(ABSTRACT_B, cues) == (
        "Novel method that improves calibration of classifiers under distribution shift"
    )
    concept = (
        "Memory shapes representations. Here, we study memory in recurrent neural networks "
        "(RNNs), introducing the concept of temporal superposition."
    )
    assert derive_title(concept, cues) == "Temporal superposition"
    constrained = (
        "LLMs are popular. In this paper, we address this challenge and present the first "
        "constrained decoding method for diffusion models, one that handles grammars."
    )
    first = "First constrained decoding method for diffusion models"
    assert derive_title(constrained, cues) == first
    nothing = "Nothing here is claimed by anyone at all in this long sentence"
    assert derive_title(nothing + ".", cues) == nothing
    # An acronym for a topic at the end of the phrase is not the contribution's name.
    topic = "We propose a general framework for achieving differential privacy (DP) on manifolds."
    assert not derive_title(topic, cues).startswith("DP")
    assert len(derive_title("word " * 500, cues)) <= titles.FALLBACK_TITLE_CHARS


# --- JSONL, JSON, CSV -----------------------------------------------------------------------


def test_jsonl_maps_fields_and_ignores_unknown_ones(tmp_path: Path) -> None:
    record = {
        "openreview_id": " ZfdnZhOP0k ",
        "title": "Hubble: a Model Suite",
        "abstract": "  " + ABSTRACT_A.replace(" ", "\n  ", 3),
        "keywords": ["memorization", " privacy ", ""],
        "authors": ["Ada Lovelace", "Alan Turing"],
        "primary_area": "alignment",
        "venue": "ICLR 2026 Poster",
        "decision": "Accept (Poster)",
        "avg_rating": 6.5,
        "url": "https://openreview.net/forum?id=ZfdnZhOP0k",
    }
    path = write(tmp_path, "p.jsonl", "\n" + jsonl(record) + "\n\n")
    papers, errors = load_file(path)
    assert errors == []
    (paper,) = papers
    assert paper.id == "ZfdnZhOP0k"
    assert paper.title == "Hubble: a Model Suite" and not paper.title_is_derived
    assert paper.abstract == normalize_text(ABSTRACT_A)
    assert paper.keywords == ["memorization", "privacy"]
    assert paper.authors == ["Ada Lovelace", "Alan Turing"]
    assert (paper.primary_area, paper.venue, paper.decision) == (
        "alignment",
        "ICLR 2026 Poster",
        "Accept (Poster)",
    )
    assert paper.url.startswith("https://openreview.net/")
    assert paper.source == f"{path}:2"


def test_json_array_reports_element_lines(tmp_path: Path) -> None:
    text = json.dumps([{"abstract": ABSTRACT_A}, "oops", {"abstract": ABSTRACT_B}], indent=2)
    path = write(tmp_path, "p.json", text)
    papers, errors = load_file(path)
    assert [p.source for p in papers] == [f"{path}:2", f"{path}:6"]
    assert messages(errors) == [(5, "expected an object, got string")]


def test_json_object_with_papers_list(tmp_path: Path) -> None:
    a, b = json.dumps(ABSTRACT_A), json.dumps(ABSTRACT_B)
    text = f'{{\n  "meta": {{"papers": 1}},\n  "papers": [\n    {{"abstract": {a}}},\n'
    text += f'    {{"abstract": {b}}}\n  ]\n}}'
    path = write(tmp_path, "p.json", text)
    papers, errors = load_file(path)
    assert errors == []
    assert [p.source for p in papers] == [f"{path}:4", f"{path}:5"]


def test_csv_with_bom_case_insensitive_columns_and_multiline_cells(tmp_path: Path) -> None:
    content = (
        "\ufeffID,Title,Abstract,Keywords,Authors,Extra\r\n"
        f'p1,Spectral rewiring,"{ABSTRACT_C[:60]}\r\n{ABSTRACT_C[60:]}",gnn; rewiring,A; B,x\r\n'
        "\r\n"
        f'p2,,"{ABSTRACT_A}",,,\r\n'
        f"p3,=cmd|' /C calc'!A0 ,\"{ABSTRACT_B}\",,,\r\n"
    )
    path = write(tmp_path, "p.csv", content)
    papers, errors = load_file(path)
    assert errors == []
    assert [p.id for p in papers] == ["p1", "p2", "p3"]
    assert [p.source for p in papers] == [f"{path}:2", f"{path}:5", f"{path}:6"]
    assert papers[0].keywords == ["gnn", "rewiring"] and papers[0].authors == ["A", "B"]
    assert papers[1].title == "Hubble" and papers[1].title_is_derived
    assert papers[2].title == "=cmd|' /C calc'!A0"


def test_keywords_list_and_semicolon_string_are_equivalent(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "k.jsonl",
        jsonl(
            {"abstract": ABSTRACT_A, "keywords": ["a b", "c"]},
            {"abstract": ABSTRACT_B, "keywords": "a b ; c;"},
        ),
    )
    papers, _ = load_file(path)
    assert papers[0].keywords == papers[1].keywords == ["a b", "c"]


def test_id_precedence(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "ids.jsonl",
        jsonl(
            {"id": "own", "openreview_id": "or", "abstract": ABSTRACT_A},
            {"id": "  ", "openreview_id": "or2", "abstract": ABSTRACT_B},
            {"id": 42, "abstract": ABSTRACT_C},
            {"abstract": ABSTRACT_C + " Extra."},
        ),
    )
    papers, errors = load_file(path)
    assert errors == []
    assert [p.id for p in papers[:3]] == ["own", "or2", "42"]
    assert papers[3].id == "h-" + content_key(ABSTRACT_C + " Extra.")


def test_non_web_urls_are_dropped(tmp_path: Path) -> None:
    path = write(tmp_path, "u.jsonl", jsonl({"abstract": ABSTRACT_A, "url": "javascript:x()"}))
    assert load_file(path)[0][0].url == ""


# --- deduplication --------------------------------------------------------------------------


def test_duplicate_abstract_keeps_richer_record(tmp_path: Path) -> None:
    txt = write(tmp_path, "seed.txt", ABSTRACT_A.upper().replace(" ", "   ") + "\n")
    rich = write(tmp_path, "rich.jsonl", jsonl({"id": "X1", "title": "T", "abstract": ABSTRACT_A}))
    for order in ([txt, rich], [rich, txt]):
        result = load_paths(order)
        assert result.errors == [] and result.exit_code == 0
        assert [(p.id, p.title) for p in result.papers] == [("X1", "T")]
        assert result.duplicates == 1


def test_duplicate_abstract_tie_keeps_first(tmp_path: Path) -> None:
    a = write(tmp_path, "a.jsonl", jsonl({"title": "First", "abstract": ABSTRACT_A}))
    b = write(tmp_path, "b.jsonl", jsonl({"title": "Second", "abstract": ABSTRACT_A}))
    assert [p.title for p in load_paths([a, b]).papers] == ["First"]


def test_duplicate_id_with_other_abstract_is_reported_and_first_kept(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "d.jsonl",
        jsonl({"id": "X", "abstract": ABSTRACT_A}, {"id": "X", "abstract": ABSTRACT_B}),
    )
    result = load_paths([path])
    assert [p.abstract for p in result.papers] == [ABSTRACT_A]
    assert [str(e) for e in result.errors] == [
        f"{path}:2: duplicate id 'X', first seen at {path}:1"
    ]
    assert result.exit_code == 1


# --- bad input ------------------------------------------------------------------------------


def test_empty_binary_and_unsupported_files(tmp_path: Path) -> None:
    cases = {
        "empty.jsonl": (b"\xef\xbb\xbf \n\n", "file is empty"),
        "blob.txt": (b"abc\x00\x01\x02" * 20, "not a text file (contains NUL bytes)"),
        "utf16.csv": ("abstract\n".encode("utf-16"), "not a text file (UTF-16; save it as UTF-8)"),
        "paper.pdf": (
            b"%PDF-1.7",
            "unsupported file type '.pdf' (expected .txt, .jsonl, .json or .csv)",
        ),
    }
    for name, (content, message) in cases.items():
        path = write(tmp_path, name, content)
        assert messages(load_file(path)[1]) == [(None, message)], name


def test_invalid_utf8_rejects_only_that_line_in_jsonl(tmp_path: Path) -> None:
    good = jsonl({"abstract": ABSTRACT_A}).encode()
    path = write(
        tmp_path, "bad.jsonl", good + b'{"abstract": "caf\xe9 ' + b"x" * 60 + b'"}\n' + good
    )
    papers, errors = load_file(path)
    assert len(papers) == 2
    assert messages(errors) == [(2, f"not valid UTF-8 at byte {len(good) + 17}")]


def test_invalid_utf8_in_csv_is_a_file_error_with_line(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.csv", b"abstract\n" + ABSTRACT_A.encode() + b"\n\xff\xfe\n")
    papers, errors = load_file(path)
    assert papers == []
    assert messages(errors) == [(3, f"not valid UTF-8 at byte {len(ABSTRACT_A) + 10}")]


def test_record_level_errors_name_line_and_keep_good_records(tmp_path: Path) -> None:
    lines = [
        json.dumps({"abstract": ABSTRACT_A}),
        '{"abstract": "unterminated',
        "[1, 2]",
        json.dumps({"title": "no abstract"}),
        json.dumps({"abstract": "   "}),
        json.dumps({"abstract": "Too short to be an abstract."}),
        json.dumps({"abstract": "x" * 100_000}),
        json.dumps({"abstract": ABSTRACT_B, "keywords": {"a": 1}}),
        json.dumps({"abstract": ABSTRACT_B, "title": 2026}),
        json.dumps({"abstract": 3}),
        json.dumps({"abstract": ABSTRACT_C, "id": "z" * 5000}),
        json.dumps({"abstract": ABSTRACT_C, "authors": ["A", ["B"]]}),
    ]
    path = write(tmp_path, "mixed.jsonl", "\n".join(lines) + "\n")
    papers, errors = load_file(path)
    assert [p.source for p in papers] == [f"{path}:1", f"{path}:9"]
    assert papers[1].title == "2026"
    found = messages(errors)
    assert found[:6] == [
        (2, "invalid JSON: Unterminated string starting at (column 14)"),
        (3, "expected an object, got array"),
        (4, "missing field 'abstract'"),
        (5, "empty field 'abstract'"),
        (6, "abstract too short (28 chars, minimum 50)"),
        (7, "abstract too long (100000 chars, maximum 20000)"),
    ]
    assert found[6] == (
        8,
        "field 'keywords' must be a list or a ';'-separated string, got object",
    )
    assert found[7] == (10, "field 'abstract' must be text, got number")
    assert found[8][0] == 11 and found[8][1].startswith("field 'id' too long (5000 chars")
    assert found[9] == (12, "field 'authors' must hold text items, found array")
    assert all(len(e.message) < 200 for e in errors)


def test_csv_without_abstract_column_names_columns_found(tmp_path: Path) -> None:
    path = write(tmp_path, "c.csv", "title;summary\nA;B\n")
    assert messages(load_file(path)[1]) == [(1, "no 'abstract' column (found: title;summary)")]


def test_csv_row_with_wrong_field_count(tmp_path: Path) -> None:
    path = write(tmp_path, "c.csv", f'title,abstract\nA,"{ABSTRACT_A}",extra\nB,"{ABSTRACT_B}"\n')
    papers, errors = load_file(path)
    assert [p.title for p in papers] == ["B"]
    assert messages(errors) == [(2, "expected 2 fields as in the header, found 3")]


def test_invalid_json_document_is_a_file_error(tmp_path: Path) -> None:
    path = write(tmp_path, "p.json", '[\n  {"abstract": 1},\n  oops\n]')
    assert messages(load_file(path)[1]) == [(3, "invalid JSON: Expecting value (column 3)")]
    scalar = write(tmp_path, "s.json", '"just text"')
    assert load_file(scalar)[1][0].message.startswith("expected an array of objects")


def test_file_over_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loaders, "MAX_FILE_BYTES", 100)
    path = write(tmp_path, "big.txt", ABSTRACT_A + "\n\n" + ABSTRACT_B)
    result = load_paths([path])
    assert result.errors[0].message.startswith("file too large (")
    assert result.files == [] and result.exit_code == 2


# --- load_paths -----------------------------------------------------------------------------


def test_folder_is_walked_sorted_skipping_hidden_and_other_files(tmp_path: Path) -> None:
    write(tmp_path, "b.jsonl", jsonl({"abstract": ABSTRACT_B}))
    write(tmp_path, "a/z.txt", ABSTRACT_A + "\n")
    write(tmp_path, ".hidden.txt", ABSTRACT_C + "\n")
    write(tmp_path, ".git/c.txt", ABSTRACT_C + "\n")
    write(tmp_path, "notes.md", "ignored")
    result = load_paths([tmp_path, tmp_path / "b.jsonl"])
    assert result.files == [str(tmp_path / "a" / "z.txt"), str(tmp_path / "b.jsonl")]
    assert [p.abstract for p in result.papers] == [ABSTRACT_A, ABSTRACT_B]
    assert result.exit_code == 0


def test_exit_codes(tmp_path: Path) -> None:
    good = write(tmp_path, "good.jsonl", jsonl({"abstract": ABSTRACT_A}))
    partial = write(tmp_path, "partial.jsonl", jsonl({"abstract": ABSTRACT_B}, {"abstract": "x"}))
    bad = write(tmp_path, "bad.jsonl", "not json\n")
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()

    assert load_paths([good]).exit_code == 0
    assert load_paths([good, partial]).exit_code == 1
    assert load_paths([good, bad]).exit_code == 1
    assert load_paths([bad]).exit_code == 2
    assert load_paths([empty_dir]).exit_code == 2
    assert load_paths([]).exit_code == 2

    missing = load_paths([good, tmp_path / "nope.jsonl"])
    assert isinstance(missing, LoadResult) and missing.fatal and missing.exit_code == 2
    assert len(missing.papers) == 1
    assert str(missing.errors[0]) == f"{tmp_path / 'nope.jsonl'}: no such file or directory"


# --- the real corpus ------------------------------------------------------------------------


@pytest.mark.corpus
def test_corpus_and_seed_merge_to_4303_papers() -> None:
    if not CORPUS.exists():
        pytest.skip(f"{CORPUS} not present")
    # Load speed is a benchmark number (eval/bench_ingest.py), not a timed unit test.
    result = load_paths([SEED, CORPUS])
    assert result.errors == [] and result.exit_code == 0
    assert len(result.papers) == 4303
    assert result.duplicates == 18
    seeds = result.papers[:19]  # a merged record keeps the slot of its first occurrence
    titled = [p for p in seeds if not p.title_is_derived]
    assert len(titled) == 18
    assert all(not p.id.startswith("h-") and p.url for p in titled)
    (untitled,) = [p for p in seeds if p.title_is_derived]
    assert untitled.title == "Qronos"


def test_no_sample_title_is_a_cut_off_sentence() -> None:
    seed = Path(__file__).parents[1] / "data" / "iclr2026_seed_abstracts.txt"
    titles = [p.title for p in load_paths([seed]).papers]
    assert len(titles) == 19
    assert [t for t in titles if t.endswith("…")] == []
