"""Exports, charts and the results table: pure functions over typed matches."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from conftest import run_cli

from rag.answers import charts
from rag.answers.export import (
    ExportError,
    bib_escape,
    bib_key,
    export_format,
    render_export,
    to_bibtex,
    to_csv,
    to_jsonl,
)
from rag.models import Filters, PaperMatch, Plan
from rag.store.loaders import load_file
from ui import results

FIXTURE = Path(__file__).parent / "fixtures" / "collection.jsonl"


def match(i: int, **kw: object) -> PaperMatch:
    base = dict(paper_id=f"id{i}", title=f"Paper {i}", score=1.0 / (i + 1))
    base.update(kw)
    return PaperMatch(**base)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def fixture_papers() -> list:
    papers, errors = load_file(FIXTURE)
    assert not errors
    return papers


def test_csv_round_trips_and_defuses_formulas() -> None:
    hostile = match(
        0,
        title="=cmd|' /C calc'!A0",
        primary_area="+SUM(1,2)",
        keywords=["-1+1", "@x", "plain"],
        url="https://openreview.net/forum?id=a,b",
    )
    text = to_csv([hostile, match(1, title='A "quoted", title\nwith a newline')])
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "paper_id",
        "title",
        "score",
        "primary_area",
        "decision",
        "url",
        "keywords",
        "avg_rating",
        "n_ratings",
    ]
    assert rows[1][1] == "'=cmd|' /C calc'!A0"
    assert rows[1][3] == "'+SUM(1,2)"
    assert rows[1][6] == "'-1+1; @x; plain"
    assert rows[1][5] == "https://openreview.net/forum?id=a,b"
    assert rows[2][1] == 'A "quoted", title\nwith a newline'
    assert len(rows) == 3
    # No cell a spreadsheet would evaluate.
    assert not any(c.startswith(("=", "+", "-", "@")) for r in rows[1:] for c in r)


def test_jsonl_keeps_every_field() -> None:
    m = match(3, keywords=["a", "b"], decision="Oral", quote="We show X.")
    (line,) = to_jsonl([m]).splitlines()
    assert PaperMatch.model_validate(json.loads(line)) == m


def test_bibtex_keys_are_stable_unique_and_fields_escaped() -> None:
    a = match(0, title="The Ünïcode & {Braces} of 50% $x_1$", paper_id="Ab-C_d")
    b = match(1, title="The Ünïcode again", paper_id="Ab-C_d")
    text = to_bibtex([a, b])
    assert bib_key(a) == "unicode_abcd" == bib_key(a.model_copy())
    assert "@misc{unicode_abcd," in text and "@misc{unicode_abcd_2," in text
    assert r"\& \{Braces\} of 50\% \$x\_1\$" in text
    assert bib_escape("a\\b ~ ^") == r"a\textbackslash{}b \textasciitilde{} \textasciicircum{}"
    # Every entry's braces balance: an unescaped brace would swallow the next entry.
    for entry in text.split("\n\n"):
        assert entry.count("{") - entry.count("\\{") == entry.count("}") - entry.count("\\}")


def test_format_from_suffix() -> None:
    assert export_format("out/x.CSV") == ".csv"
    assert render_export([match(0)], "a.bib").startswith("@misc{")
    with pytest.raises(ExportError, match=r"\.txt"):
        export_format("x.txt")
    with pytest.raises(ExportError, match="none"):
        export_format("x")


def test_area_chart_is_a_png_and_counts_orals_and_posters(fixture_papers: list) -> None:
    fig = charts.area_decision_chart(fixture_papers)
    png = charts.png_bytes(fig)
    assert png.startswith(b"\x89PNG")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[0].startswith("datasets and benchmarks")  # the largest area of the fixture
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["Oral", "Poster"]
    # Bar widths add up to the papers of the fixture.
    assert sum(p.get_width() for p in ax.patches) == len(fixture_papers)


def test_corpus_charts_skip_missing_metadata(fixture_papers: list) -> None:
    assert list(charts.corpus_charts(fixture_papers)) == [
        "Papers per primary area",
        "Orals per primary area",
        "Top keywords",
    ]
    bare = [match(i) for i in range(3)]
    assert charts.corpus_charts(bare) == {}
    assert not charts.has_breakdown(bare)
    kw = charts.keyword_counts([match(0, keywords=["LLM", "llm"]), match(1, keywords=["LLMs"])])
    assert kw == {"LLM": 1, "LLMs": 1}


def test_results_hide_empty_columns_and_escape_links() -> None:
    bare = [match(0, url="javascript:alert(1)"), match(1)]
    assert [h for h, _, _ in results.columns(bare, scored=False)] == ["Title", "ID"]
    rich = [match(0, primary_area="a", url='https://openreview.net/forum?id=x"><b>')]
    cols = results.columns(rich)
    assert [h for h, _, _ in cols] == ["Title", "Area", "Score", "OpenReview", "ID"]
    value = results.table(rich, cols)
    link = value["data"][0][3]  # type: ignore[index]
    assert "&quot;&gt;&lt;b&gt;" in link and "<b>" not in link
    assert [h for h, _, _ in results.columns(bare)] == ["Title", "Score", "ID"]
    assert results.datatypes(cols) == ["str", "str", "number", "html", "str"]


def test_results_search_row_id_and_chips() -> None:
    ms = [match(0, title="Graph nets", keywords=["GNN"]), match(1, title="Diffusion")]
    assert [m.paper_id for m in results.search(ms, "gnn graph")] == ["id0"]
    assert results.search(ms, "  ") == ms
    headers = ["Title", "ID"]
    assert results.row_id(["Graph nets", "id0"], headers) == "id0"
    assert results.row_id(None, headers) == ""
    plan = Plan(kind="list", topic="x", filters=Filters(decision="Oral", area="optimization"))
    assert results.chips(plan) == [("decision", "Oral ×"), ("area", "Area: optimization ×")]
    assert results.chips(None) == []
    assert "showing the first 2" in results.caption(2, 5, 9, "q<")
    assert "&lt;" in results.caption(2, 5, 9, "q<")


def test_exports_written_for_download(tmp_path: Path) -> None:
    files = results.write_exports([match(0)], tmp_path / "x", "results")
    assert sorted(files) == [".bib", ".csv", ".jsonl"]
    assert files[".csv"].read_text().startswith("paper_id,")
    again = results.write_exports([match(0)], tmp_path / "x", "results")
    assert again == files  # same content, same file


def test_answer_chart_html_only_with_a_breakdown() -> None:
    assert results.answer_chart_html([match(0)]) == ""
    html = results.answer_chart_html([match(0, decision="Oral"), match(1, decision="Poster")])
    assert html.startswith('<img class="pc-chart"') and "base64," in html


# -- `paperchat ask --export/--chart` -----------------------------------------------------------


@pytest.mark.slow
def test_ask_exports_and_charts_the_answer_papers(
    tmp_path: Path, collection_index_dir: Path
) -> None:
    question = "Which papers are about graph neural networks?"
    out_csv, out_png = tmp_path / "gnn.csv", tmp_path / "gnn.png"
    done = run_cli(
        "ask", question, "--json", "--data-dir", collection_index_dir,
        "--export", out_csv, "--chart", out_png, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    expected = [p["paper_id"] for p in payload["papers"]] or [
        s["paper_id"] for s in payload["sources"]
    ]
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    assert [r["paper_id"] for r in rows] == expected and expected
    assert all(r["url"].startswith("https://openreview.net/") for r in rows)
    assert out_png.read_bytes().startswith(b"\x89PNG")
    assert f"exported {len(expected)} papers" in done.stderr

    out_bib = tmp_path / "gnn.bib"
    done = run_cli(
        "ask", question, "--data-dir", collection_index_dir, "--export", out_bib, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert out_bib.read_text(encoding="utf-8").count("@misc{") == len(expected)


@pytest.mark.slow
def test_ask_refuses_an_unknown_export_suffix(tmp_path: Path) -> None:
    done = run_cli("ask", "anything", "--export", tmp_path / "x.xlsx", cwd=tmp_path)
    assert done.returncode == 2
    assert "unknown export format .xlsx" in done.stderr and "usage:" in done.stderr
    assert not (tmp_path / "x.xlsx").exists()
