"""What a memory that replaced older ones says of them (`Revisions.supersede_rivals`)."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from dreaming.embedding import canonical_tokens
from dreaming.engine.offline.corrections import Overruled
from dreaming.engine.offline.plan_builder import MAX_TEXT_CHARS, PlanBuilder
from dreaming.engine.offline.revisions import Revisions
from dreaming.engine.offline.slots import SlotReader, Update
from dreaming.engine.offline.working_set import WorkingMemory, WorkingSet
from schemas import ConversationTurn
from schemas.actions import CreateAction

SAID = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)
LATER = datetime(2025, 3, 10, 9, 0, tzinfo=UTC)


def memory(key: str, text: str, evidence: str, *, created: bool = False) -> WorkingMemory:
    ts = LATER if created else SAID
    return WorkingMemory(key, text, canonical_tokens(text), (evidence,), ts, created_in_plan=created)


def test_a_run_on_memory_it_replaced_never_crowds_out_the_short_one_it_replaced_too() -> None:
    """Said beside a run-on message's memory, the older value would push the text past what a memory
    may hold: cut short, it would end mid-word and state neither value whole."""
    short = memory("old-short", "[2025-03-03] The pottery class fee is $48 a month.", "m1")
    run_on_sentence = "The user keeps notes on the pottery class fee of $48 and " + ", and ".join(
        f"on the glaze batch {n} fired at {900 + n} degrees" for n in range(120)
    )
    run_on = memory("old-long", f"[2025-03-03] {run_on_sentence}.", "m2")
    builder, working = PlanBuilder(), WorkingSet()
    new_text = "[2025-03-10] The pottery class fee went up to $55 a month."
    ref = builder.create(new_text, ("m3",), "statement")
    for m in (short, run_on, memory(ref, new_text, "m3", created=True)):
        working.add(m)
    revisions = Revisions(
        builder,
        working,
        SlotReader(lambda texts: np.zeros((len(texts), 4))),
        [],
        frozenset(),
        frozenset({"m1", "m2", "m3"}),
    )
    turn = ConversationTurn(
        scope="t/a/s", session_id="s1", message_id="m3", role="user", content="The fee went up to $55.", ts=LATER
    )
    rivals = [
        Overruled(
            short, Update("The pottery class fee is $48 a month.", "The pottery class fee went up to $55 a month.", 0.9)
        ),
        Overruled(run_on, Update(run_on_sentence, "The pottery class fee went up to $55 a month.", 0.9)),
    ]
    revisions.supersede_rivals(turn, ref, rivals)
    [made] = [a for a in builder.actions if isinstance(a, CreateAction) and a.ref == ref]
    assert made.text.endswith("(previously, 2025-03-03: the pottery class fee is $48 a month)")
    assert len(made.text) <= MAX_TEXT_CHARS and "glaze" not in made.text
