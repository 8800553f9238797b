"""The read-only git shell: the only commands `bash` runs in plan mode.

An allowlist over read-only git command shapes, not a general shell parser. A command is one or
more segments chained with `&&` or `;`; every segment must be `git <read-only subcommand> ...`.
Words are checked as git will receive them (quotes removed), options in attached forms too
(`-cfoo=bar`, `--git-dir=x`, `-C.`, `-Oless`, and unambiguous abbreviations such as `--outp`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from planview.gate.calls import show
from planview.gate.git_forms import SHAPED, outside_project
from planview.gate.shell_words import ShellRefusal, split_chain

__all__ = ["READ_ONLY_SUBCOMMANDS", "GitCheck", "check_git_command"]


class GitCheck(NamedTuple):
    allowed: bool
    reason: str


READ_ONLY_LIST = "status, diff, log, show, …"
FILE_TOOLS_HINT = "use the read / grep / find / ls tools to look at files"
CD_REASON = "cd is not needed: commands already run in the project root"

# Subcommands whose every form only reads (options are still checked).
_PLAIN_READERS = frozenset(
    "status diff log show blame grep shortlog describe rev-parse rev-list ls-files ls-tree cat-file "
    "for-each-ref count-objects merge-base name-rev diff-tree diff-index diff-files show-ref var version "
    "whatchanged".split()
)
_MUTATING = frozenset(
    "commit add push checkout switch reset restore clean merge rebase fetch pull apply am rm mv gc "
    "format-patch archive bundle cherry-pick revert init clone submodule notes replace update-ref "
    "update-index symbolic-ref prune repack filter-branch fast-import maintenance sparse-checkout "
    "read-tree write-tree commit-tree mktag mktree hash-object pack-refs rerere bisect request-pull "
    "send-email difftool mergetool citool gui gitk stage unstage".split()
)

# Global options git accepts before the subcommand that change nothing.
_SAFE_GLOBAL = frozenset(
    {
        "--no-pager",
        "-P",
        "--no-replace-objects",
        "--literal-pathspecs",
        "--glob-pathspecs",
        "--noglob-pathspecs",
        "--icase-pathspecs",
        "--no-optional-locks",
        "--no-advice",
    }
)

# Long options refused anywhere (and their abbreviations), with what they would do.
_REFUSED_LONG: dict[str, str] = {
    "--git-dir": "points git at another repository; commands already run in the project root",
    "--work-tree": "points git at another work tree; commands already run in the project root",
    "--namespace": "switches git to another ref namespace",
    "--bare": "treats the folder as a bare repository",
    "--exec-path": "changes where git finds its programs",
    "--config-env": "changes git's configuration",
    "--output": "writes its output to a file",
    "--ext-diff": "runs an external diff program",
    "--textconv": "runs text conversion programs",
    "--filters": "runs filter programs",
    "--open-files-in-pager": "runs a program on the matching files",
    "--upload-pack": "runs a program on the remote side",
    "--receive-pack": "runs a program on the remote side",
    "--paginate": "starts a pager",
    "--help": "opens a manual viewer",
    # Plan-mode reads stay inside the project (the read tools are confined to it too):
    "--no-index": "reads files anywhere on disk, outside git (read them with the read tool instead)",
    "--contents": "reads any file as the working copy (blame the committed file, or use the read tool)",
}
# Exact long options that happen to be prefixes of a refused one but are themselves harmless.
_SAFE_EXACT_LONG = frozenset({"--text"})
# Per subcommand: refused long options that are plain queries there (rev-parse only prints them).
_QUERY_EXCEPTIONS = {"rev-parse": frozenset({"--git-dir"})}

# Short options refused anywhere, including in clusters (-nC3) and attached forms (-C., -Oless).
_REFUSED_SHORT = {
    "c": "sets git configuration before a subcommand, so it is refused anywhere",
    "C": "runs git in another folder before a subcommand, so it is refused anywhere",
    "O": "runs a program on the matching files (git grep), so it is refused anywhere",
}
_LOG_FAMILY = ("log", "show", "whatchanged", "rev-list", "diff", "diff-tree", "diff-index", "diff-files")
# After a subcommand, the long spelling that means the same thing without the ambiguous letter.
_LONG_FORMS: dict[tuple[str, str], str] = {
    ("c", "ls-files"): "--cached",
    ("c", "grep"): "--count",
    ("c", "shortlog"): "--committer",
    ("C", "grep"): "--context=<n>",
    **{("c", sub): "--diff-merges=combined" for sub in _LOG_FAMILY},
    **{("C", sub): "--find-copies" for sub in _LOG_FAMILY},
}
# Short options whose stuck argument is the rest of the word (so -Sconfig is -S "config", not -S -c ...).
_STUCK_ARG: dict[str, str] = {
    **dict.fromkeys(_LOG_FAMILY, "nUMBlSGLIX"),
    "grep": "ABefm",
    "blame": "LSM",
    "shortlog": "w",
    "tag": "n",
    "ls-files": "xX",
    "config": "f",
}


# Options whose value is a file git reads, per subcommand (short letter, long name). Their content
# comes back in error messages ("bad graft data: <line>", "In '<file>' at 1, '<line>'"), so a file
# outside the project is refused like any other read outside it.
_FILE_OPTIONS: dict[str, tuple[str, str]] = {
    "grep": ("f", "--file"),
    "blame": ("S", "--ignore-revs-file"),
    "ls-files": ("X", "--exclude-from"),
    **dict.fromkeys(_LOG_FAMILY, ("O", "--orderfile")),
}


def _file_values(sub: str, args: Sequence[str]) -> list[str]:
    """The values given to `sub`'s file-reading options, in every spelling (=, next word, stuck, cluster)."""
    short, long = _FILE_OPTIONS.get(sub, ("", ""))
    found: list[str] = []
    skip = False
    for index, word in enumerate(args):
        after = args[index + 1] if index + 1 < len(args) else ""
        if skip:  # the value of the option before (git grep -e -f: "-f" is the pattern)
            skip = False
            continue
        if word == "--":
            break
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            if long and len(name) > 3 and long.startswith(name):  # abbreviations count
                found.append(value if equals else after)
        elif word.startswith("-") and short:
            stuck = _STUCK_ARG.get(sub, "")
            for position, letter in enumerate(word[1:], start=2):
                if letter == short:
                    found.append(word[position:] or after)
                    break
                if letter in stuck:
                    skip = position == len(word)
                    break
    return found


