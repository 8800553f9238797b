"""The read-only policy: default deny, with a short list of ways a call is let through in plan mode.

`decide(call, mode)` never raises. In execute mode every well-formed call runs (the approval pin is
the session's job). In plan mode a call runs only when it is

- one of planview's own readers (read, grep, find, ls), its path inside the project or planview's
  home when the policy names the project (planview.gate.read_scope), todo or ask_user;
- planview's own write_plan (its plan_path passing the plan store's check the policy carries) or
  exit_plan_mode — exempt because the runtime says they are planview's tools, never because of the
  name alone;
- bash with a read-only git command (planview.gate.git_shell), or, when the policy says plan-mode
  bash runs in the kernel sandbox, a pipeline of read-only commands (planview.gate.plan_shell);
- planview's own subagent when its schema declares readOnly, forced to readOnly: true (another
  tool named subagent starts an agent planview does not run, so it is refused like one);
- any tool declaring readOnlyHint: true that takes no path (planview.gate.path_guard), unless the
  config switch turns hinted tools off.

Everything else is refused, and every refusal tells the model what to do instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from planview.errors import PlanviewError
from planview.gate.calls import (
    MODES,
    Decision,
    GatePolicy,
    MalformedCall,
    ToolCall,
    parse_call,
    placeholder,
    show,
)
from planview.gate.read_scope import refusal

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the Claude hook's start-up)
if TYPE_CHECKING:
    from typing import Any

# git_shell (bash), path_guard (hinted tools) and tool_names (other tools' names) are imported where
# they are needed: the Claude hook decides a plan-mode Read in a fresh process before every call, and
# a reader's decision needs none of them.

__all__ = ["READERS", "decide"]

READERS = frozenset({"read", "grep", "find", "ls"})
HELPERS = frozenset({"todo", "ask_user"})
CONTROLS = frozenset({"write_plan", "exit_plan_mode"})
BASH_KEYS = frozenset({"command", "timeout", "description"})

APPROVAL_FIX = "call exit_plan_mode and get the plan approved before changing files"
_DEFAULT_POLICY = GatePolicy()


def _allow(call: ToolCall, note: str = "") -> Decision:
    return Decision(True, note, call)


def _deny(call: ToolCall, reason: str) -> Decision:
    return Decision(False, reason, call)


def decide(
    call: ToolCall | Mapping[str, Any] | Any, mode: str, policy: GatePolicy = _DEFAULT_POLICY
) -> Decision:
    """Allow or refuse one tool call. Never raises; malformed calls are refused."""
    try:
        try:
            parsed = parse_call(call)
        except MalformedCall as exc:
            return _deny(placeholder(call), f"malformed tool call: {exc}")
        if mode not in MODES:
            return _deny(parsed, f"unknown mode {show(mode)}; the gate knows plan and execute")
        if mode == "execute":
            return _allow(parsed)
        return _plan_mode(parsed, policy)
    except Exception as exc:  # a hostile Mapping or a bug: refusing is the safe answer
        try:
            fallback = placeholder(call)
        except Exception:
            fallback = ToolCall(name="", input={})
        return _deny(fallback, f"malformed tool call: it could not be read ({type(exc).__name__})")


def _plan_mode(call: ToolCall, policy: GatePolicy) -> Decision:
    name = call.name
    if call.builtin:
        if name in READERS:
            return _reader(call, policy)
        if name in HELPERS:
            return _allow(call, "read-only tool")
        if name == "bash":
            return _bash(call, policy)
        if name == "write_plan":
            return _write_plan(call, policy)
        if name == "exit_plan_mode":
            return _allow(call, "plan control")
        if name == "subagent":
            return _subagent(call)
    from planview.gate.git_shell import FILE_TOOLS_HINT
    from planview.gate.tool_names import MUTATORS, SHELLS, parts

    names = parts(name)  # compared loosely: "Bash ", "BASH", "mcp__x__write_file"
    if not call.builtin and any(n in CONTROLS for n in names):
        return _deny(
            call,
            f"this {show(name)} is not planview's own tool, so it gets no plan-mode exemption; "
            f"use planview's {next(n for n in names if n in CONTROLS)}",
        )
    if "enter_plan_mode" in names:
        return _deny(
            call, "plan mode is already on; keep exploring read-only and save the plan with write_plan"
        )
    if not call.builtin and "subagent" in names:
        return _deny(
            call,
            f"this {show(name)} is not planview's own subagent: it starts an agent planview does not gate, "
            "so its readOnly argument is only a claim and it gets no plan-mode exemption; use planview's "
            f"subagent, or explore with the read / grep / find / ls tools, or {APPROVAL_FIX}",
        )
    if "set_plan_steps" in names:
        return _deny(call, f"set_plan_steps updates an approved plan; {APPROVAL_FIX}")
    if any(n in MUTATORS for n in names):
        return _deny(call, f"{show(name)} is not read-only; {APPROVAL_FIX}")
    if any(n in SHELLS for n in names):
        return _deny(
            call,
            f"{show(name)} is not available in plan mode; planview's bash runs read-only git commands, "
            f"and {FILE_TOOLS_HINT}",
        )
    return _hinted(call, policy)


def _reader(call: ToolCall, policy: GatePolicy) -> Decision:
    """A reader's path must stay in the project (or planview's home): the rule of gate.read_scope.
    A missing or non-string path is the tool's to report; grep, find and ls default to the project."""
    value = call.input.get("path")
    if policy.project_root is not None and isinstance(value, str) and value.strip():
        problem = refusal(value, policy.project_root, policy.home)
        if problem is not None:
            return _deny(call, problem)
    return _allow(call, "read-only tool")


