"""`/mcp`: the session's MCP servers, their state, their tools and the gate's verdict in each mode."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from planview.textsafe import sanitize_for_terminal as clean

STATE_STYLE = {"ready": "green", "starting": "yellow", "failed": "red", "stopped": "red", "closed": "dim"}
HOW_TO = (
    'Add one in config.toml:  [mcp.servers.NAME]  command = "..."  args = [...]   (or url = "http://...")'
)


def annotation_text(annotations: Mapping[str, Any]) -> str:
    """The tool's hints as the server declared them: `readOnlyHint`, `readOnlyHint: false, destructiveHint`."""
    parts = [
        key if value is True else f"{key}: {json.dumps(value)}"
        for key, value in annotations.items()
        if key.endswith("Hint")
    ]
    if "readOnlyHint" not in annotations:
        parts.insert(0, "no readOnlyHint")
    return ", ".join(parts)


def mcp_listing(session: Any) -> RenderableType:
    from planview.session.mcp.offer import verdicts

    hub = getattr(session, "mcp", None)
    statuses = hub.status() if hub is not None else ()
    if not statuses:
        return Group(Text("No MCP servers are configured.", style="bold"), Text(HOW_TO, style="dim"))
    rows: list[RenderableType] = [Text(f"MCP servers ({len(statuses)})", style="bold")]
    for status in statuses:
        head = Text()
        head.append(clean(status.name), style="bold")
        head.append(f"  {status.state}", style=STATE_STYLE.get(status.state, ""))
        head.append(f"  {status.transport}: {clean(status.target)}", style="dim")
        rows.append(Padding(head, (0, 0, 0, 2)))
        if status.problem:
            rows.append(Padding(Text(clean(status.problem), style="red"), (0, 0, 0, 4)))
        for tool in status.tools:
            verdict = verdicts(tool, session.policy)
            line = Text()
            line.append(clean(tool.qualified), style="bold")
            line.append(f"  ({annotation_text(tool.annotations)})", style="dim")
            rows.append(Padding(line, (0, 0, 0, 4)))
            for mode in ("plan", "execute"):
                text = verdict[mode]
                style = "red" if text.startswith("refused") else "green"
                rows.append(Padding(Text.assemble((f"{mode}: ", "dim"), (clean(text), style)), (0, 0, 0, 6)))
        for skipped in status.skipped:
            rows.append(Padding(Text(f"not offered: {clean(skipped)}", style="yellow"), (0, 0, 0, 4)))
    return Group(*rows)
