"""The read-only git shell: the only commands `bash` runs in plan mode.

An allowlist over read-only git command shapes, not a general shell parser. A command is one or
more segments chained with `&&` or `;`; every segment must be `git <read-only subcommand> ...`.
Words are checked as git will receive them (quotes removed), options in attached forms too
(`-cfoo=bar`, `--git-dir=x`, `-C.`, `-Oless`, and unambiguous abbreviations such as `--outp`).
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Sequence
from pathlib import Path

from planview.gate.calls import show
from planview.gate.git_formats import runs_gpg
from planview.gate.git_forms import SHAPED, config_reason
from planview.gate.git_paths import STUCK_ARG, escapes, file_values, outside_project
from planview.gate.git_store import borrowed_store
from planview.gate.shell_words import ShellRefusal, split_chain

__all__ = ["READ_ONLY_SUBCOMMANDS", "GitCheck", "check_git_command", "check_git_words"]


class GitCheck(namedtuple("GitCheck", "allowed reason")):
    """The git allowlist's verdict on one command, and why (a refusal names the fix)."""

    __slots__ = ()  # collections.namedtuple: typing.NamedTuple imports typing (the hook's start-up)
    allowed: bool
    reason: str


READ_ONLY_LIST = "status, diff, log, show, …"
FILE_TOOLS_HINT = "use the read / grep / find / ls tools to look at files"
CD_REASON = "cd is not needed: commands already run in the project root"

# Subcommands whose every form only reads (options are still checked).
_PLAIN_READERS = frozenset(
    "status diff log show blame grep shortlog rev-parse rev-list ls-files ls-tree cat-file "
    "for-each-ref count-objects merge-base name-rev diff-tree diff-index diff-files show-ref version "
    "whatchanged check-ignore check-attr show-branch cherry range-diff".split()
)
_VERIFIERS = frozenset({"verify-commit", "verify-tag", "verify-pack"})
_MUTATING = frozenset(
    "commit add push checkout switch reset restore clean merge rebase fetch pull apply am rm mv gc "
    "format-patch archive bundle cherry-pick revert init clone submodule replace update-ref "
    "update-index prune repack filter-branch fast-import maintenance sparse-checkout "
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
    "--remerge-diff": "runs the repository's merge drivers and writes objects; use --diff-merges=combined",
    "--show-signature": "runs gpg to check signatures; plan mode shows commits without verifying them",
    "--recurse-submodules": "runs git inside each submodule, under the submodule's own configuration",
    "--exclude-per-directory": "reads a file of that name in every folder, which cannot be checked; use --exclude-standard",
    "--includes": "follows include.path to config files outside the project",
    # Plan-mode reads stay inside the project (the read tools are confined to it too):
    "--no-index": "reads files anywhere on disk, outside git (read them with the read tool instead)",
}
# Exact long options that happen to be prefixes of a refused one but are themselves harmless.
_SAFE_EXACT_LONG = frozenset({"--text", "--filter", "--exclude", "--include", "--show"})
# Per subcommand: refused long options that are plain queries there (rev-parse only prints them).
_QUERY_EXCEPTIONS = {"rev-parse": frozenset({"--git-dir"})}

# Short options refused before the subcommand (where they are git's own), in clusters and attached.
_REFUSED_GLOBAL_SHORT = {
    "c": "before the subcommand sets git configuration",
    "C": "before the subcommand runs git in another folder",
}
_LOG_FAMILY = ("log", "show", "whatchanged", "rev-list", "diff", "diff-tree", "diff-index", "diff-files")
# Commands whose --format / --pretty is a pretty format (a name may be a config alias).
_PRETTY_USERS = frozenset({*_LOG_FAMILY, "shortlog", "reflog", "stash"})
_PRETTY_NAMES = frozenset("oneline short medium full fuller reference email mboxrd raw".split())


def _refused_option(word: str, sub: str) -> str | None:
    """Why an option word is refused in this subcommand's arguments ("" = before it), or None."""
    if len(word) < 2 or word[0] != "-":
        return None
    if word[1] == "-":
        return _refused_long(word, sub)
    if sub == "":
        for letter in word[1:]:
            why = _REFUSED_GLOBAL_SHORT.get(letter)
            if why is not None:
                return f"git option {show(word)} is not allowed in plan mode: -{letter} {why}; run the git command without it"
        return None
    if sub == "grep":
        return _refused_grep_short(word)
    return None


