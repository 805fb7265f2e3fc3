"""Headless Chromium (Debian's `chromium` package) driven over the Chrome DevTools protocol, for
tests of the review page. Nothing is downloaded: the browser must be installed (`.ci/run` does).

The protocol runs over a pipe (`--remote-debugging-pipe`: commands on the browser's fd 3, answers
on its fd 4, each message JSON ended by a NUL), so no debugging port is opened and parallel test
runs cannot meet. Clicks and typing are input events (`Input.dispatchMouseEvent`,
`Input.insertText`) at the element's place on the page, as a person's would be.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import signal
import time
from pathlib import Path
from typing import Any

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


class BrowserError(RuntimeError):
    pass


def chromium_binary() -> str | None:
    return next((found for name in ("chromium", "chromium-browser") if (found := shutil.which(name))), None)


class Browser:
    def __init__(self, profile: Path, log: Path, width: int = 1360, height: int = 900) -> None:
        binary = chromium_binary()
        if binary is None:
            raise BrowserError("chromium is not installed (apt-get install -y chromium)")
        profile.mkdir(parents=True, exist_ok=True)
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        argv = [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"]
        # posix_spawn maps the pipes onto fds 3 and 4 in the child without running Python there,
        # so it is safe beside the test's threads (the API server).
        self._pid = os.posix_spawn(
            binary,
            argv,
            {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")},
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, str(log), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644),
                (os.POSIX_SPAWN_DUP2, 1, 2),
                (os.POSIX_SPAWN_DUP2, to_browser_r, 3),
                (os.POSIX_SPAWN_DUP2, from_browser_w, 4),
            ],
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self._size = (width, height)
        self.session = self._attach_page()

    # --- protocol
    def send(self, method: str, params: dict[str, Any] | None = None, timeout_s: float = 60.0, **kw: Any) -> Any:
        """One command and its answer (events arriving meanwhile are dropped)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        session = kw.get("session", getattr(self, "session", None))
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout_s
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed its pipe (see its log)")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        answer: dict[str, Any] = json.loads(raw)
        return answer

    def _attach_page(self) -> str:
        targets = self.send("Target.getTargets", session=None)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        session: str = self.send(
            "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}, session=None
        )["sessionId"]
        width, height = self._size
        self.send("Page.enable", session=session)
        self.send("Runtime.enable", session=session)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        return session

    # --- what a test does
    def open(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.wait_for("document.readyState === 'complete'")

    def evaluate(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise BrowserError(
                f"{expression}: {result['exceptionDetails'].get('exception', result['exceptionDetails'])}"
            )
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout_s: float = 30.0) -> Any:
        """Poll until `expression` is truthy in the page; returns its value."""
        deadline = time.monotonic() + timeout_s
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(
                    f"still false after {timeout_s:.0f}s: {expression}\npage: {self.text('body')[:2000]}"
                )
            time.sleep(0.2)

    def wait_until_shown(self, selector: str, timeout_s: float = 30.0) -> None:
        self.wait_for(f"!!document.querySelector({json.dumps(selector)})", timeout_s)

    def text(self, selector: str) -> str:
        found = self.evaluate(f"(document.querySelector({json.dumps(selector)}) || {{}}).innerText || ''")
        return str(found)

    def texts(self, selector: str) -> list[str]:
        return list(self.evaluate(f"[...document.querySelectorAll({json.dumps(selector)})].map(e => e.innerText)"))

    def click(self, selector: str) -> None:
        box = self.wait_for(
            f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
                if (!e) return null; e.scrollIntoView({{block: 'center'}});
                const r = e.getBoundingClientRect();
                return r.width && r.height ? {{x: r.x + r.width / 2, y: r.y + r.height / 2}} : null; }})()"""
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": box["x"], "y": box["y"], "button": "left", "clickCount": 1},
            )

    def type(self, selector: str, text: str) -> None:
        self.click(selector)
        self.evaluate(f"document.querySelector({json.dumps(selector)}).select?.()")
        self.send("Input.insertText", {"text": text})

    def choose(self, selector: str, value: str) -> None:
        """Pick an option of a <select> (as a person would with the keyboard: the change event fires)."""
        self.evaluate(
            f"""(() => {{ const s = document.querySelector({json.dumps(selector)});
                s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change', {{bubbles: true}})); }})()"""
        )

    def screenshot(self, path: Path) -> None:
        """The whole page, however long, as PNG."""
        height = int(self.evaluate("Math.ceil(document.documentElement.scrollHeight)"))
        width, _ = self._size
        shot = self.send(
            "Page.captureScreenshot",
            {
                "format": "png",
                "captureBeyondViewport": True,
                "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
            },
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            self.send("Browser.close", session=None, timeout_s=10)
        except (BrowserError, OSError):
            os.kill(self._pid, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            done, _ = os.waitpid(self._pid, os.WNOHANG)
            if done:
                break
            time.sleep(0.1)
        else:
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
        for fd in (self._to_browser, self._from_browser):
            os.close(fd)
