"""Wording snapshots: the exact words of each template the product says, one test per template.

Every other test checks decisions (kind, refused, count, the papers cited or listed, the
sentence quoted) and does not depend on these words; a change of wording fails here only.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build_settings, pipeline_over

from rag.answers.absent import AbsentTopic
from rag.answers.extractive import decide
from rag.answers.refusal import load_refusal_model
from rag.answers.wording import in_english, unstated
from rag.app.options import AskOptions
from rag.app.pipeline import Pipeline
from rag.cues import Cues
from rag.lexicon import Lexicon
from rag.models import Plan
from rag.store.embeddings import CachedEmbedder
from tests.test_collection import PAPERS

OFFLINE = AskOptions(answerer="extractive")


@pytest.fixture(scope="module")
def sample(sample_index_dir: Path, embedder: CachedEmbedder) -> Pipeline:
    return Pipeline(build_settings(sample_index_dir), embedder=embedder)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder) -> Pipeline:
    return pipeline_over(tmp_path_factory.mktemp("wording"), PAPERS, embedder)


def test_wording_snapshot_unknown_name_refusal(sample: Pipeline) -> None:
    answer = sample.ask("What does FooBarNet propose?", options=OFFLINE)
    assert answer.refused
    assert answer.text.startswith("No indexed paper mentions “FooBarNet”.")


def test_wording_snapshot_weak_evidence_heading(sample: Pipeline) -> None:
    question = "What does OmniQuant do for post-training quantization of language models?"
    weak = sample.ask(question, options=AskOptions(answerer="extractive", show_weak=True))
    assert weak.weak
    assert weak.text.startswith("Weak evidence (no indexed paper mentions “OmniQuant”)")


def test_wording_snapshot_does_not_state(sample: Pipeline) -> None:
    assert unstated("number", "Qronos") == (
        "The abstract of Qronos does not state the number asked about."
    )
    assert unstated("entities") == (
        "The abstract does not state the models, datasets or tools asked about."
    )
    answer = sample.ask("How many tasks does MCP-SafetyBench have?", options=OFFLINE)
    assert answer.text.startswith(
        "The abstract of MCP-SafetyBench does not state the number asked about."
    )


def test_wording_snapshot_absent_topic(cues: Cues, lexicon: Lexicon) -> None:
    model = load_refusal_model().model_copy(update={"threshold": 0.0})
    absent = AbsentTopic(topic="sourdough starters", words=("sourdough",))
    said = decide(
        "any sourdough starters?", [], model, cues=cues, refusal="x", absent=absent,
        plan=Plan(), lexicon=lexicon,
    )
    assert said.text == (
        "No paper in the index is about sourdough starters (no paper writes “sourdough”)."
    )


def test_wording_snapshot_list_heading_when_no_paper_matches(sample: Pipeline) -> None:
    question = "Which papers are about teaching language models to play games against themselves?"
    answer = sample.ask(question, options=OFFLINE)
    assert answer.text.startswith(
        "No paper matches “teaching language models to play games against themselves” in its "
        "title, keywords or abstract; the closest papers:\n"
    )


def test_wording_snapshot_count_heading_under_a_filter_nothing_passes(
    collection: Pipeline,
) -> None:
    count = collection.ask("How many spotlight papers are about graph neural networks?")
    assert count.text.startswith(
        "No Spotlight papers match “graph neural networks”. The index's decisions are Oral and "
        "Poster. Without the filter, 3 papers match."
    )


def test_wording_snapshot_overview_heading(sample: Pipeline) -> None:
    overview = sample.ask("What are these papers about?", options=OFFLINE)
    assert overview.text.startswith("The index holds 19 papers (")


def test_wording_snapshot_which_topic_has_more_papers(collection: Pipeline) -> None:
    answer = collection.ask("Are there more papers on graph neural networks or on value maps?")
    assert answer.text.startswith(
        "More papers are on “graph neural networks” (3) than on “value maps” (1)"
    )


def test_wording_snapshot_offline_other_language_note(sample: Pipeline) -> None:
    assert in_english("zh") == (
        "Your question looks like it is in another language (zh). Offline answers are in "
        "English, quoted from the abstracts; a configured model answers in your language "
        "(set PAPERCHAT_LLM__PROVIDER=openai).\n"
    )
    answer = sample.ask("Qronos 这个量化算法的主要贡献是什么？", options=OFFLINE)
    assert answer.text.startswith(in_english("zh"))


def test_wording_snapshot_catalog_fact_of_a_named_paper(collection: Pipeline) -> None:
    answer = collection.ask("Is GraphSculpt an oral?", options=OFFLINE)
    assert answer.text.startswith(
        "Yes: GraphSculpt: Pruning Graph Neural Networks is an Oral paper in the optimization "
        "area; keywords: graph neural networks, pruning [1]."
    )


def test_wording_snapshot_authors_outside_the_index(collection: Pipeline) -> None:
    answer = collection.ask("Who works on graph neural networks?")
    assert answer.text.startswith("The index holds no authors or affiliations, only the papers:")
