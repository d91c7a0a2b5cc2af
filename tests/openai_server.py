"""Loopback HTTP server speaking enough of the OpenAI REST API for the SDK and llama-index."""

import base64
import contextlib
import hashlib
import itertools
import json
import math
import re
import socket
import struct
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Responder = Callable[[dict[str, Any]], str]

_ERROR_KINDS: dict[int, tuple[str, str | None]] = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", "service_unavailable"),
}
_WORD = re.compile(r"\w+")
# Function words would make unrelated texts look similar, which defeats retrieval tests.
_STOPWORDS = frozenset(
    "a an and are as at be by do does for from how in is it of on or that the this to was what"
    " which with".split()
)


def embed_text(text: str, dim: int = 64) -> list[float]:
    """Return the deterministic L2-normalised hashing bag-of-words embedding of `text`."""
    vec = [0.0] * dim
    for token in _WORD.findall(text.lower()):
        if token in _STOPWORDS:
            continue
        digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
        vec[int.from_bytes(digest[:4], "little") % dim] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vec))
    if norm == 0:
        vec[0], norm = 1.0, 1.0  # callers compute cosines, so even empty text needs a unit vector
    return [v / norm for v in vec]


def message_text(message: dict[str, Any]) -> str:
    """Return a chat message's text, joining content parts when content is a list."""
    content = message.get("content") or ""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content)


def last_user_message(body: dict[str, Any]) -> str:
    """Return the text of the last user message in a chat-completions request body."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return message_text(message)
    return ""


def structured_schema(body: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request asks its reply to follow (structured output), if any."""
    fmt = body.get("response_format") or {}
    if fmt.get("type") != "json_schema":
        return None
    return (fmt.get("json_schema") or {}).get("schema") or {}


