"""Exercise the fake OpenAI server through the real openai SDK."""

import math
import time
from collections.abc import Iterator

import openai
import pytest
from openai_server import FakeOpenAIServer, embed_text, last_user_message

API_KEY = "sk-test-key"


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(api_key=API_KEY) as srv:
        yield srv


@pytest.fixture
def client(server: FakeOpenAIServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0, timeout=5)


def _ask(client: openai.OpenAI, question: str = "hi", **kwargs: object) -> object:
    messages = [{"role": "user", "content": question}]
    return client.chat.completions.create(model="fake-chat", messages=messages, **kwargs)


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_chat_non_streaming(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.queue_reply("Hello there, scientist.")
    resp = _ask(client, "say hello")
    assert resp.choices[0].message.content == "Hello there, scientist."
    assert resp.choices[0].finish_reason == "stop"
    assert resp.usage.completion_tokens == 3
    assert resp.usage.total_tokens == resp.usage.prompt_tokens + resp.usage.completion_tokens


def test_queue_order_responder_and_default(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.queue_reply("first")
    server.queue_responder(lambda body: f"Per [1], {last_user_message(body)}")
    replies = [_ask(client, q).choices[0].message.content for q in ("a", "what is RAG?", "c")]
    assert replies == ["first", "Per [1], what is RAG?", "Echo: c"]


def test_streaming_deltas_and_usage(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    text = "Retrieval augmented generation grounds answers in sources [1]."
    server.queue_reply(text)
    stream = _ask(client, stream=True, stream_options={"include_usage": True})
    pieces, finishes, usage = [], [], None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            pieces.append(choice.delta.content or "")
            finishes.append(choice.finish_reason)
    assert len([p for p in pieces if p]) > 3
    assert "".join(pieces) == text
    assert finishes[-1] == "stop"
    assert usage is not None and usage.completion_tokens == len(text.split())


def test_embeddings_float_and_base64(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    texts = [
        "graph neural networks for molecules",
        "neural networks on molecular graphs",
        "reinforcement learning for robot locomotion",
    ]
    default = client.embeddings.create(model="fake-embed", input=texts)
    assert server.requests_to("/embeddings")[-1].body["encoding_format"] == "base64"
    floats = client.embeddings.create(model="fake-embed", input=texts, encoding_format="float")
    single = client.embeddings.create(model="fake-embed", input=texts[0], encoding_format="float")
    vecs = [d.embedding for d in default.data]
    assert [len(v) for v in vecs] == [64, 64, 64]
    for a, b in zip(vecs, (d.embedding for d in floats.data), strict=True):
        assert a == pytest.approx(b, abs=1e-6)
    assert single.data[0].embedding == pytest.approx(embed_text(texts[0]))
    assert _cosine(vecs[0], vecs[1]) > _cosine(vecs[0], vecs[2]) + 0.3
    assert default.usage.prompt_tokens > 0


def test_models_listed(client: openai.OpenAI) -> None:
    assert {m.id for m in client.models.list()} == {"fake-chat", "fake-embed"}


def test_bad_api_key_is_rejected(server: FakeOpenAIServer) -> None:
    bad = openai.OpenAI(base_url=server.base_url, api_key="wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as info:
        _ask(bad)
    assert info.value.code == "invalid_api_key"


@pytest.mark.parametrize(
    ("status", "exc"),
    [
        (401, openai.AuthenticationError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
def test_scripted_errors(
    server: FakeOpenAIServer, client: openai.OpenAI, status: int, exc: type[Exception]
) -> None:
    server.queue_error(status, retry_after=1 if status == 429 else None)
    with pytest.raises(exc) as info:
        _ask(client)
    assert info.value.status_code == status
    if status == 429:
        assert info.value.response.headers["retry-after"] == "1"
    assert _ask(client).choices[0].message.content == "Echo: hi"


def test_sdk_retries_are_recorded(server: FakeOpenAIServer) -> None:
    server.queue_error(429, times=2)
    retrying = openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=2)
    assert _ask(retrying).choices[0].message.content == "Echo: hi"
    assert len(server.requests_to("/chat/completions")) == 3


def test_slow_reply_times_out(server: FakeOpenAIServer) -> None:
    server.queue_delay(2)
    impatient = openai.OpenAI(base_url=server.base_url, api_key=API_KEY, max_retries=0, timeout=0.5)
    start = time.monotonic()
    with pytest.raises(openai.APITimeoutError):
        _ask(impatient)
    assert time.monotonic() - start < 1.5


def test_dropped_stream_raises(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.queue_stream_drop(2, text="one two three four five")
    received = []
    with pytest.raises(Exception):  # noqa: B017 - the SDK/httpx type is not part of the contract
        for chunk in _ask(client, stream=True):
            received.extend(c.delta.content for c in chunk.choices)
    assert received == ["one ", "two "]


def test_embedding_errors_can_be_scripted(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    server.queue_error(503, kind="embeddings")
    with pytest.raises(openai.InternalServerError):
        client.embeddings.create(model="fake-embed", input="x")
    assert len(client.embeddings.create(model="fake-embed", input="x").data) == 1


def test_requests_are_recorded_without_key(server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    _ask(client, "cite your sources")
    (request,) = server.requests_to("/chat/completions")
    assert request.method == "POST"
    assert request.headers["authorization"] == "<redacted>"
    assert API_KEY not in str(request.headers)
    assert last_user_message(request.body) == "cite your sources"
