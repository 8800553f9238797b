"""Landlock through ctypes: the ABI probe and one call that restricts the calling process for good.

The kernel interface is three system calls and three small structs (include/uapi/linux/landlock.h);
a binding would add a dependency and import time to every sandboxed command for no more than this.
Only the standard library is imported: the lean exec entry point loads this module.

Rights are asked for by ABI: filesystem rights from 1, REFER from 2, TRUNCATE from 3, TCP
bind/connect from 4, IOCTL_DEV from 5, signal and abstract-unix-socket scoping from 6. A right the
kernel does not know is left out of the ruleset (so it stays allowed: `handled_*` says what the
ruleset governs), and the status reports what was governed.
"""

from __future__ import annotations

import ctypes
import os
import stat
from collections.abc import Sequence

# Landlock's system calls have the same numbers on every architecture (the unified table).
_SYS_CREATE_RULESET = 444
_SYS_ADD_RULE = 445
_SYS_RESTRICT_SELF = 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE = 1 << 0
WRITE_FILE = 1 << 1
READ_FILE = 1 << 2
READ_DIR = 1 << 3
REMOVE_DIR = 1 << 4
REMOVE_FILE = 1 << 5
MAKE_CHAR = 1 << 6
MAKE_DIR = 1 << 7
MAKE_REG = 1 << 8
MAKE_SOCK = 1 << 9
MAKE_FIFO = 1 << 10
MAKE_BLOCK = 1 << 11
MAKE_SYM = 1 << 12
REFER = 1 << 13  # ABI 2
TRUNCATE = 1 << 14  # ABI 3
IOCTL_DEV = 1 << 15  # ABI 5

NET_BIND_TCP = 1 << 0  # ABI 4
NET_CONNECT_TCP = 1 << 1

SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0  # ABI 6
SCOPE_SIGNAL = 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
# Rights that make sense on a file (a rule on a file with a directory right is EINVAL).
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV


def fs_rights(abi: int) -> int:
    """Every filesystem right this ABI governs."""
    if abi < 1:
        return 0
    rights = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def net_rights(abi: int) -> int:
    return NET_BIND_TCP | NET_CONNECT_TCP if abi >= 4 else 0


def scopes(abi: int) -> int:
    return SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if abi >= 6 else 0


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1  # __attribute__((packed)) in the uapi header: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def abi_version() -> tuple[int, str]:
    """(ABI, "") when the kernel enforces Landlock, else (0, why not)."""
    if not hasattr(os, "uname") or os.uname().sysname != "Linux":
        return 0, "Landlock is a Linux feature; this system is not Linux"
    libc = _libc()
    version = libc.syscall(
        _SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
    )
    if version >= 1:
        return int(version), ""
    err = ctypes.get_errno()
    if err == 38:  # ENOSYS
        return (
            0,
            f"this kernel ({os.uname().release}) has no Landlock system calls (Linux 5.13 or later has them)",
        )
    if err == 95:  # EOPNOTSUPP
        return (
            0,
            "Landlock is built into this kernel but switched off (add landlock to the lsm= boot parameter)",
        )
    return 0, f"the Landlock probe failed ({os.strerror(err)})"


def restrict_self(
    rules: Sequence[tuple[str, int]], abi: int, *, network: bool = True, connect: bool = False
) -> None:
    """Restrict this process and every process it starts from now on: only `rules` (path, rights)
    are allowed, TCP bind/connect are denied (ABI 4+) and signals and abstract unix sockets are
    scoped to the sandbox (ABI 6+). `network=False` leaves TCP ungoverned; `connect=True` governs
    only bind (outgoing connections stay open: the agent profile reaches its model server).
    Sets no_new_privs. Raises OSError naming the step that failed; a missing path is skipped."""
    libc = _libc()
    handled = fs_rights(abi)
    net = net_rights(abi) if network else 0
    if connect:
        net &= ~NET_CONNECT_TCP
    attr = _RulesetAttr(handled, net, scopes(abi))
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    fd = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock_create_ruleset: {os.strerror(err)}")
    try:
        for path, rights in rules:
            _add_path(libc, int(fd), path, rights & handled)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"prctl(NO_NEW_PRIVS): {os.strerror(err)}")
        if libc.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_restrict_self: {os.strerror(err)}")
    finally:
        os.close(fd)


def _add_path(libc: ctypes.CDLL, ruleset: int, path: str, rights: int) -> None:
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(target).st_mode):
            rights &= FILE_RIGHTS
        if not rights:
            return
        attr = _PathBeneathAttr(rights, target)
        if (
            libc.syscall(
                _SYS_ADD_RULE,
                ctypes.c_int(ruleset),
                ctypes.c_int(_RULE_PATH_BENEATH),
                ctypes.byref(attr),
                ctypes.c_uint32(0),
            )
            != 0
        ):
            err = ctypes.get_errno()
            raise OSError(err, f"landlock_add_rule({path}): {os.strerror(err)}")
    finally:
        os.close(target)
