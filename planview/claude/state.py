"""planview's memory of Claude Code sessions: its plan-mode switch and each session's approval pin.

Lives in `<home>/claude/`: `mode.json` (the project switch set by `planview claude plan on|off`)
and `sessions/<session_id>.json` (the session's plan file, its mode, the approval it is pinned to,
and the plan's stat when the pin was last verified, so an unchanged plan is not hashed again on
every tool call). The one exception is each open review's URL (`new_review_url`): it holds a
one-time link to the page, so it waits outside the project, one file per review. Written atomically; a file that cannot be read is treated as "no state", which
can only make planview stricter (a lost pin means plan mode, never an unpinned execute mode).
"""

from __future__ import annotations

import json
import os
from collections import namedtuple
from pathlib import Path

from planview.atomic import atomic_write
from planview.errors import PlanviewError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's start-up)
if TYPE_CHECKING:
    from typing import Any, Literal

    SessionMode = Literal["plan", "execute", ""]

__all__ = ["ClaudeState", "Pin", "SessionState"]

_MAX_STATE_BYTES = 64 * 1024


# Named tuples, not dataclasses: read and written on every hook call (benchmarks/README.md).
class Pin(
    namedtuple("Pin", "seq canonical_sha256 plan stat skeleton code", defaults=((0, 0, 0, 0), "", None))
):
    """The approval a Claude session executes under: one ledger event, one canonical hash.

    `skeleton` and `code` are the last verified text's `canonical.CanonicalParts`: a plan changed
    only by ticked boxes is re-hashed from them, exactly, without the Markdown parser. They are as
    trusted as `stat` (the same file, which an agent in execute mode could rewrite either way: the
    pin detects, it does not prevent); a malformed value is dropped and the plan parsed in full."""

    __slots__ = ()
    seq: int
    canonical_sha256: str
    plan: str  # absolute path of the approved plan file
    stat: tuple[int, ...]  # fileguard.stat_stamp (size, mtime_ns, ctime_ns, inode) when last verified
    skeleton: str  # CanonicalParts.skeleton of the last verified text; "" = unknown
    code: tuple[tuple[int, int], ...] | None  # its CanonicalParts.code_ranges (None: not computed)


class SessionState(
    namedtuple("SessionState", "mode plan pin steps_offered notes", defaults=("", "", None, False, ()))
):
    """One Claude Code session as planview remembers it between hook calls (`sessions/<id>.json`)."""

    __slots__ = ()
    mode: SessionMode  # "" (the default) = follow Claude's permission_mode and the project switch
    plan: str  # the planview plan file this session's ExitPlanMode writes; default ""
    pin: Pin | None  # default None
    steps_offered: bool  # default False
    notes: tuple[str, ...]  # one-shot messages for the next answer; default ()

    def to_json(self) -> dict[str, Any]:
        pin = None
        if self.pin is not None:
            code = None if self.pin.code is None else [list(r) for r in self.pin.code]
            pin = {**self.pin._asdict(), "stat": list(self.pin.stat), "code": code}
        return {
            "mode": self.mode,
            "plan": self.plan,
            "pin": pin,
            "steps_offered": self.steps_offered,
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: Any) -> SessionState:
        if not isinstance(data, dict):
            return cls()
        pin = data.get("pin")
        parsed_pin = None
        if isinstance(pin, dict):
            try:
                stat = tuple(int(x) for x in pin.get("stat", (0, 0, 0, 0)))
                parsed_pin = Pin(
                    seq=int(pin["seq"]),
                    canonical_sha256=str(pin["canonical_sha256"]),
                    plan=str(pin["plan"]),
                    stat=stat if len(stat) == 4 else (0, 0, 0, 0),  # an older 3-field stat: hash again
                    **_known_parts(pin.get("skeleton"), pin.get("code")),
                )
            except (KeyError, TypeError, ValueError):
                parsed_pin = None
        mode = data.get("mode", "")
        return cls(
            mode=mode if mode in ("plan", "execute", "") else "plan",
            plan=data.get("plan", "") if isinstance(data.get("plan"), str) else "",
            # An execute mode without a readable pin is not trusted: back to planning.
            pin=parsed_pin,
            steps_offered=bool(data.get("steps_offered", False)),
            notes=tuple(n for n in data.get("notes", ()) if isinstance(n, str)),
        )


def _known_parts(skeleton: Any, code: Any) -> dict[str, Any]:
    """The pin's skeleton and code ranges if well-formed (a 64-hex digest, ordered 1-based line
    ranges), else none: the hook then parses the plan in full, which is never wrong."""
    if not (
        isinstance(skeleton, str) and len(skeleton) == 64 and all(c in "0123456789abcdef" for c in skeleton)
    ):
        return {}
    if code is None:
        return {"skeleton": skeleton}
    if not isinstance(code, list) or len(code) > 10_000:
        return {}
    ranges: list[tuple[int, int]] = []
    last = 0
    for item in code:
        if not (isinstance(item, list) and len(item) == 2 and all(type(x) is int for x in item)):
            return {}
        start, end = item
        if not last < start <= end:
            return {}
        ranges.append((start, end))
        last = end
    return {"skeleton": skeleton, "code": tuple(ranges)}


