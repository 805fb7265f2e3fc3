"""The inbox of corrections: `correct` control events (PATCH/DELETE of one memory) the
consolidation worker has read and the next pass of their scope has not applied yet.

One point per correction, its id derived from the scope and the correction id, so a redelivered
event rewrites itself. A pass reads the scope's pending corrections in its snapshot and clears
those it applied or refused once its generation is written (`absorb`).
"""

from __future__ import annotations

from collections.abc import Sequence

from qdrant_client import models

from dreaming.store.client import StoreClient, ensure_collection, payload_of, point_id, scope_filter, scroll_all
from schemas import ControlEvent
from schemas.scope import parse_scope

_KW = models.PayloadSchemaType.KEYWORD


class CorrectionInbox:
    def __init__(self, client: StoreClient, prefix: str) -> None:
        self._client = client
        self.collection = f"{prefix}_corrections"
        ensure_collection(client, self.collection, None, {"tenant": _KW, "scope": _KW})

    def add(self, events: Sequence[ControlEvent]) -> None:
        points = [
            models.PointStruct(
                id=point_id("correction", e.scope, e.request_id),
                vector={},
                payload={"tenant": parse_scope(e.scope)[0], "scope": e.scope, "event": e.model_dump(mode="json")},
            )
            for e in events
            if e.correction is not None
        ]
        if points:
            self._client.upsert(self.collection, points, wait=True)

    def pending(self, scope: str) -> list[ControlEvent]:
        """The scope's corrections not yet applied, in the order they were sent."""
        events = [
            ControlEvent.model_validate(payload_of(r)["event"])
            for r in scroll_all(self._client, self.collection, scope_filter(scope))
        ]
        return sorted(events, key=lambda e: (e.ts, e.request_id))

    def absorb(self, scope: str, correction_ids: Sequence[str]) -> None:
        if correction_ids:
            ids = [point_id("correction", scope, c) for c in correction_ids]
            self._client.delete(self.collection, points_selector=models.PointIdsList(points=ids), wait=True)
