"""One code path to OpenAI and OpenAI-compatible servers: a base URL and a key."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from rag.settings import Settings

# The SDK costs about a second to import: only the OpenAI path pays for it, when it runs.
if TYPE_CHECKING:
    import openai

T = TypeVar("T")

# The SDK refuses to start without a key; keyless local servers (llama.cpp,
# Ollama, vLLM) accept any string.
KEYLESS_PLACEHOLDER = "not-needed"


class ProviderError(RuntimeError):
    """A model server call failed; the message is safe to show to users."""

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


class StreamDropped(ProviderError):
    """The server closed the stream before finishing the answer."""


def openai_client(settings: Settings, timeout: float | None = None) -> openai.OpenAI:
    """An OpenAI SDK client for the configured server; it retries 429/5xx with backoff."""
    import openai

    key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else ""
    if not key and not settings.openai_base_url:
        raise ProviderError(
            "OPENAI_API_KEY is not set. Put it in .env (or set OPENAI_BASE_URL to an "
            "OpenAI-compatible server), or use PAPERCHAT_LLM__PROVIDER=none for offline answers."
        )
    return openai.OpenAI(
        api_key=key or KEYLESS_PLACEHOLDER,
        base_url=settings.openai_base_url or None,
        timeout=timeout or settings.llm.timeout,
        max_retries=settings.llm.max_retries,
    )


def describe_error(exc: BaseException, what: str = "model request") -> ProviderError:
    """Translate an SDK exception into a message users can act on, never echoing the key."""
    if isinstance(exc, ProviderError):
        return exc
    import openai

    if isinstance(exc, openai.AuthenticationError):
        return ProviderError(f"{what} was rejected: the API key is missing or invalid (401).")
    if isinstance(exc, openai.PermissionDeniedError):
        return ProviderError(f"{what} was refused: this key may not use that model (403).")
    if isinstance(exc, openai.NotFoundError):
        return ProviderError(f"{what} failed: the server does not know that model (404).")
    if isinstance(exc, openai.RateLimitError):
        return ProviderError(
            f"{what} was rate-limited (429) even after retries; try again shortly.", True
        )
    if isinstance(exc, openai.APITimeoutError):
        return ProviderError(f"{what} timed out; the model server is slow or stuck.", True)
    if isinstance(exc, openai.APIConnectionError):
        return ProviderError(
            f"{what} failed: cannot reach the model server (is it running? check OPENAI_BASE_URL).",
            True,
        )
    if isinstance(exc, openai.InternalServerError):
        code = getattr(exc, "status_code", 500)
        return ProviderError(f"{what} failed: the model server had an error ({code}).", True)
    if isinstance(exc, openai.APIStatusError):
        return ProviderError(f"{what} failed with HTTP {exc.status_code}.")
    return ProviderError(f"{what} failed: {type(exc).__name__}.", True)


def call_openai(fn: Callable[[], T], what: str = "model request") -> T:
    """Run one SDK call, turning its failures into ProviderError."""
    import openai

    try:
        return fn()
    except openai.OpenAIError as exc:
        raise describe_error(exc, what) from exc
