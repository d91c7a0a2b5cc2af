"""The learned router, its shipped weights and the lexicon (no index needed)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from eval.train_router import SHARED, load_rows, stale
from rag.answers.detail import read_asked
from rag.lexicon import LexiconError, load_lexicon
from rag.models import Paper
from rag.questions.planner import asked_count, rule_plan
from rag.questions.router import WEIGHTS, Router, RouterError, corpus_hash, load_manifest
from rag.store.catalog import Catalog
from rag.store.embeddings import CachedEmbedder


def test_shipped_weights_were_trained_on_the_current_corpus() -> None:
    # Retrain with `python eval/train_router.py --shared ../shared/data` after the corpus
    # changes: the weights must be the corpus', not an older one's.
    manifest = load_manifest(WEIGHTS)
    assert manifest["corpus_hash"] == corpus_hash(load_rows())
    assert set(manifest["kinds"]) == {r["kind"] for r in load_rows()}


@pytest.mark.skipif(not (SHARED / "iclr2026_accepted.jsonl").is_file(), reason="no 4,302 file")
def test_shipped_weights_were_fitted_with_the_names_the_router_reads_now() -> None:
    # A lexicon change can move how many papers a question names (the router's names
    # feature) without touching the corpus: weights fitted on the old counts are stale.
    assert stale(WEIGHTS, load_rows(), SHARED) == ""


class OtherEmbedder:
    """An embedder of another model: same dimension, other vectors."""

    name = "some-other-model"

    def embed(self, texts: Sequence[str], progress: object = None) -> np.ndarray:
        return np.ones((len(texts), 384), dtype=np.float32) / np.sqrt(384)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def test_the_router_refuses_weights_made_for_another_embedder() -> None:
    with pytest.raises(RouterError, match="some-other-model"):
        Router(OtherEmbedder())  # type: ignore[arg-type]


def test_damaged_weights_fail_naming_the_file(tmp_path: Path, embedder: CachedEmbedder) -> None:
    (tmp_path / "router.json").write_text(WEIGHTS.with_suffix(".json").read_text())
    (tmp_path / "router.npz").write_bytes(b"not a zip")
    with pytest.raises(RouterError, match="router.npz"):
        Router(embedder, tmp_path / "router.npz")


def test_the_router_gives_a_kind_and_answer_type_with_probabilities(
    embedder: CachedEmbedder,
) -> None:
    route = Router(embedder).route("how many papers on graph neural networks?")
    assert 0 < route.kind_p <= 1 and 0 < route.answer_type_p <= 1
    assert route.answer_type in (
        "number",
        "contribution",
        "entities",
        "finding",
        "problem",
        "general",
    )


def test_number_words_are_read_once_from_the_lexicon() -> None:
    lexicon = load_lexicon()
    assert asked_count("give me six papers on diffusion", lexicon) == 6
    assert asked_count("show twelve orals about RL", lexicon) == 12
    assert asked_count("list 3 papers", lexicon) == 3
    assert asked_count("papers on two-stage training", lexicon) is None


def test_a_bad_lexicon_fails_naming_file_and_field(tmp_path: Path) -> None:
    data = json.loads((Path(load_lexicon.__defaults__[0])).read_text())  # type: ignore[index]
    data["number_words"]["six"] = -6
    bad = tmp_path / "lexicon.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(LexiconError, match=r"lexicon.json: number_words"):
        load_lexicon(bad)


PAPERS = [
    Paper(
        id="s1",
        key="s1",
        title="SongEcho: Cover Song Identification with Echoes",
        abstract="We propose SongEcho, a model that identifies cover songs from audio.",
        decision="Oral",
        primary_area="applications",
    ),
    Paper(
        id="s2",
        key="s2",
        title="Graph pruning for message passing",
        abstract="We prune message passing graph neural networks without retraining.",
        decision="Poster",
        primary_area="learning on graphs",
    ),
]


def test_catalog_facts_stay_exact_lookups(embedder: CachedEmbedder) -> None:
    router, lexicon, catalog = Router(embedder), load_lexicon(), Catalog(PAPERS)
    plan = rule_plan("Is SongEcho an oral?", catalog, router=router, lexicon=lexicon)
    assert plan.paper_ids == ["s1"]
    assert plan.kind in ("metadata", "detail")
    listed = rule_plan(
        "give me six oral papers on message passing", catalog, router=router, lexicon=lexicon
    )
    assert listed.filters.decision == "Oral"
    if listed.kind.collection:
        assert listed.shown == 6


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        # A named paper and a catalog field's word: the catalog answers, whatever the router.
        ("Which area is SongEcho in?", "metadata"),
        ("What are the keywords of SongEcho?", "metadata"),
        ("How often is SongEcho cited?", "citations"),
        ("What does SongEcho propose?", "detail"),
        # No paper named: the word alone asks nothing of the catalog.
        ("Which papers on graphs are cited most?", "citations"),
    ],
)
def test_a_named_papers_catalog_field_is_the_plans_kind(
    embedder: CachedEmbedder, question: str, kind: str
) -> None:
    router, lexicon, catalog = Router(embedder), load_lexicon(), Catalog(PAPERS)
    assert rule_plan(question, catalog, router=router, lexicon=lexicon).kind == kind


def test_a_question_asking_two_things_is_routed_by_its_first_part(
    embedder: CachedEmbedder,
) -> None:
    # The second part is answered in turn, after the first; its words (a named paper
    # included) do not make the first part another kind.
    router, lexicon, catalog = Router(embedder), load_lexicon(), Catalog(PAPERS)
    first = "Is there a paper on pruning message passing graphs?"
    both = "Is there a paper on pruning message passing graphs, and is SongEcho an oral?"
    alone = rule_plan(first, catalog, router=router, lexicon=lexicon)
    assert rule_plan(both, catalog, router=router, lexicon=lexicon).kind == alone.kind


def test_an_opening_aspect_noun_names_the_kind_of_sentence_asked() -> None:
    lexicon = load_lexicon()
    assert lexicon.aspect_asked("What challenges does AMD address?") == "problem"
    assert lexicon.aspect_asked("which main findings does it report") == "finding"
    assert lexicon.aspect_asked("What method does Qronos propose?") == "contribution"
    assert lexicon.aspect_asked("What does Qronos propose?") is None
    assert lexicon.aspect_asked("How do the methods differ?") is None


def test_follow_up_phrases_are_whole_words_and_the_longest_wins() -> None:
    lexicon = load_lexicon()
    plural = lexicon.follow_up_words["plural"]
    # "all of them" is one phrase, not "them" inside it; "item" holds no "it".
    assert lexicon.phrase_spans("Do all of them use RL?", plural) == [(3, 14)]
    assert not lexicon.says("Which item is best?", "singular")
    assert lexicon.opens_again("and the SHAPO paper?")
    assert lexicon.opens_again("What about Qronos?")
    assert not lexicon.opens_again("and?")
    assert not lexicon.opens_again("What does Qronos do and how much memory does it save?")


def test_a_relative_that_and_a_determiner_each_point_at_no_paper() -> None:
    lexicon = load_lexicon()
    # "that" before a verb opens a relative clause; before a noun or nothing it points back.
    assert not lexicon.says("what about one that checks each step?", "singular")
    assert not lexicon.says("a method that can prune experts?", "singular")
    assert lexicon.says("is that more than GRPO?", "singular")
    assert lexicon.says("what is that?", "singular")
    assert lexicon.says("what does that paper propose?", "singular")
    # "each" before another noun counts its things; asked with an auxiliary it is the papers.
    assert not lexicon.says("how many orals went to each area?", "plural")
    assert lexicon.says("what does each report?", "plural")
    assert lexicon.says("what does each paper report?", "plural")


def test_catalog_and_follow_up_words_name_their_kinds(tmp_path: Path) -> None:
    data = json.loads((Path(load_lexicon.__defaults__[0])).read_text())  # type: ignore[index]
    data["follow_up_words"]["pronouns"] = data["follow_up_words"].pop("plural")
    bad = tmp_path / "lexicon.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(LexiconError, match=r"lexicon.json: follow_up_words"):
        load_lexicon(bad)


@pytest.mark.parametrize(
    ("question", "qtype", "flags"),
    [
        ("How much faster is Qronos?", "number", {"more", "speed"}),
        ("How much better is it than PPO?", "number", {"more"}),
        ("How much does InSight-o3 improve?", "number", {"change"}),
        ("By what margin does it cut memory?", "number", {"change"}),
        ("How big is the InternSpatial dataset?", "number", {"size"}),
        ("How many tasks does MCP-SafetyBench have?", "number", {"how_many", "how_many_first"}),
        ("What is FusedKV, and how many layers does it share?", "number", {"how_many"}),
        # Not a change asked of a non-number question, nor a size of a "large language model".
        ("Does it improve much on large language models?", "finding", set()),
        # What a named paper was evaluated on must be named; what it beats or covers need not.
        ("Which models did they evaluate?", "entities", {"usage"}),
        ("Which baselines does it beat?", "entities", set()),
        ("Which domains does MCP-SafetyBench cover?", "entities", set()),
    ],
)
def test_what_a_detail_question_asks_is_read_from_lexicon_words(
    question: str, qtype: str, flags: set[str]
) -> None:
    asked = read_asked(question, qtype, load_lexicon(), usage=True)  # type: ignore[arg-type]
    on = {
        f
        for f in ("more", "speed", "change", "size", "how_many", "how_many_first", "usage")
        if getattr(asked, f)
    }
    assert on == flags
