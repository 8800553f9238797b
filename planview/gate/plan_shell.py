"""What plan-mode bash runs: read-only git alone, or with the kernel sandbox also the read-only commands.

Without the sandbox (`sandboxed=False`) this is `git_shell.check_git_command`, the git-only list.
With it (planview.sandbox is in force for the process that will run the command) the command may
also be a pipeline of the read-only programs in `read_commands` (`rg foo | head`, `ls -la src`,
`grep -rn x . 2>/dev/null | wc -l`), chained with `&&`, `||` and `;`, and git takes `-C <folder
inside the project>` and `git config --get/--list`. The surface that asks with `sandboxed=True`
must run the command through `planview.sandbox.launch`: the list only explains, the kernel holds.
"""

from __future__ import annotations

from pathlib import Path

from planview.gate.calls import show
from planview.gate.git_includes import outside_include
from planview.gate.git_shell import CD_REASON, GitCheck, check_git_command, check_git_words
from planview.gate.git_store import borrowed_store
from planview.gate.read_commands import READ_COMMANDS, READ_COMMANDS_LIST, reader_reason
from planview.gate.shell_words import ShellRefusal, split_chain

__all__ = ["SANDBOXED_HINT", "check_plan_command"]

SANDBOXED_HINT = f"read-only commands ({READ_COMMANDS_LIST}) and read-only git"
_WRAPPERS = frozenset(
    "sudo doas env command exec builtin nohup time nice ionice timeout stdbuf xargs eval bash sh zsh dash "
    "fish ksh su run0 source .".split()
)


def _first_word_reason(raw: str, value: str) -> str:
    if value in ("cd", "pushd", "popd"):
        return CD_REASON
    if value in _WRAPPERS:
        return f"{show(value)} is not allowed in plan mode: run the command itself as the first word"
    if "=" in value and value.split("=", 1)[0].replace("_", "a").isalnum():
        return f"environment assignments ({show(value)}) are not allowed in plan mode; run the command without them"
    if "/" in value:
        return (
            f"{show(raw)}: plan mode runs the system's programs by name ({SANDBOXED_HINT}), not a program "
            "named by its path"
        )
    return (
        f"{show(value)} is not a read-only command plan mode runs: in plan mode bash runs {SANDBOXED_HINT}; "
        "put anything else in the plan for after approval"
    )


def check_plan_command(command: str, root: Path | str | None = None, *, sandboxed: bool = False) -> GitCheck:
    """Whether plan-mode bash may run `command`; the reason names the fix when it may not."""
    if not sandboxed:
        return check_git_command(command, root)
    if not isinstance(command, str):
        return GitCheck(False, "bash needs the command as a string")
    try:
        segments = split_chain(command, pipes=True)
    except ShellRefusal as refusal:
        return GitCheck(False, str(refusal))
    if len(segments) == 1 and not segments[0]:
        return GitCheck(False, "empty command; run a read-only command such as git status or ls")
    base = Path(root) if root is not None else None
    uses_git = False
    for segment in segments:
        if not segment:
            return GitCheck(
                False,
                "the chain has an empty command (a doubled or trailing separator); "
                "chain read-only commands as git status && ls",
            )
        first = segment[0]
        words = [word.value for word in segment[1:]]
        if first.raw == "git":
            uses_git = True
            reason = check_git_words(words, base, sandboxed=True)
        elif first.raw == first.value and (first.value in READ_COMMANDS or first.value == "find"):
            reason = reader_reason(first.value, words, base)
        else:
            reason = _first_word_reason(first.raw, first.value)
        if reason is not None:
            return GitCheck(False, reason)
    if uses_git and base is not None:
        problem = borrowed_store(base) or outside_include(base)
        if problem is not None:
            return GitCheck(False, problem)
    return GitCheck(True, "")
