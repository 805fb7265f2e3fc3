"""What the gather phase found in a snapshot: the signals an engine is handed with it.

A neutral module between the phases (`dreaming/passes/gather.py` produces these) and the engines
(`dreaming/engine/**` read them), so an engine depends on the data, never on the phase.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas import Motive


@dataclass(frozen=True)
class Complaint:
    """Dissatisfaction in several threads that shares one reason."""

    theme: str
    """The shared word as the user wrote it, e.g. "direction"."""
    message_ids: tuple[str, ...]
    quotes: tuple[str, ...]
    """One complaint clause per message, the one that names the theme."""
    thread_count: int


@dataclass(frozen=True)
class Signals:
    """What the gather pass found; immutable, handed to the engine and written to the diary."""

    corrections: tuple[str, ...] = ()
    decisions: tuple[str, ...] = ()
    statements: tuple[str, ...] = ()
    """New user messages stating a fact or preference."""
    repeated_entities: tuple[tuple[str, tuple[str, ...]], ...] = ()
    pending_adds: tuple[str, ...] = ()
    """Memory ids of the memory-adds waiting for this pass."""
    unresolved: tuple[str, ...] = ()
    questions: tuple[str, ...] = ()
    """New user questions and requests: the engine keeps the topic asked about and what the answer
    gives (an assistant's recommendations), so a pass with nothing else new still has them to read."""
    replies: tuple[str, ...] = ()
    """New assistant-role turns that state something (`gather.telling_replies`): what an
    assistant said the conversation relies on, or the other person's news in a chat of two; a
    reason not to skip a pass, as `questions`. Read only when nothing else keeps the pass."""
    complaint: Complaint | None = None
    injected: tuple[str, ...] = ()
    """Instruction-like messages that were not read."""
    pending_corrections: tuple[str, ...] = ()
    """Ids of the corrections of stored memories waiting for this pass (the apply phase applies them)."""
    messages: int = 0
    new_messages: int = 0
    motives: tuple[Motive, ...] = ()

    @property
    def has_signal(self) -> bool:
        """Something for the engine to read (corrections alone are applied without it)."""
        return bool(
            any(m.kind != "memory_correction" for m in self.motives)
            or self.statements
            or self.questions
            or self.replies
            or self.pending_adds
        )

    @property
    def has_work(self) -> bool:
        """Anything for the pass to do: a signal, or corrections to apply."""
        return self.has_signal or bool(self.pending_corrections)

    def describe(self) -> str:
        """One line for the diary."""
        parts = [
            f"{len(self.corrections)} correction(s)",
            f"{len(self.decisions)} decision(s)",
            f"{len(self.statements)} statement(s)",
            f"{len(self.repeated_entities)} repeated entit(ies)",
            f"{len(self.pending_adds)} pending memory-add(s)",
            f"{len(self.unresolved)} unresolved thread(s)",
        ]
        if self.questions:
            parts.append(f"{len(self.questions)} question(s) or request(s)")
        if self.replies:
            parts.append(f"{len(self.replies)} repl(ies) stating something")
        if self.complaint is not None:
            parts.append(
                f"dissatisfaction about \u201c{self.complaint.theme}\u201d in {self.complaint.thread_count} threads"
            )
        if self.injected:
            parts.append(f"{len(self.injected)} instruction-like message(s) not read")
        if self.pending_corrections:
            parts.append(f"{len(self.pending_corrections)} correction(s) of stored memories")
        return f"gather: {self.messages} messages ({self.new_messages} new to memory): {', '.join(parts)}"
