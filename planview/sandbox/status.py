"""What enforces plan mode on this machine: `landlock` (with its ABI and network isolation) or `lists only`.

`current()` is what every surface asks before it starts a plan-mode process. It is worked out once
per process from the kernel's answers (no process is started; `planview doctor` also runs the exec
entry point's `--check` for the live figure). `forced()` is the in-process test seam that switches
the kernel's half off or on: there is deliberately no environment variable or config key that does
it, since an agent can set those.
"""

from __future__ import annotations

from collections import namedtuple

LANDLOCK = "landlock"
LISTS_ONLY = "lists only"


class SandboxStatus(
    namedtuple(
        "SandboxStatus", "mechanism abi network seccomp reason still_open", defaults=(0, "", False, "", ())
    )
):
    """What enforces plan mode here: the mechanism, Landlock's ABI, the network isolation, whether the
    seccomp filter is installed, why the kernel does not enforce (when it does not), what stays open.
    (A namedtuple: the Claude hook asks for it, and dataclasses would add to its start-up.)"""

    __slots__ = ()
    mechanism: str  # LANDLOCK or LISTS_ONLY
    abi: int  # Landlock's ABI (0: none)
    network: str  # the network isolation, in words
    seccomp: bool  # the seccomp filter is installed too
    reason: str  # why plan mode runs on lists only ("" when the kernel enforces)
    still_open: tuple[str, ...]  # what the sandbox leaves open, in words

    @property
    def enforcing(self) -> bool:
        return self.mechanism == LANDLOCK

    def summary(self) -> str:
        """One line: `landlock ABI 7, private network namespace (loopback only), seccomp` or
        `lists only: <reason>`."""
        if not self.enforcing:
            return f"{LISTS_ONLY}: {self.reason}"
        parts = [f"{LANDLOCK} ABI {self.abi}", self.network]
        if self.seccomp:
            parts.append("seccomp filter")
        return ", ".join(p for p in parts if p)

    def as_json(self) -> dict[str, object]:
        return {
            "mechanism": self.mechanism,
            "enforcing": self.enforcing,
            "abi": self.abi,
            "network": self.network,
            "seccomp": self.seccomp,
            "reason": self.reason,
            "still_open": list(self.still_open),
        }


ALWAYS_OPEN = (
    "reading the system's program and library folders (/usr, /bin, /lib...) and the few /etc files "
    "listed in planview/sandbox/rules.py (passwd, group, locale, ld.so)",
    "the command's environment variables, which it can print into its output (the agent reads it)",
    "file locks (flock) on project files, and CPU and memory until the command's time limit",
    "a scratch folder left in the temp folder when the wrapper itself is killed with SIGKILL",
)


def detect() -> SandboxStatus:
    """The status from the kernel's answers (Landlock ABI, user namespaces, architecture)."""
    import sys

    from planview.sandbox import landlock, namespaces, seccomp

    if not sys.platform.startswith("linux"):
        return SandboxStatus(LISTS_ONLY, reason=f"Landlock is a Linux feature; this system is {sys.platform}")
    abi, why = landlock.abi_version()
    if abi < 1:
        return SandboxStatus(LISTS_ONLY, reason=why)
    still_open = list(ALWAYS_OPEN)
    userns, userns_why = namespaces.available()
    filtered, filter_why = seccomp.supported()
    if userns:
        network = "private network namespace (loopback only)"
    elif abi >= 4:
        network = "TCP denied by Landlock (no network namespace: " + userns_why + ")"
        if not filtered:
            still_open.append("UDP and other non-TCP sockets (no network namespace, no seccomp filter)")
    else:
        network = "open (Landlock ABI < 4 and no network namespace)"
        still_open.append("the network: this kernel's Landlock does not govern TCP, and " + userns_why)
    if not filtered:
        still_open.append(
            f"pathname unix sockets outside the project, chmod/utimes of readable files, io_uring ({filter_why})"
        )
    if abi < 6:
        still_open.append("signals to processes outside and abstract unix sockets (Landlock ABI < 6)")
    if abi < 3:
        still_open.append("truncating readable files (Landlock ABI < 3)")
    return SandboxStatus(LANDLOCK, abi, network, filtered, "", tuple(still_open))


_detected: SandboxStatus | None = None
_forced: SandboxStatus | None = None


def current() -> SandboxStatus:
    """This process's answer (detected once), or the one a test forced."""
    global _detected
    if _forced is not None:
        return _forced
    if _detected is None:
        _detected = detect()
    return _detected


class forced:  # lower-case: used as a function, `with forced(lists_only("why")):`
    """Test seam: within the block every surface sees `status` (e.g. `lists_only("test")`)."""

    def __init__(self, status: SandboxStatus) -> None:
        self.status = status
        self.previous: SandboxStatus | None = None

    def __enter__(self) -> SandboxStatus:
        global _forced
        self.previous, _forced = _forced, self.status
        return self.status

    def __exit__(self, *exc: object) -> None:
        global _forced
        _forced = self.previous


def lists_only(reason: str) -> SandboxStatus:
    return SandboxStatus(LISTS_ONLY, reason=reason)