def _bash(call: ToolCall, policy: GatePolicy) -> Decision:
    extra = sorted(key for key in call.input if key not in BASH_KEYS)
    if "cwd" in call.input or "workdir" in call.input:
        return _deny(
            call, "cd is not needed: commands already run in the project root; drop the working folder"
        )
    if extra:
        return _deny(call, f"bash in plan mode takes only command (and timeout); drop {show(extra[0])}")
    if "command" not in call.input:
        return _deny(call, 'bash needs a command, e.g. {"command": "git status"}')
    from planview.gate.plan_shell import check_plan_command

    verdict = check_plan_command(call.input["command"], policy.project_root, sandboxed=policy.sandboxed)
    if not verdict.allowed:
        return _deny(call, verdict.reason)
    return _allow(call, "read-only command, in the kernel sandbox" if policy.sandboxed else "read-only git")


def _write_plan(call: ToolCall, policy: GatePolicy) -> Decision:
    plan_path = call.input.get("plan_path")
    if plan_path is None:
        return _allow(call, "plan control")
    if not isinstance(plan_path, str):
        return _deny(call, "write_plan's plan_path must be a string; omit it to save a new plan")
    problem = _plan_path_problem(plan_path, policy)
    if problem is not None:
        return _deny(call, f"write_plan refused: {problem}")
    return _allow(call, "plan control")


def _plan_path_problem(plan_path: str, policy: GatePolicy) -> str | None:
    """Why plan_path is not a writable plan: the plan store's own check when one was handed in."""
    if policy.plan_path_check is None:
        return _lexical_problem(plan_path, policy.plans_dir)
    try:
        policy.plan_path_check(plan_path)
    except PlanviewError as exc:  # PlanPathError: its message names the fix
        return str(exc)
    except (OSError, ValueError) as exc:
        return f"plan_path {show(plan_path)} could not be checked ({exc}); omit it to save a new plan"
    return None


def _lexical_problem(plan_path: str, plans_dir: Path | None) -> str | None:
    """Containment without the store: a .md non-dotfile inside plans_dir, through no symlinked folder."""
    where = str(plans_dir) if plans_dir is not None else "the plans folder"
    if not plan_path or "\x00" in plan_path:
        return f"plan_path must name a .md file inside {where}"
    candidate = Path(plan_path)
    if plans_dir is None:
        # Without a folder to resolve against, only a bare file name (a plan in the folder) is safe.
        if len(candidate.parts) != 1 or candidate.is_absolute() or plan_path in (".", ".."):
            return (
                f"plan_path {show(plan_path)} cannot be checked (no plans folder is configured); "
                "pass the plan's file name only, or omit plan_path to save a new plan"
            )
    else:
        from planview.plan.store import containment_problem  # the store's own rule, not a copy of it

        base = Path(plans_dir).expanduser().absolute()
        if not candidate.is_absolute() and len(candidate.parts) != 1:
            # The store reads such a path against the project root, which this policy does not know.
            return f"plan_path {show(plan_path)} must be the plan's file name or its absolute path inside {where}"
        absolute = Path(os.path.normpath(candidate if candidate.is_absolute() else base / candidate))
        problem = containment_problem(absolute, base, where=where, shown=show(plan_path))
        if problem is not None:
            return problem.replace("plan path", "plan_path", 1)
    if not candidate.name.endswith(".md") or candidate.name.startswith("."):
        return f"plan_path must be a .md file inside {where} (got {show(plan_path)})"
    return None


def _declares_read_only(schema: Mapping[str, Any] | None) -> bool:
    if schema is None:
        return False
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or "readOnly" not in properties:
        return False
    spec = properties["readOnly"]
    if not isinstance(spec, Mapping):
        return spec is True  # JSON schema allows `true` as "any value"
    kind = spec.get("type", "boolean")
    return kind == "boolean" or (isinstance(kind, list) and "boolean" in kind)


def _subagent(call: ToolCall) -> Decision:
    if not _declares_read_only(call.input_schema):
        return _deny(
            call,
            "this subagent's schema does not declare readOnly, so it cannot be forced read-only; "
            f"explore with the read / grep / find / ls tools, or {APPROVAL_FIX}",
        )
    forced = ToolCall(
        name=call.name,
        input={**call.input, "readOnly": True},
        annotations=call.annotations,
        builtin=call.builtin,
        input_schema=call.input_schema,
    )
    return _allow(forced, "subagent forced read-only")


def _hinted(call: ToolCall, policy: GatePolicy) -> Decision:
    from planview.gate.git_shell import FILE_TOOLS_HINT
    from planview.gate.path_guard import schema_takes_path, takes_path

    quoted = show(call.name)
    hint = call.annotations.get("readOnlyHint") if call.annotations is not None else None
    if hint is not True:
        return _deny(
            call,
            f"{quoted} is not known to be read-only (it does not declare readOnlyHint); "
            f"{FILE_TOOLS_HINT}, or {APPROVAL_FIX}",
        )
    if not policy.allow_read_only_hint:
        return _deny(
            call,
            f"{quoted} declares readOnlyHint, but hinted tools are turned off in plan mode by configuration; "
            f"{FILE_TOOLS_HINT}, or {APPROVAL_FIX}",
        )
    bases = (policy.project_root,) if policy.project_root is not None else ()
    found = takes_path(call.input, bases) or schema_takes_path(call.input_schema)
    if found is not None:
        return _deny(
            call,
            f"{quoted} declares readOnlyHint but takes a file path ({found}); in plan mode {FILE_TOOLS_HINT}",
        )
    return _allow(call, "readOnlyHint, no path arguments")
