"""`planview claude hook`: Claude Code's hook events in the documented shapes, answered by planview's gate.

Each test feeds an event as Claude Code would send it and asserts on the JSON answer and exit code.
A hostile or broken event must be denied (exit 2 for PreToolUse, an explicit deny for
PermissionRequest), never answered with an allow or a crash that Claude Code would treat as "go on".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planview.claude import handoff
from planview.claude.answer import HookAnswer
from planview.claude.handoff import ReviewOutcome
from planview.claude.hook import run
from planview.claude.state import ClaudeState

PLAN = """# Add a greeting

## Goal

Say hello in the README.

## Steps

- [ ] Add the greeting line
- [ ] Mention it in the changelog

## Verification

Read the README.
"""


def event(root: Path, tool: str, tool_input: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "session_id": extra.pop("session_id", "sess-1"),
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": str(root),
        "permission_mode": extra.pop("permission_mode", "plan"),
        "hook_event_name": extra.pop("hook_event_name", "PreToolUse"),
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
        **extra,
    }


def ask(payload: Any) -> HookAnswer:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return run(raw)


def decision(answer: HookAnswer) -> str | None:
    payload = answer.payload
    if payload is None:
        return None
    out = payload["hookSpecificOutput"]
    if out["hookEventName"] == "PermissionRequest":
        return out["decision"]["behavior"]
    return out.get("permissionDecision")


def reason(answer: HookAnswer) -> str:
    payload = answer.payload or {}
    out = payload.get("hookSpecificOutput", {})
    return out.get("permissionDecisionReason") or out.get("decision", {}).get("message", "") or answer.stderr


# -- plan mode: the gate ----------------------------------------------------------------------

DENIED_IN_PLAN_MODE = [
    ("Write", {"file_path": "{root}/new.txt", "content": "x"}),
    ("Edit", {"file_path": "{root}/README.md", "old_string": "sample", "new_string": "x"}),
    ("MultiEdit", {"file_path": "{root}/README.md", "edits": []}),
    ("NotebookEdit", {"notebook_path": "{root}/n.ipynb", "new_source": "x"}),
    ("PowerShell", {"command": "Remove-Item x"}),
    ("Bash", {"command": "echo x > f"}),
    ("Bash", {"command": "git commit -m x"}),
    ("Bash", {"command": "rm -rf ."}),
    ("Bash", {"command": "git status", "run_in_background": True}),
    ("Task", {"subagent_type": "general-purpose", "prompt": "fix it"}),
    ("Agent", {"prompt": "fix it"}),
    ("mcp__github__create_issue", {"title": "x"}),
    ("Read", {"file_path": "/etc/passwd"}),
    ("Read", {"file_path": "{root}/../outside.txt"}),
    ("Grep", {"pattern": "root", "path": "/etc"}),
    ("Glob", {"pattern": "../../**/*.key"}),
    ("LS", {"path": "/"}),
    ("SlashCommand", {"command": "/deploy"}),
    ("Frobnicate", {}),
    ("write", {"file_path": "{root}/x"}),
]
ALLOWED_IN_PLAN_MODE = [
    ("Read", {"file_path": "{root}/README.md"}),
    ("Grep", {"pattern": "sample"}),
    ("Grep", {"pattern": "sample", "path": "{root}"}),
    ("Glob", {"pattern": "**/*.md"}),
    ("LS", {"path": "{root}"}),
    ("Bash", {"command": "git status"}),
    ("Bash", {"command": "git log --oneline -5", "description": "recent commits"}),
    ("Task", {"subagent_type": "Explore", "prompt": "where is the README"}),
    ("WebSearch", {"query": "x"}),
    ("WebFetch", {"url": "https://example.com", "prompt": "x"}),
    ("TodoWrite", {"todos": []}),
    ("AskUserQuestion", {"questions": []}),
    # Claude Code 2.1.328: ToolSearch loads EnterPlanMode / ExitPlanMode; the Task* tools are its todos.
    ("ToolSearch", {"query": "select:ExitPlanMode"}),
    ("TaskCreate", {"subject": "Add the greeting", "description": "README"}),
    ("TaskUpdate", {"taskId": "1", "status": "completed"}),
    ("TaskList", {}),
    ("TaskGet", {"taskId": "1"}),
]


def _fill(tool_input: dict[str, Any], root: Path) -> dict[str, Any]:
    return {k: v.replace("{root}", str(root)) if isinstance(v, str) else v for k, v in tool_input.items()}


@pytest.mark.parametrize(("tool", "tool_input"), DENIED_IN_PLAN_MODE)
def test_plan_mode_denies(project: Path, tool: str, tool_input: dict[str, Any]) -> None:
    answer = ask(event(project, tool, _fill(tool_input, project)))
    assert answer.exit_code == 0
    assert decision(answer) == "deny", answer
    assert reason(answer).startswith("planview: ")


@pytest.mark.parametrize(("tool", "tool_input"), ALLOWED_IN_PLAN_MODE)
def test_plan_mode_allows_reading(project: Path, tool: str, tool_input: dict[str, Any]) -> None:
    answer = ask(event(project, tool, _fill(tool_input, project)))
    assert (answer.exit_code, decision(answer)) == (0, "allow"), reason(answer)


def test_refusals_name_the_fix_in_claude_words(project: Path) -> None:
    text = reason(ask(event(project, "Write", {"file_path": str(project / "x"), "content": ""})))
    assert "ExitPlanMode" in text and "exit_plan_mode" not in text
    other = reason(ask(event(project, "Frobnicate", {})))
    # Claude Code 2.1.x has no Grep, Glob or LS tool: the fix names what it does have.
    assert "Read, and Bash for read-only commands" in other
    assert "Grep" not in other and "Glob" not in other


def test_under_plan_on_a_default_mode_claude_is_sent_to_enter_plan_mode_first(project: Path) -> None:
    """Claude Code rejects ExitPlanMode outside its own plan mode, so a refusal that says only "call
    ExitPlanMode" is a dead end for a default-mode Claude that `planview claude plan on` keeps planning."""
    ClaudeState(project / ".planview").set_project_plan_mode(True)
    write = {"file_path": str(project / "x"), "content": ""}
    text = reason(ask(event(project, "Write", write, permission_mode="default")))
    assert text.index("EnterPlanMode") < text.index("ExitPlanMode")
    assert "select:EnterPlanMode" in text
    in_plan_mode = reason(ask(event(project, "Write", write, permission_mode="plan")))
    assert "EnterPlanMode" not in in_plan_mode and "ExitPlanMode" in in_plan_mode


