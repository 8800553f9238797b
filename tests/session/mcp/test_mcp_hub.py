"""The MCP hub against real servers: the SDK fixture over stdio and streamable HTTP, broken servers."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planview.gate.calls import GatePolicy
from planview.mcp_config import McpServerConfig
from planview.session.mcp.connection import McpCallError
from planview.session.mcp.hub import McpHub
from planview.session.mcp.offer import mcp_schemas, verdicts

pytest.importorskip("mcp", reason="the MCP tests need the mcp extra: pip install -e '.[test]'")

HERE = Path(__file__).resolve().parent
SERVER = str(HERE / "fixture_server.py")


def fixture(name: str = "fx", **changes: object) -> McpServerConfig:
    return McpServerConfig(name, command=sys.executable, args=(SERVER,), **changes)  # type: ignore[arg-type]


def hub_for(
    tmp_path: Path, *configs: McpServerConfig, watch_every: float | None = None
) -> tuple[McpHub, list[tuple[str, str]]]:
    notices: list[tuple[str, str]] = []
    hub = McpHub(
        configs,
        project_root=tmp_path,
        log_dir=tmp_path / "logs",
        on_notice=lambda s, line: notices.append((s, line)),
        watch_every=watch_every,
    )
    return hub, notices


async def test_tools_are_listed_with_their_annotations_and_called(tmp_path: Path) -> None:
    hub, notices = hub_for(tmp_path, fixture())
    await hub.start()
    try:
        assert notices == []
        tools = {t.qualified: t for t in hub.tools()}
        assert set(tools) == {f"mcp__fx__{n}" for n in ("clock", "peek", "stamp", "explode", "garble")}
        assert tools["mcp__fx__clock"].annotations == {"readOnlyHint": True}
        assert tools["mcp__fx__stamp"].annotations == {"readOnlyHint": False, "destructiveHint": True}
        assert tools["mcp__fx__peek"].input_schema["required"] == ["path"]
        text, error = await hub.call(tools["mcp__fx__clock"], {})
        assert not error and text.startswith("hello from the fixture server (pid ")
        # The server's own error (a missing file) is a tool error, not a dead server.
        text, error = await hub.call(tools["mcp__fx__peek"], {"path": str(tmp_path / "missing")})
        assert error and "peek" in text
        assert hub.status()[0].state == "ready"
        # Its working folder is the project root unless cwd says otherwise.
        await hub.call(tools["mcp__fx__stamp"], {"text": "x"})
        assert (tmp_path / "stamp.txt").read_text() == "x"
    finally:
        await hub.close()
    assert hub.status()[0].state == "closed"


async def test_plan_mode_offers_only_hinted_tools_and_verdicts_name_the_rule(tmp_path: Path) -> None:
    hub, _ = hub_for(tmp_path, fixture())
    await hub.start()
    try:
        policy = GatePolicy()
        plan = {s.name for s in mcp_schemas(hub.tools(), "plan", policy)}
        assert plan == {"mcp__fx__clock", "mcp__fx__peek", "mcp__fx__garble"}
        assert len(mcp_schemas(hub.tools(), "execute", policy)) == 5
        assert mcp_schemas(hub.tools(), "plan", GatePolicy(allow_read_only_hint=False)) == ()
        by_name = {t.name: verdicts(t, policy) for t in hub.tools()}
        assert by_name["clock"]["plan"].startswith("runs")
        assert (
            by_name["peek"]["plan"].startswith("refused:") and "takes a file path" in by_name["peek"]["plan"]
        )
        assert "does not declare readOnlyHint" in by_name["stamp"]["plan"]
        assert by_name["clock"]["execute"] == "runs"
        assert "hash pin" in by_name["stamp"]["execute"]
    finally:
        await hub.close()


async def test_a_server_that_dies_mid_call_is_one_notice_and_stays_off(tmp_path: Path) -> None:
    hub, notices = hub_for(tmp_path, fixture())
    await hub.start()
    try:
        explode, clock = hub.find("mcp__fx__explode"), hub.find("mcp__fx__clock")
        with pytest.raises(McpCallError, match="'fx' stopped during explode"):
            await hub.call(explode, {})
        with pytest.raises(McpCallError, match="'fx' stopped during explode"):
            await hub.call(clock, {})
        assert [s for s, _ in notices] == ["fx"]  # one line, not one per call
        assert "restart planview" in notices[0][1] and str(tmp_path / "logs" / "fx.log") in notices[0][1]
        assert hub.tools() == () and hub.status()[0].state == "stopped"
    finally:
        await hub.close()


async def test_start_failures_timeout_and_malformed_data(tmp_path: Path) -> None:
    malformed = str(HERE / "malformed_server.py")
    hub, notices = hub_for(
        tmp_path,
        McpServerConfig("gone", command="planview-no-such-server"),
        McpServerConfig(
            "mute", command=sys.executable, args=("-c", "import time; time.sleep(60)"), timeout=1
        ),
        McpServerConfig("badlist", command=sys.executable, args=(malformed, "list")),
        McpServerConfig("badcall", command=sys.executable, args=(malformed, "call")),
        fixture(),
    )
    started = time.monotonic()
    await hub.start()
    took = time.monotonic() - started
    try:
        said = dict(notices)
        assert "did not start: program not found (planview-no-such-server)" in said["gone"]
        assert "fix command / cwd in [mcp.servers.gone]" in said["gone"]
        assert "'mute' did not answer within 1 s" in said["mute"] and "raise timeout" in said["mute"]
        assert took < 30  # the mute server's timeout does not hold up the others
        assert (
            "sent malformed data while starting: ListToolsResult.tools: Input should be a valid list"
            in (said["badlist"])
        )
        assert "badcall" not in said and "fx" not in said
        with pytest.raises(McpCallError, match="sent malformed data for broken: CallToolResult.content"):
            await hub.call(hub.find("mcp__badcall__broken"), {})
        assert {t.server for t in hub.tools()} == {"fx"}  # the others went, fx goes on
        text, _ = await hub.call(hub.find("mcp__fx__clock"), {})
        assert text.startswith("hello")
    finally:
        await hub.close()


async def test_a_cancelled_call_leaves_the_server_usable(tmp_path: Path) -> None:
    import asyncio

    hub, notices = hub_for(
        tmp_path,
        McpServerConfig("sl", command=sys.executable, args=(str(HERE / "fixture_server.py"),)),
    )
    await hub.start()
    try:
        # peek on a FIFO blocks in the server until cancelled
        fifo = tmp_path / "fifo"
        import os

        os.mkfifo(fifo)
        task = asyncio.create_task(hub.call(hub.find("mcp__sl__peek"), {"path": str(fifo)}))
        await asyncio.sleep(0.5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        text, _ = await hub.call(hub.find("mcp__sl__clock"), {})
        assert text.startswith("hello") and notices == []
    finally:
        await hub.close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_streamable_http_server(tmp_path: Path) -> None:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, SERVER, "--http", str(port)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        hub, notices = hub_for(
            tmp_path, McpServerConfig("web", url=f"http://127.0.0.1:{port}/mcp", timeout=10)
        )
        await hub.start()
        try:
            assert notices == []
            assert hub.find("mcp__web__clock").annotations == {"readOnlyHint": True}
            text, error = await hub.call(hub.find("mcp__web__clock"), {})
            assert not error and text.startswith("hello")
        finally:
            await hub.close()
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_http_server_not_running_names_the_url(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{_free_port()}/mcp"
    hub, notices = hub_for(tmp_path, McpServerConfig("web", url=url, timeout=10))
    await hub.start()
    await hub.close()
    assert len(notices) == 1 and f"check that it is running at {url}" in notices[0][1]


async def test_check_finds_a_server_killed_between_calls(tmp_path: Path) -> None:
    import os
    import re
    import signal

    hub, notices = hub_for(tmp_path, fixture())
    await hub.start()
    try:
        text, _ = await hub.call(hub.find("mcp__fx__clock"), {})
        pid = int(re.search(r"pid (\d+)", text).group(1))
        await hub.check()
        assert hub.status()[0].state == "ready" and notices == []  # alive: the ping answers
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            await hub.check()
            if hub.status()[0].state != "ready":
                break
            await asyncio.sleep(0.05)
        assert hub.status()[0].state == "stopped"
        assert len(notices) == 1 and "'fx' stopped" in notices[0][1] and "restart planview" in notices[0][1]
    finally:
        await hub.close()


async def test_a_server_that_dies_between_calls_is_reported_without_a_call(tmp_path: Path) -> None:
    """The hub's watcher pings the servers that are up: a killed one becomes a notice by itself."""
    import os
    import re
    import signal

    hub, notices = hub_for(tmp_path, fixture(), watch_every=0.1)
    await hub.start()
    try:
        text, _ = await hub.call(hub.find("mcp__fx__clock"), {})
        pid = int(re.search(r"pid (\d+)", text).group(1))
        await asyncio.sleep(0.35)  # a few pings of a live server: no notice
        assert notices == [] and hub.status()[0].state == "ready"
        os.kill(pid, signal.SIGKILL)
        for _ in range(200):  # nobody calls or checks: only the watcher can notice
            if notices:
                break
            await asyncio.sleep(0.05)
        assert hub.status()[0].state == "stopped"
        assert len(notices) == 1 and "'fx' stopped" in notices[0][1] and "restart planview" in notices[0][1]
        assert hub._watcher is not None
        await asyncio.wait_for(hub._watcher, 5)  # nothing left up: the watcher ends by itself
    finally:
        await hub.close()


async def test_close_stops_the_watcher_and_none_means_no_watcher(tmp_path: Path) -> None:
    hub, _ = hub_for(tmp_path, fixture(), watch_every=30)
    await hub.start()
    watcher = hub._watcher
    assert watcher is not None and not watcher.done()
    await hub.close()
    assert watcher.done()
    quiet, _ = hub_for(tmp_path, fixture())
    await quiet.start()
    try:
        assert quiet._watcher is None
    finally:
        await quiet.close()
