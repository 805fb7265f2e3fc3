"""What both workers export on their metrics port: the lag gauge (one metric name, labelled by
topic and partition) and the server itself, which also answers the kubelet's `/healthz` and
`/readyz`."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from wsgiref.types import StartResponse, WSGIApplication, WSGIEnvironment

from prometheus_client import Gauge, make_wsgi_app
from prometheus_client.exposition import ThreadingWSGIServer

log = logging.getLogger(__name__)

CONSUMER_LAG = Gauge(
    "dreamstream_consumer_lag", "Messages behind the end of each assigned partition", ["topic", "partition"]
)


# --- the metrics port also answers the kubelet's probes
class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Probes every few seconds would flood the log."""


def probe_app(ready: Callable[[], bool] | None) -> WSGIApplication:
    """WSGI: `/healthz` 200 while the process serves, `/readyz` 200 when `ready()` (always, without
    one), anything else the Prometheus exposition (prometheus-client's own app)."""
    metrics_app: WSGIApplication = make_wsgi_app()

    def app(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path not in ("/healthz", "/readyz"):
            return metrics_app(environ, start_response)
        ok = path == "/healthz" or ready is None or _ready(ready)
        body = json.dumps({"status": "ok" if ok else "not ready"}).encode()
        start_response(
            "200 OK" if ok else "503 Service Unavailable",
            [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
        )
        return [body]

    return app


def _ready(ready: Callable[[], bool]) -> bool:
    try:
        return bool(ready())
    except Exception:  # noqa: BLE001 - a readiness check that fails means "not ready"; logged, not hidden
        log.warning("readiness check failed", exc_info=True)
        return False


def serve_probes(host: str, port: int, ready: Callable[[], bool] | None = None) -> WSGIServer:
    """Serve metrics and probes on host:port in a daemon thread (port 0: any free port)."""
    server = make_server(host, port, probe_app(ready), ThreadingWSGIServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="dreamstream-metrics", daemon=True).start()
    return server
