"""Claude Code's tools mapped onto planview's plan-mode gate.

Every tool call Claude makes while planning becomes a `ToolCall` for `planview.gate.decide`, so the
rules live in one place. The mapping, tool by tool, is the table in docs/CLAUDE_CODE.md ("Plan mode"),
which names the Claude Code version it was checked against (`CHECKED_AGAINST`; the real-agent tests in
tests/realagents run that version); a test holds that table and the sets below to the same tools.
Refusals name tools this Claude has: 2.1.x offers no Grep, Glob, LS or TodoWrite (it searches through
Bash, and its todo tools are TaskCreate / TaskUpdate / TaskList / TaskGet when enabled), and loads
EnterPlanMode / ExitPlanMode through ToolSearch.
"""

from __future__ import annotations

import os
from collections import namedtuple
from collections.abc import Mapping
from pathlib import Path

from planview.gate.calls import GatePolicy, ToolCall
from planview.gate.policy import decide
from planview.gate.read_scope import refusal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's start-up)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CHECKED_AGAINST",
    "CHECKED_WHAT",
    "MUTATING_TOOLS",
    "PlanVerdict",
    "claude_plans_dir",
    "for_claude_mode",
    "plan_mode_verdict",
]

CHECKED_AGAINST = "2.1.328"  # the Claude Code version the table in docs/CLAUDE_CODE.md was checked against
CHECKED_WHAT = (  # what tests/realagents ran with that version (README's agent table says the same)
    "hooks: plan-mode refusals, read-only git, plan on in default mode, ExitPlanMode -> tmux and browser "
    "review -> approve -> edit -> pin revoked naming the section; refine and keep"
)

READERS: Mapping[str, tuple[str, ...]] = {
    "Read": ("file_path",),
    "NotebookRead": ("notebook_path",),
    "Grep": ("path",),
    "Glob": ("path",),
    "LS": ("path",),
}
# Tools that read, ask or keep Claude's own bookkeeping. ToolSearch only loads a deferred tool's schema
# (2.1.328 defers EnterPlanMode and ExitPlanMode behind it); the Task* tools are its todo list;
# TodoWrite and BashOutput are what earlier 2.x versions offered for the same.
ALWAYS_ALLOWED = frozenset(
    {
        "WebFetch",
        "WebSearch",
        "AskUserQuestion",
        "EnterPlanMode",
        "ToolSearch",
        "TaskCreate",
        "TaskUpdate",
        "TaskList",
        "TaskGet",
        "ListAgents",
        "ReportFindings",
        "TodoWrite",
        "BashOutput",
    }
)
MUTATING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "PowerShell", "Bash"})
PATH_KEYS: Mapping[str, str] = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
READ_ONLY_SUBAGENTS = frozenset({"Explore", "Plan"})
_WORDING = (
    ("call exit_plan_mode", "call ExitPlanMode"),
    ("the read / grep / find / ls tools", "Read, and Bash for read-only commands"),
    ("planview's bash runs read-only git commands", "in plan mode Bash runs only read-only git commands"),
)


class PlanVerdict(namedtuple("PlanVerdict", "allowed reason")):
    """Whether one Claude tool call may run while planning, and why (a refusal names the fix)."""

    __slots__ = ()  # a named tuple, not a dataclass: made on every hook call (benchmarks/README.md)
    allowed: bool
    reason: str


def claude_plans_dir() -> Path:
    """Where Claude Code's plan mode drafts its plan (`$CLAUDE_CONFIG_DIR/plans`, else ~/.claude/plans)."""
    base = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    return (Path(base).expanduser() if base else Path.home() / ".claude") / "plans"


def _claude_words(reason: str) -> str:
    for ours, theirs in _WORDING:
        reason = reason.replace(ours, theirs)
    return reason


def for_claude_mode(reason: str, claude_plan_mode: bool) -> str:
    """A refusal as Claude can act on it: outside Claude's own plan mode (planview's mode is plan, from
    `planview claude plan on` or a revoked approval) Claude Code rejects ExitPlanMode until EnterPlanMode
    was called, so the fix starts there."""
    if claude_plan_mode or "call ExitPlanMode" not in reason:
        return reason
    return reason.replace(
        "call ExitPlanMode",
        "call EnterPlanMode first (planview keeps this project in plan mode; load it with ToolSearch "
        '"select:EnterPlanMode" if it is not loaded), write the plan, then call ExitPlanMode',
        1,
    )


def _glob_escapes(pattern: Any) -> bool:
    if not isinstance(pattern, str):
        return False
    return pattern.startswith(("/", "~")) or ".." in Path(pattern).parts


def _glob_base(pattern: str) -> str:
    """The folder a glob pattern starts in: its leading segments before the first wildcard."""
    fixed = []
    for part in pattern.split("/"):
        if any(ch in part for ch in "*?[{"):
            break
        fixed.append(part)
    return "/".join(fixed[:-1] if len(fixed) == len(pattern.split("/")) else fixed)


def _place_refusal(value: str, root: Path, cwd: Path | None) -> str | None:
    """Why `value` is not a place inside the project, judged against the root and, for a relative
    path, against the event's cwd too: Claude Code resolves it from there, where a link that does not
    exist at the root may lead out."""
    problem = refusal(value, root)
    if problem is None and cwd is not None and not value.startswith(("/", "~")):
        problem = refusal(os.path.join(cwd, value), root)
    return problem


