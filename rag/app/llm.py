"""A LlamaIndex LLM for OpenAI and OpenAI-compatible servers, built on the openai SDK."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import httpx
from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
)
from llama_index.core.llms import CustomLLM
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from pydantic import PrivateAttr

from rag.models import Usage
from rag.providers import StreamDropped, describe_error, openai_client
from rag.settings import Settings

# Imported where used: building this class is the only reason to pay for the SDK's import.
if TYPE_CHECKING:
    import openai


class OpenAICompatible(CustomLLM):
    """Chat completions (JSON and SSE streaming) with token usage and user-safe errors."""

    model: str
    temperature: float = 0.0
    max_tokens: int = 700
    _client: openai.OpenAI = PrivateAttr()

    def __init__(self, settings: Settings, **kwargs: Any) -> None:
        super().__init__(
            model=settings.llm.model,
            temperature=settings.llm.temperature,
            max_tokens=settings.llm.max_tokens,
            **kwargs,
        )
        self._client = openai_client(settings)

    @property
    def metadata(self) -> LLMMetadata:
        """Model facts LlamaIndex components read."""
        return LLMMetadata(model_name=self.model, is_chat_model=True, num_output=self.max_tokens)

    def _request(self, messages: Sequence[ChatMessage], stream: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role.value, "content": m.content or ""} for m in messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if stream:
            body.update(stream=True, stream_options={"include_usage": True})
        return body

    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        """One complete reply."""
        import openai

        try:
            resp = self._client.chat.completions.create(**self._request(messages, False))
        except openai.OpenAIError as exc:
            raise describe_error(exc) from exc
        text = resp.choices[0].message.content or "" if resp.choices else ""
        usage = resp.usage
        return ChatResponse(
            message=ChatMessage(role="assistant", content=text),
            raw=resp,
            additional_kwargs={
                "prompt_tokens": usage.prompt_tokens if usage else 0,
                "completion_tokens": usage.completion_tokens if usage else 0,
            },
        )

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        """Reply as it is generated; the last response carries token usage."""
        import openai

        try:
            stream = self._client.chat.completions.create(**self._request(messages, True))
        except openai.OpenAIError as exc:
            raise describe_error(exc) from exc

        def gen() -> ChatResponseGen:
            text = ""
            usage: dict[str, int] = {}
            finished = False
            try:
                for chunk in stream:
                    if chunk.usage:
                        usage = {
                            "prompt_tokens": chunk.usage.prompt_tokens,
                            "completion_tokens": chunk.usage.completion_tokens,
                        }
                    if not chunk.choices:
                        continue
                    choice = chunk.choices[0]
                    delta = choice.delta.content or ""
                    if choice.finish_reason:
                        finished = True
                    if delta:
                        text += delta
                        yield ChatResponse(
                            message=ChatMessage(role="assistant", content=text), delta=delta
                        )
            except (httpx.TimeoutException, openai.APITimeoutError) as exc:
                raise StreamDropped(
                    "The model server stopped sending midway (timed out); the answer is "
                    "incomplete.",
                    transient=True,
                ) from exc
            except (httpx.HTTPError, openai.APIError) as exc:
                raise StreamDropped(
                    "The model server closed the connection midway; the answer is incomplete.",
                    transient=True,
                ) from exc
            if not finished:
                raise StreamDropped(
                    "The model server ended the stream early; the answer is incomplete.", True
                )
            yield ChatResponse(
                message=ChatMessage(role="assistant", content=text),
                delta="",
                additional_kwargs=usage,
            )

        return gen()

    def structured(
        self, instructions: str, text: str, name: str, schema: dict[str, Any]
    ) -> tuple[str, Usage | None]:
        """A reply constrained to a JSON schema (OpenAI structured output): the raw JSON text
        and the tokens it cost (None when the server does not say)."""
        body = self._request(
            [
                ChatMessage(role="system", content=instructions),
                ChatMessage(role="user", content=text),
            ],
            False,
        )
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
        import openai

        try:
            resp = self._client.chat.completions.create(**body)
        except openai.OpenAIError as exc:
            raise describe_error(exc) from exc
        text = resp.choices[0].message.content or "" if resp.choices else ""
        usage = resp.usage and Usage(
            prompt_tokens=resp.usage.prompt_tokens, completion_tokens=resp.usage.completion_tokens
        )
        return text, usage

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        """Completion API over chat: the prompt is one user message."""
        resp = self.chat([ChatMessage(role="user", content=prompt)])
        return CompletionResponse(
            text=resp.message.content or "", additional_kwargs=resp.additional_kwargs
        )

    @llm_completion_callback()
    def stream_complete(
        self, prompt: str, formatted: bool = False, **kwargs: Any
    ) -> CompletionResponseGen:
        """Streaming completion over chat."""

        def gen() -> CompletionResponseGen:
            for r in self.stream_chat([ChatMessage(role="user", content=prompt)]):
                yield CompletionResponse(
                    text=r.message.content or "",
                    delta=r.delta,
                    additional_kwargs=r.additional_kwargs,
                )

        return gen()
