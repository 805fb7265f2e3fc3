"""How a memory's sentence is ended: one stop, none after a quotation or bracket that ends it."""

from __future__ import annotations

import pytest

from dreaming.engine.offline.facts import finish_sentence


@pytest.mark.parametrize(
    ("text", "finished"),
    [
        ("rosa moved to Porto in May", "Rosa moved to Porto in May."),
        ("Rosa moved to Porto in May!", "Rosa moved to Porto in May."),
        ("Rosa moved to Porto,", "Rosa moved to Porto."),
        ('Rosa will start with "The Long Walk."', 'Rosa will start with "The Long Walk."'),
        ("Rosa's motto is 'slow is smooth.'", "Rosa's motto is 'slow is smooth.'"),
        ("Rosa finished the thesis (all 90 pages!)", "Rosa finished the thesis (all 90 pages!)"),
        ('Rosa reads "The Long Walk"', 'Rosa reads "The Long Walk".'),  # the quotation ends no sentence
        ("Did Rosa move?", "Did Rosa move?"),
        ("Rosa rows twice a year. those days are special", "Rosa rows twice a year. Those days are special."),
        ("Rosa packs tents, stoves etc. and maps", "Rosa packs tents, stoves etc. and maps."),  # no sentence ends
        ("Rosa uses v2. then v3", "Rosa uses v2. then v3."),
    ],
)
def test_a_memory_ends_on_one_stop(text: str, finished: str) -> None:
    assert finish_sentence(text) == finished