def _reader(tool: str, tool_input: Mapping[str, Any], root: Path, cwd: Path | None) -> PlanVerdict:
    if cwd is not None and refusal(str(cwd), root) is not None:
        return PlanVerdict(False, f"{tool} runs in {cwd}, which is outside the project {root}")
    for key in READERS[tool]:
        value = tool_input.get(key)
        if value is None and key == "path":
            continue  # Grep / Glob / LS default to the working folder
        if not isinstance(value, str) or not value:
            return PlanVerdict(False, f"{tool} {key} must be a path inside the project {root}")
        problem = _place_refusal(value, root, cwd)
        if problem is not None:
            return PlanVerdict(False, f"{tool} {key} {problem}")
    pattern = tool_input.get("pattern")
    if tool == "Glob" and _glob_escapes(pattern):
        return PlanVerdict(False, "Glob patterns may not leave the project (no leading / or ~, no ..)")
    if tool == "Glob" and isinstance(pattern, str) and _glob_base(pattern):
        base = os.path.join(tool_input.get("path") or ".", _glob_base(pattern))
        problem = _place_refusal(base, root, cwd)
        if problem is not None:
            return PlanVerdict(False, f"Glob pattern {problem}")
    decision = decide(ToolCall(name="read", input={}), "plan")
    return PlanVerdict(decision.allowed, decision.reason)


def _plan_draft(tool: str, tool_input: Mapping[str, Any]) -> bool:
    """A write of Claude's own plan draft: a .md file directly in Claude's plans folder."""
    value = tool_input.get(PATH_KEYS.get(tool, ""), None)
    if tool not in ("Write", "Edit", "MultiEdit") or not isinstance(value, str) or not value.endswith(".md"):
        return False
    folder = Path(os.path.realpath(claude_plans_dir()))
    path = Path(value)
    if not path.is_absolute() or path.name.startswith("."):
        return False
    return Path(os.path.realpath(path.parent)) == folder and not os.path.islink(path)


def plan_mode_verdict(
    tool: str,
    tool_input: Mapping[str, Any],
    root: Path,
    read_only_tools: frozenset[str] = frozenset(),
    cwd: Path | None = None,
    *,
    sandboxed: bool = False,
) -> PlanVerdict:
    """Allow or refuse one Claude tool call while planning; the reason names the fix. `cwd` is the
    event's working folder (relative paths are resolved from it as well as from the root).

    `sandboxed`: an allowed Bash command is handed back wrapped in the kernel sandbox
    (`git_wrap.neutralised_command(..., sandboxed=True)`), so the wider read-only list applies."""
    name = tool.strip()
    if name in READERS:
        return _reader(name, tool_input, root, cwd)
    if name in ALWAYS_ALLOWED:
        return PlanVerdict(True, "read-only in plan mode")
    if name == "Bash":
        extra = {k: v for k, v in tool_input.items() if k not in ("command", "timeout", "description")}
        if extra.get("dangerouslyDisableSandbox") or extra.get("run_in_background"):
            return PlanVerdict(False, "in plan mode Bash runs read-only git in the foreground only")
        command = tool_input.get("command")
        # Paths resolved against the project (symlinks followed). Claude's Bash runs git in Claude's
        # environment, not planview's neutralised one (docs/PLAN_MODE_GIT.md says what that covers).
        decision = decide(
            ToolCall(name="bash", input={"command": command}),
            "plan",
            GatePolicy(project_root=root, sandboxed=sandboxed),
        )
        return PlanVerdict(decision.allowed, _claude_words(decision.reason))
    if name in PATH_KEYS or name == "PowerShell":
        if _plan_draft(name, tool_input):
            return PlanVerdict(True, "Claude's plan draft (its plans folder)")
        gate_name = "write" if name in ("Write", "NotebookEdit") else "edit"
        if name == "PowerShell":
            gate_name = "powershell"
        decision = decide(ToolCall(name=gate_name, input={}), "plan")
        return PlanVerdict(False, _claude_words(decision.reason.replace(f'"{gate_name}"', f'"{name}"', 1)))
    if name in ("Task", "Agent"):
        kind = tool_input.get("subagent_type")
        if kind in READ_ONLY_SUBAGENTS:
            return PlanVerdict(True, f"read-only subagent ({kind})")
        return PlanVerdict(
            False,
            f"the {kind or 'general-purpose'} subagent can change files; in plan mode use "
            "subagent_type Explore (read-only), or call ExitPlanMode and get the plan approved first",
        )
    annotations = {"readOnlyHint": True} if name in read_only_tools else None
    decision = decide(ToolCall(name=name, input=tool_input, annotations=annotations, builtin=False), "plan")
    if not decision.allowed and name.startswith("mcp__") and annotations is None:
        return PlanVerdict(
            False,
            f'"{name}" is an MCP tool planview does not know to be read-only; in plan mode use Read, and '
            "Bash for read-only commands, or call ExitPlanMode and get the plan approved first (a user who "
            f'trusts it can add "{name}" to [claude] read_only_tools in their user config or in an untracked '
            ".planview/config.toml)",
        )
    return PlanVerdict(decision.allowed, _claude_words(decision.reason))
