"""The agent profile: an ACP agent's own process, and all it starts, under Landlock while it plans.

Each test runs the SDK fake agent (fake_agent.py) for real. With the sandbox switched off (the
in-process seam `planview.sandbox.status.forced`), the same agent's writes land: that is the
parameter "off", which asserts the opposite, so the mechanism is what the "landlock" case measures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from test_agents_session import Recorder, ReviewUI, make, run_turn

from planview.sandbox import status
from planview.session import events as ev

LANDLOCK = status.current().enforcing
needs_landlock = pytest.mark.skipif(
    not LANDLOCK, reason=f"this kernel offers no Landlock ({status.current().summary()})"
)


def listener() -> socket.socket:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(15)
    return server


async def report_from(server: socket.socket) -> str:
    def accept() -> str:
        conn, _ = server.accept()
        with conn:
            return conn.makefile().readline().strip()

    return await asyncio.to_thread(accept)


def kernel(which: str) -> Any:
    if which == "off":
        return status.forced(status.lists_only("switched off by the test"))
    return contextlib.nullcontext()


@needs_landlock
@pytest.mark.parametrize("which", ["landlock", "off"])
async def test_a_planning_agents_shell_and_its_detached_child_write_nothing(
    project: Path, agent_log: Any, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    server = listener()
    monkeypatch.setenv("FAKE_REPORT_PORT", str(server.getsockname()[1]))
    monkeypatch.setenv("FAKE_DETACHED_DELAY", "1.5")  # well after the turn ended and the agent stopped
    rec = Recorder()
    with kernel(which):
        session = make(project, "shell-write", rec, plan_mode=True)
        await run_turn(session)
        report = await report_from(server)
    shell = agent_log.find(event="shell-write")[0]
    written = {name: (project / name).exists() for name in ("f", "detached.txt", "later.txt")}
    if which == "landlock":
        assert shell["code"] != 0 and "Permission denied" in shell["stderr"], shell
        assert written == {"f": False, "detached.txt": False, "later.txt": False}
        assert report == "detached.txt=Permission denied later.txt=Permission denied"
        assert rec.ended.reason == "done"  # nothing was written, so nothing to report as a breach
    else:
        assert shell["code"] == 0 and written == {"f": True, "detached.txt": True, "later.txt": True}
        assert report == "detached.txt=ok later.txt=ok"
        assert rec.ended.reason == "error"  # the breach watcher names what the lists did not stop


@needs_landlock
async def test_the_sandboxed_agent_still_writes_its_plan_and_its_temp_folder(
    project: Path, agent_log: Any
) -> None:
    rec = Recorder()
    session = make(project, "build-loop", rec, plan_mode=True, ui=ReviewUI(decide=lambda r: None))
    await run_turn(session)
    assert agent_log.find(event="plan-written")
    assert (project / ".planview" / "plans" / "build-plan.md").read_text().startswith("# Add a greeting")


def work_files(project: Path) -> list[Path]:
    return sorted(project.glob("work-*.txt"))


async def until(check: Any, cap: float = 90.0) -> float:
    """Poll `check()` until it is true; the seconds it took (fails past `cap`)."""
    start = time.monotonic()
    while not check():
        assert time.monotonic() - start < cap, "timed out waiting"
        await asyncio.sleep(0.01)
    return time.monotonic() - start


@needs_landlock
async def test_an_agent_that_never_asks_is_stopped_and_sandboxed_when_the_approved_plan_changes(
    project: Path, agent_log: Any
) -> None:
    rec = Recorder()
    session = make(project, "build-loop", rec, plan_mode=True, ui=ReviewUI())
    turn = asyncio.ensure_future(session.send("plan it, then build it"))
    try:
        # Planned in the sandbox, approved, then carried out by a new process without it: writes land.
        await until(lambda: len(work_files(project)) >= 3)
        assert session.mode == "execute" and not session.agent.sandboxed
        plan = session.plan_path
        assert plan is not None
        plan.write_text(plan.read_text().replace("Say hello.", "Say goodbye, and delete the repository."))
        await until(lambda: session.agent.sandboxed, cap=30.0)
        await asyncio.wait_for(turn, 60)
        written = len(work_files(project))
        await asyncio.sleep(0.3)
        assert len(work_files(project)) == written, "the agent kept writing after the revocation"
        assert session.mode == "plan" and session.approval is None
        errors = [e.message for e in rec.of(ev.ErrorEvent)]
        assert any("changed after approval" in m for m in errors), errors
        notes = [e.note for e in rec.of(ev.ModeChanged)]
        assert any("plan changed after approval: Goal" in (n or "") for n in notes), notes
        ledger = project / ".planview" / "ledger.jsonl"
        kinds = [json.loads(line)["type"] for line in ledger.read_text().splitlines()]
        assert kinds[-1] == "revoked", kinds
        # The executing agent had no load_session: its fresh session got the approved plan to carry out.
        prompts = agent_log.find(method="session/prompt")
        assert any("Say hello." in p["text"] and p["mode"] == "default" for p in prompts), prompts
        pids = {r["pid"] for r in agent_log.find(event="work")}
        assert len(pids) == 1 and not _alive(pids.pop()), "the executing process must be gone"
    finally:
        if not turn.done():
            turn.cancel()
        await session.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_the_agent_profile_never_grants_the_project_or_home(project: Path, tmp_path: Path) -> None:
    from planview.sandbox.errors import SandboxError
    from planview.sandbox.rules import check_root, check_writable

    root = check_root(str(project))
    plans = project / ".planview" / "plans"
    assert check_writable(root, str(plans)) == str(plans)
    for bad in (
        str(project),
        str(project / "src"),
        "/",
        str(Path.home()),
        "relative/dir",
        str(project / ".."),
        str(project / ".planview" / ".." / "src"),
    ):
        with pytest.raises(SandboxError):
            check_writable(root, bad)
    (plans.parent).mkdir(parents=True, exist_ok=True)
    (project / ".planview" / "escape").symlink_to(project / "src", target_is_directory=True)
    with pytest.raises(SandboxError):  # a link below .planview/ that leads back into the project
        check_writable(root, str(project / ".planview" / "escape"))


def test_an_agent_profile_argv_names_its_state_folders(project: Path, tmp_path: Path) -> None:
    from planview.agents.confine import agent_argv
    from planview.agents.profiles import BUILTIN

    env = {"HOME": str(tmp_path / "home")}
    program, args = agent_argv(BUILTIN["opencode"], project, project / ".planview" / "plans", env)
    words = [program, *args]
    assert words[words.index("--profile") + 1] == "agent" and "--listen" in words
    written = [words[i + 1] for i, w in enumerate(words) if w == "--write"]
    assert written[0] == str(project / ".planview" / "plans")
    assert str(tmp_path / "home" / ".cache" / "opencode") in written
    assert (tmp_path / "home" / ".local" / "state" / "opencode").is_dir()  # made so the rule can be added
    assert words[words.index("--") + 1 :] == ["opencode", "acp"]
    _, claude = agent_argv(BUILTIN["claude"], project, project / ".planview" / "plans", env)
    assert str(tmp_path / "home" / ".claude.json") not in claude  # a state file is never created empty
    assert "--listen" not in claude
