"""Whether a value is wanted, planned or supposed rather than stated as it is.

"Aim for 12 books", "a goal of $2,000", "covering 6 months would be good", "thinking of asking
for a $900 raise", "a deadline of 40 samples": each value is a wish or a target, and a goal and the
state it is a goal for are two attributes, so one never replaces the other (`slot_frames` keeps the
verdict per value, `slot_rivalry` pairs only values of one kind).
"""

from __future__ import annotations

import re

from language.changes import Value

_INTENT = re.compile(
    r"\b(?:would|could|should|might|wish(?:es)?|hop(?:e|es|ing)|aim(?:s|ed|ing)?|gonna|'d\s+like"
    # "goals met", "target reached": an aim already achieved states what is.
    r"|(?:goals?|targets?)(?!\s+(?:(?:were|was|are|is|all|now|been|have\s+been)\s+)*(?:met|reached|achieved|hit|done)\b)"
    # "is considering a move" weighs it; "considering the 1,000 limit" opening a phrase means "given".
    r"|consider(?:s|ed)?|(?:am|is|are|was|were|been|be|'m|'re|still|also|seriously)\s+considering"
    r"|if|hypothetically|suppose|possibly|perhaps|maybe|thinking\s+(?:of|about)|shoot(?:s|ing)?\s+for"
    r"|ask(?:s|ed|ing)?\s+for|request(?:s|ed|ing)?"
    r"|(?:want(?:s|ed)?|plan(?:s|ned|ning)?|trying|try|going|needs?)\s+to\s+[a-z]+)\b",
    re.IGNORECASE,
)
INTENT_BEFORE, INTENT_AFTER = 6, 3
"""Words on either side of a value in which a word of intent makes it a wish, not a fact."""
_MODAL = re.compile(r"\b(?:would|could|should|might)\b", re.IGNORECASE)
_MODAL_BE = re.compile(r"\b(?:would|could|should|might)\s+(?:\w+\s+)?be\b", re.IGNORECASE)
_WISH = re.compile(
    r"\b(?:hop(?:e|es|ing)|ensur(?:e|es|ing)|(?:goal|aim|target|objective)\s+(?:(?:is|was)\s+)?to)\b", re.IGNORECASE
)
# "a deadline of 40 samples", "the deadline was raised to 45": an amount due by then, a target; "a
# deadline of May 3" is when it is due.
_DUE_AMOUNT = re.compile(
    r"\bdeadlines?\s+(?:[a-z]+\s+){0,3}?(?:of|is|was|to|now)\s+(?:about\s+|around\s+|at\s+least\s+)?$", re.IGNORECASE
)


def intended(text: str, value: Value, clause: str = "") -> bool:
    """The value is what someone wants, plans or supposes, not what is (the module's examples). A
    hope or a stated goal ("the goal is to …") anywhere in the value's `clause` makes it a wish; a
    modal before it there, or one judging it after it ("# would be fine"), a supposition; an amount
    a deadline sets, a target."""
    before = " ".join(text[: value.start].split()[-INTENT_BEFORE:])
    after = " ".join(text[value.end :].split()[:INTENT_AFTER])
    later = _INTENT.search(after)
    if later is not None and _MODAL.fullmatch(later.group(0)) and not _MODAL_BE.search(after):
        later = None  # "moving it to # might clash": what the value leads to, not a wish for it
    if _INTENT.search(before) or later is not None or _WISH.search(clause):
        return True
    if value.kind == "amount" and _DUE_AMOUNT.search(text[: value.start]):
        return True
    if re.search(r"\bwhat if\b", text[: value.start], re.IGNORECASE):
        return True  # "What if I only put half of the $900 in bonds": a supposition, however long
    at = text.find(clause) if clause else -1
    if at < 0 or not at <= value.start <= at + len(clause):
        return bool(_MODAL.search(clause))
    # A modal before the value governs it ("might move it to #"); one after it only when it judges
    # the value ("# would be enough"), not when it says what the value leads to ("moving it to #
    # might clash with …").
    return bool(_MODAL.search(text[at : value.start]) or _MODAL_BE.search(text[value.end : at + len(clause)]))
