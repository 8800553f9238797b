"""How a test client authenticates to a ReviewServer (one place, so the tests follow the server's scheme)."""

from __future__ import annotations


def auth_query(server) -> str:
    return f"?token={server.token}"
