"""The read-only commands plan-mode bash runs besides git, when the kernel sandbox is in force.

The kernel (planview.sandbox) is the guarantee: whatever these programs do, they read only the
project and write nothing. This list is the first layer: it refuses early, with a sentence that
names the fix, what would only fail inside the sandbox (a write, a program run for each file, a
path outside the project) or hang until the time limit (`tail -f`). Without the sandbox none of
these run in plan mode (planview.gate.git_shell keeps the git-only list).

Each program has the options that take a separate value (so that value is not taken for a path)
and the options refused, with the reason. GNU tools accept any unambiguous abbreviation of a long
option (`sort --out=x` is `--output=x`), so a refused long option is refused in every abbreviation.
"""

from __future__ import annotations

import re
from collections import namedtuple
from collections.abc import Sequence

from planview.gate.calls import show
from planview.gate.git_paths import escapes
from planview.lazy_regex import LazyPattern

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the hook's start-up)
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["READ_COMMANDS", "READ_COMMANDS_LIST", "reader_reason"]

READ_COMMANDS_LIST = (
    "rg, grep, find, ls, cat, head, tail, wc, sort, uniq, cut, sed -n, tr, file, stat, tree, diff"
)


class Reader(namedtuple("Reader", "short_values long_values refused first_operand gnu", defaults=(True,))):
    """How one read-only program is checked: its value-taking options, the refused ones, its operands."""

    __slots__ = ()  # collections.namedtuple: typing.NamedTuple imports typing (the hook's start-up)
    short_values: str  # short options whose value is the next word (or the rest of the word)
    long_values: frozenset[str]  # long options whose value is the next word unless written with =
    refused: dict[str, str]  # option -> why (long names refused in every abbreviation)
    first_operand: str  # "pattern" (grep, rg), "script" (sed), "none" (tr: no file operands), "" (files)
    gnu: bool  # getopt_long: unambiguous abbreviations of long options count (default True)


_RG_LONG_VALUES = frozenset(
    "--regexp --file --glob --iglob --type --type-not --type-add --type-clear --max-count --context "
    "--after-context --before-context --replace --max-depth --maxdepth --max-filesize --sort --sortr "
    "--encoding --color --colors --field-match-separator --field-context-separator --path-separator "
    "--threads --engine --max-columns --context-separator --dfa-size-limit --regex-size-limit "
    "--ignore-file --hostname-bin --hyperlink-format".split()
)
_GREP_LONG_VALUES = frozenset(
    "--regexp --file --max-count --after-context --before-context --context --include --exclude "
    "--exclude-from --exclude-dir --label --color --colour --binary-files --devices --directories "
    "--group-separator".split()
)
_NO_PROGRAMS = "plan mode runs no program per file"

