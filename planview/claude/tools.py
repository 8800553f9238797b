"""Claude Code's tools mapped onto planview's plan-mode gate.

Every tool call Claude makes while planning becomes a `ToolCall` for `planview.gate.decide`, so the
rules live in one place:

- Read / Grep / Glob / LS / NotebookRead -> planview's readers, with their paths confined to the
  project (symlinks resolved), as planview's own readers are;
- Bash -> planview's bash, i.e. the read-only git allowlist;
- Write / Edit / MultiEdit / NotebookEdit / PowerShell -> mutators, refused — except a `.md` file in
  Claude's own plans folder (`~/.claude/plans`), which is where Claude's plan mode drafts its plan;
- Task / Agent -> allowed only for Claude's read-only subagent types (Explore, Plan); their own tool
  calls pass this same hook, so they stay read-only either way;
- WebFetch / WebSearch / AskUserQuestion / TodoWrite / EnterPlanMode / BashOutput -> allowed;
- `mcp__*` -> refused, unless the user listed the tool in `[claude] read_only_tools` (then it is a
  hinted tool: allowed only if it takes no path);
- anything else -> refused (default deny).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planview.gate.calls import GatePolicy, ToolCall
from planview.gate.policy import decide
from planview.gate.read_scope import refusal

__all__ = ["MUTATING_TOOLS", "PlanVerdict", "claude_plans_dir", "plan_mode_verdict"]

READERS: Mapping[str, tuple[str, ...]] = {
    "Read": ("file_path",),
    "NotebookRead": ("notebook_path",),
    "Grep": ("path",),
    "Glob": ("path",),
    "LS": ("path",),
}
ALWAYS_ALLOWED = frozenset(
    {"WebFetch", "WebSearch", "AskUserQuestion", "TodoWrite", "EnterPlanMode", "BashOutput"}
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
    ("the read / grep / find / ls tools", "the Read / Grep / Glob / LS tools"),
    ("planview's bash runs read-only git commands", "in plan mode Bash runs only read-only git commands"),
)


@dataclass(frozen=True)
class PlanVerdict:
    """Whether one Claude tool call may run while planning, and why (a refusal names the fix)."""

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


def _glob_escapes(pattern: Any) -> bool:
    if not isinstance(pattern, str):
        return False
    return pattern.startswith(("/", "~")) or ".." in Path(pattern).parts


def _reader(tool: str, tool_input: Mapping[str, Any], root: Path) -> PlanVerdict:
    for key in READERS[tool]:
        value = tool_input.get(key)
        if value is None and key == "path":
            continue  # Grep / Glob / LS default to the working folder
        if not isinstance(value, str) or not value:
            return PlanVerdict(False, f"{tool} {key} must be a path inside the project {root}")
        problem = refusal(value, root)
        if problem is not None:
            return PlanVerdict(False, f"{tool} {key} {problem}")
    if tool == "Glob" and _glob_escapes(tool_input.get("pattern")):
        return PlanVerdict(False, "Glob patterns may not leave the project (no leading / or ~, no ..)")
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
    tool: str, tool_input: Mapping[str, Any], root: Path, read_only_tools: frozenset[str] = frozenset()
) -> PlanVerdict:
    """Allow or refuse one Claude tool call while planning; the reason names the fix."""
    name = tool.strip()
    if name in READERS:
        return _reader(name, tool_input, root)
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
            ToolCall(name="bash", input={"command": command}), "plan", GatePolicy(project_root=root)
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
            f'"{name}" is an MCP tool planview does not know to be read-only; in plan mode use the Read / '
            "Grep / Glob / LS tools, or call ExitPlanMode and get the plan approved first (a user who "
            f'trusts it can add "{name}" to [claude] read_only_tools in their user config or in an untracked '
            ".planview/config.toml)",
        )
    return PlanVerdict(decision.allowed, _claude_words(decision.reason))
