"""Opening planview's own files safely, and saying what a failed file operation means.

Anything in planview's home can be replaced by something that is not a file: opening a FIFO
blocks until a writer appears, reading `/dev/zero` never ends, and a folder raises
IsADirectoryError somewhere deep in a traceback. Every open here is non-blocking and checked
with `fstat` before a byte is read, so such a thing is refused at once with a message.

`explain` turns an OSError into the words a person needs: what failed and what to do
("the disk is full: free some space, then ..."). Callers wrap it in their own typed error.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from planview.errors import PlanviewError

_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)


Stamp = tuple[int, int, int, int]


def stat_stamp(path: str | os.PathLike[str]) -> Stamp | None:
    """(size, mtime_ns, ctime_ns, inode), or None when the file cannot be stat'ed: what "unchanged"
    means to a fast path that skips re-hashing a file. The change time is in it because any process
    can put an mtime back (utime) after a same-length in-place edit, but none can set ctime back."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


class NotAFileError(PlanviewError):
    """A path planview reads or locks is a FIFO, a device, a socket or a folder."""


class TooLargeError(PlanviewError):
    """A file is over the size planview reads for its kind."""


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def not_a_file(path: Path | str, mode: int) -> NotAFileError:
    return NotAFileError(
        f"{path} is {kind_of(mode)}, not a regular file; move it aside (planview recreates its own files)"
    )


def open_regular(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """Open `path` without blocking and return the descriptor, refusing anything but a regular file.

    The descriptor is left in blocking mode for the caller (a regular file never blocks anyway).
    Raises NotAFileError for a FIFO/device/folder/socket and lets OSError through for the caller.
    """
    fd = os.open(path, flags | _O_NONBLOCK | _O_CLOEXEC | _O_BINARY, mode)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise not_a_file(path, info.st_mode)
        if _O_NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


class OutsideError(PlanviewError):
    """The file a reader opened lies outside the folders it may read (a link swapped in after the check)."""


def opened_path(fd: int, path: Path | str) -> str | None:
    """Where the file behind `fd` is, as the kernel names it (/proc/self/fd), or None when that cannot
    be told (deleted since). Without /proc: the resolved `path`, if it is still that same file."""
    try:
        where = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        where = None
    if where is not None:
        return None if where.endswith(" (deleted)") or not where.startswith("/") else where
    real = os.path.realpath(path)
    try:
        named, opened = os.stat(real), os.fstat(fd)
    except OSError:
        return None
    return real if (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino) else None


def open_regular_within(path: Path | str, roots: tuple[Path, ...]) -> int:
    """`open_regular`, then a check of what was opened: the descriptor's own path must lie in one of
    `roots` (resolved folders). A link swapped between a reader's check and its open can make the
    open follow it out; the file it then holds is refused (OutsideError), never read."""
    fd = open_regular(path)
    where = opened_path(fd, path)
    if where is None or not any(Path(where).is_relative_to(root) for root in roots):
        os.close(fd)
        raise OutsideError(
            f"{path} led outside the folders it may be read from while it was opened (a link changed); "
            "plan mode reads only the project: read it again, or read the file the link names"
        )
    return fd


def read_regular(
    path: Path | str, limit: int | None = None, what: str = "file", roots: tuple[Path, ...] | None = None
) -> bytes:
    """The bytes of a regular file (NotAFileError otherwise), at most `limit` of them; with `roots`,
    only a file that lies inside them once opened (OutsideError otherwise).

    Over the limit raises TooLargeError naming the cap; OSError (missing, permissions) goes
    through for the caller to word.
    """
    try:
        fd = open_regular(path) if roots is None else open_regular_within(path, roots)
    except IsADirectoryError:
        raise not_a_file(path, stat.S_IFDIR) from None
    try:
        size = os.fstat(fd).st_size
        if limit is not None and size > limit:
            raise too_large(path, size, limit, what)
        chunks: list[bytes] = []
        total = 0
        cap = (limit if limit is not None else size) + 1  # a file still growing is caught too
        while total < cap:
            chunk = os.read(fd, min(max(size - total, 0) + 65536, cap - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        data = b"".join(chunks)
        if limit is not None and len(data) > limit:
            raise too_large(path, len(data), limit, what)
        return data
    finally:
        os.close(fd)


def too_large(path: Path | str, size: int, limit: int, what: str) -> TooLargeError:
    return TooLargeError(
        f"{path} is {size:,} bytes, over the {_size(limit)} limit for a {what}; shorten it or split it"
    )


def _size(limit: int) -> str:
    if limit >= 1024 * 1024 and limit % (1024 * 1024) == 0:
        return f"{limit // (1024 * 1024)} MiB"
    if limit >= 1024 and limit % 1024 == 0:
        return f"{limit // 1024} KiB"
    return f"{limit:,} bytes"


_FIXES = {
    errno.ENOSPC: "the disk is full: free some space, then try again",
    errno.EDQUOT: "the disk quota is used up: free some space, then try again",
    errno.EROFS: "the file system is read-only: run this from a writable checkout, or set PLANVIEW_HOME to a "
    "writable folder",
    errno.EACCES: "permission denied: fix the permissions (or the owner) of the file and its folder",
    errno.EPERM: "operation not permitted: fix the permissions (or the owner) of the file and its folder",
    errno.EIO: "an I/O error from the disk: check the disk, then try again",
    errno.ENOTDIR: "a part of the path is a file, not a folder: move it aside",
    errno.EISDIR: "it is a folder, not a file: move it aside",
    errno.ELOOP: "too many symbolic links (or a link where none is allowed): replace the link with the file",
    errno.EMFILE: "too many open files: close some programs, then try again",
    errno.ENAMETOOLONG: "the path is too long: use a shorter path",
}


def explain(exc: OSError, doing: str) -> str:
    """`cannot <doing>: <what happened and the fix>` for an OSError (ENOSPC, EROFS, EACCES, ...)."""
    fix = _FIXES.get(exc.errno or 0)
    if fix is None:
        fix = f"{exc.strerror or exc}: fix the cause, then try again"
    return f"cannot {doing}: {fix}"