def test_a_symlink_out_of_the_project_is_not_readable(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "token.txt").write_text("hunter2")
    (project / "ext").symlink_to(outside)
    answer = ask(event(project, "Read", {"file_path": str(project / "ext" / "token.txt")}))
    assert decision(answer) == "deny"
    assert "outside the project" in reason(answer)


@pytest.mark.parametrize(
    ("tool", "tool_input"),
    [
        ("Grep", {"pattern": "hunter", "path": "ext"}),
        ("Glob", {"pattern": "*.txt", "path": "ext"}),
        ("LS", {"path": "ext"}),
        ("Read", {"file_path": "ext/token.txt"}),
    ],
)
def test_a_link_that_only_exists_below_the_root_is_judged_from_the_events_cwd(
    project: Path, tmp_path: Path, tool: str, tool_input: dict[str, Any]
) -> None:
    """Issue 23: Claude Code resolves a relative path against its cwd. With the cwd in a subfolder,
    `ext` there is a link that leads out, while `<root>/ext` does not exist; judged against the root
    alone, the path looked inside."""
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "token.txt").write_text("hunter2")
    sub = project / "pkg"
    sub.mkdir()
    (sub / "ext").symlink_to(outside)
    answer = ask({**event(project, tool, tool_input), "cwd": str(sub)})
    assert decision(answer) == "deny", answer
    assert "outside the project" in reason(answer)
    (sub / "ext").unlink()
    (sub / "ext").mkdir()  # the same words naming a folder that is inside: allowed again
    (sub / "ext" / "token.txt").write_text("fine")
    answer = ask({**event(project, tool, tool_input), "cwd": str(sub)})
    assert decision(answer) == "allow", reason(answer)


def test_non_utf8_and_lone_surrogate_paths_are_denied(project: Path) -> None:
    raw = json.dumps(event(project, "Read", {"file_path": "PLACEHOLDER"})).replace(
        "PLACEHOLDER", "\\udcff\\ud800"
    )
    answer = ask(raw.encode())
    assert decision(answer) == "deny" or answer.exit_code == 2


