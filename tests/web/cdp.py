"""A small Chrome DevTools Protocol client over aiohttp's websocket, driving the system Chromium.

Used by the browser test and `benchmarks/web_paint.py`. It never downloads a browser: it runs
`chromium` from PATH (Debian's package, which `.ci/run` installs) headless with a throwaway
profile, finds the DevTools port in the profile's `DevToolsActivePort` file, and talks to the
first page target.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-port=0",
)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class CDPError(RuntimeError):
    pass


class Browser:
    """`async with Browser() as page:` — a headless Chromium and a session on its first page."""

    def __init__(self, width: int = 1280, height: int = 900) -> None:
        self.width, self.height = width, height
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._events: list[dict[str, Any]] = []
        self._event_added = asyncio.Event()

    async def __aenter__(self) -> Browser:
        exe = chromium_path()
        if exe is None:
            raise CDPError("chromium is not installed (apt-get install -y chromium)")
        self._profile = tempfile.mkdtemp(prefix="planview-cdp-")
        self._proc = subprocess.Popen(
            [
                exe,
                *FLAGS,
                f"--user-data-dir={self._profile}",
                f"--window-size={self.width},{self.height}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.exists() or not port_file.read_text().strip():
            if self._proc.poll() is not None:
                raise CDPError(f"chromium exited with {self._proc.returncode} before DevTools started")
            if time.monotonic() > deadline:
                raise CDPError("chromium did not start DevTools within 60 s")
            await asyncio.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        self._http = aiohttp.ClientSession()
        targets: list[dict[str, Any]] = []
        while not any(t.get("type") == "page" for t in targets):
            async with self._http.get(f"http://127.0.0.1:{port}/json/list") as response:
                targets = await response.json()
            if time.monotonic() > deadline:
                raise CDPError("chromium has no page target")
            await asyncio.sleep(0.05)
        page = next(t for t in targets if t.get("type") == "page")
        self._ws = await self._http.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        self._reader = asyncio.create_task(self._read())
        await self.send("Page.enable")
        await self.send("Runtime.enable")
        await self.resize(self.width, self.height)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._reader.cancel()
        with contextlib.suppress(Exception):
            await self._ws.close()
        await self._http.close()
        self._proc.terminate()
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        shutil.rmtree(self._profile, ignore_errors=True)

    async def _read(self) -> None:
        async for message in self._ws:
            data = json.loads(message.data)
            if "id" in data:
                future = self._pending.pop(data["id"], None)
                if future is not None and not future.done():
                    if "error" in data:
                        future.set_exception(CDPError(str(data["error"])))
                    else:
                        future.set_result(data.get("result", {}))
            else:
                self._events.append(data)
                self._event_added.set()

    async def send(self, method: str, params: dict[str, Any] | None = None) -> Any:
        ident = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        await self._ws.send_str(json.dumps({"id": ident, "method": method, "params": params or {}}))
        return await asyncio.wait_for(future, 60)

    async def wait_event(self, method: str, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for event in self._events:
                if event.get("method") == method:
                    self._events.remove(event)
                    return event.get("params", {})
            self._event_added.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise CDPError(f"no {method} within {timeout} s")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._event_added.wait(), left)

    async def resize(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    async def navigate(self, url: str) -> None:
        self._events = [e for e in self._events if e.get("method") != "Page.loadEventFired"]
        await self.send("Page.navigate", {"url": url})
        await self.wait_event("Page.loadEventFired")

    async def js(self, expression: str) -> Any:
        result = await self.send(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in result:
            raise CDPError(f"{expression!r} raised: {result['exceptionDetails']}")
        return result.get("result", {}).get("value")

    async def wait_for(self, expression: str, timeout: float = 30) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = await self.js(expression)
            except CDPError:
                value = None  # mid-navigation there may be no document yet
            if value:
                return value
            if time.monotonic() > deadline:
                raise CDPError(f"{expression!r} stayed falsy for {timeout} s")
            await asyncio.sleep(0.05)

    async def key(self, key: str, code: str | None = None, text: str | None = None) -> None:
        """A real key press (keydown with its text, then keyup), as the user types it."""
        params: dict[str, Any] = {"key": key, "code": code or key}
        if text is None and len(key) == 1:
            text = key
        down = {**params, "type": "keyDown"}
        if text:
            down["text"] = text
        await self.send("Input.dispatchKeyEvent", down)
        await self.send("Input.dispatchKeyEvent", {**params, "type": "keyUp"})

    async def ctrl_enter(self) -> None:
        """Ctrl+Enter, as the composer's "add" key (modifiers 2 is Ctrl in the DevTools protocol)."""
        enter = {"key": "Enter", "code": "Enter", "modifiers": 2}
        await self.send("Input.dispatchKeyEvent", {**enter, "type": "keyDown", "windowsVirtualKeyCode": 13})
        await self.send("Input.dispatchKeyEvent", {**enter, "type": "keyUp"})

    async def type_text(self, text: str) -> None:
        await self.send("Input.insertText", {"text": text})

    async def click(self, selector: str) -> None:
        """A real mouse click at the centre of the element (after scrolling it into view)."""
        box = await self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if not box:
            raise CDPError(f"no element matches {selector!r}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            await self.send(
                "Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}
            )

    async def screenshot(self, path: Path) -> Path:
        shot = await self.send("Page.captureScreenshot", {"format": "png"})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path
