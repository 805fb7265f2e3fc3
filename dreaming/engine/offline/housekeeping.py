"""Tidy the memories the transcript walk left alone: rival values, duplicates, relative dates.

Only memories no pass has compared yet take part (`unchecked`: the pending memory-adds, a record
citing a message first read now): one the walk made, in this pass or an earlier one, already met
every memory live when it was made, by the walk's rules (`transcript_pass`, `paraphrases`).
Judging the stored ones again would make the store depend on where the pass boundaries fell; so a
memory the walk made is never merged here as a paraphrase (in one pass it is made in the plan, and
no pending add is compared with it either). What the walk does with an add it meets, it does here
when the add comes a pass later: a memory it made from one message whose words the add repeats
would not have been made (`find_duplicate`): it is folded into the add.

- Two existing memories giving one attribute different values: the one with newer evidence wins.
- Paraphrased duplicates become one MergeAction (older/shorter survivor; apply unions provenance).
- A memory saying "next Tuesday" is rewritten with the absolute date, resolved from the timestamp
  of the earliest evidence message it cites (the moment the phrase was meant).

Each memory gets at most one action; a merge survivor that also needs a date fix gets it through
the merge's new wording. Protected memories are never touched.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from dreaming.embedding import canonical_tokens
from dreaming.embedding.protocol import EmbedArray
from dreaming.engine.offline.corrections import owner_of, statement_rivals
from dreaming.engine.offline.duplicates import (
    MERGE_EXTRA_WORDS,
    MergeCandidate,
    MergeGroup,
    is_duplicate,
    merge_groups,
    new_values,
    says_more,
)
from dreaming.engine.offline.plan_builder import PlanBuilder
from dreaming.engine.offline.slots import SlotReader
from dreaming.engine.offline.working_set import WorkingSet
from language.dates import rewrite_relative_time, stamp_day, stamped, without_stamp
from schemas import ConversationTurn, MemoryRecord


class _Dated(NamedTuple):
    plain: str
    """Dates resolved, for comparing."""
    annotated: str | None
    """Dates resolved with the original wording in brackets, for storing; None if nothing changed."""


class Housekeeping:
    def __init__(
        self,
        builder: PlanBuilder,
        working: WorkingSet,
        messages: Mapping[str, ConversationTurn],
        embed: EmbedArray,
        name_tokens: frozenset[str],
        notes: list[str],
        slots: SlotReader | None = None,
        people: tuple[str, ...] = (),
    ) -> None:
        self.builder = builder
        self.working = working
        self.messages = messages
        self.embed = embed
        self.name_tokens = name_tokens
        self.notes = notes
        self.slots = slots if slots is not None else SlotReader(embed)
        self.people = people

    def run(
        self,
        records: tuple[MemoryRecord, ...],
        unchecked: frozenset[str] | None = None,
        pending: frozenset[str] = frozenset(),
    ) -> None:
        """`unchecked`: the ids of the records no pass has compared yet (None: every record);
        `pending`: the memory-adds among them that arrived since the last pass."""
        unchecked = frozenset(r.memory_id for r in records) if unchecked is None else unchecked
        self._resolve_rivals(records, unchecked)
        eligible = [r for r in records if self._eligible(r)]
        dated = {r.memory_id: self._dated(r) for r in eligible}
        folded = self._fold_repeated(eligible, pending, unchecked, dated)
        candidates = [
            r for r in eligible if r.memory_id not in folded and (r.origin != "transcript" or r.memory_id in unchecked)
        ]
        merged = folded | self._merge(candidates, dated, unchecked)
        for record in (r for r in eligible if r.memory_id in unchecked):
            annotated = dated[record.memory_id].annotated
            if record.memory_id not in merged and annotated is not None:
                self._update_dates(record, annotated)

    def _eligible(self, record: MemoryRecord) -> bool:
        return (
            record.is_active
            and not record.protected
            and self.working.is_live(record.memory_id)
            and not self.builder.touched(record.memory_id)
        )

    def _evidence_in_transcript(self, record: MemoryRecord) -> tuple[str, ...]:
        return tuple(i for i in record.evidence_message_ids if i in self.messages)

    def _dated(self, record: MemoryRecord) -> _Dated:
        """Relative times resolved from when the wording was meant: the earliest evidence message it
        cites, else the moment the memory was written."""
        evidence = self._evidence_in_transcript(record)
        reference = min(self.messages[i].ts for i in evidence) if evidence else record.created_at
        annotated = rewrite_relative_time(record.text, reference, annotate=True)
        plain = rewrite_relative_time(record.text, reference).text
        text = annotated.text if annotated.changed else None
        if record.origin == "memory_add" and evidence and stamp_day(record.text) is None:
            # An agent's note leads with the day it is about, as every memory does: a reader asking
            # "when" gets the day the message it notes was said, as from the message's own memory.
            text = stamped(text or record.text, reference)
        return _Dated(plain, text)

    def _resolve_rivals(self, records: tuple[MemoryRecord, ...], unchecked: frozenset[str]) -> None:
        live = [m for r in records if (m := self.working.get(r.memory_id)) is not None and self.working.is_live(m.key)]
        for winner in sorted(live, key=lambda m: (m.evidence_ts, m.key), reverse=True):
            if winner.key not in unchecked or not self.working.is_live(winner.key) or self.builder.touched(winner.key):
                continue
            evidence = tuple(i for i in winner.evidence_ids if i in self.messages)
            owner = owner_of(winner.text, self.people)
            found = statement_rivals(winner.text, self.working, self.slots, owner, self.people, self.name_tokens)
            for rival in (r.memory for r in found):
                if rival.protected or rival.key == winner.key or rival.evidence_ts >= winner.evidence_ts:
                    continue
                if not evidence:
                    self.notes.append(
                        f"{rival.key} and {winner.key} disagree but {winner.key} cites no message "
                        "in the transcript window; left both"
                    )
                    continue
                if self.builder.touched(rival.key):
                    continue
                rationale = f"{winner.key} states a newer value for the same thing"
                if winner.protected:  # a protected memory is never part of an action, not even as replacement
                    self.builder.archive(rival.key, evidence, rationale)
                else:
                    self.builder.supersede(rival.key, winner.key, evidence, rationale)
                self.working.retire(rival.key)

    def _fold_repeated(
        self,
        eligible: list[MemoryRecord],
        pending: frozenset[str],
        unchecked: frozenset[str],
        dated: Mapping[str, _Dated],
    ) -> set[str]:
        """Fold into each pending memory-add the memories an earlier pass's walk made from one
        message that the walk, had the add been there, would not have made: the add says the same
        words (`duplicates.find_duplicate`). The ids involved."""
        made = [
            working
            for r in eligible
            if r.origin == "transcript" and r.memory_id not in unchecked and len(r.evidence_message_ids) == 1
            if (working := self.working.get(r.memory_id)) is not None
        ]
        folded: set[str] = set()
        for add in (r for r in eligible if r.memory_id in pending and r.origin == "memory_add"):
            said = canonical_tokens(without_stamp(add.text))
            noted = [m for m in made if m.key not in folded and is_duplicate(m.tokens, said)]
            if not noted:
                continue
            duplicates = tuple(m.key for m in noted)
            self.builder.merge(
                add.memory_id,
                duplicates,
                dated[add.memory_id].annotated,
                f"{add.memory_id} repeats {', '.join(duplicates)}, made before the add came",
            )
            folded.update((add.memory_id, *duplicates))
            for key in duplicates:
                self.working.retire(key)
        return folded

    def _merge(
        self, candidates: list[MemoryRecord], dated: Mapping[str, _Dated], unchecked: frozenset[str]
    ) -> set[str]:
        """Merge duplicates, comparing texts with dates resolved so "next Tuesday" meets "2026-03-10";
        only groups holding an unchecked memory."""
        plain = {r.memory_id: without_stamp(dated[r.memory_id].plain) for r in candidates}
        merge_input = [
            MergeCandidate(r.memory_id, plain[r.memory_id], canonical_tokens(plain[r.memory_id]), r.created_at)
            for r in candidates
        ]
        merged: set[str] = set()
        for group in merge_groups(merge_input, self.embed):
            if not any(m.key in unchecked for m in (group.survivor, *group.duplicates)):
                continue
            survivor, duplicates = group.survivor.key, tuple(d.key for d in group.duplicates)
            self.builder.merge(
                survivor,
                duplicates,
                self._merged_text(group, dated),
                f"paraphrases of one memory: {', '.join((survivor, *duplicates))}",
            )
            merged.update((survivor, *duplicates))
            for key in duplicates:
                self.working.retire(key)
        return merged

    @staticmethod
    def _merged_text(group: MergeGroup, dated: Mapping[str, _Dated]) -> str | None:
        """The survivor's wording, plus any duplicate that states a date, number or name it lacks,
        or words enough of its own (`MERGE_EXTRA_WORDS`): a merge never loses a value, nor what a
        fuller note says."""
        survivor = dated[group.survivor.key]
        text = survivor.annotated or survivor.plain
        extra = [
            d.text for d in group.duplicates if new_values(d.text, text) or says_more(d.text, text, MERGE_EXTRA_WORDS)
        ]
        if not extra:
            return survivor.annotated
        return " ".join((text, *extra))

    def _update_dates(self, record: MemoryRecord, text: str) -> None:
        evidence = self._evidence_in_transcript(record)
        if not evidence:
            self.notes.append(
                f"{record.memory_id} holds a relative time but none of its evidence is in the "
                "transcript window; left as it is"
            )
            return
        self.builder.update(
            record.memory_id, text, evidence, f"relative time resolved against the message it came from ({evidence[0]})"
        )
