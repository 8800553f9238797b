"""The `[mcp.servers.NAME]` tables of config.toml: which MCP servers a session starts.

    [mcp.servers.docs]                 # stdio: planview starts the program
    command = "uvx"
    args = ["some-mcp-server", "--flag"]
    env = { TOKEN_FILE = "~/.docs-token" }
    cwd = "tools"                      # relative to the project root
    timeout = 30                       # seconds for the start and for each call (default 60)

    [mcp.servers.search]               # streamable HTTP: planview connects to a running server
    url = "http://127.0.0.1:8931/mcp"

A server table in the project file replaces the user file's table of the same name whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planview.errors import PlanviewError

DEFAULT_TIMEOUT = 60.0
# A name becomes part of the tool names the model calls (mcp__NAME__TOOL): providers allow only
# letters, digits, "_" and "-", and "__" would make the split ambiguous.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
_KEYS = ("command", "args", "env", "cwd", "url", "timeout")


class McpConfigError(PlanviewError):
    """An [mcp.servers.NAME] table is invalid; the message names the file, the table and the fix."""


@dataclass(frozen=True)
class McpServerConfig:
    """One `[mcp.servers.NAME]` table: how to start or reach the server, and where it was defined."""

    name: str
    command: str | None = None  # stdio transport
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None  # streamable HTTP transport
    timeout: float = DEFAULT_TIMEOUT
    source: Path | None = None  # the config file that defined it (for messages)

    @property
    def transport(self) -> str:
        return "http" if self.url else "stdio"

    @property
    def table(self) -> str:
        return f"[mcp.servers.{self.name}]"

    def where(self) -> str:
        """The table and the file it came from, for a message naming the fix."""
        return f"{self.table} in {self.source}" if self.source else self.table


def parse_mcp_section(path: Path, section: object) -> dict[str, McpServerConfig]:
    """The servers of one file's `[mcp]` table; McpConfigError names what to fix."""
    if not isinstance(section, Mapping):
        raise McpConfigError(f"{path}: `mcp` must be a table ([mcp.servers.NAME])")
    unknown = sorted(key for key in section if key != "servers")
    if unknown:
        raise McpConfigError(
            f"{path}: unknown setting [mcp] {unknown[0]}; MCP servers go in [mcp.servers.NAME]"
        )
    servers = section.get("servers", {})
    if not isinstance(servers, Mapping):
        raise McpConfigError(f"{path}: `mcp.servers` must hold tables, one per server ([mcp.servers.NAME])")
    return {str(name): _server(path, str(name), table) for name, table in servers.items()}


def _server(path: Path, name: str, table: object) -> McpServerConfig:
    where = f"{path}: [mcp.servers.{name}]"
    if not _NAME.match(name) or "__" in name:
        raise McpConfigError(
            f"{where}: a server name is 1-32 letters, digits, '_' or '-' without '__' "
            "(it becomes part of the tool names mcp__NAME__TOOL); rename the table"
        )
    if not isinstance(table, Mapping):
        raise McpConfigError(f"{where} must be a table with command = ... or url = ...")
    unknown = sorted(key for key in table if key not in _KEYS)
    if unknown:
        raise McpConfigError(f"{where}: unknown setting {unknown[0]}; known: {', '.join(_KEYS)}")
    command, url = table.get("command"), table.get("url")
    if (command is None) == (url is None):
        raise McpConfigError(
            f'{where}: give either command = "program" (stdio) or url = "http://..." (streamable HTTP)'
        )
    if url is not None:
        stdio_only = sorted(key for key in ("args", "env", "cwd") if key in table)
        if stdio_only:
            raise McpConfigError(
                f"{where}: {stdio_only[0]} applies to a started program, not to url; drop it"
            )
        if not isinstance(url, str) or not re.match(r"^https?://[^\s/]+", url):
            raise McpConfigError(
                f'{where}: url must be an http:// or https:// address, e.g. "http://127.0.0.1:8931/mcp"'
            )
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise McpConfigError(f'{where}: command must be a program name or path, e.g. command = "uvx"')
    args = table.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise McpConfigError(f'{where}: args must be a list of strings, e.g. args = ["--flag", "value"]')
    env = table.get("env", {})
    if not isinstance(env, Mapping) or not all(isinstance(v, str) for v in env.values()):
        raise McpConfigError(f'{where}: env must be a table of strings, e.g. env = {{ NAME = "value" }}')
    cwd = table.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not cwd.strip()):
        raise McpConfigError(f"{where}: cwd must be a folder path (relative paths start at the project root)")
    timeout: Any = table.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= 3600:
        raise McpConfigError(f"{where}: timeout is a number of seconds between 0 and 3600")
    return McpServerConfig(
        name=name,
        command=command,
        args=tuple(args),
        env={str(k): v for k, v in env.items()},
        cwd=cwd,
        url=url,
        timeout=float(timeout),
        source=path,
    )
