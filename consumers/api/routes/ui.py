"""The review page's static files (`consumers/api/ui/`), served under `/ui/` without the token.

They hold no data: the page asks for the token and sends it on every JSON request it makes
(`Authorization: Bearer`), so a page load needs none. The files are read once, from a fixed list
(no path from the request reaches the file system), and go out with headers that keep the page to
itself: scripts, styles and requests only from this origin, no framing, no referrer.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from consumers.api.openapi import page
from consumers.api.ui_paths import UI_PREFIX

UI_DIR = Path(__file__).resolve().parent.parent / "ui"
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-cache",
}


def ui_files() -> dict[str, tuple[bytes, str]]:
    """name -> (content, content type) of every file the page is made of."""
    files = {}
    for path in sorted(UI_DIR.iterdir()):
        kind = _TYPES.get(path.suffix)
        if kind is not None and path.is_file():
            files[path.name] = (path.read_bytes(), kind)
    if "index.html" not in files:
        raise RuntimeError(f"the review page is missing from {UI_DIR} (index.html)")
    return files


def routes() -> list[web.RouteDef]:
    files = ui_files()

    @page
    async def redirect(request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(f"{UI_PREFIX}/")

    @page
    async def serve(request: web.Request) -> web.Response:
        name = request.match_info.get("name") or "index.html"
        if name not in files:
            raise web.HTTPNotFound(reason=f"no file {name!r} in the review page")
        body, kind = files[name]
        return web.Response(body=body, content_type=kind, charset="utf-8", headers=SECURITY_HEADERS)

    return [
        web.get(UI_PREFIX, redirect),
        web.get(f"{UI_PREFIX}/", serve),
        web.get(f"{UI_PREFIX}/{{name}}", serve),
    ]
