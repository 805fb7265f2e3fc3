"""Verb forms read by their spelling alone: the pasts and modals that do not change with their
subject, and the regular "-ed" pasts. Shared by the person rewrite (`language.person`), the left-out
subject (`language.ellipsis`) and the reading of "you" (`language.generic_you`)."""

from __future__ import annotations

# Forms that do not change with the subject: modals and pasts. English has a closed set of
# irregular pasts; the common ones are here, regular pasts end in -ed.
INVARIANT_FORMS = frozenset(
    """
can could will would shall should may might must was were had did can't couldn't won't wouldn't
shouldn't didn't wasn't weren't hadn't mustn't
arose awoke bore beat became began bent bet bit bled blew broke bred brought built burnt burned
bought caught chose clung came cost crept cut dealt dug dove drew dreamt drank drove dwelt ate
fell fed felt fought found fled flung flew forbade forgot forgave froze got gave went ground grew
hung heard hid hit held hurt kept knelt knew laid led leant leapt learnt left lent let lay lit
lost made meant met mistook paid proved put quit read rode rang rose ran sawed said saw sought
sold sent set sewed shook shed shone shot showed shrank shut sang sank sat slept slid slung spoke
sped spelt spent spilt spun spat split spread sprang stood stole stuck stung stank strode struck
strove swore swept swam swung took taught tore told thought threw thrust understood upset woke
wore wove wed wept won wound withdrew wrung wrote undid overcame overheard overslept oversaw
overtook rebuilt redid remade rethought retold rewrote
""".split()
)


PASTS_LIKE_BASE = frozenset(
    "bet cost cut hit hurt lay let put quit read set shed shut split spread thrust upset wed".split()
)
"""Pasts spelled as their base form: alone, they read as a present or an order as often."""

_MODALS = frozenset(
    "can could will would shall should may might must can't couldn't won't wouldn't shouldn't mustn't".split()
)

# Pasts that end in "-eed" ("agreed"); any other "-eed" is a present ("need", "succeed", "feed").
_EED_PASTS = frozenset({"agreed", "disagreed", "freed", "guaranteed", "decreed", "refereed", "degreed"})


def is_regular_past(lower: str) -> bool:
    """A lower-case word that reads as a regular past ("-ed"), "agreed" included, "need" and "shed" not."""
    if lower.endswith("eed"):
        return lower in _EED_PASTS
    return lower.endswith("ed") and lower not in {"embed", "shred", "wed", "bed", "shed", "speed", "bleed"}


def is_plain_past(lower: str) -> bool:
    """A lower-case word that reads only as a past: an irregular one ("went", "found"; not "put",
    which is also a present) or a regular one ("booked")."""
    return (lower in INVARIANT_FORMS and lower not in _MODALS and lower not in PASTS_LIKE_BASE) or is_regular_past(
        lower
    )
