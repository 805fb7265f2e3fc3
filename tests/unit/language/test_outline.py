"""`language.markup.outline`: a message's headings and list labels, in order, code left out."""

from language.markup import OutlineItem, outline, plain_text

REPLY = """Here is a plan for the Azores.

## Itinerary
1. **Day 1 (June 3)**: land in Ponta Delgada and walk the harbour.
2. **Ferry to Terceira**: 2h 40m
- a list item without a label is prose

### Packing
- **Rain jacket:** the weather turns fast.

```bash
# not a heading: a shell comment
- **not a label** inside code
```

    ## indented four: code, not a heading
"""


def test_the_outline_is_the_headings_and_labels_in_order() -> None:
    assert outline(REPLY) == [
        OutlineItem("Itinerary", True, "Itinerary"),
        OutlineItem("Day 1 (June 3)", False, "Day 1 (June 3)"),
        OutlineItem("Ferry to Terceira: 2h 40m", False, "Ferry to Terceira"),
        OutlineItem("Packing", True, "Packing"),
        OutlineItem("Rain jacket", False, "Rain jacket"),
    ]


def test_a_label_keeps_a_short_value_after_it_never_a_sentence() -> None:
    items = outline("- **Total cost**: 1,240 euros\n- **Caching**: keep the last 50 answers so repeats are quick\n")
    assert [i.text for i in items] == ["Total cost: 1,240 euros", "Caching"]


def test_a_message_without_structure_has_no_outline() -> None:
    assert outline("I moved to Leeds in May. The flat is small but bright.") == []
    assert outline("```\n# comment\n## another\n```") == []


def test_plain_text_reads_the_same_lines_as_before() -> None:
    assert plain_text(REPLY).splitlines() == [
        "Here is a plan for the Azores.",
        "Itinerary.",
        "Day 1 (June 3): land in Ponta Delgada and walk the harbour.",
        "Ferry to Terceira: 2h 40m.",
        "a list item without a label is prose.",
        "Packing.",
        "Rain jacket: the weather turns fast.",
    ]
