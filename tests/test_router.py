"""The learned router, its shipped weights and the lexicon (no index needed)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from eval.train_router import load_rows
from rag.catalog import Catalog
from rag.embeddings import CachedEmbedder
from rag.lexicon import LexiconError, load_lexicon
from rag.models import Paper
from rag.planner import asked_count, rule_plan
from rag.router import WEIGHTS, Router, RouterError, corpus_hash, load_manifest


def test_shipped_weights_were_trained_on_the_current_corpus() -> None:
    # Retrain with `python eval/train_router.py --shared ../shared/data` after the corpus
    # changes: the weights must be the corpus', not an older one's.
    manifest = load_manifest(WEIGHTS)
    assert manifest["corpus_hash"] == corpus_hash(load_rows())
    assert set(manifest["kinds"]) == {r["kind"] for r in load_rows()}


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
