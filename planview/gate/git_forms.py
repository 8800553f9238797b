"""Subcommands that read only in some forms: branch and tag (listing), stash, worktree, remote,
reflog, config. Each check takes the words after the subcommand and returns why the form is
refused, or None. Options refused everywhere (-c, --output, ...) are checked before these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from planview.gate.calls import show

__all__ = ["SHAPED", "outside_project"]


def outside_project(word: str) -> bool:
    """Whether a path word names something outside the project root (where plan-mode git runs):
    absolute, from a home folder, or climbing out with `..`. Lexical: the gate does no IO."""
    if word.startswith(("/", "~", "\\")):
        return True
    depth = 0
    for part in word.replace("\\", "/").split("/"):
        if part == "..":
            depth -= 1
            if depth < 0:
                return True
        elif part not in ("", "."):
            depth += 1
    return False


def _listing_check(
    sub: str,
    args: Sequence[str],
    short_ok: str,
    flags: frozenset[str],
    valued: frozenset[str],
    optional_valued: frozenset[str],
    list_switches: frozenset[str],
    what: str,
) -> str | None:
    """Shared by branch and tag: only listing options; names only with a list switch."""
    listing = False
    names: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if word == "--":
            names.extend(args[index:])
            break
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if name in list_switches:
                listing = True
            if name in flags or name in list_switches:
                continue
            if name in valued or name in optional_valued:
                if "=" not in word and index < len(args):
                    if name in valued or not args[index].startswith("-"):
                        index += 1
                continue
            return (
                f"git {sub} {show(word)} {what}; only listing forms run in plan mode ({_LISTING_HINTS[sub]})"
            )
        if word.startswith("-") and len(word) > 1:
            letters = word[1:]
            if sub == "tag" and letters[0] == "n" and letters[1:].isdigit():
                listing = True
                continue
            if all(letter in short_ok for letter in letters):
                if any(f"-{letter}" in list_switches for letter in letters):
                    listing = True
                continue
            return (
                f"git {sub} {show(word)} {what}; only listing forms run in plan mode ({_LISTING_HINTS[sub]})"
            )
        names.append(word)
    if names and not listing:
        return (
            f"git {sub} {show(names[0])} {what}; to list matching ones use git {sub} --list {names[0]} "
            f"({_LISTING_HINTS[sub]})"
        )
    return None


_LISTING_HINTS = {
    "branch": "git branch, -a, -r, -v, --list <pattern>, --contains <commit>",
    "tag": "git tag, --list <pattern>, -n, --contains <commit>",
}
_FILTERS = frozenset({"--contains", "--no-contains", "--merged", "--no-merged"})


def _branch(args: Sequence[str]) -> str | None:
    return _listing_check(
        "branch",
        args,
        short_ok="arvliq",
        flags=frozenset(
            {
                "--all",
                "--remotes",
                "--verbose",
                "--ignore-case",
                "--show-current",
                "--no-color",
                "--color",
                "--column",
                "--no-column",
                "--abbrev",
                "--no-abbrev",
                "--omit-empty",
                "--quiet",
            }
        ),
        valued=frozenset({"--points-at", "--sort", "--format"}),
        optional_valued=_FILTERS,
        list_switches=frozenset({"--list", "-l"}),
        what="changes branches",
    )


def _tag(args: Sequence[str]) -> str | None:
    return _listing_check(
        "tag",
        args,
        short_ok="lniv",
        flags=frozenset(
            {"--ignore-case", "--no-color", "--color", "--column", "--no-column", "--omit-empty"}
        ),
        valued=frozenset({"--points-at", "--sort", "--format"}),
        optional_valued=_FILTERS,
        list_switches=frozenset({"--list", "-l", "-n", "-v", "--verify"}),
        what="changes tags",
    )


def _stash(args: Sequence[str]) -> str | None:
    if args and args[0] in ("list", "show"):
        return None
    shown = f"git stash {args[0]}" if args else "git stash"
    return f"{show(shown)} changes the stash; only git stash list and git stash show run in plan mode"


def _worktree(args: Sequence[str]) -> str | None:
    if args and args[0] == "list":
        return None
    shown = f"git worktree {args[0]}" if args else "git worktree"
    return f"{show(shown)} changes worktrees; only git worktree list runs in plan mode"


def _remote(args: Sequence[str]) -> str | None:
    if all(word in ("-v", "--verbose") for word in args) or args[0] == "get-url":
        return None
    return (
        f"git remote {show(args[0])} is not allowed in plan mode; only git remote, git remote -v and "
        "git remote get-url <name> run"
    )


_REFLOG_WRITES = frozenset({"expire", "delete", "drop", "write"})


def _reflog(args: Sequence[str]) -> str | None:
    # Checked anywhere, not only first: options before a subcommand word must not hide it.
    for word in args:
        if word in _REFLOG_WRITES:
            return (
                f"git reflog {word} changes the reflog; only git reflog and git reflog show run in plan mode"
            )
    if not args or args[0] == "show" or args[0].startswith("-"):
        return None
    return f"only git reflog and git reflog show run in plan mode; write git reflog show {args[0]}"


_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list"}
)
_CONFIG_SAFE = _CONFIG_READS | frozenset(
    {
        "--global",
        "--system",
        "--local",
        "--worktree",
        "--file",
        "--blob",
        "--name-only",
        "--show-origin",
        "--show-scope",
        "--null",
        "--type",
        "--no-type",
        "--bool",
        "--int",
        "--bool-or-int",
        "--path",
        "--expiry-date",
        "--default",
        "--includes",
        "--no-includes",
        "--fixed-value",
        "--all",
        "--regexp",
        "--value",
        "--url",
    }
)
_CONFIG_VALUED = frozenset({"--file", "--blob", "--type", "--default", "--value", "--url"})
_CONFIG_HINT = "only reads run in plan mode (git config --get <name>, git config --list)"


def _config_file_outside(value: str) -> str | None:
    if outside_project(value):
        return (
            f"git config reading {show(value)} reads outside the project; in plan mode git reads only the "
            "project (git config --list, or --file with a path inside it)"
        )
    return None


def _config(args: Sequence[str]) -> str | None:
    words = list(args)
    reading = bool(words) and words[0] in ("get", "list")  # the newer `git config get|list` form
    index = 1 if reading else 0
    while index < len(words):
        word = words[index]
        index += 1
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if name not in _CONFIG_SAFE:
                return f"git config {show(word)} is not allowed in plan mode; {_CONFIG_HINT}"
            if name in _CONFIG_READS:
                reading = True
            if name in _CONFIG_VALUED and "=" not in word:
                index += 1
            if name == "--file":
                value = (
                    word.split("=", 1)[1]
                    if "=" in word
                    else (words[index - 1] if index <= len(words) else "")
                )
                refused = _config_file_outside(value)
                if refused is not None:
                    return refused
        elif word.startswith("-") and len(word) > 1:
            for position, letter in enumerate(word[1:], start=2):
                if letter == "l":
                    reading = True
                elif letter == "f":  # -f <file>: the rest of the word, or the next word, is the file
                    value = word[position:]
                    if position == len(word):
                        value = words[index] if index < len(words) else ""
                        index += 1
                    refused = _config_file_outside(value)
                    if refused is not None:
                        return refused
                    break
                elif letter not in "z":
                    return f"git config {show(word)} is not allowed in plan mode; {_CONFIG_HINT}"
    if not reading:
        return f"git config without --get or --list changes configuration; {_CONFIG_HINT}"
    return None


SHAPED: dict[str, Callable[[Sequence[str]], str | None]] = {
    "branch": _branch,
    "tag": _tag,
    "stash": _stash,
    "worktree": _worktree,
    "remote": _remote,
    "reflog": _reflog,
    "config": _config,
}
