"""The lean exec entry point: restrict this process, then `execvp` the command.

    python -I -S /abs/path/planview/sandbox/exec.py [--profile command|agent] [--root DIR]
        [--write DIR]... [--listen] [--check] -- CMD...

(`planview sandbox exec` runs the same code.) Run as a script with -I -S the interpreter reads no
environment variable, no user or site folder and nothing from the current folder, so a project
cannot put a module of its own in front of this one; it imports only the standard library's os,
ctypes and _signal and its three sibling modules. Python's preexec_fn is unsafe in a threaded
program, which is why the restriction happens here, in a fresh single-threaded process.

It forks once: the child enters the private namespaces (where the kernel allows them), drops every
capability, applies Landlock (planview.sandbox.rules) and the seccomp filter, closes every inherited
descriptor above 2 and execs; the parent forwards signals, waits, removes the child's scratch folder
(its TMPDIR) and exits with the child's status (killed by SIGTERM, SIGKILL, SIGINT, SIGHUP,
SIGUSR1/2 or SIGPIPE: it kills itself with the same signal; another signal: exit 128+N). Without
Landlock it runs nothing and exits 126: the wrapper never runs a command unconfined.

The agent profile (an ACP agent's own process while it plans, and all it starts) reads and runs
everything, writes only the `--write` folders (the project's plans folder, the agent's own state
folders) and its private temp folder, and keeps its network: no namespace, no seccomp filter, TCP
connect open and TCP bind denied unless `--listen` (ABI 4+); signals stay scoped (ABI 6+).
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__" and not __package__:  # run as a script (-I -S): find planview beside us
    sys.path.append(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

USAGE = (
    "usage: planview sandbox exec [--profile command|agent] [--root DIR] [--write DIR]... [--listen] "
    "[--check] -- CMD..."
)
PROFILES = ("command", "agent")
_RERAISED = frozenset({1, 2, 9, 10, 12, 13, 14, 15})  # HUP INT KILL USR1 USR2 PIPE ALRM TERM
_EXIT_SETUP = 126
_EXIT_NOT_FOUND = 127


class Options:
    """The parsed command line (a plain class: this module imports no dataclasses)."""

    __slots__ = ("check", "command", "listen", "profile", "root", "write")

    def __init__(self) -> None:
        self.profile = "command"
        self.root = ""
        self.check = False
        self.listen = False
        self.write: list[str] = []  # the agent profile's writable folders
        self.command: list[str] = []


def parse(argv: list[str]) -> Options:
    """The options; raises ValueError with a one-line message."""
    opts = Options()
    index = 0
    while index < len(argv):
        word = argv[index]
        index += 1
        if word == "--":
            opts.command = argv[index:]
            break
        name, eq, value = word.partition("=")
        if name in ("--profile", "--root", "--write"):
            if not eq:
                if index >= len(argv):
                    raise ValueError(f"{name} needs a value")
                value = argv[index]
                index += 1
            if name == "--profile":
                if value not in PROFILES:
                    raise ValueError(f"unknown profile {value!r}; the profiles are {', '.join(PROFILES)}")
                opts.profile = value
            elif name == "--write":
                opts.write.append(value)
            else:
                opts.root = value
        elif word == "--check":
            opts.check = True
        elif word == "--listen":
            opts.listen = True
        elif word in ("-h", "--help"):
            raise ValueError(USAGE)
        else:
            raise ValueError(f"unknown option {word!r}; put the command after --")
    if not opts.command and not opts.check:
        raise ValueError("no command to run: put it after --")
    if opts.profile != "agent" and (opts.write or opts.listen):
        raise ValueError("--write and --listen belong to the agent profile (--profile agent)")
    return opts


def _say(message: str) -> None:
    # The message can hold the command's name, which the model chose: a control character is shown
    # escaped, never sent to the terminal (this entry point imports nothing, so not textsafe).
    shown = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in message)
    os.write(2, f"planview sandbox: {shown}\n".encode("utf-8", "replace"))


def _drop_capabilities() -> None:
    """Empty the bounding and ambient sets, so even root execs the command with no capability."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    for cap in range(64):
        if (
            libc.prctl(24, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22
        ):  # PR_CAPBSET_DROP; EINVAL: no such cap
            break


def confine_agent(root: str, scratch: str, opts: Options) -> dict[str, object]:
    """Apply the agent profile to this process for good; what was applied, as a report."""
    from planview.sandbox import landlock, rules

    abi, why = landlock.abi_version()
    if abi < 1:
        raise OSError(0, f"{why}; plan mode runs on lists alone on this machine")
    writable = tuple(opts.write)  # checked by main() before the fork
    _drop_capabilities()
    landlock.restrict_self(
        rules.agent_rules(root, scratch, writable), abi, network=not opts.listen, connect=True
    )
    bind = "TCP bind allowed (--listen)" if opts.listen else "TCP bind denied" if abi >= 4 else "TCP open"
    return {"landlock": abi, "profile": "agent", "write": list(writable), "network": f"connect open, {bind}"}


def confine(root: str, scratch: str) -> dict[str, object]:
    """Apply the command profile to this process for good; what was applied, as a report."""
    from planview.sandbox import landlock, namespaces, rules, seccomp

    abi, why = landlock.abi_version()
    if abi < 1:
        raise OSError(0, f"{why}; plan mode runs on lists alone on this machine")
    report: dict[str, object] = {"landlock": abi, "network": "", "seccomp": False, "notes": []}
    notes: list[str] = report["notes"]  # type: ignore[assignment]
    ok, reason = namespaces.available()
    if ok:
        try:
            namespaces.enter()
            report["network"] = "private network namespace (loopback only)"
        except OSError as exc:
            reason = exc.strerror or str(exc)
    if not report["network"]:
        report["network"] = "TCP denied by Landlock" if abi >= 4 else "open"
        notes.append(f"no private network namespace: {reason}")
    _drop_capabilities()
    landlock.restrict_self(rules.command_rules(root, scratch), abi)
    ok, reason = seccomp.supported()
    if ok:
        seccomp.install()
        report["seccomp"] = True
    else:
        notes.append(reason)
    return report


def _child(opts: Options, root: str, scratch: str) -> None:
    if opts.check:
        import json  # before confining: the standard library is not readable afterwards
    try:
        report = confine_agent(root, scratch, opts) if opts.profile == "agent" else confine(root, scratch)
    except OSError as exc:
        _say(f"could not set up the sandbox ({exc.strerror or exc}); nothing was run")
        os._exit(_EXIT_SETUP)
    if opts.check:
        os.write(1, (json.dumps(report) + "\n").encode())
        os._exit(0)
    os.closerange(3, 1 << 20)
    env = dict(os.environ)
    env["TMPDIR"] = env["TMP"] = env["TEMP"] = scratch
    failure = _execvpe(opts.command, env)
    code = _EXIT_NOT_FOUND if isinstance(failure, FileNotFoundError) else _EXIT_SETUP
    _say(f"{opts.command[0]}: {failure.strerror}")
    os._exit(code)


def _execvpe(argv: list[str], env: dict[str, str]) -> OSError:
    """execvpe without os.execvpe, which imports warnings (a file the sandbox no longer reads).
    Returns the error that stopped it: the first that was not "no such file", as a shell reports."""
    name = argv[0]
    folders = [""] if "/" in name else (env.get("PATH") or "/usr/bin:/bin").split(":")
    first: OSError | None = None
    last: OSError = FileNotFoundError(2, "command not found")
    for folder in folders:
        if "/" not in name and not folder.startswith("/"):
            continue  # a relative PATH entry is the project's folder: never searched
        try:
            os.execve(os.path.join(folder, name) if folder else name, argv, env)
        except (FileNotFoundError, NotADirectoryError) as exc:
            last = exc
        except OSError as exc:
            last = exc
            first = first or exc
    if isinstance(last, FileNotFoundError) and first is None:
        last = FileNotFoundError(2, "command not found")
    return first or last


def _scratch() -> str:
    base = os.environ.get("TMPDIR") or "/tmp"
    if not os.path.isabs(base) or not os.path.isdir(base):
        base = "/tmp"
    for _ in range(16):
        path = os.path.join(base, f"planview-sandbox-{os.getpid()}-{os.urandom(6).hex()}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            continue
        return path
    raise OSError(17, f"no free scratch folder name in {base}")


def remove_tree(path: str) -> None:
    """Remove a folder the command wrote, never following a link it left there."""
    try:
        entries = list(os.scandir(path))
    except OSError:
        entries = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                remove_tree(entry.path)
            else:
                os.unlink(entry.path)
        except OSError:
            pass
    try:
        os.rmdir(path)
    except OSError:
        pass


def main(argv: list[str] | None = None) -> int:
    try:
        opts = parse(sys.argv[1:] if argv is None else argv)
        root = os.path.realpath(opts.root or os.getcwd())
        from planview.sandbox.rules import check_root, check_writable

        root = check_root(root)
        opts.write = [check_writable(root, path) for path in opts.write]
        scratch = _scratch()
    except ValueError as exc:
        _say(str(exc))
        return 2
    except Exception as exc:  # SandboxError, OSError: one line, no traceback
        _say(str(exc))
        return _EXIT_SETUP
    import _signal

    pid = os.fork()
    if pid == 0:
        _child(opts, root, scratch)
    forwarded = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT)

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except OSError:
            pass

    for signum in forwarded:
        _signal.signal(signum, forward)
    try:
        _, status = os.waitpid(pid, 0)
    finally:
        remove_tree(scratch)
    signum = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    if signum in _RERAISED:  # die of the same signal, so the caller sees what it would have seen
        _signal.signal(signum, _signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return 128 + signum
    if signum:
        return 128 + signum  # a signal that dumps core: not raised here (no core of this wrapper)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main())
