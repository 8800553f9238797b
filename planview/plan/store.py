"""The plan store: where plans live, what they are called, and the only way planview writes them.

Plans live in `<home>/plans`, where home is `$PLANVIEW_HOME`, else `<git toplevel>/.planview`, else
the per-user data folder. The home holds a `.gitignore` containing `*`, so nothing planview writes
ever shows up as untracked. Files are named `YYYY-MM-DD-HHmm-<slug>.md` (local time).

Every write passes the containment rules of `PlanStore.check_path` twice — when the path is
named and again right before the bytes land — and is atomic (see `planview.atomic`).
Plans are read and written as UTF-8 with `newline=""`: no byte changes behind the user's back.
"""

from __future__ import annotations

import hashlib
import os
import stat
import unicodedata
from collections import namedtuple
from collections.abc import Iterable, Mapping
from pathlib import Path

from planview import atomic
from planview.atomic import atomic_write
from planview.errors import PlanviewError, not_utf8
from planview.home import HomeLayout, blocking_file, default_home, ensure_home, find_project_root
from planview.lazy_regex import LazyPattern
from planview.plan.errors import (
    PlanChangedError,
    PlanContentError,
    PlanNotFoundError,
    PlanPathError,
    PlanReadError,
    PlanStoreError,
    PlanTitleError,
    PlanTooLargeError,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Any

    from planview.plan.summary_cache import Summary

__all__ = [
    "MAX_PLAN_BYTES",
    "PlanInfo",
    "PlanStore",
    "WrittenPlan",
    "list_plans",
    "decode_plan",
    "read_plan_bytes",
    "read_plan_text",
    "slugify",
]

MAX_PLAN_BYTES = 256 * 1024  # what planview saves and approves
MAX_READ_BYTES = 2 * 1024 * 1024  # what it reads as a plan (review, steps, plans): a hand-written long plan
SLUG_MAX = 60


class PlanInfo(
    namedtuple("PlanInfo", "path title steps_done steps_total mtime unreadable", defaults=(None,))
):
    """A saved plan as `planview plans` lists it."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    path: Path
    title: str
    steps_done: int
    steps_total: int
    mtime: float
    unreadable: str | None  # why it cannot be read as a plan (listed anyway, by file name)


class WrittenPlan(namedtuple("WrittenPlan", "path bytes")):
    """Where a save put the plan, and how many bytes it wrote."""

    __slots__ = ()  # a named tuple, not a dataclass: on every command's start-up (benchmarks/README.md)
    path: Path
    bytes: int


# ------------------------------------------------------------------------------------------- naming

_NOT_SLUG = LazyPattern(r"[^a-z0-9]+")


def _drop_marks(text: str) -> str:
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


def slugify(title: str) -> str:
    """NFKD, accents dropped, lowercase, runs of non-[a-z0-9] -> "-", trimmed, <= 60 chars, "plan" if empty."""
    # casefold turns "ß" into "ss"; the second pass drops marks casefolding can introduce ("İ").
    text = _drop_marks(_drop_marks(title).casefold())
    slug = _NOT_SLUG.sub("-", text).strip("-")
    slug = slug[:SLUG_MAX].rstrip("-")
    return slug or "plan"


def _show(value: object, limit: int = 160) -> str:
    """A path or title as it may be echoed in a one-line message: no control characters, bounded."""
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


# -------------------------------------------------------------------------------------------- reading


def resolve_plan_argument(raw: str | Path, plans_dir: Path | None, cwd: Path | None = None) -> Path:
    """A plan path as a user typed it on a command line (approve, status, steps, review, /plan review).

    Absolute: as is. Relative: from the current folder when it names a file there or has folders in
    it; a bare file name that is not in the current folder means that plan in `plans_dir`. A path
    that exists nowhere is a PlanNotFoundError saying where it was looked for (before any other
    rule: "not found" is the problem to fix first).
    """
    cwd = Path.cwd() if cwd is None else cwd
    path = Path(raw).expanduser()
    if path.is_absolute() or len(path.parts) > 1 or (cwd / path).exists() or plans_dir is None:
        found = path if path.is_absolute() else cwd / path
        if not os.path.lexists(found):
            raise PlanNotFoundError(
                f"plan not found: {_show(raw)}; check the path (`planview plans` lists saved plans)"
            )
        return found
    in_plans = Path(plans_dir) / path
    if (
        not os.path.lexists(in_plans)
        and not path.suffix
        and os.path.lexists(in_plans.with_name(path.name + ".md"))
    ):
        in_plans = in_plans.with_name(path.name + ".md")  # `planview steps 2026-01-14-1030-auth`
    if not os.path.lexists(in_plans):
        try:
            folder = Path(plans_dir).relative_to(cwd)
        except ValueError:
            folder = Path(plans_dir)
        raise PlanNotFoundError(
            f"plan not found: {_show(raw)} is neither in the current folder nor in {_show(folder)}; "
            "check the name (`planview plans` lists saved plans)"
        )
    return in_plans


MARKDOWN_SUFFIXES = (".md", ".markdown")


def resolve_markdown_plan(
    raw: str | Path, plans_dir: Path | None, cwd: Path | None = None, *, refusal: str | None = None
) -> Path:
    """The one plan-path check of a command that opens a plan (`planview review PATH`, `/plan review
    PATH`, `planview steps PATH`): the plan as resolve_plan_argument finds it, refused with `refusal`
    (a review's wording by default) when it is not Markdown (checked as typed, before any look-up, and
    again as found), so `/etc/passwd` never opens on a review screen."""
    typed = Path(raw).expanduser()
    refused = PlanPathError(
        refusal or f"{_show(str(raw))} is not a Markdown plan (.md); pass the plan file to review"
    )
    if typed.suffix and typed.suffix.lower() not in MARKDOWN_SUFFIXES:
        raise refused
    path = resolve_plan_argument(typed, plans_dir, cwd=cwd)  # a bare name: the plans folder
    if path.suffix.lower() not in MARKDOWN_SUFFIXES:
        raise refused
    return path


def check_plans_folder(plans_dir: Path, label: str) -> None:
    """PlanPathError when a file stands where the plans folder (or its home) should be: "no plans
    yet" would send the user looking for plans instead of at that file."""
    blocker = blocking_file(plans_dir)
    if blocker is not None:
        raise PlanPathError(f"{_show(blocker)} is not a folder, so {label} cannot hold plans; move it aside")


def plans_dir_for_cwd(start: Path | None = None) -> Path:
    """The plans folder the current folder's commands use (nothing is created)."""
    return default_home(find_project_root(start)) / "plans"


def read_plan_text(path: str | Path) -> str:
    """Read a plan exactly (UTF-8, no newline translation), every failure a typed, one-line error."""
    path = Path(path)
    return decode_plan(path, read_plan_bytes(path))


def read_plan_bytes(path: str | Path) -> bytes:
    """A plan's exact bytes (what approval seals); every failure a typed, one-line error."""
    from planview.fileguard import NotAFileError, TooLargeError, read_regular

    path = Path(path)
    try:
        # A FIFO or device would block open() or never end: only regular files are plans
        # (opened without blocking, checked with fstat), and only up to MAX_READ_BYTES.
        return read_regular(path, MAX_READ_BYTES, "plan")
    except NotAFileError as exc:
        if "a folder" in str(exc):
            raise PlanReadError(f"{_show(path)} is a folder; pass a Markdown plan file (.md)") from None
        raise PlanReadError(f"{_show(path)} is not a regular file; pass a Markdown plan file (.md)") from None
    except TooLargeError as exc:
        raise PlanTooLargeError(
            f"{_show(path)} is over the {MAX_READ_BYTES // (1024 * 1024)} MiB limit for reading a plan "
            f"(planview saves and approves plans up to {MAX_PLAN_BYTES // 1024} KiB); shorten or split it"
        ) from exc
    except FileNotFoundError as exc:
        raise PlanNotFoundError(
            f"plan not found: {_show(path)}; check the path (`planview plans` lists saved plans)"
        ) from exc
    except IsADirectoryError as exc:
        raise PlanReadError(f"{_show(path)} is a folder; pass a Markdown plan file (.md)") from exc
    except PermissionError as exc:
        raise PlanReadError(
            f"cannot read {_show(path)}: permission denied; check the file's permissions"
        ) from exc
    except OSError as exc:
        raise PlanReadError(f"cannot read {_show(path)}: {exc.strerror or exc}") from exc


def decode_plan(path: Path, data: bytes) -> str:
    """The plan's text; bytes that are not UTF-8 are a PlanReadError naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PlanReadError(f"{_show(path)} is {not_utf8(exc)}; save the plan as UTF-8") from exc


def _plan_files(folder: Path) -> list[tuple[Path, os.stat_result, str | None]]:
    """Visible .md entries directly in `folder`, with their lstat and, for an entry that is no
    regular file (a symlink, a FIFO, a folder), why it is not a plan. Such an entry is never opened:
    a FIFO would block the reader, and a link may point anywhere."""
    found: list[tuple[str, os.stat_result, str | None]] = []
    folder = Path(folder)
    try:
        dir_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except (FileNotFoundError, NotADirectoryError):
        return []
    try:
        # Each lstat relative to the open folder: the kernel looks up one name, not the whole path
        # again (10,000 plans: benchmarks/plans_scale.py); the same lstat DirEntry.stat makes.
        for name in os.listdir(dir_fd):
            if name.startswith(".") or not name.endswith(".md") or name.lower() == "readme.md":
                continue  # a folder's README describes the plans; it is not one
            try:
                info = os.lstat(name, dir_fd=dir_fd)
            except OSError:  # vanished between the listing and the stat
                continue
            odd = None if stat.S_ISREG(info.st_mode) else _not_a_plan(folder / name, info.st_mode)
            found.append((name, info, odd))
    finally:
        os.close(dir_fd)
    # Newest first; equal mtimes fall back to the name, later names (later stamps) first.
    found.sort(key=lambda item: (item[1].st_mtime_ns, item[0]), reverse=True)
    # Paths made as Path.iterdir makes them (pathlib's parse of each full path was most of listing
    # 10,000 plans: benchmarks/plans_scale.py).
    paths = _children(folder, [name for name, _, _ in found])
    return [(path, info, odd) for path, (_, info, odd) in zip(paths, found, strict=True)]


def _children(folder: Path, names: list[str]) -> list[Path]:
    """`folder / name` for each name, without parsing the folder's path again for every child."""
    make = getattr(folder, "_make_child_relpath", None)  # Path.iterdir's own (CPython 3.11-3.13)
    if make is None:
        return [folder / name for name in names]
    return [make(name) for name in names]


def _not_a_plan(path: Path, mode: int) -> str:
    """Why an entry that is no regular file is listed but not read (the same refusal status and approve give)."""
    from planview.fileguard import kind_of

    if not stat.S_ISLNK(mode):
        return f"{kind_of(mode)}, not a plan file; move it aside"
    try:
        target = os.readlink(path)
    except OSError:
        target = "?"
    if not os.path.exists(path):
        return f"a symbolic link to {_show(target)}, which does not exist; remove the link"
    return (
        f"a symbolic link to {_show(target)}; planview reads no links in the plans folder: "
        "replace the link with the plan file itself"
    )


def _summary(path: Path, odd: str | None) -> Summary:
    from planview.fileguard import TooLargeError, read_regular
    from planview.plan.document import parse_plan  # lazy: the path checks stay import-light
    from planview.plan.steps import extract_steps
    from planview.plan.summary_cache import Summary

    # Unreadable, not UTF-8 or over the cap: still listed (by file name), never silently dropped,
    # and marked with why, since steps, status and approve refuse it.
    text, unreadable = "", odd
    try:
        if odd is None:
            text = read_regular(path, MAX_READ_BYTES, "plan").decode("utf-8")
    except UnicodeDecodeError as exc:
        unreadable = not_utf8(exc)
    except TooLargeError:
        unreadable = f"over the {MAX_READ_BYTES // (1024 * 1024)} MiB limit for a plan"
    except OSError as exc:
        unreadable = exc.strerror or type(exc).__name__
    except PlanviewError as exc:
        unreadable = str(exc)
    title = parse_plan(text).title or path.stem
    steps = extract_steps(text).steps
    done = sum(1 for step in steps if step.completed)
    return Summary(title, done, len(steps), unreadable)


def list_plans(folder: Path, cache: Path | None = None) -> list[PlanInfo]:
    """The plans directly in `folder`, newest first (mtime, ties by name); dotfiles and README.md skipped,
    and a symlink, FIFO or folder named like a plan listed as unreadable (never opened).

    With `cache` (the home's `cache/plans.json`), a plan whose stat stamp is the one its summary was
    read at is not read again (planview/plan/summary_cache.py)."""
    from planview.plan.summary_cache import SummaryCache, stamp_of

    kept = SummaryCache(cache) if cache is not None else None
    infos = []
    names = set()
    for path, info, odd in _plan_files(Path(folder)):
        stamp, name = stamp_of(info), path.name
        names.add(name)
        summary = kept.get(name, stamp) if kept is not None else None
        if summary is None:
            summary = _summary(path, odd)
            if kept is not None:
                kept.put(name, stamp, summary)
        infos.append(
            PlanInfo(
                path,
                summary.title,
                summary.steps_done,
                summary.steps_total,
                info.st_mtime_ns / 1e9,
                summary.unreadable,
            )
        )
    if kept is not None:
        kept.keep_only(names)
        kept.save()
    return infos


# ---------------------------------------------------------------------------------------------- store


def _parts_below(absolute: Path, plans_dir: Path) -> tuple[str, ...] | None:
    for base in (Path(os.path.normpath(plans_dir)), Path(os.path.realpath(plans_dir))):
        if absolute.is_relative_to(base):
            return absolute.relative_to(base).parts
    return None


def containment_problem(
    absolute: Path, plans_dir: Path, *, where: str | None = None, shown: str | None = None
) -> str | None:
    """Why `absolute` (a normalised absolute path) is not a plan path in `plans_dir`, or None: the one
    rule every caller uses (the store's writes, the gate's fallback, the breach watcher).

    A plan path is lexically inside the plans folder (not the folder itself), ends in `.md`, has no
    component starting with `.`, is not a symlink or a folder, and its parent's real path is inside
    the real plans folder and exists (a plan in an existing sub-folder counts)."""
    where = str(plans_dir) if where is None else where
    shown = _show(str(absolute)) if shown is None else shown
    parts = _parts_below(absolute, plans_dir)
    if parts is None:
        return f"plan path must be a .md file inside {where} (got {shown})"
    if not parts:
        return f"plan path is the plans folder itself; name a .md file inside {where} (got {shown})"
    hidden = [part for part in parts if part.startswith(".")]
    if hidden:
        return (
            f"plan path must not name a hidden file or folder ({_show(hidden[0])}); "
            f"use a plain name like 2026-01-14-1030-my-plan.md inside {where} (got {shown})"
        )
    if not parts[-1].endswith(".md"):
        return f"plan path must be a .md file inside {where} (got {shown})"
    target = plans_dir.joinpath(*parts)
    if os.path.islink(target):
        return (
            f"plan path is a symlink and planview never writes through one; remove the link or "
            f"name a regular .md file inside {where} (got {shown})"
        )
    if os.path.isdir(target):
        return f"plan path is a folder; name a .md file inside {where} (got {shown})"
    real_parent = Path(os.path.realpath(target.parent))
    real_plans = Path(os.path.realpath(plans_dir))
    if not real_parent.is_relative_to(real_plans):
        return (
            f"plan path's folder resolves outside {where} (through a symlink); "
            f"name a .md file directly inside {where} (got {shown})"
        )
    if real_parent != real_plans and not real_parent.is_dir():
        return f"plan path's folder does not exist; name a .md file directly inside {where} (got {shown})"
    return None


class PlanStore:
    """The plans folder of one planview home (`home / "plans"`, created on demand)."""

    def __init__(
        self, home: Path, *, project_root: Path | None = None, plans_dir: Path | None = None
    ) -> None:
        self.home = Path(home).expanduser().absolute()
        # `plans_dir` narrows containment to another folder (browser review of a plan kept elsewhere).
        self.plans_dir = Path(plans_dir).absolute() if plans_dir is not None else HomeLayout(self.home).plans
        if project_root is None and self.home.name == ".planview":
            project_root = self.home.parent
        self.project_root = Path(project_root).absolute() if project_root is not None else None

    def __repr__(self) -> str:
        return f"PlanStore({str(self.home)!r})"

    @classmethod
    def for_cwd(cls, start: Path | None = None, *, create: bool = True) -> PlanStore:
        """The current folder's store; readers pass `create=False` (docs/LEDGER.md: they never write)."""
        root = find_project_root(start)
        home = default_home(root)
        if create:
            ensure_home(home)
        return cls(home, project_root=root)

    # -- display --------------------------------------------------------------------------------

    def relative(self, path: Path) -> str:
        """`path` for display: relative to the project root, else with ~ for the user's home, else absolute."""
        path = Path(os.path.normpath(Path(path).absolute()))
        if self.project_root is not None and path.is_relative_to(self.project_root):
            rel = path.relative_to(self.project_root).as_posix()
            return rel if rel != "." else "."
        user_home = Path.home()
        if path.is_relative_to(user_home):
            return "~/" + path.relative_to(user_home).as_posix()
        return str(path)

    @property
    def _folder_label(self) -> str:
        return self.relative(self.plans_dir)

    # -- containment -----------------------------------------------------------------------------

    def _absolute(self, path: str | Path) -> Path:
        try:
            raw = os.fspath(path)
        except TypeError:
            raw = None
        if not isinstance(raw, str) or not raw or "\x00" in raw:
            raise PlanPathError(
                f"plan path must be a .md file inside {self._folder_label} (got {_show(raw) if raw else 'an empty path'})"
            )
        candidate = Path(raw)
        if not candidate.is_absolute():
            # A bare file name means a plan in the folder; other relative paths are relative to
            # the project root (the folder the agent's tools work in).
            if len(candidate.parts) == 1 and raw not in (".", ".."):
                candidate = self.plans_dir / candidate
            else:
                candidate = (self.project_root or Path.cwd()) / candidate
        return Path(os.path.normpath(candidate))

    def _inside_part(self, absolute: Path) -> tuple[str, ...] | None:
        """The path's parts below the plans folder (spelled lexically or by its real path), else None."""
        return _parts_below(absolute, self.plans_dir)

    def check_path(self, path: str | Path) -> Path:
        """Apply the containment rules (`containment_problem`) and return the absolute path (spelled
        under `plans_dir`); raises PlanPathError naming the fix."""
        absolute = self._absolute(path)
        problem = containment_problem(absolute, self.plans_dir, where=self._folder_label, shown=_show(path))
        if problem is not None:
            raise PlanPathError(problem)
        parts = self._inside_part(absolute)
        assert parts is not None
        return self.plans_dir.joinpath(*parts)

    # -- naming ----------------------------------------------------------------------------------

    def new_path(self, title: str, now: datetime | None = None) -> Path:
        """A free `YYYY-MM-DD-HHmm-<slug>.md` path (local time); a taken name gets -2, -3, ..."""
        _check_title(title)
        from datetime import datetime  # only a new plan's name needs the clock

        moment = datetime.now() if now is None else (now.astimezone() if now.tzinfo else now)
        stem = f"{moment:%Y-%m-%d-%H%M}-{slugify(title)}"
        number = 1
        while True:
            name = f"{stem}.md" if number == 1 else f"{stem}-{number}.md"
            candidate = self.plans_dir / name
            if not os.path.lexists(candidate):  # lstat: a dangling symlink still takes the name
                return candidate
            number += 1

    # -- writing ---------------------------------------------------------------------------------

    def ensure_plans_dir(self) -> None:
        """Create the home and its plans folder (PlanStoreError naming the folder when it cannot)."""
        ensure_home(self.home)
        try:
            self.plans_dir.mkdir(exist_ok=True)
        except OSError as exc:
            raise PlanStoreError(f"cannot create {self.plans_dir}: {exc.strerror or exc}") from exc

    def _write_checked(self, path: Path, payload: bytes, *, exclusive: bool) -> bool:
        """Check containment once more, then write through a descriptor of the checked folder."""
        target = self.check_path(path)
        if not atomic._DIR_FD_OK:  # pragma: no cover - Windows: no dir_fd; best effort by path
            if exclusive and os.path.lexists(target):
                return False
            atomic_write(target, payload)
            return True
        try:
            dir_fd = atomic.open_dir(Path(os.path.realpath(target.parent)))
        except OSError as exc:
            raise PlanStoreError(
                f"cannot open {self.relative(target.parent)}: {exc.strerror or exc}"
            ) from exc
        try:
            # The folder we opened must still be the real, contained folder (not swapped for a
            # symlink between the check and the open); from here on every step goes through it.
            real_parent = os.path.realpath(target.parent)
            if not Path(real_parent).is_relative_to(os.path.realpath(self.plans_dir)) or not os.path.samestat(
                os.fstat(dir_fd), os.stat(real_parent)
            ):
                raise PlanPathError(
                    f"plan folder changed while saving; name a .md file inside {self._folder_label} "
                    f"and retry (got {_show(target)})"
                )
            atomic.sweep_temps(dir_fd)  # what writers killed mid-save left here
            return atomic.write_in_dir(dir_fd, target.name, payload, exclusive=exclusive)
        except OSError as exc:
            from planview.fileguard import explain

            raise PlanStoreError(
                explain(exc, f"write {self.relative(target)}") + "; the previous plan is unchanged"
            ) from exc
        finally:
            os.close(dir_fd)

    def write(self, title: str, content: str, plan_path: str | Path | None = None) -> WrittenPlan:
        """Save a plan: a new file named from `title`, or (with `plan_path`) overwrite that plan."""
        _check_title(title)
        payload = _encode_content(content)
        if plan_path is not None:
            target = self.check_path(plan_path)  # refuse before touching the disk at all
            self.ensure_plans_dir()
            self._write_checked(target, payload, exclusive=False)
            return WrittenPlan(path=target, bytes=len(payload))
        self.ensure_plans_dir()
        from datetime import datetime

        now = datetime.now()
        for _ in range(1000):
            target = self.new_path(title, now)
            # Exclusive publish: a concurrent writer that took the same name a moment ago is never
            # clobbered; we just move on to the next free suffix.
            if self._write_checked(target, payload, exclusive=True):
                return WrittenPlan(path=target, bytes=len(payload))
        raise PlanStoreError(
            f"could not find a free file name for {_show(title)!r}; remove old plans and retry"
        )

    def replace(self, path: str | Path, content: str, *, expected_sha256: str) -> bytes:
        """Overwrite a contained plan only while its bytes still hash to `expected_sha256` (else PlanChangedError).

        The check runs right before the atomic write, so a save made from a stale view (a browser
        page rendered before the agent saved again) is refused instead of overwriting newer text.
        Returns the bytes written (the old bytes when nothing changed)."""
        target = self.check_path(path)
        payload = _encode_content(content)
        current = read_plan_bytes(target)
        if hashlib.sha256(current).hexdigest() != expected_sha256:
            raise PlanChangedError(
                f"{self.relative(target)} changed on disk since it was shown; reload it and save again"
            )
        if current == payload:
            return current
        self._write_checked(target, payload, exclusive=False)
        return payload

    def read(self, path: str | Path) -> str:
        """Read a plan exactly. Relative paths: the current folder, then the project root, then the plans folder."""
        candidate = Path(path)
        if not candidate.is_absolute():
            for base in (Path.cwd(), self.project_root, self.plans_dir):
                if base is not None and os.path.lexists(base / candidate):
                    candidate = base / candidate
                    break
        return read_plan_text(candidate)

    def set_steps(self, path: str | Path, updates: Iterable[Any | Mapping[str, Any]]) -> str:
        """Set step checkboxes in a contained plan, all-or-nothing, in one atomic write; returns the new text."""
        from planview.plan.steps import set_steps as edit_steps

        target = self.check_path(path)
        if not os.path.lexists(target):
            raise PlanNotFoundError(
                f"plan not found: {self.relative(target)}; save it with write_plan first or pass an existing plan"
            )
        updates = list(updates)
        for _ in range(5):
            text = read_plan_text(target)
            new_text = edit_steps(text, updates)  # raises StepUpdateError naming the step; nothing written
            if new_text == text:
                return text
            payload = _encode_content(new_text)
            # Another writer may have saved the plan while we edited it: apply our change to theirs.
            if read_plan_text(target) != text:
                continue
            self._write_checked(target, payload, exclusive=False)
            return new_text
        raise PlanStoreError(f"{self.relative(target)} keeps changing on disk; retry when it is quiet")

    # -- listing ---------------------------------------------------------------------------------

    def list(self) -> list[PlanInfo]:
        """The folder's plans, newest first (mtime, ties by name); see `list_plans`."""
        return list_plans(self.plans_dir, cache=HomeLayout(self.home).plans_cache)

    def latest(self) -> Path | None:
        """The newest plan file (a symlink or FIFO named like one is never the plan to open)."""
        return next((path for path, _stat, odd in _plan_files(self.plans_dir) if odd is None), None)


def _check_title(title: str) -> None:
    if not isinstance(title, str) or not title.strip():
        raise PlanTitleError("plan title is blank; pass a short title such as 'Add rate limiting'")


def _encode_content(content: str) -> bytes:
    if not isinstance(content, str):
        raise PlanContentError(f"plan content must be Markdown text (got {type(content).__name__})")
    if not content.strip():
        raise PlanContentError(
            "plan content is empty; write the plan in Markdown (# Title, ## Goal, ## Steps, ...)"
        )
    try:
        payload = content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise PlanContentError(
            f"plan content is not valid Unicode text (unpaired surrogate at character {exc.start}); fix and retry"
        ) from exc
    if len(payload) > MAX_PLAN_BYTES:
        raise PlanTooLargeError(
            f"plan is {len(payload):,} bytes, over the {MAX_PLAN_BYTES // 1024} KiB limit; "
            "shorten it (move detail into linked files) and save again"
        )
    return payload
