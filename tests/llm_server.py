"""A scripted OpenAI-compatible chat-completions server for tests of the LLM engine.

Tests queue behaviours (a reply, a refusal, a reply slower than the client's timeout, an HTTP
error); each POST to `/v1/chat/completions` consumes the next one, and every request body is
recorded so a test can read the prompt the engine sent. With the queue empty, a `responder` set
with `respond_with` answers from the request itself (a pass of many chunks); without one the
server answers 500. Bound to 127.0.0.1 on an ephemeral port.

    with ScriptedLlmServer() as llm:
        llm.reply('{"actions": []}')
        ...  # point litellm at llm.url with model "openai/test-model"
        assert len(llm.requests) == 1
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    content: str | None
    prompt_tokens: int = 120
    completion_tokens: int = 30
    finish_reason: str = "stop"
    refusal: str | None = None


@dataclass(frozen=True)
class Stall:
    """Answer only after `seconds` (or when the server closes): longer than the client's timeout."""

    seconds: float
    then: Reply = Reply('{"actions": []}')


@dataclass(frozen=True)
class HttpError:
    status: int = 500
    message: str = "scripted server error"


@dataclass(frozen=True)
class Garbage:
    """HTTP 200 with a body that is not a chat completion (a broken proxy, a truncated answer)."""

    body: bytes = b"<html><body>502 Bad Gateway</body></html>"


Behaviour = Reply | Stall | HttpError | Garbage
Responder = Callable[[dict[str, Any]], Behaviour]
"""Request body -> what to answer."""
_NOTHING_SCRIPTED = HttpError(500, "no scripted behaviour left for this request")


class ScriptedLlmServer:
    def __init__(self) -> None:
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._ids = itertools.count(1)
        self.requests: list[dict[str, Any]] = []
        self._responder: Responder | None = None
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-llm", daemon=True
        )

    # --- lifecycle
    def __enter__(self) -> ScriptedLlmServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._closing.set()  # releases any stalled handler at once
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    # --- scripting
    def script(self, *behaviours: Behaviour) -> None:
        with self._lock:
            self._queue.extend(behaviours)

    def reply(self, content: str, *, prompt_tokens: int = 120, completion_tokens: int = 30) -> None:
        self.script(Reply(content, prompt_tokens, completion_tokens))

    def respond_with(self, responder: Responder | None) -> None:
        """Answer every request the queue does not script with `responder(body)`."""
        with self._lock:
            self._responder = responder

    def refuse(self, text: str = "I can't help with that.") -> None:
        """An OpenAI-style refusal: no content, a `refusal` field on the message."""
        self.script(Reply(None, refusal=text))

    def content_filter(self) -> None:
        self.script(Reply(None, finish_reason="content_filter"))

    def stall(self, seconds: float) -> None:
        self.script(Stall(seconds))

    def fail(self, status: int = 500, message: str = "scripted server error") -> None:
        self.script(HttpError(status, message))

    def garbage(self, body: bytes = Garbage.body) -> None:
        self.script(Garbage(body))

    # --- inspection
    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    def prompt(self, index: int = -1) -> list[dict[str, Any]]:
        """The chat messages of one recorded request."""
        return self.requests[index]["messages"]

    # --- serving
    def _next(self, body: dict[str, Any]) -> Behaviour:
        with self._lock:
            self.requests.append(body)
            if self._queue:
                return self._queue.popleft()
            responder = self._responder
        return responder(body) if responder is not None else _NOTHING_SCRIPTED

    def _completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-scripted-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "test-model"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply.content, "refusal": reply.refusal},
                    "finish_reason": reply.finish_reason,
                }
            ],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 (http.server naming)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                behaviour = server._next(body)
                if isinstance(behaviour, HttpError):
                    self._send(behaviour.status, {"error": {"message": behaviour.message, "type": "server_error"}})
                    return
                if isinstance(behaviour, Garbage):
                    self._send_raw(200, behaviour.body)
                    return
                if isinstance(behaviour, Stall):
                    server._closing.wait(behaviour.seconds)
                    behaviour = behaviour.then
                self._send(200, server._completion(body, behaviour))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                self._send_raw(status, json.dumps(payload).encode())

            def _send_raw(self, status: int, data: bytes) -> None:
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test): nobody is left to answer

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return  # keep test output quiet

        return Handler
