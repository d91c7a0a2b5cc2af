"""Processes the benchmarks and the tests start: a Chroma server, the app, and how to stop them.

One implementation for both (the eval scripts never import tests). Every process is started
on a free loopback port with a scratch working directory, and stopped by its own pid.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

CHROMA_BIN = Path(sys.executable).parent / "chroma"
READY_LINE = "PaperChat is running at"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without PaperChat/OpenAI settings and with analytics off, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERCHAT_", "OPENAI_"))}
    env.update(GRADIO_ANALYTICS_ENABLED="False", ANONYMIZED_TELEMETRY="False")
    env.update(extra)
    return env


def stop_process(proc: subprocess.Popen, timeout: float = 15, sig: int = signal.SIGTERM) -> None:
    """Signal a process to stop, wait for it, and kill it if it does not."""
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_heartbeat(url: str, proc: subprocess.Popen, timeout: float) -> None:
    """Poll url until it answers 200; fail when the process exits or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=1) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server did not answer {url} within {timeout:.0f} s")


class ChromaServer:
    """`chroma run` with its database under root; can be stopped and started again in place."""

    def __init__(self, root: Path, port: int | None = None) -> None:
        if not CHROMA_BIN.is_file():
            raise FileNotFoundError(f"{CHROMA_BIN} not found (pip install chromadb)")
        self.root = root
        self.host = "127.0.0.1"
        self.port = port or free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60) -> ChromaServer:
        """Start the server and wait for its heartbeat."""
        self.root.mkdir(parents=True, exist_ok=True)
        with (self.root / "server.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [CHROMA_BIN, "run", "--path", self.root / "db"]
                + ["--host", self.host, "--port", str(self.port)],
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.root,
                env=clean_env(),
            )
        try:
            wait_heartbeat(f"http://{self.host}:{self.port}/api/v2/heartbeat", self.proc, timeout)
        except RuntimeError:
            self.stop()
            raise
        return self

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server (SIGTERM by default) and wait until it has exited."""
        if self.proc is not None:
            stop_process(self.proc, sig=sig)
        self.proc = None


class App:
    """`python -m rag serve` on a free loopback port, its output in a log file."""

    def __init__(
        self,
        data_dir: Path,
        workdir: Path,
        args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        timeout: float = 240,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        workdir.mkdir(parents=True, exist_ok=True)
        self.log_path = workdir / f"serve-{self.port}.log"
        cmd = [sys.executable, "-m", "rag", "serve", "--port", str(self.port)]
        with self.log_path.open("wb") as log:
            # cwd is a scratch directory: a developer's .env in the repository is never read.
            self.proc = subprocess.Popen(
                [*cmd, "--data-dir", str(data_dir), *args],
                cwd=workdir,
                env=clean_env(**{"GRADIO_TEMP_DIR": str(workdir / "gradio-tmp"), **(env or {})}),
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while READY_LINE not in self.output():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the app did not start:\n{self.output()[-3000:]}")
            time.sleep(0.2)

    def output(self) -> str:
        """Everything the app printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        """Terminate the app (SIGKILL only if it ignores SIGTERM)."""
        stop_process(self.proc, timeout=20)
