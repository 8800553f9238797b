"""The agent profile: how an ACP agent's own process is started while it plans, under Landlock.

While planview plans, the agent process and everything it starts (detached children included:
Landlock rules are inherited and cannot be lifted) may write only the project's plans folder, the
agent's own state folders from its profile (`AgentProfile.state`) and a private temp folder; it
reads what it needs and keeps its network (TCP bind only when the profile says it listens).
Landlock cannot be lifted from a running process, so leaving plan mode means a new agent process
without the sandbox (AgentLink carries the conversation over), and a revoked approval means a new
sandboxed one.

Where the kernel offers no Landlock the agent runs as before (lists and the breach watcher), and
`sandboxed()` says so; `planview.sandbox.status` is the one place that decides.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from planview.agents.profiles import AgentProfile


def sandboxed() -> bool:
    """Whether a planning agent runs under the agent profile on this machine (Landlock enforcing)."""
    from planview.sandbox.status import current

    return current().enforcing


def agent_argv(
    profile: AgentProfile, root: Path, plans_dir: Path, env: Mapping[str, str]
) -> tuple[str, list[str]]:
    """(program, args) that start the agent under the agent profile. Its state folders are created
    first (a Landlock rule needs a folder that exists; the agent would create them itself); a state
    file that does not exist yet is left out (creating an empty one could break the agent)."""
    from planview.sandbox.launch import wrap

    options: list[str] = ["--write", str(plans_dir)]
    for spec in profile.state:
        path = spec.resolve(env)
        if path is None:
            continue
        if not spec.file:
            try:
                path.mkdir(parents=True, exist_ok=True)
            except OSError:
                continue  # unwritable HOME: the agent cannot save its state there either way
        if spec.file and not os.path.lexists(path):
            continue
        options += ["--write", str(path)]
    if profile.listens:
        options.append("--listen")
    program, *args = wrap(profile.argv, root, profile="agent", options=options)
    return program, args
