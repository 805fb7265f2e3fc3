"""Forgetting a scope also empties what the process memoised of its sentences."""

from __future__ import annotations

from dreaming.forget import forget_scope
from dreaming.store import Diary, MemoryStore, TranscriptStore
from language.chatter import classify_sentence

DIMS = 4


def test_forgetting_a_scope_empties_what_was_memoised_of_its_sentences(store_client) -> None:
    def embed(texts):
        return [[float(len(t) % (i + 3)) + 1.0 for i in range(DIMS)] for t in texts]

    memories = MemoryStore(store_client, "test", DIMS, embed, generations_kept=2)
    transcripts = TranscriptStore(store_client, "test", DIMS, embed)
    classify_sentence("My new door code is 5521, don't tell anyone.")
    assert classify_sentence.cache_info().currsize >= 1
    forget_scope(store_client, memories, transcripts, Diary(store_client, "test"), "acme/bot/rosa")
    assert classify_sentence.cache_info().currsize == 0