def _refused_long(word: str, sub: str) -> str | None:
    """Why a `--name[=value]` word is refused in this subcommand's arguments, or None (abbreviations included)."""
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


def _refused_grep_short(word: str) -> str | None:
    """git grep -O<pager> opens the matching files in a program; letters after one taking a value are that value."""
    stuck = STUCK_ARG["grep"]
    for letter in word[1:]:
        if letter == "O":
            return (
                f"git option {show(word)} is not allowed in plan mode: -O runs a program on the matching files; "
                "run git grep without it"
            )
        if letter in stuck:
            return None
    return None


# Options whose value is checked, and whether a value may follow as the next word. Matched by any
# prefix of four characters or more: parse-options takes unambiguous abbreviations (git status
# --ignore-sub=none is --ignore-submodules=none), and a stricter check of a word that was not
# meant as this option only refuses a command git would have refused or read the same way.
_CHECKED_VALUES = {
    "--pretty": False,
    "--format": True,
    "--diff-merges": True,
    "--submodule": False,
    "--ignore-submodules": False,
}
_REF_FORMAT_USERS = frozenset({"for-each-ref", "branch", "tag"})


def _checked_option(rest: Sequence[str], index: int) -> tuple[str, str | None] | None:
    """(the option a word spells, its value) when the word is one whose value is checked."""
    word = rest[index]
    name, eq, value = word.partition("=")
    if len(name) < 4:
        return None
    for full, separate in _CHECKED_VALUES.items():
        if full.startswith(name):
            if eq:
                return full, value
            following = rest[index + 1] if separate and index + 1 < len(rest) else None
            return full, following
    return None


def _format_rule(sub: str, option: str, word: str, value: str) -> str | None:
    if runs_gpg(value):
        return (
            f"{show(word)} asks for signature details (%G... or %(signature)), which runs gpg; plan mode "
            "shows commits without verifying them: drop those placeholders"
        )
    if sub in _PRETTY_USERS and "%" not in value and value not in _PRETTY_NAMES:
        if not value.startswith(("format:", "tformat:")):
            return (
                f"{show(word)} names a pretty format alias from the repository's config, which "
                f"plan mode does not read; use a built-in format or write it out, e.g. {option}='%h %s'"
            )
    return None


def _value_rule(sub: str, option: str, word: str, value: str) -> str | None:
    """Why this value of a checked option runs a program or writes, or None."""
    if option in ("--pretty", "--format"):
        if sub in _PRETTY_USERS or sub in _REF_FORMAT_USERS:
            return _format_rule(sub, option, word, value)
        return None
    if option == "--diff-merges" and value in ("remerge", "r"):
        return (
            f"--diff-merges={value} runs the repository's merge drivers and writes objects, so it is not "
            "allowed in plan mode; use --diff-merges=combined"
        )
    if option == "--submodule" and value == "diff":
        return (
            "--submodule=diff runs git inside the submodule under its own configuration, so it is not "
            "allowed in plan mode; use --submodule=log or --submodule=short"
        )
    if option == "--ignore-submodules" and value in ("none", "untracked"):
        return (
            f"{show(word)} runs git status inside each submodule, under its own configuration; "
            "use --ignore-submodules=dirty (the plan-mode default) or run git status in the submodule's files"
        )
    return None


def _subcommand_rules(sub: str, rest: Sequence[str]) -> str | None:
    """Forms of otherwise allowed options that run programs or write: refused, with the fix."""
    for index, word in enumerate(rest):
        if word == "--":
            break
        if not word.startswith("--"):
            continue
        found = _checked_option(rest, index)
        if found is None or found[1] is None:
            continue
        problem = _value_rule(sub, found[0], word, found[1])
        if problem is not None:
            return problem
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


def _sandboxed_folder(args: Sequence[str], index: int, root: Path | None) -> tuple[int, str | None]:
    """`git -C <folder>` with the kernel sandbox in force: (index after it, refusal)."""
    word = args[index - 1]
    folder = word[2:] if len(word) > 2 else (args[index] if index < len(args) else "")
    if len(word) == 2:
        index += 1
    if not folder:
        return index, "git -C needs a folder inside the project (git -C src log)"
    if escapes(folder, root):
        return index, (
            f"git -C {show(folder)} runs git outside the project; in plan mode git reads only the project: "
            "name a folder inside it"
        )
    return index, None


