"""[mcp.servers.NAME] in config.toml: parsed into server configs; bad tables name the file and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.config import load_config
from planview.mcp_config import DEFAULT_TIMEOUT, McpConfigError


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_stdio_and_http_servers_and_project_overrides_user(tmp_path: Path) -> None:
    user = write(
        tmp_path / "user.toml",
        '[mcp.servers.docs]\ncommand = "docs-server"\n[mcp.servers.web]\nurl = "http://127.0.0.1:9/mcp"\n',
    )
    project = write(
        tmp_path / "proj.toml",
        '[mcp.servers.docs]\ncommand = "uvx"\nargs = ["docs", "--x"]\nenv = { A = "1" }\ncwd = "tools"\n'
        "timeout = 5\n",
    )
    config = load_config(paths=(user, project), env={})
    servers = {s.name: s for s in config.mcp_servers}
    assert set(servers) == {"docs", "web"}
    docs = servers["docs"]
    assert (docs.command, docs.args, dict(docs.env), docs.cwd, docs.timeout) == (
        "uvx",
        ("docs", "--x"),
        {"A": "1"},
        "tools",
        5.0,
    )
    assert docs.source == project and docs.transport == "stdio"
    assert servers["web"].transport == "http" and servers["web"].timeout == DEFAULT_TIMEOUT
    assert load_config(paths=(), env={}).mcp_servers == ()


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('[mcp.servers.a]\nargs = ["x"]\n', 'give either command = "program" (stdio) or url'),
        ('[mcp.servers.a]\ncommand = "x"\nurl = "http://h/mcp"\n', "give either command"),
        ('[mcp.servers.a]\nurl = "ftp://h"\n', "url must be an http:// or https:// address"),
        ('[mcp.servers.a]\nurl = "http://h/mcp"\ncwd = "x"\n', "cwd applies to a started program"),
        ('[mcp.servers.a]\ncommand = "x"\nargs = "y"\n', "args must be a list of strings"),
        ('[mcp.servers.a]\ncommand = "x"\nenv = { A = 1 }\n', "env must be a table of strings"),
        ('[mcp.servers.a]\ncommand = "x"\ntimeout = 0\n', "timeout is a number of seconds"),
        ('[mcp.servers.a]\ncommand = "x"\nhost = "y"\n', "unknown setting host"),
        ('[mcp.servers."a__b"]\ncommand = "x"\n', "without '__'"),
        ('[mcp.servers."a b"]\ncommand = "x"\n', "rename the table"),
        ("[mcp]\nserver = 1\n", "unknown setting [mcp] server"),
        ("[mcp.servers]\na = 1\n", "must be a table with command"),
    ],
)
def test_bad_tables_name_the_file_table_and_fix(tmp_path: Path, toml: str, expected: str) -> None:
    path = write(tmp_path / "config.toml", toml)
    with pytest.raises(McpConfigError) as info:
        load_config(paths=(path,), env={})
    assert str(path) in str(info.value) and expected in str(info.value)


async def test_servers_without_the_sdk_are_one_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from planview.mcp_config import McpServerConfig
    from planview.session.mcp import hub as hub_module

    monkeypatch.setattr(hub_module, "sdk_available", lambda: False)
    notices: list[tuple[str, str]] = []
    hub = hub_module.McpHub(
        [McpServerConfig("a", command="x"), McpServerConfig("b", url="http://127.0.0.1:9/mcp")],
        project_root=tmp_path,
        on_notice=lambda server, line: notices.append((server, line)),
    )
    await hub.start()
    await hub.close()
    assert len(notices) == 1 and "MCP servers are configured (a, b)" in notices[0][1]
    from planview.invocation import install_extra_command

    assert notices[0][1].endswith(f"install it with: {install_extra_command('mcp')}")
    assert hub.tools() == () and [s.state for s in hub.status()] == ["failed", "failed"]
