"""The paraphrase index follows the working set (adds, rewordings, retirements) and a statement
grows the memory it paraphrases, in this plan or one an earlier pass wrote; sentences written for
these tests."""

from __future__ import annotations

from datetime import UTC, datetime

from dreaming.embedding import canonical_tokens
from dreaming.embedding.minilm import MiniLMEmbedder
from dreaming.engine.offline.duplicates import PARAPHRASE_COSINE, is_duplicate, is_paraphrase, restates
from dreaming.engine.offline.paraphrases import ParaphraseIndex, Paraphrases
from dreaming.engine.offline.plan_builder import PlanBuilder
from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet
from schemas import CreateAction, UpdateAction

SAID = datetime(2026, 4, 2, 10, 0, tzinfo=UTC)
LATER = datetime(2026, 4, 9, 10, 0, tzinfo=UTC)
EMBED = MiniLMEmbedder().embed_array


def memory(
    key: str, text: str, *, created: bool = False, origin: str = "transcript", evidence: str = ""
) -> WorkingMemory:
    cited = (evidence or f"m-{key}",)
    return WorkingMemory(key, text, canonical_tokens(text), cited, SAID, created_in_plan=created, origin=origin)


def test_the_index_follows_retirements_and_rewordings() -> None:
    working = WorkingSet()
    working.add(memory("a", "[2026-04-02] Nadia grows tomatoes on her balcony."))
    working.add(memory("b", "[2026-04-02] Nadia's bike is painted green."))
    index = ParaphraseIndex(working, EMBED)
    text = "Nadia grows tomatoes on the balcony."
    found = index.find(text, canonical_tokens(text))
    assert found is not None and found[0].key == "a"
    working.retire("a")
    assert index.find(text, canonical_tokens(text)) is None
    working.add(memory("b", "[2026-04-02] Nadia grows tomatoes on her balcony every summer."))
    found = index.find(text, canonical_tokens(text))
    assert found is not None and found[0].key == "b", "compared with the memory's text now"


def test_agent_notes_and_protected_memories_are_never_grown() -> None:
    working = WorkingSet()
    working.add(memory("note", "Nadia grows tomatoes on her balcony.", origin="memory_add"))
    working.add(WorkingMemory("kept", "Nadia grows tomatoes on her balcony.", frozenset({"x"}), (), SAID, True))
    text = "Nadia grows tomatoes on the balcony."
    assert ParaphraseIndex(working, EMBED).find(text, canonical_tokens(text)) is None


def test_a_paraphrase_grows_a_memory_of_this_plan_or_of_an_earlier_pass() -> None:
    builder, working = PlanBuilder(), WorkingSet()
    ref = builder.create("[2026-04-02] Nadia grows tomatoes on her balcony.", ("m1",), "statement")
    working.add(memory(ref, "[2026-04-02] Nadia grows tomatoes on her balcony.", created=True, evidence="m1"))
    working.add(memory("stored", "[2026-03-01] Nadia's bike is painted green and has a basket."))
    paraphrases = Paraphrases(builder, working, EMBED, frozenset({"nadia"}))
    assert paraphrases.absorb(
        "m2",
        LATER,
        "Nadia: I grow tomatoes on my balcony, 12 plants.",
        "Nadia grows tomatoes on the balcony, 12 plants.",
    )
    assert paraphrases.absorb(
        "m3", LATER, "Nadia: My green bike has a basket.", "Nadia's bike is painted green and has a basket."
    )
    assert not paraphrases.absorb("m4", LATER, "Nadia: I repair clocks.", "Nadia repairs clocks.")
    paraphrases.flush()
    [create] = [a for a in builder.actions if isinstance(a, CreateAction)]
    assert (
        create.text
        == "[2026-04-02] Nadia grows tomatoes on her balcony. Nadia grows tomatoes on the balcony, 12 plants."
    )
    assert create.evidence_message_ids == ("m1", "m2")
    [update] = [a for a in builder.actions if isinstance(a, UpdateAction)]
    assert (update.target, update.evidence_message_ids) == ("stored", ("m3",))
    assert update.text == "[2026-03-01] Nadia's bike is painted green and has a basket.", "no value added: same words"


def test_no_word_in_common_with_the_memory_no_merge() -> None:
    """Two short, vague sentences can be close in embedding; the message must share a word with the memory."""
    builder, working = PlanBuilder(), WorkingSet()
    working.add(memory("vague", "[2026-03-01] Nadia will think about what to do next."))
    paraphrases = Paraphrases(builder, working, EMBED, frozenset({"nadia"}))
    assert not paraphrases.absorb(
        "m5", LATER, "Nadia: Maybe I should give it some thought.", "Nadia will think about what to do next."
    )


def test_ordinary_words_need_two_memories_at_least() -> None:
    working = WorkingSet()
    for key, text in (("a", "tomatoes balcony"), ("b", "bike green"), ("c", "clocks repair")):
        working.add(memory(key, text))
    assert working.tokens_above(0.25) == frozenset()
    working.add(memory("d", "green clocks"))
    assert working.tokens_above(0.25) == frozenset({"green", "clock"} & canonical_tokens("green clocks"))


def test_a_statement_that_says_more_than_the_memory_keeps_its_own() -> None:
    """Close in meaning, but two words the memory lacks beyond its values ("mostly on trains"):
    merged, a reader asking where would find nothing; a value alone (a name) still grows it."""
    for new, grows in (
        ("Nadia knits wool scarves, mostly on trains.", False),
        ("Nadia knits scarves of wool for Ilse.", True),
    ):
        builder, working = PlanBuilder(), WorkingSet()
        working.add(
            WorkingMemory(
                "s",
                "[2026-03-01] Nadia knits scarves of wool.",
                canonical_tokens("Nadia knits scarves of wool."),
                ("m0",),
                SAID,
            )
        )
        paraphrases = Paraphrases(builder, working, EMBED, frozenset({"nadia"}))
        assert paraphrases.absorb("m1", LATER, f"Nadia: {new}", new) is grows, new


def test_a_restatement_repeats_every_word_and_value_and_says_more() -> None:
    known = "Nadia grows two kinds of tomatoes on her balcony."
    assert restates("Nadia grows 2 kinds of tomatoes on her balcony, and basil for the kitchen.", known)
    assert not restates("Nadia grows 3 kinds of tomatoes on her balcony, and basil for the kitchen.", known)
    assert not restates("Nadia grows two kinds of tomatoes on the balcony.", known), "nothing more said"
    assert not restates("Nadia grows two kinds of peppers on her balcony, and basil.", known), "tomatoes unsaid"


def test_a_plan_is_no_paraphrase_of_the_deed() -> None:
    did, planned = "Nadia and her brother played chess in the park.", "Nadia and her brother planned to play chess."
    vectors = EMBED([did, planned])
    cosine = float(vectors[0] @ vectors[1])
    assert cosine >= PARAPHRASE_COSINE, "close enough in meaning that only the plan tells them apart"
    assert not is_paraphrase(planned, canonical_tokens(planned), did, canonical_tokens(did), cosine)
    assert not is_duplicate(
        canonical_tokens("Nadia plans to paint the fence"), canonical_tokens("Nadia paints the fence")
    )
    hoped = "Nadia and her brother hope to play chess in the park."
    assert is_paraphrase(hoped, canonical_tokens(hoped), hoped.replace("hope", "hopes"), canonical_tokens(hoped), 0.95)
