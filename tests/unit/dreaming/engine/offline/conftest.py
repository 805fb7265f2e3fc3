"""The sentence model the slot tests judge with: one per module, as loading it costs a second."""

from __future__ import annotations

import pytest

from dreaming.embedding.minilm import MiniLMEmbedder
from dreaming.engine.offline.slots import SlotReader


@pytest.fixture(scope="module")
def slots() -> SlotReader:
    return SlotReader(MiniLMEmbedder().embed_array)
