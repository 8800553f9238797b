"""The ACP client terminal (terminal/*), driven by the fake agent's `terminal` scenario.

Plan mode must run only what planview's own bash tool would run (the same gate check, the same git
environment, in the project root); execute mode runs in the project with the output capped; every
process group is killed and waited for on kill, release, cancel and session end. Each test tries to
break one of those the way a hostile agent would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from planview.agents.session import AcpSession, build
from planview.agents.terminals import OUTPUT_CAP, shell_line
from planview.session import events as ev


class Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


def make(
    project: Path, rec: Recorder, commands: list[dict[str, Any]] | None, monkeypatch: Any, **kw: Any
) -> AcpSession:
    import shlex
    import sys

    if commands is not None:
        monkeypatch.setenv("FAKE_AGENT_COMMANDS", json.dumps(commands))
    fake = Path(__file__).with_name("fake_agent.py")
    return build(
        shlex.join([sys.executable, str(fake), "--scenario", "terminal"]),
        project_root=project,
        on_event=rec,
        **kw,
    )


async def run(session: AcpSession, timeout: float = 60) -> None:
    try:
        await asyncio.wait_for(session.send("run the commands"), timeout)
    finally:
        await session.close()


def steps(agent_log: Any) -> list[dict[str, Any]]:
    return sorted(agent_log.find(event="terminal"), key=lambda r: r["index"])


def alive_in_group(pgid: int) -> list[int]:
    """Processes (not zombies) still in process group `pgid`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


def zombie_children() -> list[int]:
    """Zombies whose parent is this test process (a child planview started and never waited for)."""
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == me:
            found.append(int(entry))
    return found


async def gone(pgid: int, timeout: float = 3.0) -> bool:
    for _ in range(int(timeout / 0.05)):
        if not alive_in_group(pgid):
            return True
        await asyncio.sleep(0.05)
    return False


# ---------------------------------------------------------------------------------------------- basics


def test_shell_line_is_what_gets_checked_and_run() -> None:
    assert shell_line("git status", []) == "git status"  # Claude's adapter: the command line, no args
    assert shell_line("git", ["log", "--format=%h %s"]) == "git log '--format=%h %s'"
    assert shell_line("bash", ["-c", "git status && git log"]) == "git status && git log"
    assert shell_line("sh", ["-c", "touch x"]) == "touch x"
    assert shell_line("bash", ["-lc", "git status"]) == "bash -lc 'git status'"  # not unwrapped: refused


async def test_initialize_advertises_the_terminal(project: Path, agent_log: Any, monkeypatch: Any) -> None:
    await run(make(project, Recorder(), [], monkeypatch))
    assert agent_log.find(method="initialize")[0]["terminal"] is True


