"""planview's hooks in Claude Code's settings files: install, uninstall, find.

Claude Code reads `.claude/settings.json` (project, shared), `.claude/settings.local.json` (project,
personal) and `~/.claude/settings.json` (user); hooks from all of them merge. planview adds one
PreToolUse hook for every tool (`"matcher": "*"`) and one PermissionRequest hook for ExitPlanMode,
both running `planview claude hook`. Everything else in the file is kept: keys keep their order and
the file keeps its indentation, so an install followed by an uninstall gives back the same bytes for
a file written in JSON's usual layout. A file that is not a JSON object is refused, never rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from planview.errors import PlanviewError

__all__ = [
    "HOOK_TIMEOUT",
    "ClaudeSettingsError",
    "Scope",
    "hook_command",
    "install",
    "installed_command",
    "settings_path",
    "uninstall",
]

Scope = Literal["project", "local", "user"]
HOOK_TIMEOUT = 3600  # seconds: ExitPlanMode waits for a person's review through the same hook
ENTRIES: tuple[tuple[str, str], ...] = (("PreToolUse", "*"), ("PermissionRequest", "ExitPlanMode"))


class ClaudeSettingsError(PlanviewError):
    """A Claude settings file planview cannot safely change."""


@dataclass(frozen=True)
class Change:
    """What `planview claude install` or `uninstall` changed in one settings file, for its report."""

    path: Path
    added: tuple[str, ...]  # "PreToolUse (matcher *)", ...
    removed: tuple[str, ...]
    command: str
    before: bytes | None = None  # install: the file's bytes before (None: there was no file)
    after: bytes | None = None  # install: the bytes written
    deleted: bool = False  # uninstall: the file planview had created was removed, not left as {}


def settings_path(scope: Scope, project_root: Path) -> Path:
    if scope == "user":
        base = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
        return (Path(base).expanduser() if base else Path.home() / ".claude") / "settings.json"
    name = "settings.local.json" if scope == "local" else "settings.json"
    return project_root / ".claude" / name


def _this_planview() -> list[str]:
    """This planview by absolute path: Claude Code runs hooks with its own PATH and folder."""
    argv0 = sys.argv[0] if sys.argv else ""
    if Path(argv0).name.startswith("planview"):
        found = argv0 if os.sep in argv0 else shutil.which(argv0)
        if found:
            return [str(Path(found).absolute())]
    return [sys.executable, "-m", "planview"]


def hook_command(planview: list[str] | None = None) -> str:
    words = planview if planview is not None else _this_planview()
    return shlex.join([*words, "claude", "hook", "--timeout", str(HOOK_TIMEOUT)])


def _is_ours(command: Any) -> bool:
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    for i in range(1, len(words) - 1):
        if words[i : i + 2] == ["claude", "hook"]:
            before = words[:i]
            if Path(before[-1]).name == "planview" or before[-2:] == ["-m", "planview"]:
                return True
    return False


def _load(path: Path) -> tuple[dict[str, Any], int | str, bool]:
    """The settings object, its indent and whether the file ended in a newline ({} for no file)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}, 2, True
    except OSError as exc:
        raise ClaudeSettingsError(f"cannot read {path}: {exc.strerror or exc}") from exc
    try:
        text = raw.decode("utf-8")
        data = json.loads(text) if text.strip() else {}
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ClaudeSettingsError(
            f"{path} is not valid JSON ({exc}); fix it (Claude Code cannot read it either), then run this again"
        ) from None
    if not isinstance(data, dict):
        raise ClaudeSettingsError(f"{path} must hold a JSON object; planview left it unchanged")
    indent: int | str = 2
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and stripped != line:
            lead = line[: len(line) - len(stripped)]
            indent = lead if "\t" in lead else len(lead)
            break
    return data, indent, text.endswith("\n") or not text


