"""Signing in to a browser review the way a browser does: spend the one-time link for the session cookie.

`sign_in` (async, raw HTTP) returns the Cookie header value; `opener_for` (urllib, for tests that drive a
planview subprocess) spends a printed link once and keeps the cookie for every later request to that
review (the link itself signs nobody in a second time).
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import re
import urllib.error
import urllib.request
from typing import Any

_openers: dict[str, tuple[str, urllib.request.OpenerDirector]] = {}


async def sign_in(server, link: str | None = None) -> str:
    """GET a one-time link (a new one unless given); the `Cookie` header value the 303 answer sets."""
    link = server.link() if link is None else link
    path = link.split(server.origin, 1)[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nConnection: close\r\n\r\n".encode()
    )
    await writer.drain()
    data = await reader.read()
    writer.close()
    assert data.startswith(b"HTTP/1.1 303"), data[:200]
    found = re.search(rb"^Set-Cookie: ([^;\r\n]+)", data, re.M | re.I)
    assert found is not None, data[:400]
    return found.group(1).decode("latin-1")


def opener_for(link: str) -> tuple[str, urllib.request.OpenerDirector]:
    """(origin, an opener holding the review's cookie), spending `link` the first time it is seen."""
    if link not in _openers:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with opener.open(link, timeout=30) as response:  # 303 -> / with the cookie
            assert response.status == 200, response.status
        _openers[link] = (link.split("/?", 1)[0], opener)
    return _openers[link]


def post(link: str, route: str, body: Any) -> tuple[int, dict]:
    """POST JSON to a route of the review `link` opens, as the browser that opened it."""
    origin, opener = opener_for(link)
    request = urllib.request.Request(
        origin + route,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def link_in(launch_file) -> str:
    """The one-time link a launch file redirects to (what a browser handed the file would load)."""
    from pathlib import Path

    found = re.search(r'url=([^"]+)"', Path(launch_file).read_text(encoding="utf-8"))
    assert found is not None, launch_file
    return found.group(1).replace("&amp;", "&")


_sessions: dict[str, str] = {}  # link -> the Cookie header it earned (async clients)


async def apost(link: str, route: str, body: Any) -> tuple[int, dict]:
    """`post` for tests running in the server's own event loop (aiohttp, never blocking it)."""
    import aiohttp

    origin = link.split("/?", 1)[0]
    if link not in _sessions:
        async with aiohttp.ClientSession() as client:
            async with client.get(link, allow_redirects=False) as response:
                assert response.status == 303, response.status
                morsel = response.cookies
                (name,) = list(morsel)
                _sessions[link] = f"{name}={morsel[name].value}"
    async with aiohttp.ClientSession(headers={"Cookie": _sessions[link]}) as client:
        async with client.post(origin + route, json=body) as response:
            try:
                answer = await response.json()
            except (aiohttp.ContentTypeError, ValueError):
                answer = {}
            return response.status, answer