def schema_instance(schema: dict[str, Any]) -> Any:
    """The plainest value a JSON schema accepts: first enum value, null when allowed (also as
    an anyOf branch), "", 0, false, [], and objects with every required property filled the
    same way."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        options = schema["anyOf"]
        if any(o.get("type") == "null" for o in options):
            return None
        return schema_instance(options[0])
    kinds = schema.get("type", "object")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "null" in kinds:
        return None
    kind = kinds[0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: schema_instance(props.get(k, {})) for k in schema.get("required", props)}
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "array": []}[kind]


def _count_tokens(text: str) -> int:
    return len(text.split())


@dataclass
class Behavior:
    """One scripted reaction to an upcoming request; unset fields fall back to the defaults."""

    text: str | None = None
    responder: Responder | None = None
    status: int | None = None
    message: str | None = None
    retry_after: float | None = None
    delay: float = 0.0
    drop_after: int | None = None
    chunk_delay: float = 0.0
    finish_reason: str = "stop"


@dataclass
class RecordedRequest:
    """A request the server received, with the Authorization value redacted."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, owner: "FakeOpenAIServer", port: int) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # Clients hanging up (timeouts, shutdown) are expected; only real bugs deserve a trace.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 chunked streaming lets an abrupt close surface as an incomplete body client-side.
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        with self.server.owner._lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.owner._lock:
            self.server.connections.discard(self.connection)
        super().finish()

    def do_GET(self) -> None:
        self._handle(None)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"null")
        except ValueError:
            body = raw.decode(errors="replace")
        self._handle(body)

    def _handle(self, body: Any) -> None:
        owner = self.server.owner
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        if "authorization" in headers:
            headers["authorization"] = "<redacted>"
        owner._record(RecordedRequest(self.command, path, headers, body))
        try:
            if owner.api_key and self.headers.get("Authorization") != f"Bearer {owner.api_key}":
                self._error(401, "Incorrect API key provided.")
            elif self.command == "GET" and path == "/v1/models":
                models = [*owner.chat_models, *owner.embedding_models]
                data = [
                    {"id": m, "object": "model", "created": 0, "owned_by": "tests"} for m in models
                ]
                self._json(200, {"object": "list", "data": data})
            elif self.command == "POST" and path in ("/v1/chat/completions", "/v1/embeddings"):
                if not isinstance(body, dict):
                    self._error(400, "Request body must be a JSON object.")
                elif path.endswith("/embeddings"):
                    self._embeddings(body)
                else:
                    self._chat(body)
            else:
                self._error(404, f"Unknown route {self.command} {path}")
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _prelude(self, behavior: Behavior, streaming: bool) -> bool:
        """Apply scripted delay, error or non-streaming drop; return True if the request is done."""
        if behavior.delay and self.server.owner._stopping.wait(behavior.delay):
            self._drop()
        elif behavior.status:
            self._error(behavior.status, behavior.message, behavior.retry_after)
        elif behavior.drop_after is not None and not streaming:
            self._drop()
        else:
            return False
        return True

    def _chat(self, body: dict[str, Any]) -> None:
        owner = self.server.owner
        # Structured-output requests (a planner's JSON) are scripted apart from the answers, so
        # a test scripting answers does not have to know how many plans come before them.
        structured = structured_schema(body) is not None
        behavior = owner._next("structured" if structured else "chat")
        streaming = bool(body.get("stream"))
        if self._prelude(behavior, streaming):
            return
        try:
            text = behavior.text
            default = owner.structured_responder if structured else owner.default_responder
            text = (behavior.responder or default)(body) if text is None else text
        except Exception as exc:  # surface responder bugs to the test instead of hanging up
            owner.errors.append(exc)
            self._error(500, f"Responder failed: {exc!r}")
            return
        prompt = sum(_count_tokens(message_text(m)) for m in body.get("messages") or [])
        completion = _count_tokens(text)
        usage = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        base = {
            "id": f"chatcmpl-{next(owner._ids)}",
            "created": int(time.time()),
            "model": body.get("model") or owner.chat_models[0],
            "system_fingerprint": None,
        }
        if not streaming:
            message = {"role": "assistant", "content": text, "refusal": None}
            choice = {"index": 0, "message": message, "logprobs": None}
            choice["finish_reason"] = behavior.finish_reason
            self._json(
                200, {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            )
            return

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
            return {**base, "object": "chat.completion.chunk", "choices": [choice]}

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pieces = re.findall(r"\S+\s*|\s+", text) or [""]
        for i, piece in enumerate(pieces[: behavior.drop_after]):
            delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
            self._sse(chunk(delta))
            owner._stopping.wait(behavior.chunk_delay)
        if behavior.drop_after is not None:
            self._drop()
            return
        self._sse(chunk({}, behavior.finish_reason))
        if (body.get("stream_options") or {}).get("include_usage"):
            self._sse({**base, "object": "chat.completion.chunk", "choices": [], "usage": usage})
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")

    def _embeddings(self, body: dict[str, Any]) -> None:
        owner = self.server.owner
        if self._prelude(owner._next("embeddings"), False):
            return
        inputs = body.get("input")
        if isinstance(inputs, str) or (
            isinstance(inputs, list) and inputs and isinstance(inputs[0], int)
        ):
            inputs = [inputs]
        if not isinstance(inputs, list) or not inputs:
            self._error(400, "'input' must be a non-empty string or list.")
            return
        # Token-id inputs get stable pseudo-words so identical ids still embed identically.
        texts = [t if isinstance(t, str) else " ".join(f"tok{n}" for n in t) for t in inputs]
        dim = int(body.get("dimensions") or owner.embedding_dim)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(texts):
            vec: Any = embed_text(text, dim)
            if as_base64:
                vec = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode()
            data.append({"object": "embedding", "index": i, "embedding": vec})
        tokens = sum(max(1, _count_tokens(t)) for t in texts)
        model = body.get("model") or owner.embedding_models[0]
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        self._json(200, {"object": "list", "data": data, "model": model, "usage": usage})

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        payload = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)

    def _error(
        self, status: int, message: str | None = None, retry_after: float | None = None
    ) -> None:
        kind, code = _ERROR_KINDS.get(
            status, ("server_error" if status >= 500 else "invalid_request_error", None)
        )
        if retry_after is None and status == 429:
            retry_after = 0.05  # keeps SDK retries in tests fast while still exercising the header
        headers = {}
        if retry_after is not None:
            headers = {
                "retry-after": f"{retry_after:g}",
                "retry-after-ms": f"{retry_after * 1000:.0f}",
            }
        error = {"message": message or f"Scripted error {status}", "type": kind, "param": None}
        self._json(status, {"error": {**error, "code": code}}, headers)

    def _sse(self, event: dict[str, Any]) -> None:
        self._write_chunk(f"data: {json.dumps(event)}\n\n".encode())

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


