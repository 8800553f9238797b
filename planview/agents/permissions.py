"""What a permission request or a client call means for planview's gate (pure).

An ACP agent asks `session/request_permission` with a tool call (kind, title, raw input, content)
and a list of options. planview maps the call onto a `planview.gate.ToolCall` so the one gate
decides it, recognises the agent's "exit plan mode" request, and picks the option to answer with.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from planview.gate.calls import ToolCall

MUTATING_KINDS = frozenset({"edit", "delete", "move", "execute"})
READ_KINDS = frozenset({"read", "search", "think"})
ALLOW_KINDS = (
    "allow_once",
    "allow_always",
)  # allow_once first: the agent keeps asking, so the pin is checked
REJECT_KINDS = ("reject_once", "reject_always")
_PATH_KEYS = ("file_path", "path", "filePath", "absolute_path", "notebook_path", "target", "destination")
_PLAN_FILE_KEYS = ("plan_path", "plan_filename", "planPath", "plan_file")
_MD_IN_TEXT = re.compile(r"(\S+\.md)\b")


def pick_option(options: Sequence[Any], kinds: Iterable[str]) -> str | None:
    """The id of the first option whose kind is in `kinds` (in that order of preference)."""
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return option.option_id
    return None


def is_exit_plan(kind: str | None, title: str, exit_titles: Iterable[str]) -> bool:
    if kind == "switch_mode":
        return True
    lowered = title.lower()
    return any(lowered.startswith(t) for t in exit_titles)


def plan_text(raw_input: Any, content_text: str) -> str | None:
    """The plan markdown an exit-plan request carries (Claude: rawInput.plan; others: the content)."""
    if isinstance(raw_input, Mapping):
        plan = raw_input.get("plan")
        if isinstance(plan, str) and plan.strip():
            return plan
    return content_text if content_text.strip() else None


def plan_file(raw_input: Any, title: str, locations: Sequence[str]) -> str | None:
    """A plan file an exit-plan request names (Gemini names the file instead of sending the text)."""
    if isinstance(raw_input, Mapping):
        for key in _PLAN_FILE_KEYS:
            value = raw_input.get(key)
            if isinstance(value, str) and value.endswith(".md"):
                return value
    for location in locations:
        if location.endswith(".md"):
            return location
    found = _MD_IN_TEXT.search(title)
    return found.group(1) if found else None


def target_paths(raw_input: Any, locations: Sequence[str]) -> list[str]:
    paths = list(locations)
    if isinstance(raw_input, Mapping):
        for key in _PATH_KEYS:
            value = raw_input.get(key)
            if isinstance(value, str) and value:
                paths.append(value)
    return paths


def command_of(raw_input: Any) -> str | None:
    if not isinstance(raw_input, Mapping):
        return None
    command = raw_input.get("command") or raw_input.get("cmd")
    if isinstance(command, str):
        return command
    if isinstance(command, list) and all(isinstance(part, str) for part in command):
        return shlex.join(command)
    return None


def in_folder(path: str, folder: Path, root: Path) -> bool:
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        return Path(candidate).resolve().is_relative_to(folder.resolve())
    except OSError:
        return False


def agent_git_refusal(project_root: Path) -> str | None:
    """Why an agent's own shell may not run even read-only git in plan mode here, or None.

    planview's bash runs plan-mode git with the repository's programs switched off; an agent runs
    an allowed command in its own shell, with its own environment, which planview cannot change."""
    from planview.gate.git_env import repository_programs

    named = repository_programs(project_root)
    if not named:
        return None
    shown = ", ".join(named[:4]) + (f" and {len(named) - 4} more" if len(named) > 4 else "")
    return (
        f"this repository names programs that git starts ({shown}); planview's own bash switches them off, "
        "but the agent runs git in its own shell, where they would run: read files with the agent's read "
        "tool instead, and run git after the plan is approved"
    )


def gate_call(
    kind: str | None, title: str, raw_input: Any, locations: Sequence[str], plans_dir: Path, root: Path
) -> ToolCall:
    """The planview gate's view of an agent's tool call."""
    if kind == "execute":
        command = command_of(raw_input)
        if command is None:
            return ToolCall("shell", {"title": title}, builtin=False)
        return ToolCall("bash", {"command": command})
    if kind in ("edit", "delete", "move"):
        paths = target_paths(raw_input, locations)
        if (
            kind == "edit"
            and paths
            and all(p.endswith(".md") and in_folder(p, plans_dir, root) for p in paths)
        ):
            return ToolCall("write_plan", {"plan_path": str(Path(paths[0]))})
        return ToolCall(kind, {"paths": paths}, builtin=False)
    if kind in READ_KINDS:
        # What it names gets the readers' rule (gate.read_scope): the project, and the plans in
        # planview's home. The first path outside goes to the gate as planview's own read of it.
        from planview.gate.read_scope import refusal

        for path in target_paths(raw_input, locations):
            if refusal(path, root) is not None:
                return ToolCall("read", {"path": path})
        return ToolCall(kind, {}, annotations={"readOnlyHint": True}, builtin=False)
    return ToolCall(kind or "other", {"title": title}, builtin=False)
