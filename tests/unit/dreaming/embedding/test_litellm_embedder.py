"""Production embeddings through litellm, against a small OpenAI-compatible `/v1/embeddings` server
on loopback (this file's own; the chat server in tests/llm_server.py serves the LLM engine)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from dreaming.embedding import Embedder, make_embedder
from dreaming.embedding.hashing import HashingEmbedder
from dreaming.embedding.litellm_embedder import EmbeddingError, LitellmEmbedder
from schemas.settings import Settings

pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly.*:UserWarning")  # pydantic noise from litellm's types
MODEL = "openai/test-embedding"


class EmbeddingServer:
    """Answers each text with 3 x its 12-dim hashing vector (not unit length, as some providers),
    listing the items in reverse order with their index, as the API allows. `dims_by_call` can
    make a later answer narrower; `fail_with` answers every request with that HTTP status."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.fail_with: int | None = None
        self.dims_by_call: dict[int, int] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
                if server.fail_with is not None:
                    return self._send(
                        server.fail_with, {"error": {"message": "scripted failure", "type": "server_error"}}
                    )
                dims = server.dims_by_call.get(len(server.requests), 12)
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                vectors = (3 * HashingEmbedder(12).embed_array(inputs))[:, :dims]
                data = [{"object": "embedding", "index": i, "embedding": v.tolist()} for i, v in enumerate(vectors)]
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": data[::-1],
                        "model": body["model"],
                        "usage": {"prompt_tokens": len(inputs), "total_tokens": len(inputs)},
                    },
                )

            def _send(self, status: int, payload: dict) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return Handler

    def __enter__(self) -> EmbeddingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


def embedder_for(server: EmbeddingServer, **options) -> LitellmEmbedder:
    return LitellmEmbedder(MODEL, api_base=server.url, api_key="test-key", timeout_s=5, retries=0, **options)


def test_batches_in_order_with_unit_rows_and_the_width_of_the_answer(server: EmbeddingServer) -> None:
    texts = ["Noor adopted a greyhound", "the boiler broke", "", "Noor adopted a greyhound", "tax forms", "a fifth"]
    embedder = embedder_for(server, batch_size=2)
    rows = embedder.embed_array(texts)
    assert isinstance(embedder, Embedder) and embedder.dims == 12 and rows.shape == (6, 12)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-6)
    expected = HashingEmbedder(12).embed_array([t if t else " " for t in texts])
    assert np.allclose(rows, expected, atol=1e-6)  # each row is its own text's, whatever the answer order
    assert [r["input"] for r in server.requests] == [  # 5 distinct texts, 2 per request, "" sent as " "
        ["Noor adopted a greyhound", "the boiler broke"],
        [" ", "tax forms"],
        ["a fifth"],
    ]
    assert {r["path"] for r in server.requests} == {"/v1/embeddings"}
    assert {r["auth"] for r in server.requests} == {"Bearer test-key"}
    assert {r["model"] for r in server.requests} == {"test-embedding"}


def test_cached_texts_are_not_asked_again(server: EmbeddingServer) -> None:
    embedder = embedder_for(server)
    first = embedder.embed(["one", "two"])
    assert embedder.embed(["two", "one"]) == [first[1], first[0]]
    assert len(server.requests) == 1


def test_the_width_is_asked_once_when_a_store_needs_it_first(server: EmbeddingServer) -> None:
    embedder = embedder_for(server)
    assert embedder.dims == 12 and embedder.dims == 12
    assert len(server.requests) == 1
    assert embedder.embed_array([]).shape == (0, 12)


def test_an_answer_of_another_width_is_refused(server: EmbeddingServer) -> None:
    embedder = embedder_for(server, batch_size=1)
    server.dims_by_call[2] = 8
    with pytest.raises(EmbeddingError, match="answered 8 dims, earlier answers had 12"):
        embedder.embed_array(["first", "second"])


def test_a_failing_provider_is_one_clear_error(server: EmbeddingServer) -> None:
    server.fail_with = 500
    with pytest.raises(EmbeddingError, match=rf"litellm:{MODEL} at {server.url} failed on 1 texts"):
        embedder_for(server).embed_array(["anything"])


def test_make_embedder_builds_it_from_settings(server: EmbeddingServer) -> None:
    embedder = make_embedder(
        Settings(
            embedder="litellm",
            embedding_model=MODEL,
            embedding_api_base=server.url,
            embedding_api_key="test-key",
            llm_timeout_s=5,
            llm_retries=0,
        )
    )
    assert isinstance(embedder, LitellmEmbedder) and embedder.name == f"litellm:{MODEL}"
    assert embedder.embed_array(["hello"]).shape == (1, 12)
    assert server.requests[0]["auth"] == "Bearer test-key"
