"""Questions typed loosely about the collection: two asks in one, an area said in passing, a
metric after a superlative, papers described instead of named (issue 27)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import build_settings

from rag.app.pipeline import Pipeline
from rag.lexicon import Lexicon
from rag.models import Conversation, QuestionKind
from rag.questions.planner import rule_plan
from rag.questions.router import Router
from rag.store.catalog import Catalog
from rag.store.embeddings import CachedEmbedder
from rag.store.loaders import load_paths

FIXTURE = Path(__file__).parent / "fixtures" / "collection.jsonl"
K = QuestionKind


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog(load_paths([FIXTURE]).papers)


@pytest.fixture(scope="module")
def pipe(
    collection_index_dir: Path, tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder
) -> Pipeline:
    data_dir = tmp_path_factory.mktemp("two-asks") / "data"
    shutil.copytree(collection_index_dir, data_dir)
    return Pipeline(build_settings(data_dir), embedder=embedder)


@pytest.mark.parametrize(
    ("question", "area", "decision"),
    [
        ("how many papers in the learning theroy area?", "learning theory", None),
        ("orals reinforcement learning track count", "reinforcement learning", "Oral"),
        ("how many posters in the 'reinforcement learning' area", "reinforcement learning", None),
        ("list papers from the area generative models", "generative models", None),
    ],
)
def test_an_area_said_loosely_or_with_a_slip_is_the_area_filter(
    question: str,
    area: str,
    decision: str | None,
    catalog: Catalog,
    router: Router,
    lexicon: Lexicon,
) -> None:
    plan = rule_plan(question, catalog, router=router, lexicon=lexicon)
    assert plan.filters.area == area, plan
    assert decision is None or plan.filters.decision == decision, plan
    # The area's words are the filter's, not a topic.
    assert "learning" not in plan.topic.lower(), plan


def test_an_area_word_before_the_topic_keeps_the_topic(
    catalog: Catalog, router: Router, lexicon: Lexicon
) -> None:
    plan = rule_plan(
        "graph papers in the datasets and benchmarks area", catalog, router=router, lexicon=lexicon
    )
    assert plan.filters.area == "datasets and benchmarks" and "graph" in plan.topic, plan


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("Which paper reports the highest AUROC on graph tasks?", "AUROC"),
        ("Which paper reports the lowest word error rate?", "word error rate"),
        # "accuracy" is what most papers call their score, and "anyone reports" asks.
        ("what's the highest accuracy anyone reports on MMVP?", ""),
    ],
)
def test_a_superlative_names_the_metric_when_no_measure_does(
    question: str, metric: str, catalog: Catalog, router: Router, lexicon: Lexicon
) -> None:
    plan = rule_plan(question, catalog, router=router, lexicon=lexicon)
    assert plan.kind == K.RESULTS and plan.metric == metric and not plan.measure, plan


def test_a_count_and_a_breakdown_of_those_are_answered_in_turn(pipe: Pipeline) -> None:
    chat = Conversation()
    answer = pipe.ask(
        "How many papers are about graph neural networks, and how do they split between "
        "orals and posters?",
        chat,
    )
    counted = pipe.ask("How many papers are about graph neural networks?")
    # The count is the first ask's, the breakdown groups those papers by decision.
    assert answer.count == counted.count and answer.plan and answer.plan.kind == K.COUNT
    second = answer.text.split("**how do they split between orals and posters?**")
    assert len(second) == 2 and "by decision" in second[1], answer.text
    assert f"among the {counted.count} papers of the previous answer" in second[1]
    # One turn recorded for the one question; its citations numbered once through.
    assert len(chat.turns) == 1
    numbers = [c.n for c in answer.citations]
    assert numbers == list(range(1, len(numbers) + 1))


def test_two_asks_of_a_named_paper_stay_one_answer_from_its_abstract(pipe: Pipeline) -> None:
    answer = pipe.ask("What does HGNet generate and how many papers does it use?")
    assert answer.plan and answer.plan.paper_ids and "**how many" not in answer.text


def test_papers_described_not_named_are_compared_as_the_best_matches(pipe: Pipeline) -> None:
    answer = pipe.ask(
        "How does the work on explaining graph neural networks with counterfactuals differ "
        "from the one on repeating larger datasets for more epochs?"
    )
    assert not answer.refused
    titles = [c.title for c in answer.citations]
    assert any("Counterfactual" in t for t in titles), titles
    assert any("Larger Datasets Can Be Repeated" in t for t in titles), titles
    assert "not named in the question" in answer.text
    # A description half of whose words no paper writes describes no paper of the index.
    absent = pipe.ask("compare the two papers on wedding photography retouching")
    assert absent.refused and not absent.citations


def test_which_of_those_reports_the_best_is_a_result_among_the_last_answers_papers(
    pipe: Pipeline,
) -> None:
    chat = Conversation()
    listed = pipe.ask("Which papers study graph neural networks?", chat)
    best = pipe.ask("which of them reports the highest AUROC?", chat)
    assert best.plan and best.plan.kind == K.RESULTS and best.plan.metric == "AUROC"
    # Among the papers just listed, the metric alone asked: no topic of its own.
    assert best.plan.within == [p.paper_id for p in listed.papers] and not best.plan.topic
    assert best.text.startswith(f"Of the {len(listed.papers)} papers of the previous answer")