def test_claude_may_draft_its_plan_in_its_own_plans_folder(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "claude-config"
    (config / "plans").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    draft = {"file_path": str(config / "plans" / "quiet-fox.md"), "content": "# plan"}
    assert decision(ask(event(project, "Write", draft))) == "allow"
    # ... but not next to it, not a dotfile, not a non-Markdown file.
    for bad in ("../settings.json", ".hidden.md", "run.sh"):
        path = {"file_path": str(config / "plans" / bad), "content": "x"}
        assert decision(ask(event(project, "Write", path))) == "deny", bad


def test_planview_plan_switch_gates_claude_outside_its_plan_mode(project: Path) -> None:
    write = event(
        project, "Write", {"file_path": str(project / "x"), "content": ""}, permission_mode="default"
    )
    assert decision(ask(write)) is None  # Claude's own permissions apply
    ClaudeState(project / ".planview").set_project_plan_mode(True)
    assert decision(ask(write)) == "deny"


def test_read_only_mcp_tools_the_user_listed(project: Path) -> None:
    home = project / ".planview"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[claude]\nread_only_tools = ["mcp__docs__search"]\n')
    assert decision(ask(event(project, "mcp__docs__search", {"query": "retry"}))) == "allow"
    # listed, but handed a path: the path guard still refuses it.
    assert decision(ask(event(project, "mcp__docs__search", {"file": "/etc/passwd"}))) == "deny"
    assert decision(ask(event(project, "mcp__docs__delete", {"id": 1}))) == "deny"


def test_a_tracked_project_config_does_not_vouch_for_mcp_tools(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25.8: a cloned repository that commits .planview/config.toml must not declare its own
    write tools read-only; the user's config (and an untracked project config) still may."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    home = project / ".planview"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text('[claude]\nread_only_tools = ["mcp__evil__lookup"]\n')
    git = {"cwd": project, "check": True, "capture_output": True}
    subprocess.run(["git", "add", "-f", ".planview/config.toml"], **git)
    subprocess.run(["git", "commit", "-qm", "ship a config"], **git)
    answer = ask(event(project, "mcp__evil__lookup", {"id": 1}))
    assert decision(answer) == "deny"
    assert "tracked by git" in reason(answer) and "git rm --cached .planview/config.toml" in reason(answer)
    # the same list in the user's own config vouches
    user = tmp_path / "xdg" / "planview" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('[claude]\nread_only_tools = ["mcp__evil__lookup"]\n')
    vouched = ask(event(project, "mcp__evil__lookup", {"id": 1}))
    assert decision(vouched) == "allow", reason(vouched)


# -- malformed input fails closed --------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"{not json",
        b"[1, 2]",
        b"\xff\xfe{}",
        b'{"hook_event_name": "PreToolUse"}',
        b'{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "relative", "tool_name": "Read"}',
        b'{"hook_event_name": "PreToolUse", "session_id": "../../etc/x", "cwd": "/", "tool_name": "Read"}',
        b'{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/", "tool_name": "Read", "tool_input": 5}',
        b'{"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/", "tool_name": 7}',
        b"[" * 100_000,
        b'{"a": ' * 5000 + b"1" + b"}" * 5000,
    ],
)
def test_malformed_events_are_denied_with_exit_2(raw: bytes) -> None:
    answer = run(raw)
    assert answer.exit_code == 2
    assert answer.stdout == ""
    assert "denied" in answer.stderr


def test_a_huge_tool_input_is_denied_not_parsed(project: Path) -> None:
    big = event(project, "Write", {"file_path": str(project / "x"), "content": "x" * (9 * 1024 * 1024)})
    answer = ask(big)
    assert answer.exit_code == 2 and "MiB" in answer.stderr