READ_COMMANDS: dict[str, Reader] = {
    "rg": Reader(
        "efgtTmABCMjErd",
        _RG_LONG_VALUES,
        {
            "--pre": f"runs a program on every file searched; {_NO_PROGRAMS}",
            "--pre-glob": f"chooses files for --pre's program; {_NO_PROGRAMS}",
            "--hostname-bin": "runs a program to find the host name",
        },
        "pattern",
        gnu=False,
    ),
    "grep": Reader("efmABCdD", _GREP_LONG_VALUES, {}, "pattern"),
    "ls": Reader(
        "wIT",
        frozenset(
            {
                "--width",
                "--ignore",
                "--hide",
                "--tabsize",
                "--format",
                "--sort",
                "--time",
                "--time-style",
                "--block-size",
                "--color",
                "--indicator-style",
                "--quoting-style",
            }
        ),
        {},
        "",
    ),
    "cat": Reader("", frozenset(), {}, ""),
    "head": Reader("nc", frozenset({"--lines", "--bytes"}), {}, ""),
    "tail": Reader(
        "ncs",
        frozenset({"--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"}),
        {
            "-f": "waits for the file to grow until the time limit; read its end with tail -n 50",
            "-F": "waits for the file to grow until the time limit; read its end with tail -n 50",
            "--follow": "waits for the file to grow until the time limit; read its end with tail -n 50",
            "--retry": "waits for the file until the time limit; read its end with tail -n 50",
        },
        "",
    ),
    "wc": Reader("", frozenset({"--files0-from"}), {}, ""),
    "sort": Reader(
        "ktSTo",
        frozenset(
            {
                "--key",
                "--field-separator",
                "--buffer-size",
                "--temporary-directory",
                "--parallel",
                "--batch-size",
                "--sort",
                "--random-source",
                "--files0-from",
            }
        ),
        {
            "-o": "writes the sorted text to a file; plan mode writes nothing: read sort's output instead",
            "--output": "writes the sorted text to a file; plan mode writes nothing: read sort's output instead",
            "--compress-program": f"runs a program on sort's temporary files; {_NO_PROGRAMS}",
        },
        "",
    ),
    "uniq": Reader(
        "fsw",
        frozenset({"--skip-fields", "--skip-chars", "--check-chars", "--all-repeated", "--group"}),
        {},
        "uniq",
    ),
    "cut": Reader(
        "bcdf",
        frozenset({"--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"}),
        {},
        "",
    ),
    "sed": Reader(
        "elf",
        frozenset({"--expression", "--file", "--line-length"}),
        {
            "-i": "edits the file in place; plan mode writes nothing: print with sed -n '…p' instead",
            "--in-place": "edits the file in place; plan mode writes nothing: print with sed -n '…p' instead",
            "-f": "reads its script from a file, which plan mode cannot check; write the script inline: sed -n '1,20p' FILE",
            "--file": "reads its script from a file, which plan mode cannot check; write the script inline: sed -n '1,20p' FILE",
        },
        "script",
    ),
    "tr": Reader("", frozenset(), {}, "none"),
    "file": Reader(
        "fmFeP",
        frozenset(
            {"--files-from", "--magic-file", "--separator", "--exclude", "--exclude-quiet", "--parameter"}
        ),
        {
            "-C": "compiles a magic file (it writes one); run file on the files themselves",
            "--compile": "compiles a magic file (it writes one); run file on the files themselves",
        },
        "",
    ),
    "stat": Reader("c", frozenset({"--format", "--printf", "--cached"}), {}, ""),
    "tree": Reader(
        "LPIH",
        frozenset({"--filelimit", "--timefmt", "--sort", "--charset", "--gitfile", "--infile"}),
        {
            "-o": "writes the listing to a file; plan mode writes nothing: read tree's output instead",
            "-R": "writes a listing file into each folder (with -H); run tree -L N instead",
            "--output": "writes the listing to a file; plan mode writes nothing",
        },
        "",
        gnu=False,
    ),
    "diff": Reader(
        "CUFIDWS",
        frozenset(
            {
                "--label",
                "--ignore-matching-lines",
                "--show-function-line",
                "--starting-file",
                "--exclude",
                "--exclude-from",
                "--line-format",
                "--width",
                "--tabsize",
                "--horizon-lines",
                "--color",
                "--palette",
                "--from-file",
                "--to-file",
                "--new-group-format",
                "--old-group-format",
                "--changed-group-format",
                "--unchanged-group-format",
            }
        ),
        {},
        "",
    ),
    # Small helpers a planner types as well: they only read or print.
    "echo": Reader("", frozenset(), {}, "none", gnu=False),
    "pwd": Reader("", frozenset(), {}, "none", gnu=False),
    "true": Reader("", frozenset(), {}, "none", gnu=False),
    "nl": Reader("bhfvidpnwls", frozenset(), {}, ""),
    "tac": Reader("s", frozenset({"--separator"}), {}, ""),
    "du": Reader(
        "dBt",
        frozenset(
            {
                "--max-depth",
                "--block-size",
                "--threshold",
                "--exclude",
                "--time-style",
                "--files0-from",
                "--exclude-from",
            }
        ),
        {},
        "",
    ),
    "basename": Reader("s", frozenset({"--suffix"}), {}, "none"),
    "dirname": Reader("", frozenset(), {}, "none"),
    "realpath": Reader("", frozenset({"--relative-to", "--relative-base"}), {}, ""),
    "readlink": Reader("", frozenset(), {}, ""),
    "cmp": Reader("inb", frozenset({"--ignore-initial", "--bytes"}), {}, ""),
    "comm": Reader("", frozenset({"--output-delimiter"}), {}, ""),
}

_FIND_REFUSED = {
    "-exec": "runs a program for each file",
    "-execdir": "runs a program for each file",
    "-ok": "runs a program for each file",
    "-okdir": "runs a program for each file",
    "-delete": "deletes the files it finds",
    "-fprint": "writes its list to a file",
    "-fprint0": "writes its list to a file",
    "-fprintf": "writes its list to a file",
    "-fls": "writes its list to a file",
}
_FIND_GLOBAL = frozenset({"-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3", "-D"})

# sed scripts plan mode runs: addresses, then p P = l q Q n N d D { } ! or s/…/…/ with printing
# flags only (w writes a file, e runs the pattern space as a command, r/R/W/e commands likewise).
_SED_ADDRESS = r"(?:\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/[IM]*)"
_SED_COMMAND = LazyPattern(
    rf"\s*(?:{_SED_ADDRESS}(?:\s*,\s*(?:{_SED_ADDRESS}|[+~]\d+))?)?\s*!?\s*"
    r"(?:[pP=lqQnNdDgGhHxz{}]|s(?P<d>[^\s\\\n;{}])(?:(?!(?P=d))[^\\\n]|\\.)*(?P=d)(?:(?!(?P=d))[^\\\n]|\\.)*(?P=d)[gpiImM0-9]*)?\s*$"
)


def _long_refusal(word: str, reader: Reader) -> str | None:
    name = word.split("=", 1)[0]
    why = reader.refused.get(name)
    if why is not None:
        return f"{name} {why}"
    if reader.gnu and len(name) >= 3 and name not in reader.long_values:
        for refused, why in reader.refused.items():
            if refused.startswith("--") and refused.startswith(name):
                return f"{show(word)} abbreviates {refused}, which {why}"
    return None


