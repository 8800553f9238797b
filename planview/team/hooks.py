"""The `prepare-commit-msg` hook that makes every commit in an execute session name its plan.

`planview team init` installs it (`planview team uninstall` removes it). A hook already there is kept
and chained: it is moved to `prepare-commit-msg.pre-planview` and run first, and put back on
uninstall. The hook calls `planview team trailer MSGFILE`, which adds `Plan: sha256:<canonical>` for
the plan being executed: `PLANVIEW_PLAN_SHA256` in the agent's tool processes (set by the session
while it executes an approved plan), else the newest approval in this project's ledger whose plan
still matches it (a person committing by hand next to the session).
"""

from __future__ import annotations

import os
from pathlib import Path

from planview.team import git
from planview.team.errors import TeamError

HOOK = "prepare-commit-msg"
CHAINED = f"{HOOK}.pre-planview"
MARKER = "# planview team hook: adds the Plan trailer (planview team uninstall removes it)"
PLAN_ENV = "PLANVIEW_PLAN_SHA256"


def hooks_dir(root: Path) -> Path:
    return git.git_path(root, "hooks")


def hook_script(command: str) -> str:
    return (
        "#!/bin/sh\n"
        f"{MARKER}\n"
        f'chained="$(dirname "$0")/{CHAINED}"\n'
        'if [ -x "$chained" ]; then "$chained" "$@" || exit $?; fi\n'
        # Never blocks a commit (verify is where a missing trailer fails); says why instead.
        f'{command} team trailer "$1" || echo "planview: the Plan trailer was not added (see above)" >&2\n'
    )


def is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def install(root: Path, command: str) -> str:
    """Install (or refresh) the hook; returns what was done, in a sentence."""
    folder = hooks_dir(root)
    folder.mkdir(parents=True, exist_ok=True)
    hook, chained = folder / HOOK, folder / CHAINED
    said = f"installed {hook}"
    if os.path.lexists(hook) and not is_ours(hook):
        if os.path.lexists(chained):
            raise TeamError(
                f"{hook} is not planview's and {chained} exists too; merge them by hand, then add the line "
                f'`{command} team trailer "$1"` to {hook}'
            )
        os.replace(hook, chained)
        said = f"installed {hook}; your previous hook moved to {chained} and runs first"
    hook.write_text(hook_script(command), encoding="utf-8")
    hook.chmod(0o755)
    return said


def uninstall(root: Path) -> str:
    folder = hooks_dir(root)
    hook, chained = folder / HOOK, folder / CHAINED
    if not os.path.lexists(hook):
        return f"no {HOOK} hook in {folder}; nothing to remove"
    if not is_ours(hook):
        return f"{hook} is not planview's; left as it is"
    hook.unlink()
    if os.path.lexists(chained):
        os.replace(chained, hook)
        return f"removed planview's {HOOK} hook and put your previous one back"
    return f"removed {hook}"


def add_trailer(root: Path, message_file: Path, canonical: str) -> None:
    """Set the commit message's `Plan:` trailer to `canonical` (one trailer: an older one is replaced)."""
    git.run_git(
        root,
        [
            "interpret-trailers",
            "--in-place",
            "--if-exists",
            "replace",
            "--trailer",
            f"Plan: sha256:{canonical}",
            str(message_file.absolute()),
        ],
    )