def test_an_internal_error_denies(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    monkeypatch.setattr("planview.claude.tools.plan_mode_verdict", broken)
    answer = ask(event(project, "Read", {"file_path": str(project / "README.md")}))
    assert answer.exit_code == 2 and "internal error" in answer.stderr
    # PermissionRequest does not honour exit 2: the deny must be explicit.
    answer = ask(event(project, "Read", {"file_path": "x"}, hook_event_name="PermissionRequest"))
    assert answer.exit_code == 0 and decision(answer) == "deny"


# -- ExitPlanMode, review, pin -----------------------------------------------------------------


class FakeReviewer:
    """Stands in for the person: approves through the real approval flow, or refines/keeps."""

    def __init__(self, home: Path, root: Path, verdict: str, feedback: str = "") -> None:
        self.home, self.root, self.verdict, self.feedback = home, root, verdict, feedback
        self.seen: list[Path] = []

    def __call__(self, plan: Path, shown: str, seconds: float) -> ReviewOutcome:
        self.seen.append(plan)
        if self.verdict == "approve":
            from planview.approval.approvals import Approvals

            Approvals(self.home, project_root=self.root).approve(
                plan, "Ada Reviewer", expected_canonical_sha256=shown, channel="Claude Code"
            )
        return ReviewOutcome(self.verdict, self.feedback)  # type: ignore[arg-type]


def _use(monkeypatch: pytest.MonkeyPatch, reviewer: FakeReviewer) -> None:
    monkeypatch.setattr(handoff, "choose_reviewer", lambda: reviewer)


def _exit_plan(project: Path, **extra: Any) -> HookAnswer:
    return ask(event(project, "ExitPlanMode", {"plan": PLAN, "planFilePath": "/x/plan.md"}, **extra))


def test_exit_plan_mode_saves_the_plan_and_approval_allows_with_set_mode(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = project / ".planview"
    reviewer = FakeReviewer(home, project, "approve")
    _use(monkeypatch, reviewer)
    answer = _exit_plan(project, hook_event_name="PermissionRequest")
    assert decision(answer) == "allow"
    permissions = answer.payload["hookSpecificOutput"]["decision"]["updatedPermissions"]  # type: ignore[index]
    assert permissions == [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]
    (plan,) = reviewer.seen
    assert plan.parent == home / "plans" and plan.read_text() == PLAN
    status = subprocess.run(
        [sys.executable, "-m", "planview", "status", str(plan)], cwd=project, capture_output=True, text=True
    )
    assert status.returncode == 0 and "approved" in status.stdout
    # The PreToolUse for the same ExitPlanMode (or a repeat) does not ask the person twice.
    again = _exit_plan(project)
    assert decision(again) is None and len(reviewer.seen) == 1  # Claude's prompt follows, answered above
    context = again.payload["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    assert "1. Add the greeting line" in context and str(plan) in context
    # Claude Code 2.1.x has no TodoWrite: the context names the todo tools it may have, and Edit.
    assert "TodoWrite" not in context and "TaskCreate" in context and "Edit" in context


def test_refine_denies_with_the_feedback_and_keep_denies(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = project / ".planview"
    _use(monkeypatch, FakeReviewer(home, project, "refine", "Also update the changelog date."))
    answer = _exit_plan(project, hook_event_name="PermissionRequest")
    assert decision(answer) == "deny"
    assert "Also update the changelog date." in reason(answer)
    _use(monkeypatch, FakeReviewer(home, project, "keep"))
    assert "not approved" in reason(_exit_plan(project))
    _use(monkeypatch, FakeReviewer(home, project, "timeout"))
    assert "timed out" in reason(_exit_plan(project))
    # Every round reviewed the same plan file, so the review shows what changed between rounds.
    assert len(list((home / "plans").glob("*.md"))) == 1


def test_a_reviewer_that_says_approve_without_a_ledger_event_is_not_trusted(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class Liar(FakeReviewer):
        def __call__(self, plan: Path, shown: str, seconds: float) -> ReviewOutcome:
            return ReviewOutcome("approve")

    _use(monkeypatch, Liar(project / ".planview", project, "approve"))
    answer = _exit_plan(project)
    assert decision(answer) == "deny" and "not approved" in reason(answer)


def test_inside_a_planview_session_exit_plan_mode_is_left_to_that_session(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `planview run --agent claude` marks the Claude it starts (PLANVIEW_TOOL_PROCESS) and reviews
    # the plan itself. With planview's hooks also installed, the hook must not review it again: its
    # approval could not be recorded from a planview tool process, and its deny would keep Claude in
    # plan mode for good.
    reviewer = FakeReviewer(project / ".planview", project, "approve")
    _use(monkeypatch, reviewer)
    monkeypatch.setenv("PLANVIEW_TOOL_PROCESS", "20261201-1200-abcd")
    assert decision(_exit_plan(project)) is None
    assert decision(_exit_plan(project, hook_event_name="PermissionRequest")) is None
    assert reviewer.seen == [] and not list((project / ".planview" / "plans").glob("*.md"))
    # Plan mode itself is still gated by the hook there: a write is refused.
    planning_write = event(project, "Write", {"file_path": str(project / "x.txt"), "content": "x"})
    assert decision(ask(planning_write)) == "deny"


@pytest.fixture
def approved(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    reviewer = FakeReviewer(project / ".planview", project, "approve")
    _use(monkeypatch, reviewer)
    assert decision(_exit_plan(project, hook_event_name="PermissionRequest")) == "allow"
    return reviewer.seen[0]


def _write(project: Path, name: str = "src.txt") -> dict[str, Any]:
    return event(
        project, "Write", {"file_path": str(project / name), "content": "x"}, permission_mode="acceptEdits"
    )


def test_execute_mode_writes_pass_while_the_plan_holds(project: Path, approved: Path) -> None:
    first = ask(_write(project))
    assert decision(first) is None  # no decision: Claude's own permissions apply
    assert "Add the greeting line" in first.payload["hookSpecificOutput"]["additionalContext"]  # type: ignore[index]
    assert ask(_write(project)).stdout == ""  # the steps are offered once


def test_ticking_a_step_in_the_plan_is_allowed_but_rewording_it_is_not(project: Path, approved: Path) -> None:
    tick = {
        "file_path": str(approved),
        "old_string": "- [ ] Add the greeting",
        "new_string": "- [x] Add the greeting",
    }
    assert decision(ask(event(project, "Edit", tick, permission_mode="acceptEdits"))) is None
    reword = {"file_path": str(approved), "old_string": "Say hello", "new_string": "Say goodbye"}
    answer = ask(event(project, "Edit", reword, permission_mode="acceptEdits"))
    assert decision(answer) == "deny" and "only tick" in reason(answer)


def test_a_changed_goal_revokes_names_the_section_and_returns_to_plan_mode(
    project: Path, approved: Path
) -> None:
    approved.write_text(PLAN.replace("Say hello", "Say hello loudly"))  # e.g. sed through Bash
    answer = ask(_write(project))
    assert decision(answer) == "deny"
    assert "Goal" in reason(answer) and "ExitPlanMode" in reason(answer)
    ledger = [json.loads(line) for line in (project / ".planview" / "ledger.jsonl").read_text().splitlines()]
    assert [e["type"] for e in ledger] == ["approved", "revoked"]
    assert ledger[-1]["changed_sections"] == ["Goal"]
    # Back in plan mode: the next write is refused by the gate even though Claude is in acceptEdits.
    assert "not read-only" in reason(ask(_write(project)))


def test_a_self_approval_does_not_move_the_pin(project: Path, approved: Path) -> None:
    """The agent edits the plan and approves it again itself: the session stays pinned to the first."""
    from planview.approval.approvals import Approvals

    approved.write_text(PLAN.replace("Say hello", "Say hello and delete tests"))
    Approvals(project / ".planview", project_root=project).approve(approved, "Alice", channel="test")
    answer = ask(_write(project))
    assert decision(answer) == "deny" and "Goal" in reason(answer)


def test_sessions_are_pinned_separately(project: Path, approved: Path) -> None:
    other = _write(project)
    other["session_id"] = "sess-2"
    other["permission_mode"] = "plan"
    assert decision(ask(other)) == "deny"  # sess-2 never had a plan approved


# -- the real command --------------------------------------------------------------------------


def _hook(project: Path, payload: bytes) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run(
        [sys.executable, "-m", "planview", "claude", "hook", "--timeout", "600"],
        input=payload.decode("utf-8", "surrogateescape"),
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_the_command_denies_and_allows_as_the_issue_says(project: Path) -> None:
    cases = [
        ("Write", {"file_path": str(project / "f"), "content": "x"}, "deny"),
        ("Edit", {"file_path": str(project / "README.md"), "old_string": "a", "new_string": "b"}, "deny"),
        ("Bash", {"command": "echo x > f"}, "deny"),
        ("Bash", {"command": "git commit -m x"}, "deny"),
        ("Read", {"file_path": str(project / "README.md")}, "allow"),
        ("Bash", {"command": "git status"}, "allow"),
        ("Grep", {"pattern": "sample"}, "allow"),
    ]
    for tool, tool_input, expected in cases:
        done = _hook(project, json.dumps(event(project, tool, tool_input)).encode())
        assert done.returncode == 0, done.stderr
        got = json.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"]
        assert got == expected, (tool, tool_input, done.stdout)
    bad = _hook(project, b"{oops")
    assert bad.returncode == 2 and bad.stdout == "" and "denied" in bad.stderr
    assert not (project / "f").exists()


# -- end to end: the hook process, the browser review's API, the ledger -------------------------


def _start_hook(project: Path, payload: dict[str, Any]) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "PLANVIEW_CLAUDE_REVIEW": "browser",
        "BROWSER": "true",  # webbrowser runs `true URL`: nothing opens, the test is the person
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "planview", "claude", "hook", "--timeout", "600"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=project,
        env=env,
    )
    assert proc.stdin is not None
    proc.stdin.write(json.dumps(payload))
    proc.stdin.close()
    proc.stdin = None  # communicate() must not flush it again
    return proc


def _review_url(proc: subprocess.Popen[str]) -> str:
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "review the plan at http://127.0.0.1:" in line, line
    return line.rsplit(" ", 1)[-1].strip()


def _post(url: str, route: str, body: dict[str, Any]) -> int:
    from review_link import post

    return post(url, route, body)[0]


def test_end_to_end_approve_in_the_browser_then_a_changed_goal_is_denied(project: Path) -> None:
    import hashlib

    proc = _start_hook(
        project, event(project, "ExitPlanMode", {"plan": PLAN}, hook_event_name="PermissionRequest")
    )
    url = _review_url(proc)
    (plan,) = (project / ".planview" / "plans").glob("*.md")
    base = hashlib.sha256(plan.read_bytes()).hexdigest()
    assert _post(url, "/api/approve", {"base_sha256": base, "comments": []}) == 200
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["hookEventName"] == "PermissionRequest"
    assert answer["decision"] == {
        "behavior": "allow",
        "updatedPermissions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}],
    }
    ledger = [json.loads(line) for line in (project / ".planview" / "ledger.jsonl").read_text().splitlines()]
    assert ledger[-1]["type"] == "approved" and ledger[-1]["channel"] == "Claude Code"
    status = subprocess.run(
        [sys.executable, "-m", "planview", "status", str(plan)], cwd=project, capture_output=True, text=True
    )
    assert status.returncode == 0 and "approved" in status.stdout
    # Execute mode: a write passes; after the Goal changes the next write is denied naming "Goal".
    write = event(
        project, "Write", {"file_path": str(project / "x.txt"), "content": "x"}, permission_mode="acceptEdits"
    )
    done = _hook(project, json.dumps(write).encode())
    assert done.returncode == 0 and "permissionDecision" not in done.stdout
    plan.write_text(plan.read_text().replace("Say hello", "Say hello twice"))
    done = _hook(project, json.dumps(write).encode())
    denied = json.loads(done.stdout)["hookSpecificOutput"]
    assert denied["permissionDecision"] == "deny" and "Goal" in denied["permissionDecisionReason"]
    status = subprocess.run(
        [sys.executable, "-m", "planview", "status", str(plan)], cwd=project, capture_output=True, text=True
    )
    assert status.returncode == 1 and "Goal" in status.stdout


def test_end_to_end_comments_in_the_browser_come_back_to_claude(project: Path) -> None:
    import hashlib

    proc = _start_hook(project, event(project, "ExitPlanMode", {"plan": PLAN}))
    url = _review_url(proc)
    (plan,) = (project / ".planview" / "plans").glob("*.md")
    base = hashlib.sha256(plan.read_bytes()).hexdigest()
    body = {"base_sha256": base, "comments": [{"anchor_line": 5, "text": "Which README section?"}]}
    assert _post(url, "/api/feedback", body) == 200
    out, err = proc.communicate(timeout=60)
    answer = json.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "Which README section?" in answer["permissionDecisionReason"]
    assert (
        not (project / ".planview" / "ledger.jsonl").exists()
        or "approved" not in (project / ".planview" / "ledger.jsonl").read_text()
    )


def test_planview_approve_from_claudes_shell_is_refused(project: Path, approved: Path) -> None:
    """The self-approval attempt: Claude edits its approved plan, then runs `planview approve` in Bash."""
    approved.write_text(PLAN.replace("Say hello", "Say hello and skip the tests"))
    env = {**os.environ, "CLAUDECODE": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run(
        [sys.executable, "-m", "planview", "approve", str(approved), "--as", "Alice"],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and "approvals come from a person" in done.stderr
    assert "Traceback" not in done.stderr
    ledger = (project / ".planview" / "ledger.jsonl").read_text()
    assert "Alice" not in ledger
    answer = ask(_write(project))
    assert decision(answer) == "deny" and "Goal" in reason(answer)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"hook_event_name": "PermissionRequest", "tool_name": "ExitPlanMode"}',
        b'{"hook_event_name": "PermissionRequest", "session_id": "s", "cwd": "rel", "tool_name": "Write"}',
        b'{"hook_event_name": "PermissionRequest", "session_id": "../x", "cwd": "/", "tool_name": "Bash"}',
        b'{"hook_event_name": "PermissionRequest", "session_id": "s", "cwd": "/", "tool_name": "X", "tool_input": [',
    ],
)
def test_a_malformed_permission_request_gets_an_explicit_deny(raw: bytes) -> None:
    """Claude Code does not honour exit 2 for PermissionRequest: the deny must be on stdout."""
    answer = run(raw)
    assert answer.exit_code == 0
    assert decision(answer) == "deny" and "fails closed" in reason(answer)


def test_the_hook_loads_little_on_its_hot_paths(project: Path, approved: Path) -> None:
    """It runs before every tool call: an unchanged pinned plan and a plan-mode Read load neither the
    Markdown parser, nor the approval package, nor asyncio, nor textual (start-up is most of its cost)."""
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['planview', 'claude', 'hook']\n"
        "try:\n"
        "    runpy.run_module('planview', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('markdown_it', 'planview.approval', 'asyncio', 'textual', 'argparse') if m in sys.modules]\n"
        "sys.stderr.write('HEAVY=' + ','.join(heavy) + '\\n')\n"
    )
    ask(_write(project))  # the steps are offered once: the next call is the plain hot path
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    for payload in (
        _write(project),
        event(project, "Read", {"file_path": str(project / "README.md")}, session_id="other"),
    ):
        done = subprocess.run(
            [sys.executable, "-c", probe],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            cwd=project,
            env=env,
            timeout=60,
        )
        heavy = [line for line in done.stderr.splitlines() if line.startswith("HEAVY=")]
        assert heavy == ["HEAVY="], (payload["tool_name"], done.stderr[-2000:])


def test_plan_file_path_is_read_only_from_claudes_plans_folder(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ExitPlanMode without plan text falls back to its planFilePath, but only a draft in Claude's own
    plans folder: the event cannot make the hook copy another file (a key, a FIFO) into a plan."""
    config = tmp_path / "claude-config"
    (config / "plans").mkdir(parents=True)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    secret = tmp_path / "id_rsa.md"
    secret.write_text("# PRIVATE KEY\n")
    fifo = config / "plans" / "pipe.md"
    os.mkfifo(fifo)
    reviewer = FakeReviewer(project / ".planview", project, "keep")
    _use(monkeypatch, reviewer)
    for bad in (str(secret), str(fifo), str(config / "plans" / ".." / ".." / "id_rsa.md")):
        answer = ask(event(project, "ExitPlanMode", {"planFilePath": bad}))
        assert decision(answer) == "deny" and "no plan text" in reason(answer), bad
    assert reviewer.seen == []
    draft = config / "plans" / "quiet-fox.md"
    draft.write_text(PLAN)
    ask(event(project, "ExitPlanMode", {"planFilePath": str(draft)}))
    assert len(reviewer.seen) == 1 and reviewer.seen[0].read_text() == PLAN


def test_a_same_length_edit_with_the_mtime_put_back_is_caught_at_the_next_write(
    project: Path, approved: Path
) -> None:
    """Issue 25.2: the hook's fast path (plan stat unchanged: no re-hash) also compares st_ctime_ns."""
    assert decision(ask(_write(project))) is None  # verified once: the stat is remembered
    st = os.stat(approved)
    with open(approved, "r+b") as handle:
        data = handle.read()
        handle.seek(0)
        handle.write(data.replace(b"Say hello", b"Say adieu"))
    os.utime(approved, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(approved).st_ino == st.st_ino and os.stat(approved).st_size == st.st_size
    answer = ask(_write(project))
    assert decision(answer) == "deny" and "Goal" in reason(answer)
