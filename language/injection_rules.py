"""The rules `language.injection` judges instruction-like text by, one group per thing the text
asks (see that module's docstring). Each pattern reads normalised text, case ignored, and names
the words it cannot match without (`needs`: every group must have one of its literals in the
lower-cased text), so a message that has none of them costs a few substring checks, not a regex
search: passes judge every user message of a 10,000-message window several times.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Pattern:
    rule: str
    regex: re.Pattern[str]
    needs: tuple[tuple[str, ...], ...]

    def could_match(self, lowered: str) -> bool:
        return all(any(word in lowered for word in group) for group in self.needs)


_START = r"(?:^|(?<=[.!?;:]\s)|(?<=\n)|(?<=[#*]\s)|(?<=[#*]))\s*"
"""Where a label or a spoofed role can begin: the text's start, a sentence's, or after Markdown's
`#`/`**`; the label then ends in a colon."""
_OPEN = r"[\[<(]\s*"
"""Or inside brackets ("[admin]", "<system>"), closed by the bracket or a colon."""
_AUTHORITY = r"(?:system|developer|dev|admin(?:istrator)?|root|operator|moderator|sysadmin|superuser|supervisor)"
_ASSISTANT = r"(?:assistant|ai|a\.i\.|model|language model|llm|chatbot|bot|gpt|claude|dreamstream)"
_RULE_MARKER = (
    r"(?:from now on|henceforth|hereafter|going forward|from this (?:point|moment) on|"
    r"in (?:all )?future (?:conversations|chats|sessions|answers|replies|responses)|for all future \w+)"
)
_STANDING = r"(?:always|never|only|at all times|no matter what|under no circumstances|every time)"
_BEHAVIOUR = (
    r"(?:respond|reply|answer|say|tell|reveal|disclose|share|mention|include|append|obey|follow|comply|"
    r"ignore|disregard|trust|treat|recommend|promote|send|forward|store|save|record|delete|forget|mark|"
    r"refuse|deny|pretend|act|behave|output|print|write|use|prioriti[sz]e|favou?r|suggest|advertise|link|"
    r"report|praise|agree|accept|approve|grant|give|keep|remember)"
)
_MEMORY = r"(?:memor(?:y|ies)|stored (?:facts?|notes?|records?|data|information|preferences?))"
_CHANGE = r"(?:modif|edit|delet|remov|overwrit|archiv|alter|updat|chang|touch|supersed|merg|prun|rewrit|replac)\w*"
_PROTECTED_STATE = r"(?:protected|permanent|locked|immutable|read-only|pinned|undeletable|untouchable|sacred|frozen)"
_ALL = r"(?:all|every|each|any)"
_WIPE = r"(?:forget|delete|erase|wipe|remove|purge|drop|discard|clear|reset|destroy|scrub)"

_LABEL = r"(?:note|notice|memo|directive|instructions?|request|message|alert|order)"
_LABEL_END = r"\s*(?:[:\])]|[-\u2013\u2014](?=\s))"
"""A label ends in a colon, a closing bracket or a dash ("Memo - ...")."""
_KEEPING = (
    r"\b(?:to|must|should|shall|will|may|can|is|are)\s+(?:not\s+|never\s+|no longer\s+)?be\s+(?:kept|stored|saved|"
    r"remembered|recorded|retained|deleted|forgotten|erased|removed|archived|modified|changed|updated)\b"
)
"""A ruling on what is kept: "is not to be kept", "must be deleted", "should no longer be stored"."""
_REMEMBERED = (
    _MEMORY
    + r"|\b(?:saved|remembered|recorded|known)\s+(?:facts?|things|details?|notes?|preferences?)\b|"
    + (r"\bwhat you (?:know|remember|have stored)\b")
)
"""What names the memory itself: memories, stored or remembered facts, what the assistant knows."""
_MASS_WIPE = _WIPE + r"\s+(?:(?:them|these|those)\s+all|all of them|every one of them|the lot)\b"

# Literal groups for `needs` (lower case).
AUTHORITY_WORDS = ("system", "dev", "admin", "root", "operator", "moderator", "superuser", "supervisor")
ASSISTANT_WORDS = ("assistant", " ai", "a.i.", "model", "llm", "bot", "gpt", "claude", "dreamstream")
MARKERS = ("from now on", "henceforth", "hereafter", "going forward", "from this", "future")
STANDING = ("always", "never", "only", "at all times", "no matter", "under no", "every time")
MEMORY_WORDS = ("memor", "stored ")
STATES = ("protected", "permanent", "locked", "immutable", "read-only", "pinned", "undeletable", "untouchable")
WIPES = (
    "forget",
    "delete",
    "erase",
    "wipe",
    "remove",
    "purge",
    "drop",
    "discard",
    "clear",
    "reset",
    "destroy",
    "scrub",
)
QUANTIFIERS = ("all", "every", "each", "any")
LABELS = ("note", "notice", "memo", "directive", "instruction", "request", "message", "alert", "order")
KEEPING_WORDS: tuple[str, ...] = (
    "kept",
    "stored",
    "saved",
    "remembered",
    "recorded",
    "retained",
    "deleted",
    "forgotten",
    "erased",
    "removed",
    "archived",
    "modified",
    "changed",
    "updated",
)
REMEMBERED_WORDS = (*MEMORY_WORDS, "saved ", "remembered ", "recorded ", "known ", "what you ")
NEGATIONS = ("never", "not", "n't")
SET_ASIDE = (
    "ignore",
    "disregard",
    "forget",
    "override",
    "bypass",
    "abandon",
    "discard",
    "overwrite",
    "cancel",
    "suspend",
)
OTHERS = ("other", "all", "every", "another")
PARTIES = ("user", "customer", "tenant", "client", "account", "scope")
LEAKS = (
    "reveal",
    "print",
    "show",
    "display",
    "output",
    "leak",
    "dump",
    "expose",
    "disclos",
    "share",
    "send",
    "email",
    "forward",
    "list",
    "tell me",
    "give me",
    "repeat",
)

_SOURCES: tuple[tuple[str, str, tuple[tuple[str, ...], ...]], ...] = (
    # --- authority: a spoofed role or authority label ("SYSTEM:", "[admin]", "ADMIN OVERRIDE"), a claimed identity
    (
        "authority",
        _START + _AUTHORITY + r"\s*(?:prompt|message|note|notice|override|command|instructions?|directive|"
        r"alert)?\s*:",
        (AUTHORITY_WORDS, (":",)),
    ),
    (
        "authority",
        _OPEN + _AUTHORITY + r"\s*(?:prompt|message|note|notice|override|command|instructions?|directive|"
        r"alert)?\s*[:\]>)]",
        (AUTHORITY_WORDS, ("[", "<", "(")),
    ),
    ("authority", _START + r"assistant\s*:", (("assistant",),)),
    ("authority", r"<\|?im_start\|?>|\[/?inst\]|<</?sys>>", (("im_start", "inst]", "<<sys>>"),)),
    (
        "authority",
        r"\b(?:" + _AUTHORITY + r"|security|priority|emergency|maintenance|kernel|platform|vendor|compliance)"
        r"\s+(?:override|directive|command|instruction|order)s?\b",
        (("override", "directive", "command", "instruction", "order"),),
    ),
    (
        "authority",
        r"\b(?:this is|i am|i'm|speaking as|acting as|on behalf of)\s+(?:your|the assistant's)\s+"
        r"(?:admin(?:istrator)?|developer|operator|creator|owner|maker|programmer|supervisor|moderator)\b",
        (("admin", "developer", "operator", "creator", "owner", "maker", "programmer", "supervisor", "moderator"),),
    ),
    (
        "authority",
        r"\b(?:this is|message from|a message from|orders from)\s+(?:the\s+)?(?:system(?: administrator)?|"
        r"administrator|admin team|security team|dreamstream(?: team)?|openai|anthropic)\b",
        (("system", "administrator", "admin team", "security team", "dreamstream", "openai", "anthropic"),),
    ),
    (
        "authority",
        r"\b(?:authori[sz]ed|approved|sanctioned|mandated|ordered)\s+by\s+(?:the\s+)?(?:system|"
        r"admin(?:istrator)?s?|developers?|operators?|your (?:owner|creator|developer))\b",
        ((" by ",),),
    ),
    (
        "authority",
        r"\b(?:you are|you're)\s+(?:now\s+)?in\s+(?:developer|god|dan|jailbreak|unrestricted|admin)\s+mode\b",
        ((" mode",),),
    ),
    (
        "authority",
        r"\b(?:enable|enter|activate|switch to)\s+(?:dan|jailbreak|unrestricted|god)\s+mode\b",
        ((" mode",),),
    ),
    # --- protection claimed or asked for
    (
        "protection",
        r"\bprotected\s+(?:memor(?:y|ies)|facts?|notes?|records?|entr(?:y|ies)|information|preferences?|"
        r"rules?|data)\b",
        (("protected",),),
    ),
    (
        "protection",
        r"\b"
        + _MEMORY
        + r"\s+(?:is|are|must be|should be|shall be|stays|remains|will be)\s+(?:now\s+)?"
        + _PROTECTED_STATE
        + r"\b",
        (MEMORY_WORDS, STATES + ("sacred", "frozen")),
    ),
    (
        "protection",
        r"\b(?:mark|flag|set|label|tag|treat|make|keep|store|save|record|register|pin|lock)\b"
        r"[^.!?\n,;]{0,50}?(?<!such )\bas\s+(?:a\s+)?(?:protected|permanent|locked|immutable|read-only|pinned|"
        r"undeletable|untouchable|user-curated)\b",
        (STATES + ("user-curated",), (" as ",)),
    ),
    (
        "protection",
        r"\b(?:never|do not|don't|must not|mustn't|shall not|should not|cannot|can't|may not)\s+(?:be\s+)?"
        + _CHANGE
        + r"[^.!?\n]{0,40}?\b(?:"
        + _MEMORY
        + r"|(?:this|that|the) (?:fact|rule|entry))\b",
        (NEGATIONS, MEMORY_WORDS + ("fact", "rule", "entry")),
    ),
    (
        "protection",
        r"\b(?:" + _MEMORY + r"|(?:this|that) (?:fact|rule|entry))\b[^.!?\n]{0,40}?\b(?:never|must not|"
        r"mustn't|shall not|should not|cannot|may not)\s+(?:ever\s+)?(?:be\s+)?" + _CHANGE + r"\b",
        (NEGATIONS, MEMORY_WORDS + ("fact", "rule", "entry")),
    ),
    (
        "protection",
        r"[(\[]\s*(?:never|do not|don't)\s+(?:modify|edit|change|delete|remove|update|touch|archive)\s*[)\]]",
        (("(", "["), ("never", "not", "n't")),
    ),
    (
        "protection",
        r"[(\[]\s*(?:read-only|protected|locked|immutable|do not edit)\s*[)\]]",
        (("(", "["), ("read-only", "protected", "locked", "immutable", "do not edit")),
    ),
    # --- a rule for the assistant's future behaviour, or one meant to stay hidden
    (
        "future-rule",
        _RULE_MARKER + r"\b[^.!?\n]{0,40}?\b(?:the |this |our )?" + _ASSISTANT + r"\s+(?:must|should|"
        r"shall|will|is to|has to|needs to|is required to|may only|can only|is never to|is not to)\b",
        (MARKERS, ASSISTANT_WORDS),
    ),
    (
        "future-rule",
        r"\b(?:the |this |our )?" + _ASSISTANT + r"\s+(?:must|should|shall|will|has to|is to|needs to)\s+"
        r"(?:from now on\s+)?" + _STANDING + r"\s+" + _BEHAVIOUR + r"\b",
        (ASSISTANT_WORDS, STANDING),
    ),
    (
        "future-rule",
        _RULE_MARKER
        + r",?\s+(?:you|the assistant)\s+(?:must|should|shall|will|are to|have to|need to)\s+"
        + _STANDING
        + r"\s+"
        + _BEHAVIOUR
        + r"\b",
        (MARKERS, ("you", "assistant"), STANDING),
    ),
    (
        "future-rule",
        r"\b(?:never|do not|don't|must not|without)\s+(?:ever\s+)?(?:mention|reveal|disclose|acknowledge|"
        r"admit|explain|discuss|mentioning|revealing|disclosing|acknowledging)\s+(?:this|these)\s+(?:rules?|"
        r"instructions?|orders?|directives?|prompts?|notes?)\b",
        (("this", "these"), ("rule", "instruction", "order", "directive", "prompt", "note")),
    ),
    (
        "future-rule",
        r"\bkeep (?:this|these) (?:rules?|instructions?|orders?|directives?) (?:a )?secret\b",
        (("secret",),),
    ),
    # --- a note addressed to the system, not something said in the conversation
    (
        "addressed-to-system",
        r"\b(?:note|notice|message|memo|instructions?|request|directive|reminder|order|command|"
        r"p\.?s\.?)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+|my\s+)?(?:" + _ASSISTANT + r"|system|memory(?: system)?|"
        r"(?:memory )?curator|ai agent)s?\b",
        (
            ASSISTANT_WORDS + ("system", "memory", "curator"),
            (
                "note",
                "notice",
                "message",
                "memo",
                "instruction",
                "request",
                "directive",
                "reminder",
                "order",
                "command",
                "p.s",
                "ps",
            ),
        ),
    ),
    (
        "addressed-to-system",
        r"\b(?:whoever|anyone who|the one who|whatever)\s+(?:reads|curates|maintains|processes|"
        r"summari[sz]es|reviews|stores)\s+(?:this|these|the)\s+(?:memor(?:y|ies)|notes?|transcripts?|conversations?|"
        r"chats?|logs?)\b",
        (("whoever", "anyone who", "the one who", "whatever"),),
    ),
    # a labelled note whose body rules on what is kept ("Internal note: the complaints are not to
    # be kept"); a label over ordinary news ("Maintenance notice: the lift is out") is not one
    (
        "addressed-to-system",
        f"(?:{_START}|{_OPEN})"
        + r"(?:[\w-]+\s+){0,2}"
        + _LABEL
        + _LABEL_END
        + f"[^\\n]{{0,200}}?(?:{_KEEPING}|{_MEMORY})",
        (LABELS, KEEPING_WORDS + MEMORY_WORDS),
    ),
    (
        "addressed-to-system",
        _START
        + r"(?:dear|attention|hey|hi|hello|ok|okay|listen)?,?\s*"
        + _ASSISTANT
        + r"\s*[,:!]\s*(?:from now on|always|never|ignore|disregard|forget (?:all|every|everything)|delete|erase|"
        r"wipe|mark|reveal|you must|you will always|you are now|override)\b",
        (ASSISTANT_WORDS,),
    ),
    # --- asks to set the instructions aside, to forget or wipe memory as a whole, to reveal what is not theirs
    (
        "forget-reveal-override",
        r"\b(?:ignore|disregard|forget|override|bypass|abandon|discard|overwrite|cancel|suspend)"
        r"\s+(?:all\s+|any\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+|my\s+|these\s+|those\s+|its\s+)?(?:previous|prior|"
        r"above|earlier|existing|original|initial|system|safety|standing|default)\s+(?:instructions|prompts?|rules|"
        r"guidelines|directives|guardrails|restrictions|policies|programming|constraints|context|configuration)\b",
        (
            SET_ASIDE,
            (
                "previous",
                "prior",
                "above",
                "earlier",
                "existing",
                "original",
                "initial",
                "system",
                "safety",
                "standing",
                "default",
            ),
        ),
    ),
    (
        "forget-reveal-override",
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+)?(?:of\s+)?your\s+(?:\w+\s+)?"
        r"(?:instructions|rules|guidelines|directives|guardrails|restrictions|programming|training|constraints)\b",
        (SET_ASIDE, ("your",)),
    ),
    (
        "forget-reveal-override",
        r"\b(?:ignore|disregard|forget)\s+(?:all|every|each)\s+(?:of\s+)?(?:the\s+|my\s+)?"
        r"(?:previous|prior|above|earlier)\s+messages\b",
        (("messages",),),
    ),
    (
        "forget-reveal-override",
        r"\b(?:new|updated|real|actual|true|revised|hidden|secret)\s+(?:instructions?|rules|"
        r"directives|system prompt|orders)\s*:",
        ((":",), ("instruction", "rules", "directives", "prompt", "orders")),
    ),
    ("forget-reveal-override", r"\byou are now\s+(?:a|an|in|the|my|no longer)\b", (("you are now",),)),
    (
        "forget-reveal-override",
        r"\b(?:reveal|print|show|display|output|repeat|leak|dump|expose|disclose|tell me|give me|"
        r"share|send|email|forward)\s+(?:me\s+|us\s+)?(?:your|the|all|every|any)?\s*(?:\w+\s+)?(?:system prompt|"
        r"hidden prompt|initial prompt|instructions you were given|api keys?|admin password|internal rules|"
        r"configuration)\b",
        (LEAKS, ("prompt", "instructions you", "api key", "admin password", "internal rules", "configuration")),
    ),
    (
        "forget-reveal-override",
        r"\b(?:reveal|print|show|display|output|leak|dump|expose|disclose|share|send|email|"
        r"forward|list)\s+(?:me\s+|us\s+)?(?:the\s+)?(?:data|memories|details|messages|emails|addresses|records|notes|"
        r"secrets)\s+(?:of|about|from)\s+(?:other|all|every|another)\s+(?:users?|customers?|tenants?|clients?|accounts?|"
        r"scopes?)\b",
        (LEAKS, OTHERS, PARTIES),
    ),
    (
        "forget-reveal-override",
        r"\b(?:reveal|print|show|display|output|leak|dump|expose|disclose|share)\s+(?:me\s+|"
        r"us\s+)?(?:other|all|every|another)\s+(?:users?|customers?|tenants?|clients?|accounts?)(?:'s?)?\s+(?:data|"
        r"memories|details|information|messages|emails|addresses|numbers|records|secrets)\b",
        (LEAKS, OTHERS, PARTIES),
    ),
    (
        "forget-reveal-override",
        r"\b" + _WIPE + r"\s+" + _ALL + r"\s+(?:of\s+)?(?:the\s+|your\s+|my\s+|his\s+|her\s+|"
        r"their\s+|this\s+|[\w-]+'s\s+)?(?:user's\s+|account's\s+)?(?:stored\s+|saved\s+|remembered\s+|existing\s+|"
        r"recorded\s+)?(?:memor(?:y|ies)|data|records|users|tenants|notes|facts|information|history|preferences|"
        r"entries)\b",
        (WIPES, QUANTIFIERS),
    ),
    (
        "forget-reveal-override",
        r"\b(?:forget|erase|wipe|purge|discard|clear|delete)\s+everything\b",
        (("everything",),),
    ),
    (
        "forget-reveal-override",
        r"\b(?:forget|erase|wipe|delete|clear|reset|purge)\s+(?:your|the|all (?:of )?(?:your|"
        r"the))\s+(?:memor(?:y|ies)|stored \w+|knowledge|saved \w+)\b",
        (WIPES, ("memor", "stored ", "knowledge", "saved ")),
    ),
    # a mass deletion ("discard them all", "wipe the lot") in a text that says it is memory it
    # means; the same words about things ("clear them all off the table") are not one
    (
        "forget-reveal-override",
        r"(?:"
        + _REMEMBERED
        + r")[^\n]{0,160}?\b"
        + _MASS_WIPE
        + r"|\b"
        + _MASS_WIPE
        + r"[^\n]{0,160}?(?:"
        + _REMEMBERED
        + r")",
        (WIPES, REMEMBERED_WORDS),
    ),
    # a verdict on the whole store ("every stored fact about X is outdated")
    (
        "forget-reveal-override",
        r"\b" + _ALL + r"\s+(?:of\s+)?(?:the\s+|my\s+|your\s+)?(?:stored|saved|remembered|"
        r"existing|recorded)\s+(?:facts?|memor(?:y|ies)|records?|notes?|preferences?|information|data|entries)\b"
        r"[^.!?\n]{0,60}?(?:\b(?:is|are|were)\s+(?:now\s+)?(?:all\s+)?(?:outdated|wrong|false|invalid|obsolete|incorrect|"
        r"fake|corrupt(?:ed)?|stale|void)\b|\b(?:delete|remove|discard|erase|wipe|ignore|forget|replace|overwrite)\b)",
        (QUANTIFIERS, ("stored", "saved", "remembered", "existing", "recorded")),
    ),
)

PATTERNS: tuple[Pattern, ...] = tuple(
    Pattern(rule, re.compile(source, re.IGNORECASE), needs) for rule, source, needs in _SOURCES
)
RULES: tuple[str, ...] = tuple(dict.fromkeys(p.rule for p in PATTERNS))
_NEEDED = tuple(sorted({word for p in PATTERNS for group in p.needs for word in group}))
_GROUPS = tuple((p, tuple(frozenset(group) for group in p.needs)) for p in PATTERNS)


def candidates(lowered: str) -> list[Pattern]:
    """The patterns that `could_match` the lower-cased text, found at once: each needed word is
    looked for once, not once per pattern that names it (a third of the time a verdict took)."""
    present = {word for word in _NEEDED if word in lowered}
    if not present:
        return []
    return [p for p, groups in _GROUPS if all(not group.isdisjoint(present) for group in groups)]


"""What instruction-like text asks: authority, protection, future-rule, addressed-to-system,
forget-reveal-override."""
