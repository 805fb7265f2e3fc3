"""Repeated dissatisfaction that shares one reason across several threads earns one memory.

The gather pass finds it (`dreaming.passes.gather.recurring_complaint`): complaints in several
threads ("Too generic.", "It has no direction.") that share a content word which is not complaint
vocabulary itself. The threads failed for one hidden reason; remembering that reason is what lets
the agent answer the next one differently.
"""

from __future__ import annotations

from dreaming.signals import Complaint


def complaint_memory_text(complaint: Complaint, user_name: str | None) -> str:
    who = user_name or "The user"
    quoted = " / ".join(f"\u201c{quote}\u201d" for quote in complaint.quotes)
    return (
        f"{who} was dissatisfied in {complaint.thread_count} separate threads for one shared reason, "
        f"{complaint.theme}: {quoted}"
    )
