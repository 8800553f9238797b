"""git's format strings: which placeholders make a read-only command run gpg (pure).

One home for the rule, used for the formats a command names (`--format`, `--pretty`) and for the
ones a repository's config names (`pretty.<alias>`, `format.pretty`).
"""

from __future__ import annotations


def runs_gpg(fmt: str) -> bool:
    """Whether a pretty or ref-filter format asks for signature details, which runs gpg: a %G
    placeholder, also with a modifier (%-G?, % G?, %+GS), or the %(signature) atom; %% is a literal."""
    index = 0
    while index < len(fmt):
        if fmt[index] != "%":
            index += 1
            continue
        index += 1
        if fmt.startswith("%", index):
            index += 1
            continue
        if index < len(fmt) and fmt[index] in "+- ":
            index += 1
        if fmt.startswith(("G", "(signature"), index):
            return True
    return False
