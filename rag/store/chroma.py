"""The Chroma connection: embedded or server client, probing, timeouts, collection names, errors."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import chromadb
import httpx
from chromadb.api import ClientAPI
from chromadb.config import Settings as ChromaConfig

from rag.settings import EmbeddingSettings, Settings

DEFAULT_MAX_TOKENS: int = EmbeddingSettings.model_fields["max_tokens"].default


class IndexError_(RuntimeError):
    """Base class of index failures whose message is meant for users."""


class IndexMismatchError(IndexError_):
    """The collection was built with another embedding model or chunking."""


class IndexUnavailableError(IndexError_):
    """The Chroma server cannot be reached."""


class IndexBusyError(IndexError_):
    """Another ingest holds the index lock."""


def chroma_client(settings: Settings) -> ClientAPI:
    """Embedded Chroma under the data directory, or a Chroma server when a host is set."""
    config = ChromaConfig(anonymized_telemetry=False)
    if settings.chroma.host:
        # chromadb's HTTP client waits forever (timeout=None), even while connecting: probe
        # first, so a frozen server fails fast instead of hanging the constructor.
        _probe(settings)
        try:
            client = chromadb.HttpClient(
                host=settings.chroma.host,
                port=settings.chroma.port,
                ssl=settings.chroma.ssl,
                settings=config,
            )
        except Exception as exc:  # the client connects eagerly and raises several types
            raise IndexUnavailableError(unavailable(settings)) from exc
        _bound_requests(client, settings.chroma.timeout)
        return client
    path = settings.data_dir / "chroma"
    path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(path), settings=config)


def _probe(settings: Settings) -> None:
    """Raise IndexUnavailableError unless the server answers its heartbeat within the timeout."""
    c = settings.chroma
    host = f"[{c.host}]" if c.host and ":" in c.host else c.host
    url = f"{'https' if c.ssl else 'http'}://{host}:{c.port}/api/v2/heartbeat"
    try:
        httpx.get(url, timeout=c.timeout)
    except httpx.TimeoutException as exc:
        raise IndexUnavailableError(unavailable(settings, timed_out=True)) from exc
    except httpx.HTTPError as exc:
        raise IndexUnavailableError(unavailable(settings)) from exc


def _bound_requests(client: ClientAPI, timeout: float) -> None:
    # Private chromadb attributes, so only when they look as expected (chromadb 1.x).
    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(timeout)


def unavailable(settings: Settings, timed_out: bool = False) -> str:
    """The user-facing message for a Chroma server that cannot be reached or is too slow."""
    c = settings.chroma
    problem = f"did not answer within {c.timeout:g} s" if timed_out else "cannot be reached"
    return (
        f"Index unavailable: the Chroma server at {c.host}:{c.port} {problem}. "
        "Start it with `chroma run` or unset PAPERCHAT_CHROMA__HOST for the embedded index."
    )


def is_timeout(exc: BaseException) -> bool:
    """Whether a failed Chroma call ran out of time (rather than finding nobody there)."""
    return isinstance(exc, (TimeoutError, httpx.TimeoutException))


def collection_name(settings: Settings) -> str:
    """Name of the collection for this embedding model and chunking: vectors are never mixed."""
    emb = settings.embedding
    model = re.sub(r"[^A-Za-z0-9._-]+", "-", emb.model_name)
    # Chroma rejects names with "..", and they must start and end alphanumeric.
    model = re.sub(r"\.{2,}", ".", model).strip("-._") or "model"
    if emb.provider == "local" and emb.max_tokens != DEFAULT_MAX_TOKENS:
        # Another truncation gives other vectors for the same text: keep them apart.
        model += f"-t{emb.max_tokens}"
    if emb.provider == "local" and emb.variant:
        model += f"-{emb.variant}"
    return f"{settings.chroma.collection}-{model}-{settings.chunking.signature}"[:500]


class ServerGuard:
    """Context that turns a lost Chroma server into IndexUnavailableError.

    `on_lost` runs first, so the caller can drop its collection handles and reconnect on the
    next call once the server is back. Embedded Chroma's errors pass through unchanged.
    """

    def __init__(self, settings: Settings, on_lost: Callable[[], None]) -> None:
        self.settings = settings
        self.on_lost = on_lost

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ: type | None, exc: BaseException | None, tb: Any) -> bool:
        if exc is None or isinstance(exc, IndexError_) or not self.settings.chroma.host:
            return False
        lost = isinstance(exc, (ConnectionError, OSError, httpx.TransportError))
        if lost or "connect" in str(exc).lower():
            self.on_lost()
            raise IndexUnavailableError(unavailable(self.settings, is_timeout(exc))) from exc
        return False
