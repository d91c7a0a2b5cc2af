"""Embeddings: the bundled ONNX MiniLM, the on-disk cache, and OpenAI-compatible servers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from conftest import CountingEmbedder, MakeSettings
from openai_server import FakeOpenAIServer

from rag.app.llama import LlamaEmbedding
from rag.providers import ProviderError
from rag.store.embeddings import (
    CachedEmbedder,
    EmbeddingError,
    LocalEmbedder,
    OpenAIEmbedder,
    embedder_key,
    make_embedder,
)

CAT = "A cat sat on the mat and purred quietly in the afternoon sun."
KITTEN = "A kitten was resting on the rug, purring in the warm sunlight."
BOND = "The central bank raised interest rates to curb inflation in the bond market."
QUANT = "We quantize the weights of large language models to four bits after training."
QUANT2 = "Post-training quantization compresses LLM weights to 4-bit precision."

Counting = Callable[..., CountingEmbedder]


# -- the local model ---------------------------------------------------------------------------


def test_local_vectors_have_384_unit_norm_dims(local_model: LocalEmbedder) -> None:
    vecs = local_model.embed([CAT, BOND, QUANT])
    assert vecs.shape == (3, 384)
    assert vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert local_model.embed([]).shape == (0, 384)


def test_local_vectors_are_deterministic(local_model: LocalEmbedder) -> None:
    first = local_model.embed([CAT, QUANT])
    again = local_model.embed([CAT, QUANT])
    assert np.array_equal(first, again)
    # Batch composition (other texts, padding) must not move a text's vector materially.
    alone = local_model.embed([QUANT])[0]
    mixed = local_model.embed([BOND, QUANT, CAT * 5])[1]
    assert float(alone @ mixed) > 0.999


def test_local_similarity_is_sane(local_model: LocalEmbedder) -> None:
    cat, kitten, bond, quant, quant2 = local_model.embed([CAT, KITTEN, BOND, QUANT, QUANT2])
    assert cat @ kitten > cat @ bond + 0.2
    assert cat @ kitten > cat @ quant + 0.2
    assert quant @ quant2 > quant @ bond + 0.2
    assert quant @ quant2 > 0.6


def test_local_model_truncates_to_max_tokens() -> None:
    short = LocalEmbedder(max_tokens=16)
    tail = " The rest of this text talks about something else entirely, like cooking pasta."
    a, b = short.embed([QUANT, QUANT + tail])
    # Both inputs share their first 16 tokens, so a 16-token model sees the same text.
    assert np.allclose(a, b, atol=1e-6)


def test_local_model_reports_progress_per_batch(local_model: LocalEmbedder) -> None:
    ticks: list[int] = []
    model = LocalEmbedder(batch_size=2)
    model.embed([CAT, KITTEN, BOND, QUANT, QUANT2], ticks.append)
    assert ticks == [2, 2, 1]


# -- the cache ---------------------------------------------------------------------------------


def test_cache_never_embeds_a_text_twice(tmp_path: Path, counting: Counting) -> None:
    inner = counting()
    cache = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    first = cache.embed([CAT, BOND, CAT])
    assert inner.texts == [CAT, BOND]  # the duplicate inside one call is embedded once
    assert np.array_equal(first[0], first[2])
    again = cache.embed([BOND, CAT, QUANT])
    assert inner.texts == [CAT, BOND, QUANT]
    assert np.array_equal(again[0], first[1]) and np.array_equal(again[1], first[0])


def test_cache_survives_a_new_instance(tmp_path: Path, counting: Counting) -> None:
    path = tmp_path / "cache.sqlite"
    first = CachedEmbedder(counting(), path).embed([CAT, QUANT])
    inner = counting()
    second = CachedEmbedder(inner, path, memory_items=0).embed([QUANT, CAT])
    assert inner.texts == []
    assert np.array_equal(second, first[::-1])


@pytest.mark.slow
def test_cache_is_shared_across_processes(
    make_settings: MakeSettings, counting: Counting, tmp_path: Path
) -> None:
    settings = make_settings()
    out = tmp_path / "vectors.npy"
    code = (
        "import sys, numpy as np\n"
        "from pathlib import Path\n"
        "from rag.store.embeddings import make_embedder\n"
        "from rag.settings import Settings\n"
        "s = Settings(_env_file=None, data_dir=Path(sys.argv[1]))\n"
        "np.save(sys.argv[2], make_embedder(s).embed(sys.argv[3:]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(settings.data_dir), str(out), CAT, BOND],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    inner = counting()
    cache = CachedEmbedder(inner, settings.data_dir / "embed_cache.sqlite")
    vecs = cache.embed([CAT, BOND, KITTEN])
    assert inner.texts == [KITTEN]
    assert np.array_equal(vecs[:2], np.load(out))


def test_cache_keeps_truncations_apart(tmp_path: Path, local_model: LocalEmbedder) -> None:
    path = tmp_path / "cache.sqlite"
    CachedEmbedder(local_model, path).embed([CAT])
    other = CountingEmbedder(LocalEmbedder(max_tokens=32))
    CachedEmbedder(other, path).embed([CAT])
    assert other.texts == [CAT]
    assert embedder_key(local_model) != embedder_key(other.inner)


def test_cache_reports_progress_for_every_text(tmp_path: Path, counting: Counting) -> None:
    cache = CachedEmbedder(counting(), tmp_path / "c.sqlite")
    cache.embed([CAT])
    ticks: list[int] = []
    cache.embed([CAT, BOND, QUANT, BOND], ticks.append)
    assert sum(ticks) == 4


def test_make_embedder_local_default(make_settings: MakeSettings) -> None:
    settings = make_settings()
    emb = make_embedder(settings)
    assert isinstance(emb, CachedEmbedder) and isinstance(emb.inner, LocalEmbedder)
    assert emb.name == "all-MiniLM-L6-v2-onnx-int8"
    assert (settings.data_dir / "embed_cache.sqlite").is_file()
    uncached = make_settings(data_dir=settings.data_dir / "uncached")
    make_embedder(uncached, cache=False).embed(["no cache file for this one"])
    assert not (uncached.data_dir / "embed_cache.sqlite").exists()


def test_make_embedder_rejects_unknown_local_model(make_settings: MakeSettings) -> None:
    with pytest.raises(EmbeddingError, match="not available"):
        make_embedder(make_settings(embedding={"model": "bge-large"}))


def test_make_embedder_openai_needs_key_or_server(make_settings: MakeSettings) -> None:
    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        make_embedder(make_settings(embedding={"provider": "openai"}))


def test_llama_embedding_adapter(embedder: CachedEmbedder) -> None:
    adapter = LlamaEmbedding(embedder)
    assert adapter.model_name == embedder.name
    text_vec = adapter.get_text_embedding(QUANT)
    assert np.allclose(text_vec, embedder.embed([QUANT])[0], atol=1e-6)
    assert len(adapter.get_query_embedding(CAT)) == 384
    batch = adapter.get_text_embedding_batch([CAT, BOND])
    assert len(batch) == 2 and np.allclose(batch[1], embedder.embed([BOND])[0], atol=1e-6)


# -- OpenAI-compatible servers -----------------------------------------------------------------


def test_openai_embedder_batches_and_normalises(
    openai_server: FakeOpenAIServer, make_settings: MakeSettings
) -> None:
    settings = make_settings(
        openai_base_url=openai_server.base_url,
        embedding={"provider": "openai", "model": "fake-embed", "batch_size": 2},
    )
    emb = OpenAIEmbedder(settings)
    vecs = emb.embed([CAT, KITTEN, BOND, QUANT, QUANT2])
    assert vecs.shape == (5, openai_server.embedding_dim)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    calls = openai_server.requests_to("/embeddings")
    assert [len(r.body["input"]) for r in calls] == [2, 2, 1]
    assert all(r.body["model"] == "fake-embed" for r in calls)
    assert emb.embed([]).shape[0] == 0


def test_openai_401_names_the_problem_not_the_key(
    openai_server: FakeOpenAIServer, make_settings: MakeSettings
) -> None:
    secret = "sk-test-do-not-leak-4242"
    openai_server.api_key = "sk-the-right-key"
    settings = make_settings(
        openai_base_url=openai_server.base_url,
        openai_api_key=secret,
        embedding={"provider": "openai"},
    )
    with pytest.raises(ProviderError) as info:
        make_embedder(settings).embed([CAT])
    message = str(info.value)
    assert "401" in message and "key" in message.lower()
    assert secret not in message and secret not in repr(info.value)


def test_openai_cache_key_names_the_server_without_credentials(
    make_settings: MakeSettings,
) -> None:
    settings = make_settings(
        openai_base_url="http://user:hunter2@127.0.0.1:9999/v1?token=abc",
        embedding={"provider": "openai"},
    )
    key = embedder_key(OpenAIEmbedder(settings))
    assert key == "text-embedding-3-small@127.0.0.1:9999/v1"
