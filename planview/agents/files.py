"""The agent's file requests, answered inside the project only.

Whatever the agent names, a file (or a terminal's working folder) is served only when its real
path (symlinks followed) is inside the project; a plan the agent names for review is read only
when it is a bounded `.md` regular file. Whether a write is allowed is the session's rule (plan
mode, the pin); how it is refused is here, so every refusal reads the same.
"""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

from acp import RequestError

from planview.fileguard import NotAFileError, OutsideError, TooLargeError, open_regular_within, read_regular

PLAN_READ_CAP = 1_000_000  # bytes of a plan file an agent names outside the project
READ_CAP = 16 * 1024 * 1024  # bytes of one fs/read_text_file answer
NOT_INSIDE = -32000
CANNOT_READ = -32002


def inside(project_root: Path, raw: str) -> Path:
    """The real path of `raw` (relative: to the project); RequestError when it is outside."""
    path = Path(raw)
    if not path.is_absolute():
        path = project_root / path
    try:
        real = Path(os.path.realpath(path))
    except (OSError, ValueError) as exc:  # a link that changed while it was resolved; a NUL byte
        raise RequestError(
            CANNOT_READ, f"cannot resolve {raw}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    if not real.is_relative_to(Path(os.path.realpath(project_root))):
        raise RequestError(
            NOT_INSIDE,
            f"{raw} is outside the project ({project_root}); planview only serves files inside it",
        )
    return real


async def read_lines(
    target: Path, shown: str, line: int | None, limit: int | None, project_root: Path
) -> str:
    """fs/read_text_file: the file's text, or `limit` lines from 1-based `line`.

    Only a regular file is opened (without blocking: a FIFO in the project would hold the thread
    forever), only one that lies in the project once opened (`inside` resolved the path first, but a
    link swapped in meanwhile would lead the open out), and at most READ_CAP bytes come back, since
    the answer is one JSON-RPC message."""
    roots = (Path(os.path.realpath(project_root)),)
    try:
        return await asyncio.to_thread(_read_text, target, line, limit, roots)
    except OutsideError:
        raise RequestError(
            NOT_INSIDE, f"{shown} led outside the project while it was opened (a link changed); read it again"
        ) from None
    except NotAFileError:
        raise RequestError(CANNOT_READ, f"cannot read {shown}: it is not a regular file") from None
    except TooLargeError:
        raise RequestError(
            CANNOT_READ,
            f"{shown} is over {READ_CAP // (1024 * 1024)} MiB; read it in parts with line and limit",
        ) from None
    except OSError as exc:
        raise RequestError(CANNOT_READ, f"cannot read {shown}: {exc.strerror or exc}") from None


def _read_text(target: Path, line: int | None, limit: int | None, roots: tuple[Path, ...]) -> str:
    if line is None and limit is None:
        return read_regular(target, READ_CAP, "file", roots).decode("utf-8", errors="replace")
    start = max((line or 1) - 1, 0)
    chunks: list[bytes] = []
    size = 0
    with os.fdopen(open_regular_within(target, roots), "rb") as handle:
        for number, raw in enumerate(handle):
            if number < start:
                continue
            if limit is not None and number >= start + limit:
                break
            size += len(raw)
            if size > READ_CAP:
                raise TooLargeError(str(target))
            chunks.append(raw)
    return b"".join(chunks).decode("utf-8", errors="replace")


def read_named_plan(project_root: Path, named: str) -> str | None:
    """The plan file an exit-plan request names: a regular `.md` file of bounded size, else None."""
    path = Path(named)
    if not path.is_absolute():
        path = project_root / path
    try:
        if path.suffix != ".md" or not path.is_file() or path.stat().st_size > PLAN_READ_CAP:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def plan_title(text: str) -> str:
    """The plan's first H1, for its file name ("Plan" without one)."""
    found = re.search(r"^#\s+(.+?)\s*#*\s*$", text, re.MULTILINE)
    return found.group(1).strip() if found else "Plan"


def plan_mode_write_refusal(rel: str, plans_rel: str) -> RequestError:
    """A write while planning that is not the plan file: the agent is told the one file it may write."""
    return RequestError(
        NOT_INSIDE,
        f"Refused by planview: plan mode is read-only until the user approves a plan, so {rel} was not "
        f"written. The one file you may write is your plan, {plans_rel}/<name>.md; "
        "present it for approval when it is ready.",
    )
