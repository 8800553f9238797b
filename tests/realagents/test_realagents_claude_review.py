"""Claude Code 2.1.328 for real, interactive in a tmux server of the test's own, with planview's hooks:
plan mode → ExitPlanMode → planview's review in a tmux window → approve → the next edit runs → the plan
is edited → the next edit is refused naming the changed section, and the ledger records `revoked`."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path
from typing import Any

from harness import claude_run
from harness.agents import claude_env
from harness.anthropic_api import AnthropicServer
from harness.netns import run_isolated
from harness.scenario import Seen, Turn, call, say

PLAN = """# Add a greeting

## Goal

Greet the reader in greeting.txt.

## Steps

- [ ] Write greeting.txt
- [ ] Mention it in the README

## Verification

Read greeting.txt.
"""

DRAFT = re.compile(r"create your plan at (/\S+?\.md)")


def _draft_path(seen: Seen) -> str:
    match = DRAFT.search(json.dumps(seen.body.get("messages", [])).replace("\\n", "\n"))
    assert match, "Claude's plan-mode message named no plan file"
    return match.group(1)


def _ledger(project: Path) -> list[dict[str, Any]]:
    path = project / ".planview" / "ledger.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def _choose(tmux: claude_run.Tmux, prompt: str, key: str, timeout: float = 60) -> None:
    """Answer one of Claude's dialogs; under load a key sent while it is still drawing is lost, so the
    key is sent again until the dialog is gone."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        tmux.send("claude", key)
        time.sleep(3)
        if prompt not in tmux.capture("claude"):
            return
    raise AssertionError(f"Claude's dialog {prompt!r} stayed open:\n{tmux.capture('claude')}")


def _approve_then_pin(project: Path, home: Path) -> dict[str, Any]:
    plan_edited = threading.Event()

    def after_edit(seen: Seen) -> Turn:
        plan_edited.wait(120)
        return call("Write", file_path=str(project / "second.txt"), content="more\n")

    steps = [
        call("ToolSearch", query="select:ExitPlanMode"),
        lambda seen: call("Write", file_path=_draft_path(seen), content=PLAN),
        call("ExitPlanMode"),
        call("Write", file_path=str(project / "greeting.txt"), content="hello\n"),
        after_edit,
        say("Stopped: the plan changed."),
    ]
    with AnthropicServer(steps) as server:
        env = claude_env(home, server.url, project)
        env["PLANVIEW_CLAUDE_REVIEW"] = "tmux"
        claude_run.install_hooks(project, env)
        tmux = claude_run.interactive(
            project, env, "add a greeting", "--permission-mode", "plan", "--allowedTools=Write"
        )
        try:
            review = tmux.wait_window("plan review", timeout=90)
            screen = tmux.wait_text(review, "Add a greeting", timeout=60)
            deadline = time.monotonic() + 60
            while not any(e.get("type") == "approved" for e in _ledger(project)):
                # `a` approves; under load a key sent while the review is still starting is lost.
                assert time.monotonic() < deadline, f"no approval recorded; review:\n{tmux.capture(review)}"
                if any("plan review" in name for name in tmux.windows()):
                    tmux.run("send-keys", "-t", review, "a", check=False)
                time.sleep(3)
            # Claude Code 2.1.328 asks the person again with its own plan dialog: the PermissionRequest
            # hook that would answer it from planview's recorded approval is not consulted for ExitPlanMode.
            asked_again = tmux.wait_text("claude", "Would you like to proceed?", timeout=30)
            _choose(tmux, "Would you like to proceed?", "2")  # "Yes, manually approve edits"
            try:
                server.wait_for(lambda: (project / "greeting.txt").exists(), 60, "the approved edit")
            except AssertionError as exc:
                raise AssertionError(
                    f"{exc}\nreview:\n{tmux.capture(review)}\nclaude:\n{tmux.capture('claude')}"
                ) from None
            approved = _ledger(project)
            plan = project / next(e for e in approved if e.get("type") == "approved")["plan"]
            plan.write_text(plan.read_text().replace("Greet the reader", "Greet every reader"))
            plan_edited.set()
            server.wait_for(lambda: server.remaining() == 0, 90, "the refused edit")
            return {
                "asked_again": asked_again,
                "screen": screen,
                "results": server.results(),
                "ledger": _ledger(project),
                "claude": tmux.capture("claude"),
            }
        finally:
            tmux.kill()


def test_claude_plan_review_approve_execute_and_pin(agents: Path, project: Path, tmp_path: Path) -> None:
    seen = run_isolated(_approve_then_pin, project, tmp_path / "home")
    results = seen["results"]
    events = [e.get("type") for e in seen["ledger"]]
    assert "approved" in events and "revoked" in events, seen["ledger"]
    approved = next(e for e in seen["ledger"] if e["type"] == "approved")
    assert approved["channel"] == "Claude Code"
    assert (project / "greeting.txt").read_text() == "hello\n"
    refused = results[-1]
    assert refused.name == "Write" and refused.is_error, results
    assert "Goal" in refused.text and not (project / "second.txt").exists()
    # Back in plan mode while Claude itself is in a default mode: the fix starts with EnterPlanMode.
    assert refused.text.index("EnterPlanMode") < refused.text.index("ExitPlanMode")
    exit_plan = next(r for r in results if r.name == "ExitPlanMode")
    assert not exit_plan.is_error and "Greet the reader" in exit_plan.text
    # Known gap (Claude Code 2.1.328): after planview's review approved, Claude's own plan dialog asks
    # the person again; the PermissionRequest hook that would answer it is not consulted for ExitPlanMode.
    assert "Would you like to proceed?" in seen["asked_again"]