def check_git_words(args: Sequence[str], root: Path | None, *, sandboxed: bool = False) -> str | None:
    """Why `git <args>` is refused, or None when it is a read-only form. `sandboxed`: the kernel
    sandbox is in force, so `-C <folder inside the project>` and `git config --get/--list` without
    --local run too (the plan environment reads no user or system config)."""
    index, sub, refused = _global_options(args, root, sandboxed=sandboxed)
    if refused is not None:
        return refused
    if not sub:
        if index >= len(args):
            return f"git needs a subcommand; read-only ones run in plan mode ({READ_ONLY_LIST})"
        sub = args[index]
        index += 1
    rest = args[index:]
    if sub not in READ_ONLY_SUBCOMMANDS:
        return _not_read_only(sub)
    for word in rest:
        refused = _refused_option(word, sub)
        if refused is not None:
            return refused
    refused = _subcommand_rules(sub, rest)
    if refused is not None:
        return refused
    refused = _reads_outside(sub, rest, root)
    if refused is not None:
        return refused
    if sandboxed and sub == "config":
        return config_reason(rest, require_scope=False)
    shaped = SHAPED.get(sub)
    return shaped(rest) if shaped is not None else None


def _global_options(
    args: Sequence[str], root: Path | None, *, sandboxed: bool
) -> tuple[int, str, str | None]:
    """The options before the subcommand: (index of the subcommand, "version" for --version else "",
    why one is refused or None)."""
    index = 0
    while index < len(args) and args[index].startswith("-"):
        word = args[index]
        index += 1
        if word == "--version":
            return index, "version", None
        if sandboxed and word.startswith("-C"):
            index, refused = _sandboxed_folder(args, index, root)
            if refused is not None:
                return index, "", refused
            continue
        refused = _refused_option(word, "")
        if refused is not None:
            return index, "", refused
        if word not in _SAFE_GLOBAL:
            return (
                index,
                "",
                f"git option {show(word)} is not allowed before the subcommand in plan mode; "
                "only --no-pager and the pathspec switches are",
            )
    return index, "", None


def _not_read_only(sub: str) -> str:
    """Why a subcommand outside the read-only list is refused, naming what to run instead."""
    if sub == "help":
        return "git help opens a manual viewer and is not available in plan mode; run the read-only command itself"
    if sub in _MUTATING:
        return f"git {sub} changes the repository; only read-only git commands run in plan mode ({READ_ONLY_LIST})"
    if sub in _VERIFIERS:
        return (
            f"git {sub} runs gpg to check signatures, which plan mode does not do; "
            "read the commit or tag with git show instead"
        )
    return f"git {show(sub)} is not a read-only git command; only read-only git commands run in plan mode ({READ_ONLY_LIST})"


def _reads_outside(sub: str, rest: Sequence[str], root: Path | None) -> str | None:
    """Why a file value or a path argument of the subcommand reads outside the project, or None."""
    for value in file_values(sub, rest):
        if escapes(value, root):
            return (
                f"git {sub} reading {show(value)} reads outside the project; in plan mode git reads only the "
                "project: name a file inside it (not through a symlink that leads out)"
            )
    lexical = sub == "diff"  # `git diff a b` with a path outside the repository becomes --no-index
    for word in rest:
        if word.startswith("-"):
            continue
        if (lexical and outside_project(word)) or (
            root is not None and escapes(word, root, follow_last=False)
        ):
            return (
                f"git {sub} {show(word)} reads outside the project; in plan mode git reads only the "
                "project: name paths inside it (relative, without .., not through a symlink that leads out)"
            )
    return None


def check_git_command(command: str, root: Path | str | None = None) -> GitCheck:
    """Whether `bash` may run `command` in plan mode; the reason names the fix when it may not.

    With `root` (the project root) path words are also resolved on disk, symlinks followed, and the
    repository's object store must be its own (planview.gate.git_store).
    """
    if not isinstance(command, str):
        return GitCheck(False, "bash needs the command as a string")
    try:
        segments = split_chain(command)
    except ShellRefusal as refusal:
        return GitCheck(False, str(refusal))
    if len(segments) == 1 and not segments[0]:
        return GitCheck(False, "empty command; run a read-only git command such as git status")
    base = Path(root) if root is not None else None
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
        reason = check_git_words([word.value for word in segment[1:]], base)
        if reason is not None:
            return GitCheck(False, reason)
    borrowed = borrowed_store(base) if base is not None else None
    if borrowed is not None:  # checked last: a refused form keeps its own, more specific reason
        return GitCheck(False, borrowed)
    return GitCheck(True, "")
