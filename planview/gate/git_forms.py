"""Subcommands that read only in some forms: branch and tag (listing), stash, worktree, remote,
reflog, config, notes, symbolic-ref, describe, var. Each check takes the words after the subcommand
and returns why the form is refused, or None. Options refused everywhere (--output, ...) and
path values (git_paths) are checked before these.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from planview.gate.calls import show

__all__ = ["SHAPED", "config_reason"]


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
        short_ok="lni",
        flags=frozenset(
            {"--ignore-case", "--no-color", "--color", "--column", "--no-column", "--omit-empty"}
        ),
        valued=frozenset({"--points-at", "--sort", "--format"}),
        optional_valued=_FILTERS,
        list_switches=frozenset({"--list", "-l", "-n"}),
        what="changes tags (or, with -v, runs gpg)",
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
                f"git reflog {word} changes the reflog; only git reflog, git reflog <ref>, git reflog show "
                "and git reflog exists <ref> run in plan mode"
            )
    return None


_CONFIG_READS = frozenset(
    {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list"}
)
_CONFIG_SAFE = _CONFIG_READS | frozenset(
    {
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
        "--no-includes",
        "--fixed-value",
        "--all",
        "--regexp",
        "--value",
        "--url",
    }
)
_CONFIG_VALUED = frozenset({"--file", "--blob", "--type", "--default", "--value", "--url"})
_CONFIG_SCOPES = frozenset({"--local", "--worktree", "--file", "--blob"})
_CONFIG_HINT = "only reads of the project's config run in plan mode (git config --local --get <name>, git config --local --list)"


def _config(args: Sequence[str]) -> str | None:
    return config_reason(args)


def config_reason(args: Sequence[str], *, require_scope: bool = True) -> str | None:
    """Why `git config <args>` is refused. `require_scope=False` (the kernel sandbox with the plan
    environment, which reads no user or system config) lets a read without --local run."""
    words = list(args)
    reading = False
    scoped = False
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word.startswith("--"):
            name = word.split("=", 1)[0]
            if name in ("--global", "--system"):
                return (
                    f"git config {name} reads the user's or the system's config, which is not part of the "
                    f"project; {_CONFIG_HINT}"
                )
            if name not in _CONFIG_SAFE:
                return f"git config {show(word)} is not allowed in plan mode; {_CONFIG_HINT}"
            reading = reading or name in _CONFIG_READS
            scoped = scoped or name in _CONFIG_SCOPES
            if name in _CONFIG_VALUED and "=" not in word:
                index += 1
        elif word.startswith("-") and len(word) > 1:
            for letter in word[1:]:
                if letter == "l":
                    reading = True
                elif (
                    letter == "f"
                ):  # -f <file>: the rest of the word, or the next word (checked by git_paths)
                    scoped = True
                    if word.endswith("f"):
                        index += 1
                    break
                elif letter not in "z":
                    return f"git config {show(word)} is not allowed in plan mode; {_CONFIG_HINT}"
    if not reading:
        return f"git config without --get or --list changes configuration; {_CONFIG_HINT}"
    if not scoped and require_scope:
        return (
            "git config without --local also reads the user's and the system's config (credential "
            f"helpers, tokens), which is not part of the project; {_CONFIG_HINT}"
        )
    return None


def _notes(args: Sequence[str]) -> str | None:
    words = list(args)
    while words and words[0].startswith("--ref"):
        words = words[1:] if "=" in words[0] else words[2:]
    if words and words[0] in ("list", "show"):
        return None
    shown = f"git notes {words[0]}" if words else "git notes"
    return f"{show(shown)} changes notes; only git notes list [<object>] and git notes show [<object>] run in plan mode"


def _symbolic_ref(args: Sequence[str]) -> str | None:
    names = [word for word in args if word not in ("-q", "--quiet", "--short", "--no-recurse", "--recurse")]
    if len(names) == 1 and not names[0].startswith("-"):
        return None
    return (
        "git symbolic-ref with a second name (or -d) changes a ref; only git symbolic-ref <name> "
        "(e.g. git symbolic-ref HEAD) runs in plan mode"
    )


def _describe(args: Sequence[str]) -> str | None:
    for word in args:
        name = word.split("=", 1)[0]
        if word == "--":
            break
        # parse-options takes unambiguous abbreviations: --di / --dirt mean --dirty, --b / --br --broken
        if (len(name) >= 4 and "--dirty".startswith(name)) or (
            len(name) >= 3 and "--broken".startswith(name)
        ):
            return (
                f"git describe {show(word)} refreshes .git/index (--dirty rewrites it) or starts a second git "
                "(--broken), which plan mode does not do; run git describe without it and git status to see "
                "local changes"
            )
    return None


def _var(args: Sequence[str]) -> str | None:
    if len(args) == 1 and not args[0].startswith("-"):
        return None
    return (
        "git var -l prints the whole git configuration, the user's and the system's included; "
        "in plan mode name one variable (git var GIT_AUTHOR_IDENT) or use git config --local --list"
    )


SHAPED: dict[str, Callable[[Sequence[str]], str | None]] = {
    "branch": _branch,
    "tag": _tag,
    "stash": _stash,
    "worktree": _worktree,
    "remote": _remote,
    "reflog": _reflog,
    "config": _config,
    "notes": _notes,
    "symbolic-ref": _symbolic_ref,
    "describe": _describe,
    "var": _var,
}
