"""An OpenAI-compatible model for chaos trials: it answers every plan request with an empty plan,
but the first time it sees a request it may instead fail it (HTTP 500, a garbage body, or a
stall past the client's timeout). The retry of the same request is answered, so with
`llm_retries >= 1` every pass ends as it would without faults, and the memories can be
compared with an uninterrupted run. With a fault rate above 0 the first request it sees always
fails: a trial sends few distinct requests (six for the default scenario on a quiet machine, fewer
when ready jobs share a call), so at a rate of 0.6 some time-based seeds drew no fault at all and
the trial proved nothing (CI failed so on 2026-12-05, "the trial injected no fault")."""

from __future__ import annotations

import hashlib
import json
import random
import threading
from typing import Any

from tests.llm_server import Behaviour, Garbage, HttpError, Reply, ScriptedLlmServer, Stall

EMPTY_PLAN = '{"actions": []}'


class FaultyModel(ScriptedLlmServer):
    def __init__(self, fault_rate: float, stall_s: float, seed: int) -> None:
        super().__init__()
        self._rate = fault_rate
        self._stall_s = stall_s
        self._rng = random.Random(seed)
        self._seen: set[str] = set()
        self._faults_lock = threading.Lock()
        self.faults = 0

    def _next(self, body: dict[str, Any]) -> Behaviour:
        key = hashlib.sha256(json.dumps(body.get("messages"), sort_keys=True).encode()).hexdigest()
        with self._faults_lock:
            self.requests.append(body)
            first = key not in self._seen
            self._seen.add(key)
            if first and self._rate > 0 and (self.faults == 0 or self._rng.random() < self._rate):
                self.faults += 1
                return self._rng.choice(
                    [HttpError(500, "chaos: upstream exploded"), Garbage(), Stall(self._stall_s, Reply(EMPTY_PLAN))]
                )
        return Reply(EMPTY_PLAN)
