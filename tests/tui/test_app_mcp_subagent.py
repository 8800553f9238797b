"""The session app with a real MCP server and a subagent: /mcp, notices, the child's collapsible row."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from planview.mcp_config import McpServerConfig
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session
from planview.tui.app import PlanviewApp
from planview.tui.widgets.transcript import NoticeRow, ToolRow

pytest.importorskip("mcp", reason="the MCP tests need the mcp extra: pip install -e '.[test]'")

SERVER = str(Path(__file__).resolve().parent.parent / "session" / "mcp" / "fixture_server.py")
SIZE = (100, 40)


async def wait_for(pilot, predicate, what: str, limit: int = 1500) -> None:
    for _ in range(limit):
        if predicate():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"timed out waiting for {what}")


def app_for(root: Path, lines: list[dict], servers: tuple[McpServerConfig, ...], **kwargs) -> PlanviewApp:
    provider = ScriptedProvider(parse_script("\n".join(json.dumps(line) for line in lines)))

    def factory(ui, on_event):
        return Session(
            project_root=root, provider=provider, ui=ui, on_event=on_event, mcp_servers=servers, **kwargs
        )

    return PlanviewApp(factory, project_root=root)


def shown(widget) -> str:
    """What a row shows, as plain text (its content rendered by Rich at a fixed width)."""
    from rich.console import Console

    console = Console(width=96, record=True, file=open("/dev/null", "w"))
    console.print(widget.content)
    return console.export_text()


def notices(app: PlanviewApp) -> list[str]:
    return [shown(row) for row in app.session_screen.transcript.query(NoticeRow)]


async def submit(pilot, app: PlanviewApp, text: str) -> None:
    app.session_screen.prompt.load_text(text)
    app.session_screen.prompt.focus()
    await pilot.press("enter")


async def test_mcp_listing_notice_and_servers_stop_with_the_app(project: Path) -> None:
    servers = (
        McpServerConfig("fx", command=sys.executable, args=(SERVER,)),
        McpServerConfig("gone", command="planview-no-such-server"),
    )
    app = app_for(project, [], servers, plan_mode=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.session.mcp.started, "the servers to start")
        await pilot.pause()
        assert any("'gone' did not start" in text for text in notices(app))
        await submit(pilot, app, "/mcp")
        await wait_for(pilot, lambda: any("MCP servers (2)" in t for t in notices(app)), "the /mcp listing")
        listing = next(t for t in notices(app) if "MCP servers (2)" in t)
        assert "fx  ready  stdio:" in listing and "gone  failed" in listing
        assert "mcp__fx__clock  (readOnlyHint)" in listing
        assert "mcp__fx__stamp  (readOnlyHint: false, destructiveHint)" in listing
        assert "mcp__fx__explode  (no readOnlyHint)" in listing
        lines = [line.strip() for line in listing.splitlines()]
        clock = lines.index("mcp__fx__clock  (readOnlyHint)")
        assert lines[clock + 1].startswith("plan: runs") and lines[clock + 2] == "execute: runs"
        peek = lines.index("mcp__fx__peek  (readOnlyHint)")
        assert lines[peek + 1].startswith("plan: refused:") and "takes a file path" in " ".join(
            lines[peek + 1 : peek + 4]
        )
        stamp = next(i for i, line in enumerate(lines) if line.startswith("mcp__fx__stamp"))
        block = " ".join(lines[stamp + 1 : stamp + 8])
        assert "does not declare readOnlyHint" in block and "hash pin" in block
        connection = app.session.mcp.connections["fx"]
    assert connection.state == "closed"


async def test_subagent_is_one_collapsible_row_with_its_calls_inside(project: Path) -> None:
    child = [
        {
            "tool_calls": [
                {"name": "read", "arguments": {"path": "README.md"}},
                {"name": "write", "arguments": {"path": "f", "content": "x"}},
            ]
        },
        {"text": "A sample project."},
    ]
    lines = [
        {"tool_calls": [{"name": "subagent", "id": "s1", "arguments": {"task": "explore"}, "script": child}]},
        {"text": "ok"},
    ]
    app = app_for(project, lines, (), plan_mode=True)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, app, "go")
        await wait_for(pilot, lambda: not app.session_screen.busy and not app.session.busy, "the turn")
        await pilot.pause()
        rows = list(app.session_screen.transcript.query(ToolRow))
        assert [r.tool_name for r in rows] == ["subagent"]  # the child's calls are not rows of their own
        row = rows[0]
        assert row.collapsible and list(row.children_calls) == ["s1_c1_1", "s1_c1_2"]
        collapsed = shown(row)
        assert "2 tool calls inside (read, write, 1 refused or failed; ctrl+o to expand)" in collapsed
        assert "A sample project." in collapsed
        await pilot.press("ctrl+o")
        await pilot.pause()
        expanded = shown(row)
        assert "│ ✓ read README.md" in expanded and "│ ✗ write f" in expanded
        assert "unknown tool 'write'" in expanded
    assert not (project / "f").exists()
