"""Sessions on disk: JSON Lines under `<home>/sessions/<id>.jsonl`, append-only.

Line types:
  {"type": "meta", "id", "created", "project_root", "provider"}      first line
  {"type": "message", "message": {...}}      one per conversation message (session/conversation.py)
  {"type": "state", "mode", "plan_path", "approval", "todos", "deferred"}   after every change; last wins

Appending (never rewriting) means a crash loses at most the line being written: a torn or
unreadable *last* line (ENOSPC, SIGKILL mid-write) is dropped on resume with a one-line notice
(`SavedSession.dropped`) and cut off before the session appends again. Any other line that does
not parse is reported with the file and line number instead of being skipped silently.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from planview.errors import PlanviewError
from planview.fileguard import NotAFileError, TooLargeError, explain, open_regular, read_regular
from planview.home import HomeLayout
from planview.nesting import too_deep_json
from planview.session.conversation import Message, from_json
from planview.session.events import Todo

MAX_SESSION_BYTES = 256 * 1024 * 1024  # a session file is read whole on resume


class SessionFileError(PlanviewError):
    """A saved session cannot be read; the message names the file and line."""


class SessionNotFoundError(PlanviewError):
    """No saved session matches the id (or none exists)."""


@dataclass(frozen=True)
class SessionState:
    """A session file's `state` line: mode, plan, approval, todos and the provider's resume point."""

    mode: str = "execute"
    plan_path: str | None = None
    approval: Mapping[str, Any] | None = None
    todos: tuple[Todo, ...] = ()
    deferred: tuple[str, ...] = ()
    provider: Mapping[str, Any] | None = None  # the provider's own resume point (a script's line)
    seen_approval: int | None = None  # newest ledger seq this session pinned (a newer one came from outside)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "state",
            "mode": self.mode,
            "plan_path": self.plan_path,
            "approval": dict(self.approval) if self.approval else None,
            "todos": [asdict(t) for t in self.todos],
            "deferred": list(self.deferred),
            "provider": dict(self.provider) if self.provider else None,
            "seen_approval": self.seen_approval,
        }


@dataclass(frozen=True)
class SavedSession:
    """A session file as read back: its meta, conversation, last state, and any torn last line."""

    id: str
    path: Path
    meta: Mapping[str, Any]
    conversation: tuple[Message, ...]
    state: SessionState | None = None
    lines: int = 0
    dropped: str | None = None  # the notice when a torn/unreadable last line was left out
    good_bytes: int | None = None  # the file's length without that line (the writer cuts it off)


@dataclass
class SessionLog:
    """The append-only writer for one session's file."""

    home: Path
    id: str
    path: Path = field(init=False)

    def __post_init__(self) -> None:
        self.path = HomeLayout(Path(self.home)).session(self.id)

    @staticmethod
    def new_id(now: datetime | None = None) -> str:
        now = now or datetime.now(UTC)
        return f"{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"

    def exists(self) -> bool:
        return self.path.exists()

    def start(self, meta: Mapping[str, Any]) -> None:
        if not self.path.exists():
            self._append(
                {"type": "meta", "id": self.id, "created": datetime.now(UTC).isoformat(), **meta}, sync=True
            )

    def drop_torn_tail(self, good_bytes: int) -> None:
        """Cut the file back to its last good line, so the next append does not land after a torn one."""
        try:
            fd = open_regular(self.path, os.O_WRONLY)
            try:
                os.ftruncate(fd, good_bytes)
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise SessionFileError(explain(exc, f"drop the torn last line of {self.path}")) from exc

    def message(self, message: Message) -> None:
        self._append({"type": "message", "message": message.to_json()})

    def state(self, state: SessionState) -> None:
        self._append(state.to_json(), sync=True)

    def _append(self, record: Mapping[str, Any], sync: bool = False) -> None:
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode(
            "utf-8"
        )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = open_regular(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        except NotAFileError as exc:
            raise SessionFileError(str(exc)) from None
        except OSError as exc:
            raise SessionFileError(explain(exc, f"save the session to {self.path}")) from exc
        try:
            old_length = os.fstat(fd).st_size
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                if sync:
                    os.fsync(fd)
            except OSError as exc:
                try:  # a short write leaves no torn line for the next append to follow
                    os.ftruncate(fd, old_length)
                except OSError:
                    pass  # the next resume leaves the torn last line out
                raise SessionFileError(explain(exc, f"save the session to {self.path}")) from exc
        finally:
            os.close(fd)


def sessions_dir(home: Path) -> Path:
    return HomeLayout(Path(home)).sessions


def list_sessions(home: Path) -> list[Path]:
    """Saved session files, newest first (modification time, ties by name)."""
    folder = sessions_dir(home)
    if not folder.is_dir():
        return []
    files = [p for p in folder.glob("*.jsonl") if p.is_file() and not p.name.startswith(".")]
    return sorted(files, key=lambda p: (p.stat().st_mtime_ns, p.name), reverse=True)


def find_session(home: Path, session_id: str | None = None) -> Path:
    files = list_sessions(home)
    if not files:
        raise SessionNotFoundError(
            f"no saved sessions in {sessions_dir(home)}; start one with `planview` "
            '(or, without a terminal, `planview run "task"`)'
        )
    if session_id is None:
        return files[0]
    exact = [p for p in files if p.stem == session_id]
    if exact:
        return exact[0]
    matches = [p for p in files if p.stem.startswith(session_id)]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        names = ", ".join(p.stem for p in matches[:5])
        raise SessionNotFoundError(f"session id {session_id!r} is ambiguous ({names}); give more of it")
    recent = ", ".join(p.stem for p in files[:5])
    raise SessionNotFoundError(
        f"no session {session_id!r}; recent sessions: {recent} (or --resume for the newest)"
    )


def load_session(home: Path, session_id: str | None = None) -> SavedSession:
    path = find_session(home, session_id)
    return read_session(path)


def saved_provider(home: Path, session_id: str | None = None) -> Mapping[str, Any] | None:
    """The provider snapshot a saved session ran with (a script's path, a model), if any."""
    state = load_session(home, session_id).state
    return state.provider if state else None


def read_session(path: Path) -> SavedSession:
    try:
        raw = read_regular(path, MAX_SESSION_BYTES, "session file")
    except (NotAFileError, TooLargeError) as exc:
        raise SessionFileError(str(exc)) from None
    except OSError as exc:
        raise SessionFileError(explain(exc, f"read {path}")) from exc
    meta: Mapping[str, Any] = {}
    conversation: list[Message] = []
    state: SessionState | None = None
    lines = raw.split(b"\n")
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    dropped: str | None = None
    good_bytes: int | None = None
    offset = 0
    number = 0
    for index, line in enumerate(lines):
        number = index + 1
        start, offset = offset, offset + len(line) + 1
        if not line.strip():
            continue
        fix = "delete that line (or the file) and resume again, or start a new session without --resume"
        try:
            record = _record(line)
        except ValueError as exc:
            if index != last:
                raise SessionFileError(f"{path}: line {number}: {exc}; {fix}") from exc
            # The last line cannot be read: a save cut short (a full disk, a kill). The rest stands.
            dropped = (
                f"{path.name}: left out its unreadable last line {number} ({exc}: a save was "
                "interrupted); resuming from the line before"
            )
            good_bytes, number = start, number - 1
            break
        try:
            kind = record.get("type") if isinstance(record, dict) else None
            if kind == "meta":
                meta = record
            elif kind == "message":
                conversation.append(from_json(record["message"]))
            elif kind == "state":
                state = _state(record)
            else:
                raise ValueError(f"unknown record type {kind!r}")
        except (KeyError, TypeError, ValueError) as exc:
            raise SessionFileError(f"{path}: line {number}: {exc}; {fix}") from exc
    return SavedSession(path.stem, path, meta, tuple(conversation), state, number, dropped, good_bytes)


def _record(line: bytes) -> Any:
    """One line's JSON value; ValueError (UTF-8, JSON, nesting) says what is wrong with it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError("not UTF-8 text") from exc
    if too_deep_json(text):
        raise ValueError("nested too deeply")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON ({exc.msg})") from exc
    except RecursionError as exc:  # pragma: no cover - too_deep_json catches it first
        raise ValueError("nested too deeply") from exc


def _state(record: Mapping[str, Any]) -> SessionState:
    mode = record.get("mode")
    if mode not in ("plan", "execute"):
        raise ValueError(f"mode must be plan or execute, not {mode!r}")
    todos = tuple(Todo(t["text"], t.get("status", "pending")) for t in record.get("todos") or ())
    for t in todos:
        if not isinstance(t.text, str):
            raise ValueError("a todo's text must be a string")
        if t.status not in ("pending", "in_progress", "completed"):
            raise ValueError(f"todo status {t.status!r} is unknown")
    plan_path = record.get("plan_path")
    if plan_path is not None and not (isinstance(plan_path, str) and plan_path):
        raise ValueError("plan_path must be a path string or null")
    approval = record.get("approval")
    if approval is not None and not isinstance(approval, dict):
        raise ValueError("approval must be an object or null")
    deferred: Sequence[str] = record.get("deferred") or ()
    provider = record.get("provider")
    if provider is not None and not isinstance(provider, dict):
        raise ValueError("provider must be an object or null")
    seen = record.get("seen_approval")
    if seen is not None and not isinstance(seen, int):
        raise ValueError("seen_approval must be a number or null")
    return SessionState(mode, plan_path, approval, todos, tuple(str(d) for d in deferred), provider, seen)
