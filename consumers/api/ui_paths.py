"""Which request paths are the review page's static files (`/ui/...`): `routes/ui.py` serves them and the
middleware lets them through without a token (the page sends it on its API calls).
"""

from __future__ import annotations

UI_PREFIX = "/ui"


def is_ui_path(path: str) -> bool:
    return path == UI_PREFIX or path.startswith(f"{UI_PREFIX}/")