def _short_refusal(word: str, reader: Reader) -> tuple[str | None, bool]:
    """(why the cluster is refused, whether its value is the next word)."""
    for position, letter in enumerate(word[1:], start=2):
        why = reader.refused.get(f"-{letter}")
        if why is not None:
            return f"-{letter} {why}", False
        if letter in reader.short_values:
            return None, position == len(word)
    return None, False


def _operands(program: str, words: Sequence[str], reader: Reader) -> tuple[list[str], str | None]:
    """(the operand words, a refusal) of one program's arguments."""
    operands: list[str] = []
    index = 0
    literal = False
    while index < len(words):
        word = words[index]
        index += 1
        if literal or word == "-" or not word.startswith("-") or program in ("echo", "basename", "dirname"):
            operands.append(word)
            continue
        if word == "--":
            literal = True
            continue
        if word.startswith("--"):
            refused = _long_refusal(word, reader)
            if refused is not None:
                return operands, refused
            name, eq, value = word.partition("=")
            if eq and any(part in name for part in ("file", "dir", "from", "relative")):
                operands.append(value)  # a path-valued option (--file=/etc/x) is a path too
            if not eq and name in reader.long_values:
                index += 1
            continue
        refused, takes_next = _short_refusal(word, reader)
        if refused is not None:
            return operands, refused
        if takes_next:
            index += 1
    return operands, None


def _has_option(words: Sequence[str], short: str, longs: tuple[str, ...]) -> bool:
    for word in words:
        if word == "--":
            return False
        if word.startswith("--") and word.split("=", 1)[0] in longs:
            return True
        if word.startswith("-") and not word.startswith("--") and any(c in short for c in word[1:2]):
            return True
    return False


def _sed_reason(words: Sequence[str], operands: list[str]) -> str | None:
    if not _has_option(words, "n", ("--quiet", "--silent")) and not any(
        w.startswith("-") and not w.startswith("--") and "n" in w[1:] for w in words
    ):
        return "sed runs in plan mode only as a printer: sed -n '1,20p' FILE (add -n, print with p)"
    scripts = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-e", "--expression")]
    scripts += [w.split("=", 1)[1] for w in words if w.startswith("--expression=")]
    scripts += [w[2:] for w in words if w.startswith("-e") and len(w) > 2]
    if not scripts:
        if not operands:
            return "sed needs a script: sed -n '1,20p' FILE"
        scripts = [operands.pop(0)]
    for script in scripts:
        for part in re.split(r"[;\n]", script):
            if part.strip() and _SED_COMMAND.match(part) is None:
                return (
                    f"sed script {show(script)} is not a print script plan mode runs (only addresses with "
                    "p, =, l, q, d, n, {…} and s///[gpI]; w, W, r, R and e read, write or run files): "
                    "use e.g. sed -n '10,40p' FILE"
                )
    return None


def _find_reason(words: Sequence[str], root: Path | None) -> str | None:
    index = 0
    while index < len(words) and words[index] in _FIND_GLOBAL:
        index += 1
    starts: list[str] = []
    while index < len(words) and not words[index].startswith(("-", "(", "!", ")", ",")):
        starts.append(words[index])
        index += 1
    for word in words[index:]:
        why = _FIND_REFUSED.get(word)
        if why is not None:
            return f"find {word} {why}, which plan mode does not do; find the files and read them instead"
        if word.startswith("-fprint") or word.startswith("-exec") or word.startswith("-ok"):
            return f"find {show(word)} is not allowed in plan mode; find the files and read them instead"
    return _outside(starts, root, "find")


def _outside(paths: Sequence[str], root: Path | None, program: str) -> str | None:
    for path in paths:
        if path != "-" and escapes(path, root):
            return (
                f"{program} {show(path)} reads outside the project; in plan mode commands read only the "
                "project: name paths inside it (relative, without .., not through a symlink that leads out)"
            )
    return None


def reader_reason(program: str, words: Sequence[str], root: Path | None) -> str | None:
    """Why `program words…` does not run in sandboxed plan mode, or None when it may.
    `program` must be a key of READ_COMMANDS or "find"."""
    if program == "find":
        return _find_reason(words, root)
    reader = READ_COMMANDS[program]
    operands, refused = _operands(program, words, reader)
    if refused is not None:
        return f"{program} {refused}"
    if reader.first_operand == "none":
        return None
    if reader.first_operand == "pattern":
        named = _has_option(words, "ef", ("--regexp", "--file")) or any(
            w.startswith(("--regexp=", "--file=")) for w in words
        )
        if not named and operands:
            operands = operands[1:]
    elif reader.first_operand == "script":
        refused = _sed_reason(words, operands)  # takes the script out of operands
        if refused is not None:
            return refused
    elif reader.first_operand == "uniq" and len(operands) > 1:
        return (
            f"uniq {show(operands[1])}: a second file name is where uniq writes its output; plan mode writes "
            "nothing: pass one input file and read the output"
        )
    return _outside(operands, root, program)
