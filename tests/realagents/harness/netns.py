"""Run a test body inside a private network namespace that has only loopback.

`run_isolated(fn, *args)` forks; the child leaves the host's network (`unshare(CLONE_NEWNET)` as root,
else a user namespace first, as `unshare -rn` does), brings `lo` up, checks that `lo` is the only
interface, and calls `fn`. Everything `fn` starts — the scripted model server, the agent, planview,
tmux, a browser — is inside, so no request can reach the internet, and a loopback port is private to
the test. It fails closed: when no namespace can be made the test fails with the reason, it never
runs on the host's network. The child's result (or its assertion error, with its traceback) comes back
through a pipe.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import pickle
import select
import signal
import socket
import struct
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any, TypeVar

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1

T = TypeVar("T")


class IsolationError(RuntimeError):
    """No private network namespace could be made; the real-agent tier refuses to run without one."""


class ChildFailed(AssertionError):
    """The isolated test body raised; carries the child's traceback as text."""


def _unshare(flags: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(ctypes.c_int(flags)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def enter() -> None:
    """Move this (single-threaded) process into a new network namespace with `lo` up."""
    uid, gid = os.geteuid(), os.getegid()
    try:
        if uid == 0:
            _unshare(CLONE_NEWNET)
        else:
            _unshare(CLONE_NEWUSER | CLONE_NEWNET)
            # Map our own ids onto themselves so files keep their owner.
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{uid} {uid} 1")
            _write("/proc/self/gid_map", f"{gid} {gid} 1")
    except OSError as exc:
        raise IsolationError(
            f"cannot make a private network namespace ({exc.strerror}); run as root or enable "
            "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)"
        ) from None
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))
    names = [name for _, name in socket.if_nameindex()]
    if names != ["lo"]:
        raise IsolationError(f"the private network namespace has interfaces {names}, expected only lo")


def isolated() -> bool:
    """True when this process sees only loopback (inside `enter()`)."""
    return [name for _, name in socket.if_nameindex()] == ["lo"]


def run_isolated(fn: Callable[..., T], *args: Any, timeout: float = 600, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` in a forked child inside a private network namespace; its result or error."""
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(read_fd)
        status = 0
        try:
            os.setsid()  # its own process group: everything it starts is ended with it
            enter()
            payload: tuple[str, Any] = ("ok", fn(*args, **kwargs))
        except BaseException as exc:
            text = "".join(traceback.format_exception(exc))
            payload = ("isolation" if isinstance(exc, IsolationError) else "error", text)
            status = 1
        try:
            data = pickle.dumps(payload)
        except Exception as exc:
            data = pickle.dumps(("error", f"the isolated result cannot be pickled: {exc}"))
            status = 1
        with os.fdopen(write_fd, "wb") as out:
            out.write(data)
        os._exit(status)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    with os.fdopen(read_fd, "rb", buffering=0) as inp:
        while True:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([inp], [], [], max(left, 0))
            if not ready:
                _reap_group(pid)
                os.waitpid(pid, 0)
                raise ChildFailed(f"the isolated test body ran longer than {timeout:.0f} s and was killed")
            chunk = inp.read(65536)
            if not chunk:
                break
            chunks.append(chunk)
    os.waitpid(pid, 0)
    _reap_group(pid)
    if not chunks:
        raise ChildFailed("the isolated test body died without a result")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "ok":
        return value
    if kind == "isolation":
        raise IsolationError(value)
    raise ChildFailed("in the isolated test body:\n" + value)


def _reap_group(pgid: int) -> None:
    """End whatever the child left running (an agent's detached helper, a tmux server)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
