"""How a surface starts a process in the sandbox: the argv (or shell words) of the exec entry point.

The entry point is named by absolute paths (this interpreter, the installed exec.py) and run with
-I -S, so neither the caller's PATH, nor PYTHON* variables, nor a module in the project can stand in
for it. The command follows `--` as separate words; `shell_command` quotes every word, so a command
string handed to a shell (the Claude hook's `updatedInput`) cannot end the wrapper's words early.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Sequence

from planview.sandbox.errors import SandboxError

EXEC_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "exec.py")


def interpreter() -> str:
    python = sys.executable
    if not python or not os.path.isabs(python):
        raise SandboxError(
            "planview cannot name its own Python interpreter (sys.executable is empty), so it cannot "
            "start the sandbox; run planview from its installed command"
        )
    return python


def wrap(
    argv: Sequence[str],
    root: str | os.PathLike[str],
    *,
    profile: str = "command",
    options: Sequence[str] = (),
) -> list[str]:
    """`argv` run through the sandbox's exec entry point with `profile` for the project at `root`;
    `options` are the profile's own (the agent profile's `--write DIR`, `--listen`)."""
    if not argv:
        raise SandboxError("there is no command to run in the sandbox")
    words = list(argv)
    if any("\x00" in word for word in words):
        raise SandboxError("the command holds a NUL character, which no program can receive; remove it")
    return [
        interpreter(),
        "-I",
        "-S",
        EXEC_SCRIPT,
        "--profile",
        profile,
        "--root",
        os.fspath(root),
        *options,
        "--",
        *words,
    ]


def shell_command(argv: Sequence[str], root: str | os.PathLike[str], *, profile: str = "command") -> str:
    """`wrap(...)` as one shell command line, every word quoted."""
    return " ".join(shlex.quote(word) for word in wrap(argv, root, profile=profile))
