"""Orient: what the pass starts from, before it reads any message for signal.

A count of the scope's memory (active, protected, inactive history, pending memory-adds, records
due to leave the generation) and of its transcript window (messages, new ones). Pure and cheap;
it goes to the diary so each entry says what the pass saw.
"""

from __future__ import annotations

from dataclasses import dataclass

from dreaming.snapshot import Snapshot


@dataclass(frozen=True)
class Orientation:
    generation: int
    active: int
    protected: int
    inactive: int
    pending_adds: int
    retiring: int
    messages: int
    new_messages: int

    @property
    def stored_active(self) -> int:
        """Active memories of the generation itself, not counting the pending memory-adds."""
        return self.active - self.pending_adds

    def describe(self) -> str:
        return (
            f"orient: generation {self.generation} holds {self.stored_active} active memories and {self.inactive} "
            f"in history ({self.retiring} due to leave it); {self.pending_adds} pending memory-adds; "
            f"{self.protected} protected in all; {self.messages} messages in the window, {self.new_messages} new"
        )


def orient(snapshot: Snapshot) -> Orientation:
    active = snapshot.active_memories
    own = [t for t in snapshot.transcript if t.scope == snapshot.scope]
    return Orientation(
        generation=snapshot.generation,
        active=len(active),
        protected=sum(1 for m in active if m.protected),
        inactive=len(snapshot.memories) - len(active),
        pending_adds=len(snapshot.pending_add_ids),
        retiring=len(snapshot.long_inactive_ids),
        messages=len(own),
        new_messages=sum(1 for t in own if t.message_id in snapshot.new_message_ids),
    )
