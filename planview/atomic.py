"""Crash-safe file replacement: the reader sees the old file or the new one, never a torn one.

The recipe: write a temp file in the destination folder (same filesystem, so the rename is
atomic), fsync it, `os.replace` it over the destination, then fsync the folder so the rename
itself survives a power cut. A process killed at any point leaves at most a stray dot-named
temp file, which plan listings ignore and `sweep_temps` removes the next time planview writes in
that folder: a writer holds an exclusive `flock` on its temp file until it is published, so a temp
file nobody holds (and older than a moment) belongs to a writer that died.

Where the platform supports it (Linux, macOS) every step runs relative to one open descriptor
of the folder, so a folder swapped for a symlink halfway through cannot redirect the write.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path

from planview.lazy_regex import LazyPattern

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock, so no sweeping either
    fcntl = None  # type: ignore[assignment]

# os.replace takes src_dir_fd/dst_dir_fd wherever os.rename does (only rename is listed).
_DIR_FD_OK = os.open in os.supports_dir_fd and os.rename in os.supports_dir_fd
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)


_TEMP_NAME = LazyPattern(r"^\..+\.[0-9a-f]{12}\.tmp$")
STALE_AFTER = 2.0  # seconds: a live writer flocks its temp file at once; this only covers that gap
_swept: set[tuple[int, int]] = set()  # folders swept by this process (st_dev, st_ino)


def is_temp_name(name: str) -> bool:
    """A temp name `temp_name` makes (an atomic write in progress)."""
    return _TEMP_NAME.match(name) is not None


def temp_name(name: str) -> str:
    """A hidden, unique temp name beside `name` (dot-prefixed so listings skip it)."""
    return f".{name}.{os.urandom(6).hex()}.tmp"


def _encode(data: str | bytes) -> bytes:
    # Bytes go to disk exactly as given: no newline translation, UTF-8 for text.
    return data.encode("utf-8") if isinstance(data, str) else bytes(data)


def _fsync_dir(dir_fd: int) -> None:
    try:
        os.fsync(dir_fd)
    except OSError as exc:  # some filesystems refuse fsync on folders; the rename is still atomic
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EACCES):
            raise


def _target_mode(existing: os.stat_result | None, mode: int | None) -> int | None:
    if mode is not None:
        return mode
    if existing is not None and stat.S_ISREG(existing.st_mode):
        return stat.S_IMODE(existing.st_mode)  # keep the permissions the user gave the file
    return None  # a new file: 0o666 minus the umask, like any other editor save


def write_in_dir(
    dir_fd: int, name: str, data: str | bytes, *, mode: int | None = None, exclusive: bool = False
) -> bool:
    """Atomically write `name` inside the folder open as `dir_fd`.

    With `exclusive=True` the file is only created, never replaced (a hard link publishes the
    finished temp file and fails if the name is taken); returns False when the name was taken.
    """
    payload = _encode(data)
    tmp = temp_name(name)
    try:
        existing = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        existing = None
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW | _O_BINARY
    fd = os.open(tmp, flags, 0o666, dir_fd=dir_fd)
    published = False
    try:
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # "alive": see sweep_temps
            view = memoryview(payload)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            target = _target_mode(existing, mode)
            if target is not None:
                os.fchmod(fd, target)
            os.fsync(fd)
        finally:
            os.close(fd)
        if exclusive:
            try:
                os.link(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            except FileExistsError:
                return False
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
                    raise
                # No hard links here (some network/FUSE filesystems): best effort instead.
                if _lexists(name, dir_fd):
                    return False
                os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
                published = True
        else:
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            published = True
        _fsync_dir(dir_fd)
        return True
    finally:
        if not published:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except FileNotFoundError:
                pass


def sweep_temps(dir_fd: int) -> int:
    """Remove temp files that writers killed mid-write left in this folder (once per process).

    Only planview's own temp names, only regular files, only when no live writer holds their
    lock and they are older than STALE_AFTER. Never raises: a read-only folder is left alone.
    Returns how many were removed.
    """
    if fcntl is None:  # pragma: no cover
        return 0
    try:
        info = os.fstat(dir_fd)
        key = (info.st_dev, info.st_ino)
        if key in _swept:
            return 0
        _swept.add(key)
        names = [name for name in os.listdir(dir_fd) if _TEMP_NAME.match(name)]
    except OSError:
        return 0
    removed = 0
    now = time.time()
    for name in names:
        try:
            found = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if not stat.S_ISREG(found.st_mode) or now - found.st_mtime < STALE_AFTER:
                continue
            fd = os.open(name, os.O_RDONLY | _O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=dir_fd)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue  # a live writer holds it
            try:
                os.unlink(name, dir_fd=dir_fd)
                removed += 1
            finally:
                os.close(fd)
        except OSError:
            continue
    return removed


def sweep_folder(folder: Path) -> int:
    """`sweep_temps` for a folder given by path (0 when it cannot be opened)."""
    if not _DIR_FD_OK:  # pragma: no cover - Windows
        return 0
    try:
        dir_fd = open_dir(folder)
    except OSError:
        return 0
    try:
        return sweep_temps(dir_fd)
    finally:
        os.close(dir_fd)


def _lexists(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def open_dir(folder: Path) -> int:
    """Open `folder` for dir_fd-relative work (the caller closes it)."""
    return os.open(folder, os.O_RDONLY | _O_DIRECTORY)


def atomic_write(path: Path, data: str | bytes, *, mode: int | None = None) -> None:
    """Replace `path` with `data` atomically: temp in the same folder, fsync, os.replace, fsync folder.

    `mode` sets the file's permissions; by default an existing file keeps its own and a new
    file gets the usual umask-derived ones. Text is written as UTF-8 with its newlines untouched.
    """
    path = Path(path)
    if not _DIR_FD_OK:  # pragma: no cover - Windows
        _atomic_write_by_path(path, data, mode=mode)
        return
    dir_fd = open_dir(path.parent)
    try:
        write_in_dir(dir_fd, path.name, data, mode=mode)
    finally:
        os.close(dir_fd)


def _atomic_write_by_path(
    path: Path, data: str | bytes, *, mode: int | None = None
) -> None:  # pragma: no cover
    payload = _encode(data)
    tmp = path.with_name(temp_name(path.name))
    try:
        existing = os.lstat(path)
    except FileNotFoundError:
        existing = None
    try:
        with open(tmp, "xb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        target = _target_mode(existing, mode)
        if target is not None:
            os.chmod(tmp, target)
        os.replace(tmp, path)
    finally:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
