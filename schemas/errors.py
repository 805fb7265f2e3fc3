"""Validation errors as one line a person can act on: which field, what is wrong."""

from __future__ import annotations

from pydantic import ValidationError


def describe_validation_error(err: ValidationError, limit: int = 5) -> str:
    """`field.path: message; other.field: message (+N more)` for the first `limit` problems."""
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(value)'}: {e['msg']}" for e in err.errors()[:limit]]
    more = f" (+{err.error_count() - limit} more)" if err.error_count() > limit else ""
    return "; ".join(parts) + more
