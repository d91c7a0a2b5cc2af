"""The one typed settings tree, read from PAPERCHAT_* variables and `.env`."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LOCAL_EMBED_MODEL = "all-MiniLM-L6-v2-onnx-int8"
OPENAI_EMBED_MODEL = "text-embedding-3-small"


class _Section(BaseModel):
    # Validation errors must not echo values: they may hold keys read from the environment.
    # Frozen: settings are built once per entry point; a variant is a model_copy(update=...).
    model_config = ConfigDict(extra="forbid", hide_input_in_errors=True, frozen=True)


class ChromaSettings(_Section):
    """Where the vectors live: embedded on disk, or a Chroma server."""

    host: str | None = Field(
        default=None, description="Chroma server host; unset means embedded Chroma on disk."
    )
    port: int = Field(default=8000, ge=1, le=65535, description="Chroma server port.")
    ssl: bool = Field(default=False, description="Use HTTPS to reach the Chroma server.")
    collection: str = Field(
        default="papers",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{1,40}$",
        description="Collection name prefix; the embedding model and chunking are appended.",
    )
    timeout: float = Field(
        default=10.0, gt=0, description="Seconds to wait for the Chroma server to answer."
    )


class EmbeddingSettings(_Section):
    """Which model turns text into vectors."""

    provider: Literal["local", "openai"] = Field(
        default="local",
        description="local: bundled all-MiniLM-L6-v2 (ONNX, offline); "
        "openai: an OpenAI(-compatible) API.",
    )
    model: str = Field(
        default="",
        description=f"Model name; empty means {LOCAL_EMBED_MODEL} (local) "
        f"or {OPENAI_EMBED_MODEL} (openai).",
    )
    batch_size: int = Field(default=16, ge=1, le=2048, description="Texts per model call.")
    max_tokens: int = Field(
        default=256, ge=16, le=512, description="Local model truncates inputs to this many tokens."
    )
    threads: int = Field(
        default=0, ge=0, description="ONNX Runtime intra-op threads; 0 lets it use every core."
    )
    model_dir: Path | None = Field(
        default=None,
        description="Local provider: a directory holding model.onnx and tokenizer.json (an ONNX "
        "export of bge, e5, gte ...); unset means the bundled all-MiniLM-L6-v2.",
    )
    pooling: Literal["mean", "cls"] = Field(
        default="mean",
        description="Local model: mean of token vectors (MiniLM, e5, gte) or the first [CLS] "
        "token's vector (bge, arctic-embed).",
    )
    normalize: bool = Field(default=True, description="Local model: L2-normalise each vector.")
    query_prefix: str = Field(
        default="",
        max_length=200,
        description="Local model: text put before every search query, e.g. 'query: ' (e5).",
    )
    passage_prefix: str = Field(
        default="",
        max_length=200,
        description="Local model: text put before every indexed passage, e.g. 'passage: ' (e5).",
    )

    @property
    def model_name(self) -> str:
        """The model actually used, with the provider's default filled in."""
        if self.model:
            return self.model
        if self.provider == "local":
            return self.model_dir.name if self.model_dir else LOCAL_EMBED_MODEL
        return OPENAI_EMBED_MODEL

    @property
    def variant(self) -> str:
        """Short tag of the local model's directory, pooling and prefixes; empty for the bundled
        default, so the default collection name stays what it always was."""
        if (
            self.model_dir is None
            and self.pooling == "mean"
            and self.normalize
            and not (self.query_prefix or self.passage_prefix)
        ):
            return ""
        where = str(self.model_dir.resolve()) if self.model_dir else ""
        spec = f"{where}|{self.pooling}|{self.normalize}|{self.query_prefix}|{self.passage_prefix}"
        return hashlib.sha256(spec.encode("utf-8")).hexdigest()[:8]


class ChunkSettings(_Section):
    """How abstracts are cut into sentence windows for embedding."""

    windows: Literal["fit", "sentences"] = Field(
        default="fit",
        description="fit: one window per abstract when title + abstract fit in window_tokens, "
        "else near-equal windows of whole sentences without overlap (least text embedded); "
        "sentences: fixed windows of `sentences` sentences sharing `overlap`.",
    )
    window_tokens: int = Field(
        default=256,
        ge=16,
        le=8192,
        description="Most tokens in a fit window, special tokens included (counted with the "
        "bundled model's tokenizer); match the embedding model's max_tokens.",
    )
    sentences: int = Field(
        default=3, ge=1, le=20, description="Sentences per chunk (windows=sentences)."
    )
    overlap: int = Field(
        default=1, ge=0, le=19, description="Sentences shared by neighbours (windows=sentences)."
    )
    title_prefix: bool = Field(
        default=True, description="Prepend the paper title to each chunk before embedding."
    )

    @model_validator(mode="after")
    def _overlap_below_size(self) -> ChunkSettings:
        if self.overlap >= self.sentences:
            raise ValueError("chunking.overlap must be smaller than chunking.sentences")
        return self

    @property
    def signature(self) -> str:
        """Short tag naming this chunking, part of the collection name."""
        title = "t" if self.title_prefix else ""
        if self.windows == "fit":
            return f"f{self.window_tokens}{title}"
        return f"s{self.sentences}o{self.overlap}{title}"