def _refused_option(word: str, sub: str) -> str | None:
    """Why an option word is refused in this subcommand's arguments, or None."""
    if len(word) < 2 or word[0] != "-":
        return None
    if word[1] == "-":
        if word == "--":
            return None
        name = word.split("=", 1)[0]
        if name in _QUERY_EXCEPTIONS.get(sub, ()) and "=" not in word:
            return None
        why = _REFUSED_LONG.get(name)
        if why is not None:
            return f"git option {show(word)} is not allowed in plan mode: {name} {why}; run the git command without it"
        if name in _SAFE_EXACT_LONG or name == "--no-":
            return None
        for refused, why in _REFUSED_LONG.items():
            if refused.startswith(name):
                return (
                    f"git option {show(word)} is not allowed in plan mode: it abbreviates {refused}, which {why}; "
                    "spell out the option you mean"
                )
        return None
    stuck = _STUCK_ARG.get(sub, "")
    for letter in word[1:]:
        why = _REFUSED_SHORT.get(letter)
        if why is not None:
            long_form = _LONG_FORMS.get((letter, sub))
            fix = f"use {long_form} instead" if long_form else "run the git command without it"
            return f"git option {show(word)} is not allowed in plan mode: -{letter} {why}; {fix}"
        if letter in stuck:
            return None
    return None


