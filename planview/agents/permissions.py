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


def _path_key(key: Any) -> bool:
    """A key whose value is a path or holds paths: path(s), file(s), filePath, dir_path, cwd, workdir,
    locations, target, destination, source, root, folder, include (matched loosely, any case)."""
    if not isinstance(key, str):
        return False
    norm = key.replace("_", "").replace("-", "").lower()
    return norm in _PATH_KEY_WORDS or any(norm.endswith(word) for word in _PATH_KEY_ENDINGS)


_PATH_KEY_WORDS = frozenset(
    {"cwd", "workdir", "workingdirectory", "target", "targets", "destination", "source", "sources", "root"}
    | {"include", "includes", "exclude", "locations", "location", "folder", "folders", "dir", "dirs"}
)
_PATH_KEY_ENDINGS = ("path", "paths", "file", "files", "directory", "directories", "dir", "dirs")
_WALK_LIMIT = 10_000  # values visited in one request (a hostile request is refused long before)


def _looks_like_path(value: str) -> bool:
    """A string under any key that names a place outside by its shape: absolute, home or parent."""
    return value.startswith(("/", "~", "../")) or value == ".."


# Keys whose strings are text, not places (a search pattern "/api/" is not a path outside).
_TEXT_KEYS = frozenset(
    {"pattern", "query", "regex", "text", "content", "description", "title", "prompt", "message", "plan"}
    | {"oldstring", "newstring", "oldtext", "newtext", "command", "cmd", "url"}
)


def _key_kind(key: Any, inherited: str) -> str:
    if inherited == "path" or _path_key(key):
        return "path"
    norm = key.replace("_", "").replace("-", "").lower() if isinstance(key, str) else ""
    return "text" if norm in _TEXT_KEYS else inherited


def target_paths(raw_input: Any, locations: Sequence[str]) -> list[str]:
    """Every path a request names: its locations, each string under a path-like key at any depth
    (nested objects, lists), and any other string shaped like an absolute, home or parent path
    (but under a text key: a pattern, a query, a command)."""
    paths = [p for p in locations if p]
    stack: list[tuple[Any, str]] = [(raw_input, "plain")]
    seen = 0
    while stack and seen < _WALK_LIMIT:
        value, kind = stack.pop()
        seen += 1
        if isinstance(value, str):
            if value and (kind == "path" or (kind == "plain" and _looks_like_path(value))):
                paths.append(value)
        elif isinstance(value, Mapping):
            stack.extend((v, _key_kind(k, kind)) for k, v in reversed(list(value.items())))
        elif isinstance(value, (list, tuple)):
            stack.extend((v, kind) for v in reversed(value))
    return paths


# Keys of an execute request the agent's own shell would apply to the command (normalised: no "_",
# "-", lower case): a working folder, an environment, running it detached from the turn.
_EXECUTE_EXTRAS = {
    "cwd": "cwd",
    "workdir": "workdir",
    "workingdirectory": "cwd",
    "env": "env",
    "environment": "env",
    "background": "background",
    "runinbackground": "run_in_background",
    "isbackground": "is_background",
    "detach": "background",
    "detached": "background",
}


def execute_extras(raw_input: Any) -> dict[str, Any]:
    """What an execute request asks for beyond its command, by the names the gate refuses them under
    (cwd, env, background flags); empty and false values are left out."""
    if not isinstance(raw_input, Mapping):
        return {}
    extras: dict[str, Any] = {}
    for key, value in raw_input.items():
        norm = key.replace("_", "").replace("-", "").lower() if isinstance(key, str) else ""
        if norm in _EXECUTE_EXTRAS and value not in (None, False, "", {}, [], "false", 0):
            extras[_EXECUTE_EXTRAS[norm]] = value
    return extras


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
        return ToolCall("bash", {"command": command, **execute_extras(raw_input)})
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
    # Any other kind (opencode asks `external_directory` as kind "other"): a path it names outside the
    # project gets the readers' rule and its sentence ("outside the project"), like a read would.
    from planview.gate.read_scope import refusal

    for path in target_paths(raw_input, locations):
        if refusal(path, root) is not None:
            return ToolCall("read", {"path": path})
    return ToolCall(kind or "other", {"title": title}, builtin=False)


def unknown_kind_refusal(kind: str | None, title: str, agent: str, plans: str) -> str:
    """The refusal for a permission planview cannot tell is read-only, in the agent's terms: what it
    asked (its title and ACP kind), and what it can do instead while planning."""
    asked = f'"{title}"' if title else "a tool call"
    return (
        f'{agent} asked for {asked} (permission kind "{kind or "none"}"), which planview cannot tell is '
        f"read-only, so it is refused in plan mode; read the project's files with your read and search "
        f"tools, write the plan as a Markdown file in {plans}, and ask for this again after the plan is approved"
    )
