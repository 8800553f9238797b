"""Tool names the gate knows: the common agents' shells and mutators, compared loosely.

A tool's name is the model's or an MCP server's spelling, so it is compared after NFKC
normalisation, trimming, case folding, and treating space, `-` and `.` like `_` (`Bash`, `BASH`,
`"bash "`, `run-shell-command` and `Run_Shell_Command` are one name). An MCP-style prefix
(`mcp__server__write_file`, `server.write_file`, `server/write_file`) does not hide the tool's own
name: the last part is compared too. A known shell or mutator is refused in plan mode whatever it
declares (readOnlyHint included).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MUTATORS", "SHELLS", "key", "parts"]

# Tools that write files, change state or start other agents (which can do either).
MUTATORS = frozenset(
    """
    write write_file writefile create_file createfile create overwrite save save_file append_file
    edit edit_file editfile multi_edit multiedit notebook_edit notebookedit edit_notebook
    str_replace str_replace_editor str_replace_based_edit_tool text_editor replace replace_in_file
    search_replace search_and_replace insert insert_text apply_patch applypatch patch apply_diff
    delete delete_file deletefile remove remove_file rm unlink move move_file rename rename_file
    copy_file mkdir create_directory make_directory chmod chown touch upload download
    git_push git_commit git_add git_reset git_checkout git_merge git_rebase git_stash git_tag
    git_branch_create git_create_branch git_cherry_pick git_revert git_clean git_pull git_fetch
    task agent dispatch_agent spawn_agent sub_agent delegate update_plan_steps
    """.split()
)
# Tools that run commands.
SHELLS = frozenset(
    """
    bash sh zsh dash fish ksh shell powershell pwsh cmd terminal console exec execute run command
    execute_command executecommand run_command runcommand run_shell_command shell_command
    run_terminal_cmd run_terminal_command terminal_command local_shell container_exec exec_command
    run_in_terminal bash_tool shell_exec shell_execute system process subprocess spawn eval
    python python3 node run_code execute_code code_interpreter repl
    """.split()
)

_SEPARATORS = re.compile(r"[\s\-.]+")
_PREFIX = re.compile(r"__|/|:")


def key(name: str) -> str:
    """The comparable form of a tool name: NFKC, trimmed, case-folded, separators as `_`."""
    text = name
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")  # zero-width, bidi marks
    return _SEPARATORS.sub("_", text.strip()).strip("_").casefold()


def parts(name: str) -> tuple[str, ...]:
    """The name's key, and the key of its last part after an MCP-style server prefix."""
    if name.isidentifier() and name.isascii() and name.islower() and "__" not in name:
        return (name.strip("_"),)  # the common case: already in its comparable form
    whole = key(name)
    last = _PREFIX.split(name if name.isascii() else unicodedata.normalize("NFKC", name))[-1].strip()
    tail = key(last.rsplit(".", 1)[-1]) if last else whole
    return (whole,) if tail == whole else (whole, tail)
