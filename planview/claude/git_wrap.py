"""Claude's plan-mode Bash runs git the way planview's own plan-mode bash does.

The gate lets only read-only git command shapes through, but git itself starts programs a
repository's config names (fsmonitor, diff.external, textconv, filters, pagers, ...). planview's
own bash neutralises them with its plan environment (`planview.gate.git_env`). Claude runs
the command in its own shell, so the hook hands Claude a rewritten command (`updatedInput`) that
carries the same neutralisation with it:

    /usr/bin/bash -c '<unset inherited GIT_*> <export the plan environment> <the git function> <command>'

bash is named by its absolute path, found on the plan environment's PATH: Claude's shell looks a
bare `bash` up on the user's PATH, where a relative entry (`bin:$PATH`) is the project's folder.
The command itself is the one the gate checked, unchanged, run by bash with planview's `git`
function in front of it.

With the kernel sandbox in force (`sandboxed=True`) that bash runs inside it:

    /abs/python -I -S /abs/planview/sandbox/exec.py --profile command --root ROOT -- /usr/bin/bash -c '<script>'

Every word is shlex-quoted (planview.sandbox.launch.shell_command): whatever the command holds, it
stays one argument of `bash -c` inside the sandbox, and nothing of it runs in Claude's shell.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from planview.lazy_regex import LazyPattern

__all__ = ["neutralised_command"]

_NAME = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")


def neutralised_command(
    command: str, root: Path, environ: Mapping[str, str] | None = None, *, sandboxed: bool = False
) -> str:
    """`command` wrapped so git runs with planview's plan environment (one git call to build it),
    inside the kernel sandbox when `sandboxed`."""
    from planview.gate.git_env import plan_env_now, plan_script

    inherited = dict(os.environ if environ is None else environ)
    env = plan_env_now(root, inherited)
    unset = sorted(name for name in inherited if name not in env and _NAME.fullmatch(name))
    exports = sorted((k, v) for k, v in env.items() if inherited.get(k) != v and _NAME.fullmatch(k))
    lines = []
    if unset:
        lines.append("unset " + " ".join(unset))
    if exports:
        lines.append("export " + " ".join(f"{name}={shlex.quote(value)}" for name, value in exports))
    script = "\n".join(lines) + "\n" + plan_script(command)
    bash = _executable_on("bash", env["PATH"])
    if bash is None:
        from planview.errors import PlanviewError

        raise PlanviewError(
            f"plan mode runs git through bash, and no bash was found on PATH ({env['PATH']}); install bash"
        )
    if sandboxed:
        from planview.sandbox.launch import shell_command

        return shell_command([bash, "-c", script], root)
    return f"{shlex.quote(bash)} -c {shlex.quote(script)}"


def _executable_on(name: str, path: str) -> str | None:
    """The first executable file `name` in the absolute folders of `path` (shutil.which's search,
    without importing shutil and the compression modules it loads, and never a relative folder)."""
    for folder in path.split(os.pathsep):
        candidate = os.path.join(folder, name)
        if os.path.isabs(folder) and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None
