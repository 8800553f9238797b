"""planview.gate: the read-only tool gate (pure; never imports textual).

The one module here that runs a process is `git_env`, the environment plan-mode git runs in (it
reads the repository's filter driver names with one git call); it sits beside the git allowlist it
completes, and away from the session package, so the Claude Code hook can use it without loading
the whole agent runtime.

`decide(call, mode)` is the one entry point the session uses; the pieces it is built from are
exported for the CLI, the UI and the tests.
"""

from __future__ import annotations

from planview.gate.calls import Decision, GatePolicy, GateRefusal, Mode, ToolCall
from planview.gate.git_shell import check_git_command
from planview.gate.path_guard import takes_path
from planview.gate.policy import decide

__all__ = [
    "Decision",
    "GatePolicy",
    "GateRefusal",
    "Mode",
    "ToolCall",
    "check_git_command",
    "decide",
    "takes_path",
]
