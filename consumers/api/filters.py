"""The filter parameters of list and search: read from the query into a `MemoryFilter`
(dreaming/store/filters.py), each refusal a 400 naming the parameter. The same table documents
them in the OpenAPI document."""

from __future__ import annotations

from typing import cast, get_args

from consumers.api.openapi import BOOLEAN, DATE_TIME, Param
from consumers.api.params import BadRequest, bool_param, time_param
from dreaming.store.filters import ABOUT_MAX_CHARS, METADATA_KEY, MemoryFilter
from schemas.memory import MemoryOrigin, MemoryTier

META_PREFIX = "meta."
TIERS: tuple[str, ...] = get_args(MemoryTier)
ORIGINS: tuple[str, ...] = get_args(MemoryOrigin)
_RANGES = ("created_after", "created_before", "updated_after", "updated_before")

FILTER_PARAMS: tuple[Param, ...] = (
    Param("tier", {"type": "string", "enum": list(TIERS)}, "only memories of this tier"),
    Param("origin", {"type": "string", "enum": list(ORIGINS)}, "only memories made from this kind of input"),
    Param(
        "consolidated",
        BOOLEAN,
        "true: only memories a pass curated; false: only memory-adds no pass has curated yet",
    ),
    Param("created_after", DATE_TIME, "created at or after (ISO-8601 with a zone, or a date: midnight UTC)"),
    Param("created_before", DATE_TIME, "created before (exclusive)"),
    Param("updated_after", DATE_TIME, "last updated at or after"),
    Param("updated_before", DATE_TIME, "last updated before (exclusive)"),
    Param(
        "about",
        {"type": "string", "maxLength": ABOUT_MAX_CHARS},
        "only memories that name this person or thing: its words as whole words in any case, the last "
        'also possessive or plural (`about=Ava` finds "Ava\'s sister", not "Avalon")',
    ),
    Param(
        "meta.{key}",
        {"type": "string"},
        "metadata equality on a flat key (1-64 letters, digits, _ or -), e.g. `meta.channel=email`; "
        "`123` also matches the number 123, `true` the boolean; repeat with other keys to AND them",
    ),
)
FILTER_NAMES: tuple[str, ...] = tuple(p.name for p in FILTER_PARAMS if not p.name.startswith(META_PREFIX))


def memory_filter(params: dict[str, str]) -> MemoryFilter:
    """The filter the query asks for (parameters already checked against FILTER_NAMES and `meta.*`)."""
    tier = _choice(params, "tier", TIERS)
    origin = _choice(params, "origin", ORIGINS)
    consolidated = bool_param(params, "consolidated") if params.get("consolidated", "") != "" else None
    bounds = {name: time_param(params, name) for name in _RANGES}
    for low, high in (("created_after", "created_before"), ("updated_after", "updated_before")):
        start, end = bounds[low], bounds[high]
        if start is not None and end is not None and start >= end:
            raise BadRequest(f"{low} must be earlier than {high}")
    metadata = []
    for name in sorted(params):
        if not name.startswith(META_PREFIX):
            continue
        key = name[len(META_PREFIX) :]
        if not METADATA_KEY.fullmatch(key):
            raise BadRequest(f"{name}: a metadata filter key must be 1-64 letters, digits, _ or -")
        metadata.append((key, params[name]))
    about = params["about"].strip() if params.get("about", "") != "" else None
    try:
        return MemoryFilter(
            tier=cast("MemoryTier | None", tier),  # checked against TIERS, the Literal's values
            origin=cast("MemoryOrigin | None", origin),
            consolidated=consolidated,
            metadata=tuple(metadata),
            about=about,
            **bounds,
        )
    except ValueError as err:  # what the filter itself refuses (about): its own words
        raise BadRequest(str(err)) from err


def _choice(params: dict[str, str], name: str, allowed: tuple[str, ...]) -> str | None:
    raw = params.get(name, "")
    if raw == "":
        return None
    if raw not in allowed:
        raise BadRequest(f"{name} must be one of {', '.join(allowed)}, got {raw!r}")
    return raw
