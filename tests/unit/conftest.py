"""The store's backends for its contract tests: one test body, every backend (the qdrant-client
congruence-test idea). `store_client` runs a test on the embedded engine (qdrant-edge, the
default), on qdrant-client's local mode, and, when QDRANT_URL names a server, on that server."""

from __future__ import annotations

import os

import pytest
from qdrant_client import QdrantClient

from dreaming.store.edge import EdgeClient

BACKENDS = ["edge", "local", "server"]


def _drop_test_collections(client: QdrantClient) -> None:
    for collection in client.get_collections().collections:
        if collection.name.startswith("test_"):
            client.delete_collection(collection.name)


@pytest.fixture(params=BACKENDS)
def store_client(request, tmp_path):
    """An empty store client of each kind; tests use the collection prefix `test`."""
    if request.param == "edge":
        client = EdgeClient(tmp_path / "qdrant-edge")
    elif request.param == "local":
        client = QdrantClient(path=str(tmp_path / "qdrant"))
    else:
        url = os.environ.get("QDRANT_URL")
        if not url:
            pytest.skip("QDRANT_URL is not set: no Qdrant server to run the store contract on")
        client = QdrantClient(url=url, api_key=os.environ.get("QDRANT_API_KEY"))
        _drop_test_collections(client)
    yield client
    if request.param == "server":
        _drop_test_collections(client)
    client.close()
