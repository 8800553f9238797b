"""The breach watcher: from before the agent starts until every change made in the turn came through.

Each test is a fake agent writing where plan mode forbids it, at the moment the watcher used to miss:
while it opens its session, in the last instant of its turn, or inside planview's plans folder.
"""

from __future__ import annotations

import asyncio
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planview.agents.breach import BreachWatcher
from planview.agents.profiles import BUILTIN
from planview.agents.session import build
from planview.session import events as ev

# The breach watcher is the backstop where the kernel offers no sandbox: tried without it.
pytestmark = pytest.mark.usefixtures("lists_only")

FAKE = Path(__file__).with_name("fake_agent.py")


def turn(project: Path, scenario: str, events: list[Any]) -> Any:
    command = shlex.join([sys.executable, str(FAKE), "--scenario", scenario])
    return build(command, project_root=project, on_event=events.append, plan_mode=True)


async def run(session: Any) -> None:
    try:
        await asyncio.wait_for(session.send("plan it"), 60)
    finally:
        await session.close()


def errors(events: list[Any]) -> list[str]:
    return [e.message for e in events if isinstance(e, ev.ErrorEvent)]


async def test_a_write_while_the_agent_opens_its_session_is_a_breach_and_no_prompt_is_sent(
    project: Path, agent_log: Any
) -> None:
    events: list[Any] = []
    await run(turn(project, "startup-write", events))
    assert agent_log.find(event="startup-write")
    assert any("Plan-mode breach" in m and "breach.txt" in m for m in errors(events)), errors(events)
    assert not agent_log.find(method="session/prompt")  # the agent never got the task
    ends = [e for e in events if isinstance(e, ev.TurnEnded)]
    assert [e.reason for e in ends] == ["error"]


async def test_a_write_in_the_last_instant_of_the_turn_is_not_lost(project: Path, agent_log: Any) -> None:
    events: list[Any] = []
    await run(turn(project, "last-write", events))
    assert agent_log.find(method="prompt-end")
    assert any("Plan-mode breach" in m and "last.txt" in m for m in errors(events)), errors(events)


async def test_a_script_in_the_plans_folder_is_a_breach(project: Path, agent_log: Any) -> None:
    events: list[Any] = []
    await run(turn(project, "plans-write", events))
    assert any("Plan-mode breach" in m and ".planview/plans/run.sh" in m for m in errors(events)), errors(
        events
    )


def test_what_the_watcher_counts_as_a_breach(project: Path) -> None:
    home = project / ".planview"
    plans = home / "plans"
    watcher = BreachWatcher(project, home, plans, lambda paths: None)
    assert watcher.classify(project / ".git" / "index") == "ignored"
    assert watcher.classify(project / ".git" / "refs" / "heads" / "main.lock") == "ignored"
    assert watcher.classify(project / ".git" / "refs" / "heads" / "main") == "breach"
    assert watcher.classify(project / "src" / "x.py") == "breach"
    # the plans folder: plans are reported as plans, planview's atomic temp files are its own,
    # anything else there is a breach
    assert watcher.classify(plans / "a.md") == "plan"
    assert watcher.classify(plans / ".a.md.0123456789ab.tmp") == "ignored"
    assert watcher.classify(plans) == "breach"  # it exists before the watch: deleted or replaced
    assert watcher.classify(plans / "run.sh") == "breach"
    assert watcher.classify(plans / "sub" / "b.md") == "breach"
    assert watcher.classify(plans / ".hidden.md") == "breach"
    # Issue 25.7: the store writes plans into an existing sub-folder; the watcher agrees (one rule)
    (plans / "sub").mkdir(parents=True)
    assert watcher.classify(plans / "sub" / "b.md") == "plan"
    assert watcher.classify(plans / "sub" / "b.txt") == "breach"
    # the rest of planview's folder is its own bookkeeping (and other sessions')
    assert watcher.classify(home / "sessions" / "x.jsonl") == "ignored"
    assert watcher.classify(home / "ledger.jsonl") == "ignored"
    # an agent's own start-up bookkeeping, named in its profile, is not a breach; for others it is
    assert watcher.classify(project / ".git" / "opencode") == "breach"
    opencode = BreachWatcher(
        project, home, plans, lambda paths: None, own_files=BUILTIN["opencode"].own_files
    )
    assert opencode.classify(project / ".git" / "opencode") == "ignored"
    assert opencode.classify(project / ".git" / "config") == "breach"


async def test_stop_reports_what_was_written_just_before_it(project: Path) -> None:
    seen: list[tuple[str, ...]] = []
    home = project / ".planview"
    watcher = BreachWatcher(project, home, home / "plans", seen.append)
    await watcher.start()
    (project / "quick.txt").write_text("x")
    await watcher.stop()  # no sleep: the debounce window must not swallow it
    assert ("quick.txt",) in seen


async def test_a_file_in_a_folder_made_during_the_watch_is_reported(project: Path) -> None:
    """The watch on a new folder is added only once its creation is seen, so its first file can be
    missed; the folder itself is then the breach named (the plans folder is made before the watch)."""
    seen: list[str] = []
    home = project / ".planview"
    watcher = BreachWatcher(project, home, home / "plans", lambda paths: seen.extend(paths))
    await watcher.start()
    (project / "fresh" / "deeper").mkdir(parents=True)
    (project / "fresh" / "deeper" / "a.py").write_text("x")
    await watcher.stop()
    assert any(p == "fresh" or p.startswith("fresh/") for p in seen), seen


async def test_the_breach_report_says_how_to_undo_each_change_and_how_to_resume(project: Path) -> None:
    """Issue 24: the report suggested git checkout / git restore for a new untracked file (which they
    cannot remove) and named no way to go on."""
    from planview.agents.breach import breach_message, classify, diff_of

    (project / "README.md").write_text("# changed by the agent\n")
    (project / "notes.txt").write_text("new\n")
    changes = await classify(project, ["README.md", "notes.txt", "tmp-gone.txt"])
    assert (changes.tracked, changes.new, changes.gone) == (("README.md",), ("notes.txt",), ("tmp-gone.txt",))
    diff = await diff_of(project, changes)
    assert "+# changed by the agent" in diff and "+new" in diff
    text = breach_message("opencode", changes, diff, 'planview run --resume S1 "keep planning, read-only"')
    assert "git restore -- README.md" in text
    new_line = next(line for line in text.splitlines() if "notes.txt" in line and line.startswith("- "))
    assert "rm -r -- notes.txt" in new_line and "git restore cannot" in new_line
    assert "git checkout" not in text
    assert 'Then go on planning: planview run --resume S1 "keep planning, read-only"' in text
    # The commands it prints undo exactly what it says.
    subprocess.run("git restore -- README.md && rm -r -- notes.txt", shell=True, cwd=project, check=True)
    assert (
        subprocess.run(["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True).stdout
        == ""
    )