async def test_plan_mode_runs_read_only_git_and_refuses_a_write(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    (project / "new.txt").write_text("untracked\n")
    rec = Recorder()
    await run(make(project, rec, None, monkeypatch, plan_mode=True))
    status, write = steps(agent_log)
    assert status["exit"] == {"exitCode": 0}, status
    assert "?? new.txt" in status["output"]
    assert write["error"]["code"] == -32000
    assert write["error"]["message"].startswith("Refused in plan mode")
    assert not (project / "written.txt").exists()
    # the refusal is a transcript row, and the turn was not a breach
    refused = [e for e in rec.of(ev.ToolFinished) if e.refused]
    assert [e.reason for e in refused] == [write["error"]["message"]]
    assert rec.of(ev.TurnEnded)[-1].reason == "done"
    # the agent embedded the terminal in its tool call and released it before the call completed:
    # the row shows the command's output, not a dangling terminal id
    rows = {e.call_id: e.result for e in rec.of(ev.ToolFinished)}
    assert rows["cmd-0"] == "?? new.txt", rows


async def test_execute_mode_runs_both_in_the_project(project: Path, agent_log: Any, monkeypatch: Any) -> None:
    rec = Recorder()
    await run(make(project, rec, None, monkeypatch))
    status, write = steps(agent_log)
    assert status["exit"] == {"exitCode": 0} and write["exit"] == {"exitCode": 0}, (status, write)
    assert (project / "written.txt").exists()


# ---------------------------------------------------------------------------------------------- adversaries

DISGUISED = [
    {"command": "git -c core.pager='touch pwned-pager' log"},
    {"command": "git -c alias.x='!touch pwned-alias' x"},
    {"command": "git diff --output=pwned-diff.txt"},
    {"command": "git", "args": ["diff", "--output=pwned-args.txt"]},
    {"command": "git log --outp=pwned-abbrev.txt"},
    {"command": "git config user.name pwned"},
    {"command": "git config --file=pwned.cfg a.b c"},
    {"command": "git config --unset user.email"},
    {"command": "git log > pwned-redirect.txt"},
    {"command": "git status; touch pwned-chain"},
    {"command": "git status && $(touch pwned-subst)"},
    {"command": "git status `touch pwned-backtick`"},
    {"command": "bash", "args": ["-c", "touch pwned-bash"]},
    {"command": "bash", "args": ["-lc", "git status; touch pwned-login"]},
    {"command": "env", "args": ["GIT_EXTERNAL_DIFF=./x", "git", "diff"]},
    {"command": "git --git-dir=/tmp log"},
    {"command": "git -C .. status"},
]


async def test_writes_disguised_as_read_only_git_are_refused(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    before = subprocess.run(
        ["git", "config", "--local", "--list"], cwd=project, capture_output=True, text=True
    )
    rec = Recorder()
    await run(make(project, rec, DISGUISED, monkeypatch, plan_mode=True))
    results = steps(agent_log)
    assert len(results) == len(DISGUISED)
    for spec, result in zip(DISGUISED, results, strict=True):
        assert "error" in result, f"{spec} ran: {result}"
        assert result["error"]["message"].startswith("Refused in plan mode"), result
    assert not list(project.rglob("pwned*")), list(project.rglob("pwned*"))
    after = subprocess.run(
        ["git", "config", "--local", "--list"], cwd=project, capture_output=True, text=True
    )
    assert after.stdout == before.stdout  # .git/config untouched
    assert rec.of(ev.TurnEnded)[-1].reason == "done"  # refusals, not a breach


async def test_plan_mode_ignores_the_agents_environment_and_working_folder(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    (project / "evil.sh").write_text("touch pwned-bash-env\n")
    (project / "differ.sh").write_text("#!/bin/sh\ntouch pwned-ext-diff\n")
    (project / "differ.sh").chmod(0o755)
    (project / "README.md").write_text("# changed\n")
    (project / "sub").mkdir()
    commands = [
        {  # env that would make bash source a file and git run a program: not applied in plan mode
            "command": "git diff",
            "env": [
                {"name": "BASH_ENV", "value": str(project / "evil.sh")},
                {"name": "GIT_EXTERNAL_DIFF", "value": str(project / "differ.sh")},
                {"name": "CLAUDECODE", "value": "1"},
            ],
        },
        {"command": "git status", "cwd": str(project / "sub")},
        {"command": "git status", "cwd": "/"},
        {"command": "git status", "cwd": str(project)},  # the root itself is fine
    ]
    await run(make(project, Recorder(), commands, monkeypatch, plan_mode=True))
    diff, sub, outside, root = steps(agent_log)
    assert diff["exit"] == {"exitCode": 0} and "+# changed" in diff["output"], diff
    assert "Refused in plan mode: commands run in the project root" in sub["error"]["message"]
    assert "outside the project" in outside["error"]["message"]
    assert root["exit"] == {"exitCode": 0}
    assert not list(project.rglob("pwned*"))


async def test_output_flood_is_capped_and_keeps_the_end(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    commands = [
        # 20 MB then a marker: only the last bytes are kept, cut at a character boundary
        {"command": "yes éé | head -n 4000000; echo THE-END", "limit": 1001},
        # invalid UTF-8 (a lone lead byte) is replaced, and the text still fits the limit
        {"command": "head -c 100000 /dev/zero | tr '\\0' '\\303'; echo; echo THE-END", "limit": 1000},
        {"command": "head -c 5000000 /dev/zero | tr '\\0' a; echo THE-END"},  # no limit: planview's cap
        {"command": "yes flood", "then": "kill", "after": 0.5},  # never stops by itself
    ]
    await run(make(project, Recorder(), commands, monkeypatch))
    small, invalid, default, endless = steps(agent_log)
    assert small["truncated"] and small["output"].endswith("éé\nTHE-END\n")
    assert len(small["output"].encode()) <= 1001 and "\ufffd" not in small["output"]
    assert invalid["truncated"] and invalid["output"].endswith("\ufffd\nTHE-END\n")
    assert len(invalid["output"].encode()) <= 1000
    assert default["truncated"] and default["output"].endswith("THE-END\n")
    assert len(default["output"].encode()) <= OUTPUT_CAP
    assert endless["exit"] == {"signal": "SIGKILL"}, endless
    assert endless["truncated"] and len(endless["output"].encode()) <= OUTPUT_CAP


async def test_a_command_that_never_exits_is_killed_and_reaped(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    commands = [
        {"command": "echo $$; sleep 300", "then": "kill", "after": 0.3, "lines": 1},
        # a child that leaves the process group (setsid) is killed while the command runs
        {"command": "echo $$; setsid sleep 301 & echo $!; wait", "then": "kill", "after": 0.3, "lines": 2},
        # a background child left behind when the command exits: killed with the group on release
        {"command": "echo $$; (sleep 302 &); echo started"},
        # never released: killed when the session ends
        {"command": "echo $$; sleep 303", "then": "leave", "lines": 1},
    ]
    await run(make(project, Recorder(), commands, monkeypatch))
    killed, escaped, background, left = steps(agent_log)
    assert killed["exit"] == {"signal": "SIGKILL"}
    assert background["exit"] == {"exitCode": 0}
    for result in (killed, escaped, background, left):
        pgid = int(result["output"].split()[0])
        assert await gone(pgid), f"{result['command']}: {alive_in_group(pgid)} still running"
    escaped_pid = int(escaped["output"].split()[1])
    assert (
        not Path(f"/proc/{escaped_pid}").exists()
        or "Z" in Path(f"/proc/{escaped_pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    )
    assert zombie_children() == []


async def test_a_released_or_unknown_terminal_is_a_clear_error(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    commands = [
        {"command": "echo hi", "reuse": True},
        {"op": "output", "terminal": "term-nope"},
        {"op": "wait", "terminal": "term-nope"},
        {"op": "kill", "terminal": "term-nope"},
        {"op": "release", "terminal": "term-nope"},
    ]
    await run(make(project, Recorder(), commands, monkeypatch))
    reused, *unknown = steps(agent_log)
    assert reused["output"] == "hi\n"
    assert reused["reuse"]["code"] == -32002 and "released, or never created" in reused["reuse"]["message"]
    for result in unknown:
        assert result["error"]["code"] == -32002, result
        assert "term-nope" in result["error"]["message"]


async def test_malformed_terminal_requests_get_json_rpc_errors(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    commands = [
        {"raw": "terminal/create", "params": {"sessionId": "$session"}},  # no command
        {"raw": "terminal/create", "params": {"sessionId": "$session", "command": 5}},
        {"raw": "terminal/create", "params": {"sessionId": "$session", "command": "  "}},
        {"raw": "terminal/create", "params": {"sessionId": "someone-else", "command": "echo hi"}},
        {"raw": "terminal/create", "params": {"sessionId": "$session", "command": "echo", "env": "x"}},
        {"raw": "terminal/output", "params": {"sessionId": "$session", "terminalId": 7}},
        {"raw": "terminal/wait_for_exit", "params": {"sessionId": "$session"}},
        {"raw": "terminal/kill", "params": ["not", "an", "object"]},
        {"raw": "terminal/release", "params": None},
    ]
    rec = Recorder()
    session = make(project, rec, commands, monkeypatch)
    await run(session)
    results = steps(agent_log)
    assert len(results) == len(commands)
    for result in results:
        assert "error" in result, result
        assert result["error"]["code"] in (-32602, -32002, -32000), result
        assert "Traceback" not in json.dumps(result)
    assert results[2]["error"]["message"] == "terminal/create needs a non-empty `command`"
    assert session.stderr_path.exists() and "Traceback" not in session.stderr_path.read_text()
    assert rec.of(ev.TurnEnded)[-1].reason == "done"


async def test_cancel_kills_the_running_commands(project: Path, agent_log: Any, monkeypatch: Any) -> None:
    rec = Recorder()
    session = make(project, rec, [{"command": "echo $$; sleep 300", "then": "hold", "lines": 1}], monkeypatch)
    turn = asyncio.create_task(session.send("run it"))
    try:
        for _ in range(400):
            if agent_log.find(event="holding"):
                break
            await asyncio.sleep(0.025)
        else:
            raise AssertionError("the fake agent never started its command")
        session.cancel()
        await asyncio.wait_for(turn, 20)
    finally:
        await session.close()
    (held,) = steps(agent_log)
    assert held["status"] == {"signal": "SIGKILL"}, held  # killed by planview before the agent looked
    assert await gone(int(held["output"].split()[0]))
    assert rec.of(ev.TurnEnded)[-1].reason == "cancelled"


async def test_closing_the_session_mid_turn_kills_and_reaps_its_terminals(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    session = make(project, Recorder(), [{"command": "sleep 300", "then": "hold"}], monkeypatch)
    turn = asyncio.create_task(session.send("run it"))
    try:
        for _ in range(400):
            if agent_log.find(event="holding"):
                break
            await asyncio.sleep(0.025)
        else:
            raise AssertionError("the fake agent never started its command")
        tid = agent_log.find(event="holding")[0]["terminal"]
        terminal = session.terminals.get(session.agent.session_id, tid)
        assert terminal.running
    finally:
        await session.close()  # the app quits while the agent's command runs
        turn.cancel()
        with contextlib.suppress(BaseException):
            await turn
    assert terminal.returncode == -9
    assert await gone(terminal.pid)
    assert len(session.terminals) == 0
    assert zombie_children() == []


async def test_execute_mode_commands_pass_the_pin_first(project: Path, monkeypatch: Any) -> None:
    """A command while executing an approval that no longer holds is refused and not run (the same
    check_pin as every execute-mode permission and write), and the turn goes back to planning."""
    from acp import RequestError

    rec = Recorder()
    session = make(project, rec, [], monkeypatch)
    reason = "the approved plan .planview/plans/p.md changed after approval (Steps)"
    monkeypatch.setattr(session, "check_pin", lambda: reason)
    with pytest.raises(RequestError) as refused:
        await session.on_terminal_create("s", "touch pinned.txt", [], None, [], None)
    await session.close()
    assert str(refused.value) == reason
    assert not (project / "pinned.txt").exists()
    assert [e.reason for e in rec.of(ev.ToolFinished)] == [reason]
    assert len(session.terminals) == 0


@pytest.mark.usefixtures("lists_only")
async def test_plan_mode_commands_run_in_the_read_only_git_environment(
    project: Path, agent_log: Any, monkeypatch: Any
) -> None:
    """A hostile repository's config names programs git runs by itself (fsmonitor on status, a textconv
    driver on diff): through the terminal they stay off in plan mode, as for
    planview's own bash, and the same command in execute mode shows they were real."""
    git = ["git", "-C", str(project)]
    (project / ".gitattributes").write_text("README.md diff=evil\n")
    subprocess.run([*git, "add", ".gitattributes"], check=True)
    subprocess.run(
        [*git, "commit", "-qm", "attrs"], check=True, env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull}
    )
    # the hostile config comes last: the set-up's own git commands would run it otherwise
    subprocess.run([*git, "config", "core.fsmonitor", "touch pwned-fsmonitor; false"], check=True)
    subprocess.run(
        [*git, "config", "diff.evil.textconv", "sh -c 'touch pwned-textconv; cat \"$1\"' -"], check=True
    )
    (project / "README.md").write_text("# changed\n")
    commands = [{"command": "git status --short"}, {"command": "git diff"}]
    await run(make(project, Recorder(), commands, monkeypatch, plan_mode=True))
    status, diff = steps(agent_log)
    assert status["exit"] == {"exitCode": 0} and " M README.md" in status["output"], status
    assert diff["exit"] == {"exitCode": 0} and "+# changed" in diff["output"], diff
    assert not list(project.glob("pwned*")), "a repository-named program ran in plan mode"
    agent_log.path.unlink()
    await run(make(project, Recorder(), commands, monkeypatch))  # execute mode: git's own behaviour
    assert list(project.glob("pwned*")), "the hostile config did nothing at all: this test proves nothing"
