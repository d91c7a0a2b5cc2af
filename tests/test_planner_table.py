"""The rules planner against the labelled example questions (rag/data/examples.jsonl), no index:
the catalog alone is built from the sample abstracts and the collection fixture."""

from __future__ import annotations

from pathlib import Path

import pytest

from eval import gen_docs
from rag.lexicon import Lexicon
from rag.questions.examples import Example, ExampleError, load_examples, questions_markdown
from rag.questions.planner import Planner
from rag.questions.router import Router
from rag.store.catalog import Catalog
from rag.store.loaders import load_paths

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = load_examples()


@pytest.fixture(scope="module")
def planner(router: Router, lexicon: Lexicon) -> Planner:
    papers = load_paths([REPO / "data", REPO / "tests" / "fixtures" / "collection.jsonl"]).papers
    catalog = Catalog(papers)
    return Planner(lambda: catalog, router, lexicon)


def _case(e: Example) -> object:
    # A known gap is expected to fail, and strictly: once the rules read it, the mark goes.
    marks = [pytest.mark.xfail(reason=e.gap, strict=True)] if e.gap else []
    return pytest.param(e, id=e.question[:60], marks=marks)


@pytest.mark.parametrize("example", [_case(e) for e in EXAMPLES.questions])
def test_the_rules_plan_each_example_as_labelled(planner: Planner, example: Example) -> None:
    plan = planner.plan(example.question, None, use_model=False)
    got = Example(
        question=example.question, plan=plan, labelled=example.labelled, source=""
    ).expected()
    assert got == example.expected()


def test_every_kind_has_an_example_and_a_few_shot_one_where_the_rules_agree() -> None:
    kinds = {e.plan.kind for e in EXAMPLES.questions}
    assert kinds == set(EXAMPLES.kinds)
    assert all(not e.gap for e in EXAMPLES.questions if e.few_shot)
    assert len({e.plan.kind for e in EXAMPLES.questions if e.few_shot}) >= 12


def test_a_bad_record_is_named_by_line_and_field(tmp_path: Path) -> None:
    good = (REPO / "rag" / "data" / "examples.jsonl").read_text(encoding="utf-8")
    bad = tmp_path / "examples.jsonl"
    bad.write_text(good + '{"question": "how many?", "kind": "count", "shown": "six"}\n')
    line = len(good.splitlines()) + 1
    with pytest.raises(ExampleError, match=rf"examples.jsonl:{line}: field 'shown'"):
        load_examples(bad)
    bad.write_text(good + '{"question": "x?", "kind": "tally"}\n')
    with pytest.raises(ExampleError, match=rf":{line}: field 'kind': 'tally' is not one of"):
        load_examples(bad)
    bad.write_text('{"question": "x?", "kind": "list"}\n')
    with pytest.raises(ExampleError, match="no description for kind"):
        load_examples(bad)


def test_docs_questions_md_is_generated_from_the_examples() -> None:
    page = (REPO / "docs" / "questions.md").read_text(encoding="utf-8")
    assert page == questions_markdown(EXAMPLES) + "\n", "run python eval/gen_docs.py"
    assert gen_docs.main(["--check"]) == 0


@pytest.mark.parametrize(
    ("question", "kind", "topic"),
    [
        ("Orals vs posters for “world models”?", "breakdown", "world models"),
        ('Which keywords co-occur most with "reward models"?', "breakdown", "reward models"),
        ('In "sign language" work, which paper reports the lowest word error rate?', "results",
         "sign language"),
        ("What does «model context protocol» mean?", "define", "model context protocol"),
    ],
)
def test_a_quoted_phrase_is_the_topic_whole_and_no_frame_word_is_read_in_it(
    planner: Planner, question: str, kind: str, topic: str
) -> None:
    plan = planner.plan(question, None, use_model=False)
    assert (plan.kind.value, plan.topic) == (kind, topic)
    if kind == "breakdown":
        # "models" inside the quotes is the topic's, not a request to group by model names.
        assert plan.group_by != "name"


@pytest.mark.parametrize(
    ("question", "kind", "decision"),
    [
        # "mentioned" asks what the abstracts use, as "used" does: no topic.
        ("which datasets are mentioned most often in the abstracts?", "breakdown", None),
        # "ont" (have) is a French function word: no topic.
        ("Quels oraux ont obtenu les meilleures notes ?", "rating", "Oral"),
    ],
)
def test_words_that_frame_the_question_leave_no_topic(
    planner: Planner, question: str, kind: str, decision: str | None
) -> None:
    plan = planner.plan(question, None, use_model=False)
    assert (plan.kind.value, plan.topic, plan.filters.decision) == (kind, "", decision)
