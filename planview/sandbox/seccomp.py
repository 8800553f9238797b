"""A small seccomp filter for what Landlock (ABI <= 7) does not govern.

Landlock decides which files are opened and which TCP ports are reached; it does not see
- `socket()`: a pathname unix socket outside the project (a container daemon's, an ssh agent's, the
  session bus) is connected by path, and UDP and raw sockets are no TCP;
- metadata changes of files that may be read: chmod, chown, utimes, extended attributes;
- io_uring, whose operations (connect, openat) bypass the system-call filter;
- System V IPC and POSIX message queues (another process's shared memory), the kernel keyrings;
- TIOCSTI / TIOCLINUX, which push keystrokes into the terminal the sandbox inherited.
Each of these fails with EACCES/EPERM. A system call of another ABI (i386, x32) kills the process:
its numbers differ, so the filter could not judge it. Only x86_64 is covered (the tables were
checked here); other architectures get Landlock without this filter, and the status says so.
"""

from __future__ import annotations

import ctypes
import os

_AUDIT_ARCH_X86_64 = 0xC000003E
_X32_BIT = 0x40000000
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_RET_ALLOW = 0x7FFF0000
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_EPERM = 1
_EACCES = 13

# x86_64 numbers (arch/x86/entry/syscalls/syscall_64.tbl).
_SOCKET = 41
_IOCTL = 16
_DENIED_X86_64: dict[int, int] = {
    _SOCKET: _EACCES,
    425: _EPERM,  # io_uring_setup
    426: _EPERM,  # io_uring_enter
    427: _EPERM,  # io_uring_register
    90: _EPERM,  # chmod
    91: _EPERM,  # fchmod
    268: _EPERM,  # fchmodat
    452: _EPERM,  # fchmodat2
    92: _EPERM,  # chown
    93: _EPERM,  # fchown
    94: _EPERM,  # lchown
    260: _EPERM,  # fchownat
    132: _EPERM,  # utime
    235: _EPERM,  # utimes
    261: _EPERM,  # futimesat
    280: _EPERM,  # utimensat
    188: _EPERM,  # setxattr
    189: _EPERM,  # lsetxattr
    190: _EPERM,  # fsetxattr
    197: _EPERM,  # removexattr
    198: _EPERM,  # lremovexattr
    199: _EPERM,  # fremovexattr
    463: _EPERM,  # setxattrat
    466: _EPERM,  # removexattrat
    29: _EPERM,  # shmget
    30: _EPERM,  # shmat
    31: _EPERM,  # shmctl
    64: _EPERM,  # semget
    65: _EPERM,  # semop
    66: _EPERM,  # semctl
    220: _EPERM,  # semtimedop
    68: _EPERM,  # msgget
    69: _EPERM,  # msgsnd
    70: _EPERM,  # msgrcv
    71: _EPERM,  # msgctl
    240: _EPERM,  # mq_open
    241: _EPERM,  # mq_unlink
    248: _EPERM,  # add_key
    249: _EPERM,  # request_key
    250: _EPERM,  # keyctl
}
_TIOCSTI = 0x5412
_TIOCLINUX = 0x541C


def supported() -> tuple[bool, str]:
    """Whether this filter can be installed here, and why not."""
    machine = os.uname().machine
    if machine != "x86_64":
        return False, f"the seccomp filter covers x86_64 only (this machine is {machine})"
    return True, ""


class _Filter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(_Filter))]


def program() -> list[tuple[int, int, int, int]]:
    """The filter as (code, jt, jf, k) instructions."""
    ops: list[tuple[int, int, int, int]] = [
        (_LD_W_ABS, 0, 0, 4),  # seccomp_data.arch
        (_JEQ_K, 1, 0, _AUDIT_ARCH_X86_64),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
        (_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        (_JGE_K, 0, 1, _X32_BIT),
        (_RET_K, 0, 0, _RET_KILL_PROCESS),
    ]
    for number, errno in _DENIED_X86_64.items():
        ops += [(_JEQ_K, 0, 1, number), (_RET_K, 0, 0, _RET_ERRNO | errno)]
    ops += [
        (_JEQ_K, 1, 0, _IOCTL),
        (_RET_K, 0, 0, _RET_ALLOW),
        (_LD_W_ABS, 0, 0, 24),  # low 32 bits of args[1], the request
        (_JEQ_K, 2, 0, _TIOCSTI),
        (_JEQ_K, 1, 0, _TIOCLINUX),
        (_RET_K, 0, 0, _RET_ALLOW),
        (_RET_K, 0, 0, _RET_ERRNO | _EPERM),
    ]
    return ops


def install() -> None:
    """Install the filter on this process (no_new_privs must be set). Raises OSError."""
    ops = program()
    table = (_Filter * len(ops))(*[_Filter(*op) for op in ops])
    prog = _Program(len(ops), table)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(SET_SECCOMP): {os.strerror(err)}")