def _first_word_reason(raw: str, value: str) -> str:
    name = value.rsplit("/", 1)[-1]
    if value in ("cd", "pushd", "popd"):
        return CD_REASON
    if value == "git" or name in ("git", "git.exe"):
        return f"run git directly as the first word (git status, not {show(raw)}); in plan mode bash runs only read-only git commands"
    if value in _WRAPPERS:
        return f"{show(value)} is not allowed in plan mode: run git directly as the first word (git status, not {value} git status)"
    if "=" in value and value.split("=", 1)[0].replace("_", "a").isalnum():
        return f"environment assignments ({show(value)}) are not allowed in plan mode; run the git command without them"
    if value in _FILE_COMMANDS:
        return f"{show(value)} is not available in plan mode: {FILE_TOOLS_HINT}"
    return (
        f"{show(value)} is not a read-only git command: in plan mode bash runs only read-only git commands "
        f"({READ_ONLY_LIST}); {FILE_TOOLS_HINT}, and put changes in the plan for after approval"
    )


_WRAPPERS = frozenset(
    "sudo doas env command exec builtin nohup time nice ionice timeout stdbuf xargs eval bash sh zsh dash "
    "fish ksh su run0".split()
)
_FILE_COMMANDS = frozenset(
    "cat head tail less more ls find grep rg ag ack sed awk wc tree stat file du bat nl sort uniq cut fd "
    "echo printf pwd readlink realpath od xxd hexdump strings jq diff cmp type which dir".split()
)


READ_ONLY_SUBCOMMANDS = frozenset(_PLAIN_READERS | SHAPED.keys())


def _check_git(args: Sequence[str]) -> str | None:
    """Why `git <args>` is refused, or None when it is a read-only form."""
    index = 0
    sub = ""
    while index < len(args) and args[index].startswith("-"):
        word = args[index]
        index += 1
        if word == "--version":
            sub = "version"
            break
        refused = _refused_option(word, "")
        if refused is not None:
            return refused
        if word not in _SAFE_GLOBAL:
            return (
                f"git option {show(word)} is not allowed before the subcommand in plan mode; "
                "only --no-pager and the pathspec switches are"
            )
    if not sub:
        if index >= len(args):
            return f"git needs a subcommand; read-only ones run in plan mode ({READ_ONLY_LIST})"
        sub = args[index]
        index += 1
    rest = args[index:]
    if sub not in READ_ONLY_SUBCOMMANDS:
        if sub == "help":
            return "git help opens a manual viewer and is not available in plan mode; run the read-only command itself"
        if sub in _MUTATING:
            return f"git {sub} changes the repository; only read-only git commands run in plan mode ({READ_ONLY_LIST})"
        return f"git {show(sub)} is not a read-only git command; only read-only git commands run in plan mode ({READ_ONLY_LIST})"
    for word in rest:
        refused = _refused_option(word, sub)
        if refused is not None:
            return refused
    outside = next((value for value in _file_values(sub, rest) if outside_project(value)), None)
    if outside is not None:
        return (
            f"git {sub} reading {show(outside)} reads outside the project; in plan mode git reads only the "
            "project: name a file inside it"
        )
    if sub == "diff":
        # `git diff a b` with a path outside the repository silently becomes `--no-index`.
        outside = next((word for word in rest if not word.startswith("-") and outside_project(word)), None)
        if outside is not None:
            return (
                f"git diff {show(outside)} reads outside the project; in plan mode git reads only the "
                "project: name paths inside it (relative, without ..)"
            )
    shaped = SHAPED.get(sub)
    return shaped(rest) if shaped is not None else None


def check_git_command(command: str) -> GitCheck:
    """Whether `bash` may run `command` in plan mode; the reason names the fix when it may not."""
    if not isinstance(command, str):
        return GitCheck(False, "bash needs the command as a string")
    try:
        segments = split_chain(command)
    except ShellRefusal as refusal:
        return GitCheck(False, str(refusal))
    if len(segments) == 1 and not segments[0]:
        return GitCheck(False, "empty command; run a read-only git command such as git status")
    for segment in segments:
        if not segment:
            return GitCheck(
                False,
                "the chain has an empty command (a doubled or trailing && or ;); "
                "chain read-only git commands as git status && git diff",
            )
        first = segment[0]
        if first.raw != "git":
            return GitCheck(False, _first_word_reason(first.raw, first.value))
        reason = _check_git([word.value for word in segment[1:]])
        if reason is not None:
            return GitCheck(False, reason)
    return GitCheck(True, "")
