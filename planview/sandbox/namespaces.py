"""A private network (and IPC) namespace for the sandboxed command, entered through a user namespace.

`unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWIPC)` needs no privilege where the kernel allows
unprivileged user namespaces. The new network namespace has only a loopback interface, which is
brought up so programs that probe it behave normally; nothing outside is reachable from it, by any
protocol (UDP and raw sockets included, which Landlock does not govern). The IPC namespace hides
the System V shared memory and message queues of the processes outside. The user is mapped to
itself, so files keep their owners. Pathname unix sockets are files, not network: the seccomp
filter closes them (planview.sandbox.seccomp).
"""

from __future__ import annotations

import ctypes
import os
import sys

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_CLONE_NEWIPC = 0x08000000
_AF_INET = 2
_SOCK_DGRAM = 2
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1


def available() -> tuple[bool, str]:
    """Whether this kernel lets this user create user namespaces (a guess from its settings; the
    exec entry point tries for real and reports)."""
    try:
        with open("/proc/sys/user/max_user_namespaces") as f:
            if int(f.read().strip() or "0") <= 0:
                return False, "user namespaces are switched off (user.max_user_namespaces = 0)"
    except (OSError, ValueError):
        return False, "this kernel has no user namespaces"
    if os.geteuid() != 0:
        for path in (
            "/proc/sys/kernel/unprivileged_userns_clone",
            "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        ):
            try:
                with open(path) as f:
                    value = f.read().strip()
            except OSError:
                continue
            off = value == "0" if path.endswith("userns_clone") else value == "1"
            if off:
                return False, f"unprivileged user namespaces are switched off ({path} = {value})"
    return True, ""


def enter() -> None:
    """Move this (single-threaded) process into new user, network and IPC namespaces and bring
    loopback up. Raises OSError naming the step that failed."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET | _CLONE_NEWIPC) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare(user, net, ipc): {os.strerror(err)}")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1")
    _write("/proc/self/gid_map", f"{gid} {gid} 1")
    _loopback_up(libc)


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _loopback_up(libc: ctypes.CDLL) -> None:
    sock = libc.socket(_AF_INET, _SOCK_DGRAM, 0)
    if sock < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"socket for loopback: {os.strerror(err)}")
    try:
        ifreq = ctypes.create_string_buffer(b"lo", 40)  # struct ifreq: name[16], then ifr_flags
        if libc.ioctl(sock, _SIOCGIFFLAGS, ifreq) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"SIOCGIFFLAGS lo: {os.strerror(err)}")
        flags = int.from_bytes(ifreq.raw[16:18], sys.byteorder) | _IFF_UP
        ctypes.memmove(ctypes.addressof(ifreq) + 16, flags.to_bytes(2, sys.byteorder), 2)
        if libc.ioctl(sock, _SIOCSIFFLAGS, ifreq) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"SIOCSIFFLAGS lo up: {os.strerror(err)}")
    finally:
        os.close(sock)