class LLMSettings(_Section):
    """The chat model used for answering, condensing follow-ups and judging."""

    provider: Literal["none", "openai"] = Field(
        default="none",
        description="none: answers are built from source sentences offline; "
        "openai: an OpenAI(-compatible) chat model writes them.",
    )
    model: str = Field(default="gpt-4o-mini", description="Chat model name.")
    temperature: float = Field(default=0.0, ge=0, le=2, description="Sampling temperature.")
    max_tokens: int = Field(default=700, ge=16, description="Maximum tokens per answer.")
    timeout: float = Field(default=60.0, gt=0, description="Seconds before a model call times out.")
    max_retries: int = Field(
        default=3, ge=0, le=10, description="Retries with backoff on 429/5xx/timeouts."
    )
    plan: Literal["auto", "rules", "model"] = Field(
        default="auto",
        description="Who reads a question's intent, filters and named papers: auto (the chat "
        "model when one is configured, else the rules), rules over the catalog, or model "
        "(requires provider=openai). The model answers through structured output, one more "
        "call per question; a reply that fails validation falls back to the rules plan.",
    )

    @model_validator(mode="after")
    def _plan_needs_a_model(self) -> LLMSettings:
        if self.plan == "model" and self.provider == "none":
            raise ValueError(
                "PAPERCHAT_LLM__PLAN=model needs a model: set PAPERCHAT_LLM__PROVIDER=openai "
                "(or PAPERCHAT_LLM__PLAN=auto to plan with rules offline)"
            )
        return self


class RetrievalSettings(_Section):
    """How papers are found for a question."""

    mode: Literal["hybrid", "dense", "bm25"] = Field(
        default="hybrid", description="hybrid fuses BM25 over papers with dense chunk vectors."
    )
    top_k: int = Field(default=5, ge=1, le=50, description="Papers passed to the answerer.")
    candidates: int = Field(
        default=50, ge=5, le=1000, description="Chunks/papers each retriever returns before fusion."
    )
    fusion: Literal["learned", "convex", "rrf"] = Field(
        default="convex",
        description="How hybrid combines BM25 and dense: convex (weighted normalised scores; "
        "the refusal model is fitted on its scores), learned (a logistic model over both "
        "retrievers' scores and ranks, see retrieval/fusion.py) or rrf (reciprocal rank fusion).",
    )
    bm25_weight: float = Field(
        default=0.75, ge=0, le=1, description="Share of BM25 in the convex fusion (0..1)."
    )
    lsa_weight: float = Field(
        default=0.1,
        ge=0,
        le=1,
        description="Share of latent semantic analysis (rag/store/latent.py) in the convex hybrid "
        "fusion; 0 turns it off.",
    )
    lsa_dims: int = Field(
        default=256, ge=2, le=2048, description="Dimensions of the latent semantic space."
    )
    lsa_min_papers: int = Field(
        default=1000,
        ge=2,
        description="Use LSA only from this many papers on: it learns which words go together "
        "from the collection, which a small sample cannot teach.",
    )
    rrf_k: int = Field(default=60, ge=1, description="Reciprocal rank fusion constant.")
    min_evidence: float = Field(
        default=0.55,
        ge=0,
        le=1,
        description="Refuse when the best paper's evidence (best sentence and question "
        "coverage, 0..1) is below this and no chunk is as close as min_dense.",
    )
    min_dense: float = Field(
        default=0.49,
        ge=-1,
        le=1,
        description="Answer anyway when a chunk's cosine similarity to the question reaches "
        "this: questions phrased in other words share few words with any abstract.",
    )


class MapSettings(_Section):
    """The conference map: every paper placed in 2D, clustered into themes."""

    at_ingest: bool = Field(
        default=True,
        description="Build or update the map and its themes at the end of each ingest that "
        "changed the index; off: on first use (the map tab, `paperchat map`, a themes question).",
    )
    themes: int = Field(
        default=0, ge=0, le=200, description="Number of themes; 0: sqrt(papers/2), at most 30."
    )
    place_share: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="Added papers up to this share of the map are placed among the papers "
        "already laid out (t-SNE transform); more rebuild the whole map.",
    )


class UISettings(_Section):
    """The web app."""

    auth: SecretStr | None = Field(
        default=None,
        description="user:password required for the app and its API; unset means no login.",
    )
    secret: SecretStr | None = Field(
        default=None,
        description="Key for conversations kept in the browser; set the same value on every "
        "app process so a reload that lands on another process keeps the chat.",
    )


class Settings(BaseSettings):
    """Everything PaperChat can be configured with; built once per entry point."""

    model_config = SettingsConfigDict(
        env_prefix="PAPERCHAT_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
        hide_input_in_errors=True,
        populate_by_name=True,
        frozen=True,
    )

    data_dir: Path = Field(
        default=Path(".paperchat"),
        description="Directory for the embedded index, embedding cache, uploads and locks.",
    )
    openai_api_key: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("PAPERCHAT_OPENAI_API_KEY", "OPENAI_API_KEY"),
        description="API key for OpenAI or a compatible server (also read from OPENAI_API_KEY).",
    )
    openai_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("PAPERCHAT_OPENAI_BASE_URL", "OPENAI_BASE_URL"),
        description="Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1.",
    )
    chroma: ChromaSettings = Field(default_factory=ChromaSettings, description="Vector store.")
    embedding: EmbeddingSettings = Field(
        default_factory=EmbeddingSettings, description="Embedding model."
    )
    chunking: ChunkSettings = Field(default_factory=ChunkSettings, description="Chunking.")
    llm: LLMSettings = Field(default_factory=LLMSettings, description="Chat model.")
    retrieval: RetrievalSettings = Field(
        default_factory=RetrievalSettings, description="Retrieval and refusal."
    )
    map: MapSettings = Field(default_factory=MapSettings, description="Conference map and themes.")
    ui: UISettings = Field(default_factory=UISettings, description="Web app.")

    @property
    def uses_openai(self) -> bool:
        """True when any role talks to an OpenAI(-compatible) server."""
        return self.llm.provider == "openai" or self.embedding.provider == "openai"
