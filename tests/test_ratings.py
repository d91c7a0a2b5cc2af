"""Reviewer ratings as paper metadata, and the questions about them.

Expected answers are computed from the JSONL records themselves (the fixture's, or the 4,302-
paper corpus'), never from the system. The questions were written before the code, in several
styles; those under "held out" were not used while writing the rules and are reported as such.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from rag.answers.export import answer_matches, to_csv
from rag.answers.wording import FEW_RATINGS
from rag.app.options import AskOptions
from rag.app.pipeline import Pipeline
from rag.lexicon import Lexicon
from rag.models import Answer, Filters, Paper, Plan, QuestionKind
from rag.questions.planner import rule_plan
from rag.questions.router import Router
from rag.store.catalog import Catalog
from rag.store.embeddings import CachedEmbedder
from rag.store.loaders import load_file, load_paths
from tests.conftest import CORPUS_NAME, REPO_ROOT, build_settings, run_cli

FIXTURE = REPO_ROOT / "tests" / "fixtures" / "rated.jsonl"
SEED = REPO_ROOT / "data" / "iclr2026_seed_abstracts.txt"
# A data dir already holding the corpus index (e.g. a copy of the eval's scale index) spares
# the corpus tests the three minutes of embedding; read before the env is cleared for tests.
_CORPUS_INDEX = os.environ.get("PAPERCHAT_CORPUS_INDEX")
RATING = QuestionKind.RATING
NO_RATING = "GFyVxtyMvq"  # its record carries no avg_rating / n_ratings
ALIASED = "dmzlAUkulz"  # its record names the rating 'rating'
FEW = "4YG9ufFg58"  # two ratings


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _rating(record: dict[str, Any]) -> float | None:
    value = record.get("avg_rating", record.get("rating"))
    return None if value is None else float(value)


def _text(record: dict[str, Any]) -> str:
    return " ".join([record["title"], " ".join(record.get("keywords", [])), record["abstract"]])


def _on(records: list[dict[str, Any]], pattern: str) -> list[dict[str, Any]]:
    """The records writing the pattern in title, keywords or abstract (the literal topic)."""
    rx = re.compile(pattern, re.IGNORECASE)
    return [r for r in records if rx.search(_text(r))]


def _top(records: list[dict[str, Any]]) -> tuple[float, set[str]]:
    """The best rating among the records and the ids of every record holding it (a tie)."""
    rated = [r for r in records if _rating(r) is not None]
    best = max(round(_rating(r), 2) for r in rated)  # type: ignore[arg-type]
    return best, {r["openreview_id"] for r in rated if round(_rating(r), 2) == best}  # type: ignore[arg-type]


def _top_group(answer: Answer) -> tuple[float, set[str]]:
    """The answer's first rating and the papers it lists at that rating."""
    assert answer.papers and answer.papers[0].avg_rating is not None, answer.text
    best = round(answer.papers[0].avg_rating, 2)
    return best, {
        p.paper_id
        for p in answer.papers
        if p.avg_rating is not None and round(p.avg_rating, 2) == best
    }


def _by_area(records: list[dict[str, Any]]) -> list[tuple[str, float, int]]:
    """(area, mean rating, rated papers), best mean first; means equal to two decimals (as
    shown) are a tie, listed by name."""
    per: dict[str, list[float]] = defaultdict(list)
    for r in records:
        if r.get("primary_area") and _rating(r) is not None:
            per[r["primary_area"]].append(_rating(r))  # type: ignore[arg-type]
    rows = [(a, round(statistics.mean(v), 2), len(v)) for a, v in per.items()]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def _ask(pipe: Pipeline, question: str, **filters: Any) -> Answer:
    return pipe.ask(question, options=AskOptions(answerer="extractive", filters=Filters(**filters)))


# -- loading: absent stays absent -------------------------------------------------------------


