"""A statement that paraphrases a live memory grows that memory instead of becoming a second one.

The walk meets each statement in message order and compares it with the memories live at that
moment — the ones earlier passes wrote and the ones this plan made — by one rule
(`duplicates.is_paraphrase`: close sentence embeddings, no value on both sides that the other
lacks). So where pass boundaries fall does not change what is merged: one pass over a whole
conversation and five passes over its parts make the same comparisons, in the same order, against
the same texts. (Merging after the walk, over the stored memories only, merged what an earlier
pass wrote and never what this one made: the store depended on the boundaries.)

The message must also share a distinctive word with the memory — not a name of the chat's people,
not a word a quarter of the live memories hold: an embedding alone finds two short, vague
sentences ("will think about what to do") close, and the gate refuses to change a stored memory
on evidence that says nothing about it, so a pass would be quarantined for a merge one pass over
the same messages makes silently.

What a paraphrase adds is kept: its message joins the memory's evidence, and a value it states
that the memory lacks (a number, a date, a name) is appended to the memory's text, as a merge
does (`housekeeping._merged_text`). A statement that says more than a memory of its speaker's
from earlier that day, repeating all of it (`restate`), gives that memory its own words instead.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import numpy as np

from dreaming.embedding import canonical_tokens
from dreaming.embedding.protocol import EmbedArray
from dreaming.engine.offline.duplicates import (
    PARAPHRASE_COSINE,
    is_duplicate,
    is_paraphrase,
    new_values,
    restates,
    says_more,
)
from dreaming.engine.offline.plan_builder import PlanBuilder
from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet
from language.dates import without_stamp

RESPELLED_VALUES = 3
"""A restated memory's tokens the statement lacks can only be values spelled otherwise ("two" for
"2"): a memory with more is no restatement, whatever the slower test would say."""
RESTATED_WORDS = 5
"""A memory is found restated only when it has this many words besides the chat's people's names:
the few words of "Ana has always loved horses" ("love", "horse") turn up in any sentence about
horses, "loved how you painted the horse's mane" included, without repeating it."""
ORDINARY_SHARE = 0.25
"""A word in more than this share of the live memories ties a message to none of them."""


def absorbs(memory: WorkingMemory) -> bool:
    """A memory a paraphrase may grow: not a person's curated one, not an agent's memory-add
    (the agent's words stay as it wrote them; the merge step of housekeeping handles adds)."""
    return not memory.protected and memory.origin != "memory_add"


class ParaphraseIndex:
    """The sentence vectors of the working set's live memories (text without its said-on stamp),
    kept in step with the working set through its change log; embedded lazily, in batches."""

    def __init__(self, working: WorkingSet, embed: EmbedArray) -> None:
        self.working = working
        self.embed = embed
        self._cursor = 0
        self._keys: list[str] = []
        self._rows: dict[str, int] = {}
        self._live = np.zeros(0, dtype=bool)
        self._matrix: np.ndarray | None = None
        """Rows of the memories indexed so far; capacity doubles, so adding one is not a copy of all."""
        self._size = 0
        self._asked: dict[str, np.ndarray] = {}
        """The texts asked about since the last sync, with their vectors."""

    def _sync(self) -> None:
        changed = self.working.changes_since(self._cursor)
        self._cursor += len(changed)
        fresh: list[WorkingMemory] = []
        for key in dict.fromkeys(changed):
            row = self._rows.pop(key, None)
            if row is not None:
                self._live[row] = False
            memory = self.working.get(key)
            if memory is not None and self.working.is_live(key) and absorbs(memory):
                fresh.append(memory)
        if not fresh:
            self._asked.clear()
            return
        texts = [without_stamp(m.text) for m in fresh]
        # Most new memories are the statement just asked about: its vector is at hand.
        missing = [t for t in dict.fromkeys(texts) if t not in self._asked]
        known = dict(zip(missing, np.asarray(self.embed(missing), dtype=np.float32))) if missing else {}
        vectors = np.stack([self._asked[t] if t in self._asked else known[t] for t in texts])
        self._asked.clear()
        end = self._size + len(fresh)
        if self._matrix is None or end > len(self._matrix):
            grown = np.zeros((max(2 * end, 64), vectors.shape[1]), dtype=np.float32)
            live = np.zeros(len(grown), dtype=bool)
            if self._matrix is not None:
                grown[: self._size], live[: self._size] = self._matrix[: self._size], self._live[: self._size]
            self._matrix, self._live = grown, live
        self._matrix[self._size : end] = vectors
        self._live[self._size : end] = True
        for offset, memory in enumerate(fresh):
            self._rows[memory.key] = self._size + offset
            self._keys.append(memory.key)
        self._size = end

    def find(self, text: str, tokens: frozenset[str]) -> tuple[WorkingMemory, float] | None:
        """The live memory `text` paraphrases (the closest one, ties by text), with the cosine."""
        self._sync()
        if self._matrix is None or not tokens:
            return None
        vector = np.asarray(self.embed([text]), dtype=np.float32)[0]
        self._asked[text] = vector
        cosine = np.where(self._live[: self._size], self._matrix[: self._size] @ vector, -1.0)
        hits = [(float(cosine[row]), self._keys[row]) for row in np.flatnonzero(cosine >= PARAPHRASE_COSINE)]
        ranked = [(c, m) for c, key in hits if (m := self.working.get(key)) is not None]
        for similarity, memory in sorted(ranked, key=lambda hit: (-hit[0], hit[1].text)):
            plain = without_stamp(memory.text)
            if is_duplicate(tokens, memory.tokens) or is_paraphrase(text, tokens, plain, memory.tokens, similarity):
                return memory, similarity
        return None


class Paraphrases:
    """Grows the memory a statement paraphrases (`absorb`); the memories earlier passes wrote are
    updated once, after the walk (`flush`), with everything this plan added to them."""

    def __init__(
        self, builder: PlanBuilder, working: WorkingSet, embed: EmbedArray, names: frozenset[str] = frozenset()
    ) -> None:
        self.builder = builder
        self.working = working
        self.names = names
        """The tokens of the chat's people's names: they make no word in common."""
        self.index = ParaphraseIndex(working, embed)
        self._stored: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {}
        """Memory id of an earlier pass -> (its text now, the evidence added, the messages absorbed)."""

    def absorb(self, message_id: str, said_at: datetime, said: str, text: str) -> bool:
        """True when `text` (a statement from message `message_id`, which says `said`; with its
        said-on stamp) paraphrases a live memory, which now holds it: the caller creates nothing."""
        plain = without_stamp(text)
        found = self.index.find(plain, canonical_tokens(plain))
        if found is None:
            return False
        memory, _ = found
        if says_more(plain, memory.text):
            return False  # it makes its own memory: merged, its words would be lost to a reader
        ordinary = self.names | self.working.tokens_above(ORDINARY_SHARE)
        if not (canonical_tokens(said) & memory.tokens) - ordinary:
            return False
        merged = f"{memory.text.rstrip()} {plain}" if new_values(plain, memory.text) else memory.text
        self._grow(memory, merged, message_id, said_at)
        return True

    def restate(self, message_id: str, said_at: datetime, text: str, earlier: Iterable[WorkingMemory]) -> bool:
        """True when `text` (a statement from message `message_id`, with its said-on stamp) repeats
        one of the `earlier` memories whole and says more ("after 8 problems my accuracy went from
        60% to 85%" told again beside "I'm now at 12 problems"): that memory takes the statement's
        words and message, and the caller creates nothing. `earlier` are the live memories of what
        the same speaker said earlier that day: a restatement then is one account, told again; a
        later day's is news with its own date."""
        plain = without_stamp(text)
        tokens = canonical_tokens(plain)
        for memory in earlier:
            if len(memory.tokens - tokens) > RESPELLED_VALUES or len(memory.tokens - self.names) < RESTATED_WORDS:
                continue  # the cheap tests first: words the statement lacks, or too few to tell
            if absorbs(memory) and restates(plain, without_stamp(memory.text)):
                self._grow(memory, text, message_id, said_at)
                return True
        return False

    def _grow(self, memory: WorkingMemory, text: str, message_id: str, said_at: datetime) -> None:
        """`memory` now reads `text` and cites `message_id` too."""
        evidence = (*dict.fromkeys((*memory.evidence_ids, message_id)),)
        if memory.created_in_plan:
            self.builder.extend(memory.key, text, evidence)
        else:
            _, added, absorbed = self._stored.get(memory.key, (memory.text, (), ()))
            added = (*dict.fromkeys((*added, message_id)),)
            self._stored[memory.key] = (text, added, (*absorbed, message_id))
        self.working.add(
            WorkingMemory(
                key=memory.key,
                text=text,
                tokens=canonical_tokens(without_stamp(text)),
                evidence_ids=evidence,
                evidence_ts=max(memory.evidence_ts, said_at),
                protected=memory.protected,
                created_in_plan=memory.created_in_plan,
                origin=memory.origin,
            )
        )

    def flush(self) -> None:
        """Update each memory of an earlier pass that absorbed statements in this plan, unless the
        walk retired it since (what replaced it was made from its grown text already)."""
        for key, (text, added, absorbed) in self._stored.items():
            if self.builder.touched(key) or not self.working.is_live(key):
                continue
            self.builder.update(key, text, added, f"paraphrased or restated by {', '.join(absorbed)}")
        self._stored.clear()
