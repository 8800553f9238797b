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


def read_regular(path: Path | str, limit: int | None = None, what: str = "file") -> bytes:
    """The bytes of a regular file (NotAFileError otherwise), at most `limit` of them.

    Over the limit raises TooLargeError naming the cap; OSError (missing, permissions) goes
    through for the caller to word.
    """
    try:
        fd = open_regular(path)
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


def is_disk_full(exc: OSError) -> bool:
    return exc.errno in (errno.ENOSPC, errno.EDQUOT)
