"""planview.gate: the read-only tool gate (pure; never imports textual).

`policy.decide(call, mode)` is the one entry point the session uses; `calls` holds what it judges
(ToolCall, Mode, GatePolicy) and answers (Decision, GateRefusal); `git_shell`, `path_guard` and
`read_scope` are the pieces it is built from, which the CLI, the UI and the tests use directly.

The one module here that runs a process is `git_env`, the environment plan-mode git runs in (it
reads the repository's filter driver names with one git call); it sits beside the git allowlist it
completes, and away from the session package, so the Claude Code hook can use it without loading
the whole agent runtime.
"""