def test_loaders_read_rating_and_count_and_keep_absent_as_none() -> None:
    papers, errors = load_file(FIXTURE)
    assert not errors
    by_id = {p.id: p for p in papers}
    for r in _records(FIXTURE):
        p = by_id[r["openreview_id"]]
        assert p.avg_rating == _rating(r)
        assert p.n_ratings == r.get("n_ratings")
    assert by_id[NO_RATING].avg_rating is None and by_id[NO_RATING].n_ratings is None
    assert by_id[ALIASED].avg_rating == pytest.approx(4.3333, abs=1e-3)


def test_csv_and_json_loaders_read_ratings(tmp_path: Path) -> None:
    csv_path = tmp_path / "p.csv"
    abstract = "We study a problem of learning and report a result on a benchmark. " * 2
    csv_path.write_text(
        "id,title,abstract,rating,n_ratings\n"
        f'a,First,"{abstract}",6.5,4\n'
        f'b,Second,"{abstract} Another.",,\n'
    )
    papers, errors = load_file(csv_path)
    assert not errors
    assert [(p.avg_rating, p.n_ratings) for p in papers] == [(6.5, 4), (None, None)]
    json_path = tmp_path / "p.json"
    json_path.write_text(
        json.dumps([{"id": "c", "abstract": abstract, "avg_rating": 7, "n_ratings": 3}])
    )
    papers, errors = load_file(json_path)
    assert not errors and papers[0].avg_rating == 7.0 and papers[0].n_ratings == 3


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("avg_rating", "high", "avg_rating"),
        ("avg_rating", [7], "avg_rating"),
        ("avg_rating", "nan", "avg_rating"),
        ("n_ratings", 2.5, "n_ratings"),
        ("n_ratings", -1, "n_ratings"),
    ],
)
def test_a_bad_rating_is_an_error_naming_file_line_and_field(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    good = {"id": "ok", "abstract": "A fine abstract about learning, long enough to index."}
    bad = {
        "id": "bad",
        "abstract": "Another abstract about learning, long enough to be indexed.",
        field: value,
    }
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    result = load_paths([path])
    assert [p.id for p in result.papers] == ["ok"]
    assert len(result.errors) == 1
    err = result.errors[0]
    assert err.line == 2 and message in err.message and "bad.jsonl" in str(err)


# -- the index, catalog, answers and exports on the fixture ----------------------------------


@pytest.fixture(scope="module")
def rated_pipe(tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder) -> Pipeline:
    pipe = Pipeline(build_settings(tmp_path_factory.mktemp("rated") / "data"), embedder=embedder)
    _, report = pipe.ingest([FIXTURE])
    assert report.added == len(_records(FIXTURE)) and not report.errors
    return pipe


@pytest.fixture(scope="module")
def sample_pipe(tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder) -> Pipeline:
    pipe = Pipeline(build_settings(tmp_path_factory.mktemp("unrated") / "data"), embedder=embedder)
    pipe.ingest([SEED])
    return pipe


def test_absent_rating_stays_absent_through_index_catalog_answer_and_csv(
    rated_pipe: Pipeline,
) -> None:
    stored = rated_pipe.catalog()
    assert stored[NO_RATING].avg_rating is None and stored[NO_RATING].n_ratings is None
    assert stored[FEW].n_ratings == 2
    answer = _ask(rated_pipe, "Which papers on reinforcement learning are rated best?")
    unrated = [p for p in answer.papers if p.paper_id == NO_RATING]
    assert unrated and unrated[0].avg_rating is None
    # Not ranked as a 0: said to have no rating, after every rated paper.
    assert answer.papers[-1].paper_id == NO_RATING
    assert "no rating" in answer.text
    rows = list(csv.DictReader(io.StringIO(to_csv(answer_matches(answer)))))
    row = next(r for r in rows if r["paper_id"] == NO_RATING)
    assert row["avg_rating"] == "" and row["n_ratings"] == ""
    rated = next(r for r in rows if r["paper_id"] != NO_RATING)
    assert float(rated["avg_rating"]) > 0 and int(rated["n_ratings"]) > 0


def test_the_best_rated_papers_on_a_topic_in_rating_order_with_ties_said(
    rated_pipe: Pipeline,
) -> None:
    records = _records(FIXTURE)
    answer = _ask(rated_pipe, "Which of the diffusion papers were rated best?")
    assert answer.plan and answer.plan.kind == RATING
    expected = _top(_on(records, r"\bdiffusion"))
    assert _top_group(answer) == expected
    ratings = [p.avg_rating for p in answer.papers if p.avg_rating is not None]
    assert ratings == sorted(ratings, reverse=True)
    # The three papers at 7.50 are one tie, said as such, with their numbers of ratings.
    second = sorted({round(r, 2) for r in ratings}, reverse=True)[1]
    assert f"{second:.2f}" in answer.text and "tie" in answer.text
    assert "4 ratings" in answer.text


def test_a_tie_at_the_top_is_said_as_a_tie(rated_pipe: Pipeline) -> None:
    records = _records(FIXTURE)
    answer = _ask(rated_pipe, "what are the highest-rated orals?")
    best, ids = _top([r for r in records if r["decision"] == "Oral"])
    assert _top_group(answer) == (best, ids) and len(ids) == 2
    assert all(p.decision == "Oral" for p in answer.papers)
    first_line = answer.text.splitlines()[0]
    assert "tie" in first_line and f"{best:.2f}" in first_line


def test_the_lowest_rated_first_when_asked(rated_pipe: Pipeline) -> None:
    records = [r for r in _on(_records(FIXTURE), r"\bdiffusion") if _rating(r) is not None]
    answer = _ask(rated_pipe, "which diffusion papers got the lowest ratings?")
    assert answer.plan and answer.plan.kind == RATING and answer.plan.aspect == "lowest"
    ratings = [p.avg_rating for p in answer.papers if p.avg_rating is not None]
    assert ratings == sorted(ratings)
    worst = min(round(_rating(r), 2) for r in records)  # type: ignore[arg-type]
    assert round(ratings[0], 2) == worst and "lowest" in answer.text.splitlines()[0]


def test_a_paper_with_few_ratings_is_marked(rated_pipe: Pipeline) -> None:
    answer = _ask(rated_pipe, "which papers on deferral to unseen experts are rated best?")
    few = next(p for p in answer.papers if p.paper_id == FEW)
    assert few.n_ratings is not None and few.n_ratings < FEW_RATINGS
    line = next(x for x in answer.text.splitlines() if "Deferral" in x)
    assert "only 2 ratings" in line


def test_which_area_has_the_best_rated_papers_groups_by_area(rated_pipe: Pipeline) -> None:
    rows = _by_area(_records(FIXTURE))
    answer = _ask(rated_pipe, "Which area has the best-rated papers?")
    assert answer.plan and answer.plan.kind == RATING and answer.plan.group_by == "area"
    listed = [line for line in answer.text.splitlines() if line.startswith("- ")]
    assert [line[2:].split(":")[0] for line in listed] == [a for a, _, _ in rows]
    assert f"{rows[0][1]:.2f}" in listed[0] and f"{rows[0][2]} rated" in listed[0]


def test_a_rating_distribution_of_a_topic(rated_pipe: Pipeline) -> None:
    on_topic = [r for r in _on(_records(FIXTURE), r"\bdiffusion") if _rating(r) is not None]
    values = [_rating(r) for r in on_topic]
    answer = _ask(rated_pipe, "What is the rating distribution of the diffusion papers?")
    assert answer.plan and answer.plan.kind == RATING and answer.plan.aspect == "distribution"
    assert f"{statistics.mean(values):.2f}" in answer.text  # type: ignore[arg-type]
    assert f"{statistics.median(values):.2f}" in answer.text  # type: ignore[arg-type]
    assert answer.count == len(values)


def test_a_minimum_rating_from_the_words_filters(rated_pipe: Pipeline) -> None:
    records = _records(FIXTURE)
    expected = {r["openreview_id"] for r in _on(records, r"\bdiffusion") if (_rating(r) or 0) >= 7}
    answer = _ask(rated_pipe, "papers on diffusion with rating >= 7")
    assert answer.plan and answer.plan.filters.min_rating == 7
    assert {p.paper_id for p in answer.papers} == expected


def test_a_minimum_rating_from_the_options_filters(rated_pipe: Pipeline) -> None:
    records = _records(FIXTURE)
    expected = {r["openreview_id"] for r in records if (_rating(r) or 0) >= 7.5}
    answer = _ask(rated_pipe, "How many papers are there?", min_rating=7.5)
    assert answer.count == len(expected)
    assert {p.paper_id for p in answer.papers} == expected
    assert "rated 7.5 or higher" in answer.text


def test_rating_questions_on_an_index_without_ratings_say_so(sample_pipe: Pipeline) -> None:
    for question in (
        "What are the highest-rated papers?",
        "which area has the best-rated papers?",
        "papers rated 7 or higher",
    ):
        answer = _ask(sample_pipe, question)
        assert answer.refused, question
        assert "no reviewer ratings" in answer.text, (question, answer.text)


@pytest.mark.slow
def test_cli_filters_by_rating_and_exports_ratings_and_their_chart(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = run_cli("ingest", "--json", "--data-dir", data, FIXTURE, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    expected = {r["openreview_id"] for r in _records(FIXTURE) if (_rating(r) or 0) >= 7.5}
    args = ("ask", "--json", "--data-dir", data, "--min-rating", "7.5")
    done = run_cli(*args, "How many papers are there?", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["count"] == len(expected)
    assert {p["paper_id"] for p in answer["papers"]} == expected
    assert all(p["avg_rating"] >= 7.5 for p in answer["papers"])
    out, chart = tmp_path / "best.csv", tmp_path / "best.png"
    ask = ("ask", "--data-dir", data, "--export", out, "--chart", chart)
    done = run_cli(*ask, "which orals got the best reviewer scores", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    ratings = [float(r["avg_rating"]) for r in rows]
    assert ratings == sorted(ratings, reverse=True) and ratings
    assert chart.read_bytes().startswith(b"\x89PNG")


def test_rating_charts_plot_the_papers_ratings() -> None:
    from rag.answers import charts

    papers, _ = load_file(FIXTURE)
    ratings = [_rating(r) for r in _records(FIXTURE)]
    hist = charts.answer_chart(papers, Plan(kind=RATING, aspect="distribution"))
    assert hist is not None
    per_bin: dict[float, float] = defaultdict(float)
    for bar in hist.axes[0].patches:
        per_bin[round(bar.get_x(), 2)] += bar.get_height()
    # Half-point bins, orals and posters stacked: each bin's stack is its number of papers.
    expected = Counter(0.5 * int(r / 0.5) for r in ratings if r is not None)
    assert {k: v for k, v in per_bin.items() if v} == expected
    by_area = charts.answer_chart(papers, Plan(kind=RATING, group_by="area"))
    assert by_area is not None
    widths = [round(bar.get_width(), 2) for bar in by_area.axes[0].patches]
    assert widths == [mean for _, mean, _ in _by_area(_records(FIXTURE))]
    # Another kind's answer, or papers without ratings, get no rating chart.
    assert charts.answer_chart(papers, Plan(kind=QuestionKind.LIST)) is None
    unrated = [p for p in papers if p.avg_rating is None]
    assert unrated and charts.answer_chart(unrated, Plan(kind=RATING)) is None


# -- the planner: which questions ask about ratings -------------------------------------------


def _fixture_catalog() -> Catalog:
    papers, _ = load_file(FIXTURE)
    return Catalog(papers)


# (question, style, expected decision filter, expected group_by, expected min_rating)
RATING_QUESTIONS = [
    ("Which of the diffusion papers were rated best?", "formal", None, None, None),
    ("What are the highest-rated orals?", "formal", "Oral", None, None),
    ("show me well-reviewed posters on RL", "casual", "Poster", None, None),
    ("Which area has the best-rated papers?", "formal", None, "area", None),
    ("top rated diffusion papers", "search-box", None, None, None),
    ("best reviewed papers on reinforcement learning", "search-box", None, None, None),
    ("highest rated papers on graph neural networks", "lowercase", None, None, None),
    ("which orals got the best reviewer scores", "casual", "Oral", None, None),
    ("what are the top-rated papers about LLM agents?", "casual", None, None, None),
    ("which paper has the highest rating?", "formal", None, None, None),
    ("Which papers on diffusion have most high rating?", "non-native", None, None, None),
    ("rating distribution of reinforcement learning papers", "search-box", None, None, None),
    ("papers on diffusion rated 7 or higher", "search-box", None, None, 7.0),
]
# Written with the ones above, but not read while writing the rules: reported, not fitted.
HELD_OUT = [
    ("What are the best rated papers about RL?", "casual", None, None, None),
    ("hihgest rated orals", "typo", "Oral", None, None),
    ("which reserach area got the best ratings", "typo", None, "area", None),
    (
        "Give me please the papers with best review score on diffusion",
        "non-native",
        None,
        None,
        None,
    ),
    ("How are ratings distributed for orals?", "formal", "Oral", None, None),
    ("posters on RL with avg rating at least 7", "search-box", "Poster", None, 7.0),
    ("which areas get the highest average rating?", "lowercase", None, "area", None),
    ("most highly rated posters", "search-box", "Poster", None, None),
]
NOT_RATING = [
    "Which papers are about movie rating prediction?",
    "papers on Elo rating systems for LLM evaluation",
    "How many papers study peer review?",
    "What are the best papers on diffusion models?",
    "Which paper reports the highest accuracy on ImageNet?",
]


@pytest.mark.parametrize(
    ("question", "style", "decision", "group", "minimum", "split"),
    [(*q, "fit") for q in RATING_QUESTIONS] + [(*q, "held-out") for q in HELD_OUT],
)
def test_rating_questions_are_planned_as_ratings(
    question: str,
    style: str,
    decision: str | None,
    group: str | None,
    minimum: float | None,
    split: str,
    router: Router,
    lexicon: Lexicon,
) -> None:
    plan = rule_plan(question, _fixture_catalog(), router=router, lexicon=lexicon)
    assert plan.kind == RATING or minimum is not None, (split, style, plan)
    assert plan.filters.decision == decision, plan
    assert plan.group_by == group, plan
    assert plan.filters.min_rating == minimum, plan


@pytest.mark.parametrize("question", NOT_RATING)
def test_a_rating_word_in_a_topic_is_no_rating_question(
    question: str, router: Router, lexicon: Lexicon
) -> None:
    plan = rule_plan(question, _fixture_catalog(), router=router, lexicon=lexicon)
    assert plan.kind != RATING and plan.filters.min_rating is None, plan


def test_paper_rating_round_trips_through_the_record() -> None:
    paper = Paper(id="x", key="k", title="T", abstract="A", avg_rating=6.25, n_ratings=4)
    again = Paper.model_validate_json(paper.model_dump_json())
    assert (again.avg_rating, again.n_ratings) == (6.25, 4)
    bare = Paper.model_validate_json(
        Paper(id="y", key="k", title="T", abstract="A").model_dump_json()
    )
    assert bare.avg_rating is None and bare.n_ratings is None


# -- the 4,302-paper corpus -------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_file(shared_data: Path | None) -> Path:
    """The 4,302-paper JSONL (module-scoped); skips when it is not available."""
    if shared_data is None or not (shared_data / CORPUS_NAME).is_file():
        pytest.skip(f"{CORPUS_NAME} not available (set PAPERCHAT_SHARED_DATA)")
    return shared_data / CORPUS_NAME


@pytest.fixture(scope="module")
def corpus_records(corpus_file: Path) -> list[dict[str, Any]]:
    return _records(corpus_file)


@pytest.fixture(scope="module")
def corpus_pipe(
    corpus_file: Path, tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder
) -> Pipeline:
    """A pipeline over the corpus and the sample (the eval's scale index), synced first."""
    data_dir = Path(_CORPUS_INDEX) if _CORPUS_INDEX else tmp_path_factory.mktemp("corpus") / "d"
    pipe = Pipeline(build_settings(data_dir), embedder=embedder)
    loaded, _ = pipe.ingest([corpus_file, SEED], prune=True)
    assert not loaded.fatal
    return pipe


RL_PATTERN = r"\breinforcement learning\b|\bRL\b"


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize(
    ("question", "pattern", "decision"),
    [
        ("Which of the diffusion papers were rated best?", r"\bdiffusion", None),
        ("top rated diffusion papers", r"\bdiffusion", None),
        ("show me well-reviewed posters on RL", RL_PATTERN, "Poster"),
        ("What are the best rated papers about RL?", RL_PATTERN, None),
        ("what are the highest-rated orals?", "", "Oral"),
        ("hihgest rated orals", "", "Oral"),
    ],
)
def test_corpus_best_rated(
    corpus_pipe: Pipeline,
    corpus_records: list[dict[str, Any]],
    question: str,
    pattern: str,
    decision: str | None,
) -> None:
    records = _on(corpus_records, pattern) if pattern else corpus_records
    if decision:
        records = [r for r in records if r["decision"] == decision]
    best, ids = _top(records)
    answer = _ask(corpus_pipe, question)
    got_best, got_ids = _top_group(answer)
    assert got_best == best, answer.text
    # The corpus' tie at the top is the answer's (a wider topic match may only add to it).
    assert ids <= got_ids, answer.text
    if len(got_ids) > 1:
        assert "tie" in answer.text.splitlines()[0]


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    ["Which area has the best-rated papers?", "which reserach area got the best ratings"],
)
def test_corpus_best_rated_area(
    corpus_pipe: Pipeline, corpus_records: list[dict[str, Any]], question: str
) -> None:
    rows = _by_area(corpus_records)
    answer = _ask(corpus_pipe, question)
    listed = [line for line in answer.text.splitlines() if line.startswith("- ")]
    assert [line[2:].split(":")[0] for line in listed] == [a for a, _, _ in rows]
    assert f"{rows[0][1]:.2f}" in listed[0]
    for (area, mean, _), line in zip(rows, listed, strict=True):
        tied = [a for a, m, _ in rows if m == mean and a != area]
        assert ("tied with" in line) == bool(tied), line


@pytest.mark.corpus
@pytest.mark.slow
def test_corpus_minimum_rating_counts(
    corpus_pipe: Pipeline, corpus_records: list[dict[str, Any]]
) -> None:
    orals = [r for r in corpus_records if r["decision"] == "Oral" and r["avg_rating"] >= 7]
    answer = _ask(corpus_pipe, "How many orals are rated 7 or higher?")
    assert answer.count == len(orals), answer.text
    area = "reinforcement learning"
    values = [r["avg_rating"] for r in corpus_records if r["primary_area"] == area]
    answer = _ask(corpus_pipe, "rating distribution of papers in the reinforcement learning area")
    assert answer.count == len(values), answer.text
    assert f"{statistics.mean(values):.2f}" in answer.text


@pytest.mark.parametrize(
    ("question", "minimum"),
    [
        ("quick q, how many math reasoning papers scored 7 or above?", 7.0),
        ("how many paper scored above 7 on in-context learning?", 7.0),
        ("how many of them got 6 or more?", 6.0),
        ("How many accepted papers received an average rating of 8 or higher?", 8.0),
        # Off the rating scale, or a percent: a benchmark score, not a rating.
        pytest.param(
            "which paper scored above 70% on MMLU",
            None,
            marks=pytest.mark.xfail(
                strict=True,
                reason="the router reads a lookup (p 0.44; results 0.47 before it was refitted "
                "on the names it reads now), whose topic is the whole question",
            ),
        ),
        ("papers that scored 80 or more on GSM8K", None),
        # A score verb without a compared number asks for no least rating.
        ("which paper scored best on MMLU?", None),
    ],
)
def test_a_compared_rating_after_a_score_verb_is_a_least_rating(
    question: str, minimum: float | None, router: Router, lexicon: Lexicon
) -> None:
    plan = rule_plan(question, _fixture_catalog(), router=router, lexicon=lexicon)
    assert plan.filters.min_rating == minimum, plan
    # The rating words are not the topic ("received", "scored" are the filter's).
    assert not {"scored", "received", "got"} & set(plan.topic.lower().split()), plan
