"""Reaching every partition with one tenant-wide control event (tenant steering).

Every record sits in its key's home partition (`schemas.validation` refuses any other), and a
tenant's scopes are spread over all partitions, so a tenant-wide setting is sent as one copy per
partition, each keyed by a *carrier scope* of the tenant whose home is that partition:
`<tenant>/dreamstream.tenant/broadcast-<n>`, with the smallest n that lands there. The readers
(both workers) recognise the copies by the event (`steering.applies_to == "tenant"`), never by
the carrier's name, and keep one value per tenant.
"""

from __future__ import annotations

from functools import lru_cache

from schemas.validation import home_partition

CARRIER_AGENT = "dreamstream.tenant"


@lru_cache(maxsize=256)
def carrier_scopes(tenant: str, partitions: int) -> tuple[str, ...]:
    """The carrier scope of each partition, in partition order (index = partition)."""
    found: dict[int, str] = {}
    n = 0
    while len(found) < partitions:
        scope = f"{tenant}/{CARRIER_AGENT}/broadcast-{n}"
        found.setdefault(home_partition(scope.encode(), partitions), scope)
        n += 1
    return tuple(found[p] for p in range(partitions))
