"""The review server under hostile load from a local process that does not know the token (issue 25.4).

The server runs in a subprocess with the common open-file limit (RLIMIT_NOFILE 1024): ~1,100
half-sent requests must not fill its file table for good, and a body sent slowly must not hold
up the page's other actions.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(180)

SERVE = r"""
import asyncio, json, resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
from planview.web.server import ReviewServer

async def main():
    server = ReviewServer(Path(sys.argv[1]), approve=False, home=Path(sys.argv[2]), head_seconds=3.0)
    await server.start()
    print(json.dumps({"port": server.port}), flush=True)
    await server.wait()

asyncio.run(main())
"""


async def _answer(port: int, timeout: float = 5.0) -> int | None:
    """The status of one complete (tokenless) request, None when the server does not answer."""
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
    except (OSError, TimeoutError):
        return None
    try:
        writer.write(
            f"GET /theme.js HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        line = await asyncio.wait_for(reader.readline(), timeout)
        return int(line.split()[1]) if line.startswith(b"HTTP/") else None
    except (OSError, TimeoutError, ValueError, IndexError):
        return None
    finally:
        writer.close()


async def _retrying(port: int, seconds: float) -> int | None:
    deadline = time.monotonic() + seconds
    while (status := await _answer(port)) is None and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return status


async def _flood(port: int, count: int) -> list[asyncio.StreamWriter]:
    held = []
    head = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Slow: ".encode()  # never finished
    for _ in range(count):
        try:
            _reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 2)
        except (OSError, TimeoutError):
            continue  # the backlog is full: keep trying the rest
        writer.write(head)
        held.append(writer)
    return held


def test_half_sent_requests_under_a_1024_file_limit_do_not_kill_the_page(plan: Path, home: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2400:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))  # this side holds 1,100 sockets
    served = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(plan), str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert served.stdout is not None
        port = json.loads(served.stdout.readline())["port"]

        async def scenario() -> tuple[int | None, int | None, int | None]:
            assert await _answer(port) == 403  # alive (no token: refused, but answered)
            held = await _flood(port, 1100)
            await asyncio.sleep(1.0)
            during = await _retrying(port, 15.0)  # the half-sent heads time out (3 s here): served again
            for writer in held:
                writer.close()
            await asyncio.sleep(1.0)
            after = await _retrying(port, 20.0)
            return len(held), during, after

        opened, during, after = asyncio.run(scenario())
        assert opened >= 1000
        assert during == 403, "the page did not answer while half-sent requests were held"
        assert after == 403, "the page never answered again after the load went away"
    finally:
        served.kill()
        _out, err = served.communicate(timeout=10)
    assert "Traceback" not in err, err[-2000:]


async def _send(port: int, head: str, body: bytes = b"") -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(head.encode("latin-1") + b"\r\n" + body)
    await writer.drain()
    return reader, writer


async def _post_head(server, path: str, length: int) -> str:
    from review_link import sign_in

    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nCookie: {await sign_in(server)}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\nConnection: close\r\n"
    )


async def _status(reader: asyncio.StreamReader, seconds: float) -> int:
    line = await asyncio.wait_for(reader.readline(), seconds)
    return int(line.split()[1])


async def test_a_slowly_sent_body_does_not_block_the_other_actions(plan: Path, home: Path) -> None:
    from planview.web.server import ReviewServer

    server = ReviewServer(plan, approve=True, on_approve=lambda p, s: "ok", home=home, body_seconds=2.0)
    await server.start()
    try:
        base = hashlib.sha256(plan.read_bytes()).hexdigest()
        body = json.dumps({"base_sha256": base, "comments": [{"anchor_line": 1, "text": "slow"}]}).encode()
        slow_reader, slow = await _send(
            server.port, await _post_head(server, "/api/feedback", len(body)), body[:10]
        )
        await asyncio.sleep(0.3)  # the slow request is in its body now
        cancel = b"{}"
        reader, writer = await _send(
            server.port, await _post_head(server, "/api/cancel", len(cancel)), cancel
        )
        assert await _status(reader, 1.5) == 200, "the cancel waited on another request's body"
        writer.close()
        assert (await server.wait()).outcome == "closed"
        # and the slow one is answered (410 settled or 408 too slow) instead of holding the lock forever
        assert await _status(slow_reader, 5.0) in (408, 410)
        slow.close()
    finally:
        await server.stop()


async def test_a_body_that_never_finishes_gets_408(plan: Path, home: Path) -> None:
    from planview.web.server import ReviewServer

    server = ReviewServer(plan, approve=False, home=home, body_seconds=0.5)
    await server.start()
    try:
        reader, writer = await _send(server.port, await _post_head(server, "/api/feedback", 100), b'{"base')
        assert await _status(reader, 5.0) == 408
        writer.close()
        assert not server.settled
    finally:
        await server.stop()


async def test_a_body_nested_1000_deep_gets_a_clear_400(plan: Path, home: Path, capfd) -> None:
    """Issue 25.9: was a 500 with a RecursionError traceback on stderr."""
    from planview.web.server import ReviewServer

    server = ReviewServer(plan, approve=False, home=home)
    await server.start()
    try:
        for body in (b"[" * 1000 + b"]" * 1000, b'{"a":' * 1000 + b"1" + b"}" * 1000):
            reader, writer = await _send(
                server.port, await _post_head(server, "/api/feedback", len(body)), body
            )
            assert await _status(reader, 5.0) == 400
            answer = (await reader.read()).split(b"\r\n\r\n", 1)[1]
            assert b"nests deeper than 64 levels" in answer
            writer.close()
    finally:
        await server.stop()
    assert "Traceback" not in capfd.readouterr().err
