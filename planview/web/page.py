"""The review page's HTML shell, its assets and the headers every response carries.

The shell is tiny: the stylesheet (inline, allowed by its hash in the Content-Security-Policy),
the plan as a JSON data island (`type="application/json"`, never executed, `<` `>` `&` escaped so
no plan text can close the element), and the two first-party scripts. Everything on screen is
built by `client.js` from that JSON with DOM text nodes. Hand-written HTML/CSS/JS: no build step.
"""

from __future__ import annotations

import base64
import hashlib
import html as html_lib
import json
from functools import cache
from pathlib import Path
from typing import Any

from aiohttp import web

ASSETS = Path(__file__).with_name("assets")


@cache
def _read(name: str) -> str:
    return (ASSETS / name).read_text(encoding="utf-8")


@cache
def _style_hash() -> str:
    digest = hashlib.sha256(_read("page.css").encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def csp() -> str:
    return "; ".join(
        (
            "default-src 'none'",
            "script-src 'self'",
            f"style-src '{_style_hash()}'",
            "connect-src 'self'",
            "img-src 'none'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors 'none'",
        )
    )


def secure(response: web.StreamResponse) -> None:
    """Headers on every answer: the CSP, no sniffing, no referrer, no caching, no framing."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", csp())
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("Cache-Control", "no-store")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Cross-Origin-Resource-Policy", "same-origin")


def island(data: object) -> str:
    """JSON safe inside <script type="application/json">: nothing in it can end the element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def html(data: dict[str, Any]) -> str:
    """The page for the model's `data` (its title escaped, the rest inside the data island)."""
    title = html_lib.escape(str(data["title"]))
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="color-scheme" content="light dark">\n'
        f"<title>{title} · planview review</title>\n"
        '<script src="/theme.js"></script>\n'
        f"<style>{_read('page.css')}</style>\n"
        f'<script type="application/json" id="plan-data">{island(data)}</script>\n'
        '<script src="/client.js" defer></script>\n'
        "</head>\n<body>\n<noscript>This review page needs JavaScript.</noscript>\n</body>\n</html>\n"
    )


def asset(name: str) -> web.Response:
    return web.Response(text=_read(name), content_type="text/javascript", charset="utf-8")