class FakeOpenAIServer:
    """Threaded loopback server for /v1/chat/completions, /v1/embeddings and /v1/models."""

    def __init__(
        self,
        api_key: str | None = None,
        chat_models: tuple[str, ...] = ("fake-chat",),
        embedding_models: tuple[str, ...] = ("fake-embed",),
        embedding_dim: int = 64,
        default_responder: Responder | None = None,
        structured_responder: Responder | None = None,
        port: int = 0,
    ) -> None:
        self.api_key = api_key
        self.chat_models = chat_models
        self.embedding_models = embedding_models
        self.embedding_dim = embedding_dim
        self.default_responder: Responder = default_responder or (
            lambda body: f"Echo: {last_user_message(body)}"
        )
        # Unscripted structured requests get the schema's plainest valid instance.
        self.structured_responder: Responder = structured_responder or (
            lambda body: json.dumps(schema_instance(structured_schema(body) or {}))
        )
        self.port = port
        self.requests: list[RecordedRequest] = []
        self.errors: list[Exception] = []
        self._queues: dict[str, deque[Behavior]] = {
            "chat": deque(),
            "structured": deque(),
            "embeddings": deque(),
        }
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """Return the OpenAI-style base URL, e.g. http://127.0.0.1:PORT/v1."""
        if self._httpd is None:
            raise RuntimeError("server is not running")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> Self:
        """Bind a free loopback port and serve in a daemon thread."""
        self._stopping.clear()
        self._httpd = _HTTPServer(self, self.port)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, cut open connections and release the port."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        with self._lock:
            connections = list(self._httpd.connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def queue(self, *behaviors: Behavior, kind: str = "chat") -> None:
        """Append behaviours for upcoming `chat`, `structured` (chat requests with a JSON
        schema response_format) or `embeddings` requests, consumed in order."""
        with self._lock:
            self._queues[kind].extend(behaviors)

    def queue_reply(self, text: str, **kwargs: Any) -> None:
        """Answer the next chat request with fixed text."""
        self.queue(Behavior(text=text, **kwargs))

    def queue_structured(self, reply: Any, **kwargs: Any) -> None:
        """Answer the next structured-output request with `reply` (JSON-encoded unless text)."""
        text = reply if isinstance(reply, str) else json.dumps(reply)
        self.queue(Behavior(text=text, **kwargs), kind="structured")

    def queue_responder(self, responder: Responder, **kwargs: Any) -> None:
        """Answer the next chat request with `responder(request_json)`."""
        self.queue(Behavior(responder=responder, **kwargs))

    def queue_error(
        self,
        status: int,
        message: str | None = None,
        retry_after: float | None = None,
        times: int = 1,
        kind: str = "chat",
    ) -> None:
        """Fail the next `times` requests of `kind` with an OpenAI-style error response."""
        behavior = Behavior(status=status, message=message, retry_after=retry_after)
        self.queue(*[behavior] * times, kind=kind)

    def queue_delay(self, seconds: float, text: str | None = None) -> None:
        """Sleep before answering the next chat request (to trigger client timeouts)."""
        self.queue(Behavior(text=text, delay=seconds))

    def queue_stream_drop(self, after_chunks: int, text: str | None = None) -> None:
        """Send `after_chunks` content chunks of the next chat reply, then close the socket."""
        self.queue(Behavior(text=text, drop_after=after_chunks))

    def requests_to(self, suffix: str) -> list[RecordedRequest]:
        """Return recorded requests whose path ends with `suffix`, e.g. "/chat/completions"."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith(suffix)]

    def reset(self) -> None:
        """Forget recorded requests, responder errors and queued behaviours."""
        with self._lock:
            self.requests.clear()
            self.errors.clear()
            for pending in self._queues.values():
                pending.clear()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next(self, kind: str) -> Behavior:
        with self._lock:
            return self._queues[kind].popleft() if self._queues[kind] else Behavior()