def _read_json(path: Path) -> Any:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        import stat as stat_module

        if not stat_module.S_ISREG(os.fstat(fd).st_mode):
            return None  # a FIFO or device must not block the hook
        data = os.read(fd, _MAX_STATE_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > _MAX_STATE_BYTES:
        return None
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


class ClaudeState:
    """The state folder of one planview home."""

    def __init__(self, home: Path) -> None:
        self.folder = Path(home) / "claude"

    @property
    def review_urls(self) -> Path:
        """Where open browser reviews' URLs wait (for `planview claude status`): a per-user state
        folder outside the project, one folder per home and one file per review (two Claude sessions
        can wait at once). A URL opens the page that approves the plan, and plan-mode readers
        (planview's, Claude's Read, git grep) read the project."""
        import hashlib

        import platformdirs

        key = hashlib.sha256(os.fsencode(os.path.realpath(self.folder))).hexdigest()[:24]
        return platformdirs.user_state_path("planview", appauthor=False) / "review-urls" / key

    def new_review_url(self) -> Path:
        """The file one new review's URL waits in (the caller writes it 0600 and removes it)."""
        import uuid

        return self.review_urls / f"{uuid.uuid4().hex}.url"

    def waiting_reviews(self) -> list[str]:
        """The URLs of the reviews waiting now, oldest first."""
        from planview.fileguard import read_regular

        try:
            files = sorted(self.review_urls.glob("*.url"), key=lambda p: (p.stat().st_mtime_ns, p.name))
        except OSError:
            return []
        urls = []
        for path in files:
            try:
                urls.append(read_regular(path, 4096, "review URL").decode("utf-8", "replace").strip())
            except (OSError, PlanviewError):
                continue  # gone meanwhile (the review ended), or not a file
        return [url for url in urls if url]

    def _session_path(self, session_id: str) -> Path:
        return self.folder / "sessions" / f"{session_id}.json"

    # -- the project switch ----------------------------------------------------------------
    def project_plan_mode(self) -> bool:
        data = _read_json(self.folder / "mode.json")
        return isinstance(data, dict) and data.get("plan") is True

    def set_project_plan_mode(self, on: bool) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.folder / "mode.json", json.dumps({"plan": on}) + "\n")

    # -- what `planview claude install` changed, so `uninstall` can give it back -------------
    def record_install(self, path: Path, before: bytes | None, after: bytes) -> None:
        import base64
        import hashlib

        installs = self._installs()
        installs[str(path)] = {
            "before": None if before is None else base64.b64encode(before).decode("ascii"),
            "after_sha256": hashlib.sha256(after).hexdigest(),
        }
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write(self.folder / "installs.json", json.dumps(installs, indent=1) + "\n")

    def recorded_install(self, path: Path) -> tuple[bytes | None, str] | None:
        """(the file's bytes before install or None, the SHA-256 of what install wrote), if recorded."""
        import base64
        import binascii

        entry = self._installs().get(str(path))
        if not isinstance(entry, dict) or not isinstance(entry.get("after_sha256"), str):
            return None
        before = entry.get("before")
        try:
            return (
                None if before is None else base64.b64decode(before, validate=True),
                entry["after_sha256"],
            )
        except (binascii.Error, TypeError, ValueError):
            return None

    def drop_install(self, path: Path) -> None:
        installs = self._installs()
        if installs.pop(str(path), None) is not None:
            atomic_write(self.folder / "installs.json", json.dumps(installs, indent=1) + "\n")

    def forget(self) -> None:
        """planview's Claude state for this project: the plan-mode switch, sessions and install records."""
        import shutil

        shutil.rmtree(self.folder, ignore_errors=True)

    def _installs(self) -> dict[str, Any]:
        data = _read_json(self.folder / "installs.json")
        return data if isinstance(data, dict) else {}

    # -- sessions --------------------------------------------------------------------------
    def session(self, session_id: str) -> SessionState:
        state = SessionState.from_json(_read_json(self._session_path(session_id)))
        if state.mode == "execute" and state.pin is None:
            return state._replace(mode="plan")
        return state

    def save(self, session_id: str, state: SessionState) -> None:
        path = self._session_path(session_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(state.to_json(), indent=1) + "\n")

    def sessions(self) -> list[tuple[str, SessionState]]:
        folder = self.folder / "sessions"
        try:
            names = sorted(p.stem for p in folder.glob("*.json"))
        except OSError:
            return []
        return [(name, self.session(name)) for name in names]