def _hooks(data: dict[str, Any], path: Path) -> dict[str, Any]:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ClaudeSettingsError(f'"hooks" in {path} is not an object; planview left the file unchanged')
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            raise ClaudeSettingsError(
                f'"hooks.{event}" in {path} is not a list; planview left the file unchanged'
            )
    return hooks


def _save(path: Path, data: dict[str, Any], indent: int | str, newline: bool) -> bytes:
    text = json.dumps(data, indent=indent, ensure_ascii=False) + ("\n" if newline else "")
    _write(path, text.encode("utf-8"))
    return text.encode("utf-8")


def _write(path: Path, payload: bytes) -> None:
    from planview.atomic import atomic_write

    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        atomic_write(path, payload)
    except OSError as exc:
        raise ClaudeSettingsError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ClaudeSettingsError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _strip_ours(entries: list[Any]) -> tuple[list[Any], bool]:
    """Entries without planview's hook commands (an entry left with no hooks goes)."""
    kept, removed = [], False
    for entry in entries:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        if isinstance(inner, list) and any(isinstance(h, dict) and _is_ours(h.get("command")) for h in inner):
            removed = True
            rest = [h for h in inner if not (isinstance(h, dict) and _is_ours(h.get("command")))]
            if rest:
                kept.append({**entry, "hooks": rest})
            continue
        kept.append(entry)
    return kept, removed


def install(path: Path, command: str) -> Change:
    before = _read(path)
    data, indent, newline = _load(path)
    hooks = _hooks(data, path)
    added: list[str] = []
    for event, matcher in ENTRIES:
        entries, _ = _strip_ours(list(hooks.get(event, [])))
        entries.append(
            {"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]}
        )
        hooks[event] = entries
        added.append(f"{event} (matcher {matcher})")
    data["hooks"] = hooks
    after = _save(path, data, indent, newline)
    return Change(path, tuple(added), (), command, before=before, after=after)


def uninstall(path: Path, installed: tuple[bytes | None, str] | None = None) -> Change:
    """Remove planview's hooks. `installed` is what install recorded (the bytes before, the SHA-256 of
    the bytes it wrote): a file unchanged since is given back byte for byte (removed when there was none); a file
    changed since loses only planview's entries, and is removed when that leaves the `{}` planview made."""
    current = _read(path)
    if current is None:
        return Change(path, (), (), "")
    data, indent, newline = _load(path)
    hooks = _hooks(data, path)
    removed: list[str] = []
    for event in list(hooks):
        entries, did = _strip_ours(hooks[event])
        if did:
            removed.append(event)
            if entries:
                hooks[event] = entries
            else:
                del hooks[event]
    if not removed:
        return Change(path, (), (), "")
    if installed is not None and hashlib.sha256(current).hexdigest() == installed[1]:
        return _restore(path, installed[0], tuple(removed))
    if hooks:
        data["hooks"] = hooks
    else:
        del data["hooks"]
    if not data and installed is not None and installed[0] is None:
        return _restore(path, None, tuple(removed))
    _save(path, data, indent, newline)
    return Change(path, (), tuple(removed), "")


def _restore(path: Path, before: bytes | None, removed: tuple[str, ...]) -> Change:
    if before is not None:
        _write(path, before)
        return Change(path, (), removed, "")
    try:
        path.unlink()
    except OSError as exc:
        raise ClaudeSettingsError(f"cannot remove {path}: {exc.strerror or exc}") from exc
    return Change(path, (), removed, "", deleted=True)


def installed_command(path: Path) -> str | None:
    """planview's hook command in that settings file, or None when it has none (or there is no file);
    ClaudeSettingsError when the file cannot be read (not JSON, not an object, no permission)."""
    data, _, _ = _load(path)
    hooks = _hooks(data, path)
    for entries in hooks.values():
        for entry in entries:
            inner = entry.get("hooks") if isinstance(entry, dict) else None
            for hook in inner if isinstance(inner, list) else ():
                if isinstance(hook, dict) and _is_ours(hook.get("command")):
                    return str(hook["command"])
    return None
