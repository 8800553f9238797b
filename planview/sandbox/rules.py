"""The sandbox profiles as Landlock (path, rights) rules: the command profile (what a plan-mode
command may touch) and the agent profile (an ACP agent's own process while it plans).

Reads: the project tree, the system's program and library folders, and the few files of /etc that
the dynamic loader, locale, time zone, user names and `file` need (not /etc as a whole: it holds
keys, tokens and other users' configuration). Not HOME, not other projects, not the temp folder,
not /proc (another process's command line), not /run (its sockets), not /opt or /srv.
Writes: a private scratch folder (the command's TMPDIR, removed afterwards) and /dev/null.
Executes: only programs in the system folders; a file of the project is read, never run directly.

A linked git worktree keeps its repository outside the project (`.git` is a file naming
`<common>/worktrees/<name>`): that repository is readable too, but only when it names this worktree
back (`<gitdir>/gitdir` is this project's `.git`), as git itself writes it. A `.git` file that
names any other folder gets nothing: the hostile layout where `gitdir:` points at someone else's
repository reads nothing outside.
"""

from __future__ import annotations

import os

from planview.sandbox import landlock
from planview.sandbox.errors import SandboxError

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ETC_FILES = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/ld.so.preload",
    "/etc/locale.alias",
    "/etc/locale.conf",
    "/etc/default/locale",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",  # user and group names for ls -l, stat, find -user
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/magic",  # file(1)
    "/etc/magic.mime",
    "/etc/mime.types",
    "/etc/terminfo",
    "/etc/inputrc",
)
DEVICES_READ = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
DEVICES_WRITE = ("/dev/null", "/dev/full")

_READ_ONLY = landlock.READ_FILE | landlock.READ_DIR
_DEVICE_WRITE = landlock.READ_FILE | landlock.WRITE_FILE | landlock.TRUNCATE
_ALL_FS = landlock.fs_rights(99)


def check_root(root: str) -> str:
    """The project root as an absolute real path; refused when reading it would read the machine."""
    real = os.path.realpath(root)
    if not os.path.isdir(real):
        raise SandboxError(f"the project folder {root} does not exist; start plan mode in a project folder")
    if real == "/":
        raise SandboxError(
            "the project is the whole file system (/); plan mode's sandbox reads only the project: "
            "start planview in the project's own folder"
        )
    home = os.path.realpath(os.path.expanduser("~"))
    if home != "/" and (home == real or home.startswith(real.rstrip("/") + "/")):
        raise SandboxError(
            f"the project folder {real} holds your home folder ({home}), which plan mode's sandbox never "
            "reads: start planview in the project's own folder"
        )
    return real


def linked_repository(root: str) -> tuple[str, ...]:
    """The git folders outside `root` that a linked worktree at `root` reads, when they name it back."""
    dot = os.path.join(root, ".git")
    if not os.path.isfile(dot) or os.path.islink(dot):
        return ()
    try:
        with open(dot, "rb") as f:
            line = f.read(4096).split(b"\n", 1)[0].rstrip(b"\r")
    except OSError:
        return ()
    if not line.startswith(b"gitdir: "):
        return ()
    gitdir = os.path.realpath(os.path.join(root, os.fsdecode(line[8:])))
    if os.path.basename(os.path.dirname(gitdir)) != "worktrees":
        return ()
    try:
        with open(os.path.join(gitdir, "gitdir"), "rb") as f:
            back = os.fsdecode(f.read(4096).strip())
    except OSError:
        return ()
    if os.path.realpath(back) != os.path.realpath(dot):
        return ()
    common = os.path.dirname(os.path.dirname(gitdir))
    return (common,)


def command_rules(root: str, scratch: str) -> tuple[tuple[str, int], ...]:
    """The command profile's Landlock rules for a project (checked with `check_root`) and a scratch
    folder. Plain tuples: the lean exec entry point imports no dataclasses."""
    rules: list[tuple[str, int]] = [(folder, landlock.READ) for folder in SYSTEM_FOLDERS]
    rules += [(path, landlock.READ_FILE | landlock.READ_DIR) for path in ETC_FILES]
    rules += [(path, landlock.READ_FILE) for path in DEVICES_READ]
    rules += [(path, _DEVICE_WRITE) for path in DEVICES_WRITE]
    rules.append((root, _READ_ONLY))
    rules += [(folder, _READ_ONLY) for folder in linked_repository(root)]
    rules.append((scratch, _ALL_FS))
    return tuple(rules)


# The agent profile reads and runs what the agent needs: its runtime (node, a native binary), its
# install under HOME or /opt, its config. Reads are the lists' to judge (an ACP agent's own reads);
# the kernel holds the writes.
AGENT_READ = ("/",)
AGENT_DEVICES_WRITE = ("/dev/null", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts", "/dev/shm")


def agent_rules(root: str, scratch: str, writable: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """The agent profile's rules: read and execute everything; write only `writable` (the project's
    plans folder and the agent's own state folders, each checked by `check_writable`), the private
    temp folder and the terminal devices. `root` must have passed `check_root`."""
    rules: list[tuple[str, int]] = [(folder, landlock.READ) for folder in AGENT_READ]
    rules += [(path, _DEVICE_WRITE | landlock.READ_DIR) for path in AGENT_DEVICES_WRITE]
    rules += [(path, _ALL_FS) for path in writable]
    rules.append((scratch, _ALL_FS))
    return tuple(rules)


def check_writable(root: str, path: str) -> str:
    """A folder the agent profile may write, as an absolute real path. Refused: a relative path, `/`,
    the project itself or a folder holding it (only its plans folder, below `.planview/`, is
    writable), and HOME itself or a folder holding it."""
    if not os.path.isabs(path):
        raise SandboxError(f"the agent's writable folder {path!r} is not absolute; name it from /")
    real = os.path.realpath(path)
    inside_project = real == root or root.startswith(real.rstrip("/") + "/")
    below_planview = real.startswith(os.path.join(root, ".planview") + "/")
    if real == "/" or inside_project or (real.startswith(root + "/") and not below_planview):
        raise SandboxError(
            f"the agent may not write {real} while it plans (only the plans folder inside the project): "
            "drop it from the agent's writable folders"
        )
    home = os.path.realpath(os.path.expanduser("~"))
    if home != "/" and (real == home or home.startswith(real.rstrip("/") + "/")):
        raise SandboxError(
            f"the agent's writable folder {real} is your home folder or holds it; name the agent's own "
            "state folder instead (for example ~/.agent)"
        )
    return real
