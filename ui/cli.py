"""`paperchat serve`: the web app, registered through the `paperchat.commands` entry point."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rag.app.pipeline import Pipeline
    from rag.settings import Settings

# Gradio reads this when it is imported (lazily, in cmd_serve): analytics stay off.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")


def parse_auth(value: str | None) -> tuple[str, str] | None:
    """'user:password' -> (user, password); None when not given; ValueError when malformed."""
    if not value:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user or not password:
        raise ValueError("--auth must look like user:password")
    return user, password


def register_commands(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add the `serve` subcommand to the paperchat parser (entry point `paperchat.commands`)."""
    p = sub.add_parser("serve", parents=[common], help="start the web app")
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on (default loopback)")
    p.add_argument("--port", type=int, default=7860, help="port (default 7860)")
    p.add_argument("--share", action="store_true", help="also open a public Gradio share link")
    p.add_argument(
        "--auth",
        default=None,
        help="user:password required for the app and its API (or PAPERCHAT_UI__AUTH)",
    )
    p.set_defaults(handler=cmd_serve)


def _warm(pipeline: Pipeline, started: float, serving: threading.Event) -> None:
    with contextlib.suppress(Exception):
        pipeline.warm()
        serving.wait()
        # eval/bench_cold.py times start-up to this line.
        print(
            f"PaperChat is ready: first answer possible ({time.perf_counter() - started:.1f} s "
            "after start)",
            flush=True,
        )


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Build the pipeline and serve the web app until interrupted."""
    try:
        configured = settings.ui.auth.get_secret_value() if settings.ui.auth else None
        auth = parse_auth(args.auth or configured)
    except ValueError as exc:
        print(f"paperchat: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    from rag.app.pipeline import Pipeline

    pipeline = Pipeline(settings)
    # Load what the first question needs (the embedding model, the stored derived indexes)
    # while Gradio builds and starts the page; a failure here is the first question's to
    # report, with its own message.
    serving = threading.Event()
    threading.Thread(
        target=_warm, args=(pipeline, started, serving), name="paperchat-warm", daemon=True
    ).start()
    # Imported here so other subcommands do not pay for Gradio's import time.
    from .app import build_demo, launch

    demo = build_demo(pipeline)
    try:
        local_url, share_url = launch(
            demo, settings, host=args.host, port=args.port, share=args.share, auth=auth
        )
    except OSError as exc:
        print(f"paperchat: cannot serve on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    serving.set()
    papers = pipeline.stats()["papers"]
    print(f"PaperChat is running at {local_url}  ({papers} papers indexed)", flush=True)
    if share_url:
        print(f"Public link: {share_url}", flush=True)
    if args.host not in ("127.0.0.1", "localhost", "::1") and not auth:
        print(
            "warning: listening beyond loopback without --auth: anyone who can reach this "
            "port can use the app and upload files.",
            file=sys.stderr,
            flush=True,
        )
    if not papers:
        print(
            "The index is empty: upload files in the Corpus tab or run `paperchat ingest PATH`.",
            flush=True,
        )
        others = pipeline.other_collections()
        if others:
            print(f"(collections built with other settings: {', '.join(others)})", flush=True)
    try:
        demo.block_thread()
    except KeyboardInterrupt:
        pass
    finally:
        demo.close()
    return 0
