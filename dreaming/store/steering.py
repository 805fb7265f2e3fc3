"""Steering as the consolidation worker last read it from the control topic, for the API's GET.

The pass never reads this: a job carries the steering the stream worker held when it emitted the
job (`DreamJob.tenant_steering`, `scope_steering`). Both are views of the same `steer` control
events. A tenant's steering arrives once per partition (see `plumbing.tenant_broadcast`); every
copy writes the same point, and an older value never replaces a newer one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from qdrant_client import models

from dreaming.store.client import StoreClient, ensure_collection, payload_of, point_id

_KW = models.PayloadSchemaType.KEYWORD


@dataclass(frozen=True)
class SteeringRecord:
    text: str
    """Empty once an operator cleared it."""
    by: str
    set_at: datetime

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "by": self.by, "set_at": self.set_at.isoformat()}


class SteeringStore:
    def __init__(self, client: StoreClient, prefix: str) -> None:
        self._client = client
        self.collection = f"{prefix}_steering"
        ensure_collection(client, self.collection, None, {"tenant": _KW, "scope": _KW})

    def set(self, tenant: str, scope: str | None, text: str, by: str, at: datetime) -> None:
        """Record a scope's (or, with `scope` None, the tenant's) steering; "" clears it."""
        pid = _point(tenant, scope)
        found = self._client.retrieve(self.collection, [pid], with_payload=True)
        if found and datetime.fromisoformat(payload_of(found[0])["set_at"]) > at:
            return  # a newer value is already recorded (copies of a tenant's event arrive from every partition)
        payload = {"tenant": tenant, "scope": scope or "", "text": text, "by": by, "set_at": at.isoformat()}
        self._client.upsert(self.collection, [models.PointStruct(id=pid, vector={}, payload=payload)], wait=True)

    def get(self, tenant: str, scope: str | None = None) -> SteeringRecord | None:
        """What was last set (a cleared steering has an empty text); None when never set."""
        found = self._client.retrieve(self.collection, [_point(tenant, scope)], with_payload=True)
        if not found:
            return None
        payload = payload_of(found[0])
        return SteeringRecord(payload["text"], payload["by"], datetime.fromisoformat(payload["set_at"]))

    def forget(self, tenant: str, scope: str) -> None:
        self._client.delete(
            self.collection, points_selector=models.PointIdsList(points=[_point(tenant, scope)]), wait=True
        )


def _point(tenant: str, scope: str | None) -> str:
    return point_id("steering", tenant, scope or "")
