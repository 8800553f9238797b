"""planview for Claude Code: its hooks mapped onto planview's gate, review screen and ledger.

Claude Code runs `planview claude hook` before every tool call (PreToolUse) and before its
ExitPlanMode permission prompt (PermissionRequest); the hook's answer is binding. Modules:

- `event`: the hook's stdin, parsed and bounded (never trusted);
- `answer`: the JSON answers and exit codes Claude Code honours (a failure never allows);
- `tools`: Claude's tool names mapped onto planview's plan-mode gate;
- `state`: planview's mode and approval pin per Claude session, under `<home>/claude/`;
- `handoff`: an ExitPlanMode plan saved as a planview plan and reviewed by a person;
- `hook`: the one dispatcher from event to answer;
- `settings`: install / uninstall / status of the hooks in Claude's settings files.

No textual import here: the review runs as its own process (tmux) or as the browser review.
"""
