"""A small POSIX-quoting tokeniser that keeps what `shlex` throws away: which characters were quoted.

The read-only git shell must see every *unquoted* metacharacter (`|`, `>`, `$(`, a glob, ...) to
refuse it, and must check each word as bash will hand it to git (quotes removed, `\\x` -> `x`).
`shlex.split` gives only the latter, so this module walks the command once with one regular
expression and produces both: the words of each `&&` / `;` segment, or a refusal reason.

It is deliberately not a shell parser: anything beyond plain words, quotes and the two chain
separators is refused, and the reason names the fix.
"""

from __future__ import annotations

from collections import namedtuple

from planview.lazy_regex import LazyPattern

__all__ = ["ShellRefusal", "Word", "split_chain"]


class Word(namedtuple("Word", "raw value")):
    """One shell word: as written, and as bash hands it to the program."""

    __slots__ = ()  # collections.namedtuple: typing.NamedTuple imports typing (the hook's start-up)
    raw: str  # the word as written (quotes and backslashes included)
    value: str  # the word as bash passes it to the program


class ShellRefusal(Exception):
    """The command uses shell syntax plan mode does not run; the message names the fix."""


_TOKEN = LazyPattern(
    r"(?s)"  # DOTALL: `.` (meta, and a backslash's next character) takes a newline too
    r"(?P<ws>[ \t]+)"
    r"|(?P<plain>[^ \t'\"\\|&;<>()$`*?\[#{}]+)"
    r"|(?P<sq>'[^']*')"
    r'|(?P<dq>"(?:[^"\\]|\\.)*")'
    r"|(?P<bs>\\.?)"
    r"|(?P<and>&&)"
    r"|(?P<semi>;)"
    r"|(?P<brace>[{}])"
    r"|(?P<meta>.)"
)
# With the kernel sandbox in force (planview.sandbox) plan mode also takes pipes, || and the
# redirections that write nothing: output or errors to /dev/null, stderr into stdout. Such a
# redirection is a token only at the start of a word (never inside quotes or a word) and is dropped
# from the words: the program never sees it. Globs (* ? [) are plain characters there: bash expands
# them in the project, and a word that climbs out (../*, /etc/*) is still refused by its spelling.
_WIDE_TOKEN = LazyPattern(
    r"(?s)"
    r"(?P<redir>(?<![^ \t;&|])(?:(?:[12]?>>?|&>)[ \t]*/dev/null|[12]?>&[12])(?![^ \t;&|]))"
    r"|(?P<ws>[ \t]+)"
    r"|(?P<plain>[^ \t'\"\\|&;<>()$`#{}]+)"
    r"|(?P<sq>'[^']*')"
    r'|(?P<dq>"(?:[^"\\]|\\.)*")'
    r"|(?P<bs>\\.?)"
    r"|(?P<and>&&)"
    r"|(?P<or>\|\|)"
    r"|(?P<pipe>\|)"
    r"|(?P<semi>;)"
    r"|(?P<brace>[{}])"
    r"|(?P<meta>.)"
)
# Anything below space except tab, DEL and the C1 range: never part of a command a model should send.
_CONTROL = LazyPattern(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# A backslash before one of these escapes shell syntax; a backslash before anything else is taken
# as a Windows path separator (bash drops it, which is harmless for a read).
_ESCAPABLE_META = frozenset(" \t|&;<>()$`\\\"'*?[]#~{}!")
_DQ_SPECIAL = frozenset('$`"\\')
# Fast path: no quotes, escapes, metacharacters or controls, only && and ; as separators. Such a
# command's words are exactly its space/tab-separated runs (the common case: git status && git diff).
_NOT_SIMPLE = LazyPattern(r"['\"\\|<>()$`*?\[#{}\x00-\x1f\x7f-\x9f]")
_SIMPLE_SEPARATORS = LazyPattern(r"&&|;")
_BLANKS = LazyPattern(r"[ \t]+")

QUOTE_HINT = "put the text in single quotes, e.g. git log --format='%h %s'"
CHAIN_HINT = "chain read-only git commands with && or ;"


def _meta_reason(char: str, following: str) -> str:
    if char == "|":
        if following == "|":
            return f"|| is not allowed in plan mode; {CHAIN_HINT}"
        return f"pipes (|) are not allowed in plan mode; run the git command on its own and read its output ({CHAIN_HINT})"
    if char == "&":
        if following == ">":
            return "redirection (&>) writes files and is not allowed in plan mode; run the command without it"
        return f"background jobs (&) are not allowed in plan mode; {CHAIN_HINT}"
    if char in "<>":
        if following == "(":
            return f"process substitution ({char}(...)) is not allowed in plan mode; run each git command on its own"
        return f"redirection ({char}) is not allowed in plan mode; run the command without it and read its output"
    if char == "$":
        if following == "(":
            return "command substitution $(...) is not allowed in plan mode; run each git command on its own"
        return f"$ expansion is not allowed in plan mode; {QUOTE_HINT}"
    if char == "`":
        return "command substitution (backticks) is not allowed in plan mode; run each git command on its own"
    if char in "()":
        return "subshells and grouping ( ) are not allowed in plan mode; quote the text or chain commands with && or ;"
    if char in "*?[":
        return f"the shell expands an unquoted {char}; quote the pattern, e.g. git ls-files '*.py'"
    if char in "'\"":
        return f"unterminated {char} quote; close it"
    return f"{char!r} is not allowed in plan mode; {QUOTE_HINT}"


def _check_braces(skeleton: str) -> None:
    """Refuse brace expansion ({a,b}, {1..3}): it can build an option no one wrote out.

    One pass with a stack: each closed group is judged on its own text with inner groups collapsed
    to "_" (so `{a,{b}}` counts the outer comma, `{{a}.{b}}` is no range), linear in the word.
    """
    groups: list[list[str]] = [[]]
    for char in skeleton:
        if char == "{":
            groups.append([])
        elif char == "}" and len(groups) > 1:
            inner = "".join(groups.pop())
            if "," in inner or ".." in inner:
                raise ShellRefusal(
                    f"brace expansion ({{{inner}}}) is not allowed in plan mode; write the words out or quote them"
                )
            groups[-1].append("_")
        else:
            groups[-1].append(char)


def split_chain(command: str, *, pipes: bool = False) -> list[list[Word]]:
    """The words of each `&&` / `;` segment, or ShellRefusal. Segments may be empty (the caller decides).

    `pipes` (the kernel sandbox is in force): `|` and `||` separate segments too, and redirections
    to /dev/null (`2>/dev/null`, `>/dev/null`, `&>/dev/null`) and `2>&1` are dropped."""
    _refuse_control(command)
    if _NOT_SIMPLE.search(command) is None and "&" not in command.replace("&&", ""):
        simple = [
            [Word(word, word) for word in _BLANKS.split(part) if word]
            for part in _SIMPLE_SEPARATORS.split(command)
        ]
        if "~" in command:
            _check_tildes(simple)
        return simple
    segments: list[list[Word]] = [[]]
    start = -1  # where the current word began, -1 when between words
    values: list[str] = []
    skeleton: list[str] | None = None  # unquoted text with quoted parts blanked, kept only when braces appear

    def flush(end: int) -> None:
        nonlocal start, skeleton
        if start >= 0:
            if skeleton is not None:
                _check_braces("".join(skeleton))
                skeleton = None
            segments[-1].append(Word(command[start:end], "".join(values)))
            values.clear()
            start = -1

    for match in (_WIDE_TOKEN if pipes else _TOKEN).finditer(command):
        kind = match.lastgroup
        text = match.group()
        if kind == "ws" or kind == "redir":
            flush(match.start())
            continue
        if kind in ("and", "semi", "or", "pipe"):
            flush(match.start())
            segments.append([])
            continue
        value = _token_value(kind, text, command[match.end() : match.end() + 1], in_word=start >= 0)
        if start < 0:
            start = match.start()
        values.append(value)
        if kind == "brace" and skeleton is None:
            skeleton = []
            # Rebuild the word so far: quoted parts become "_" so their commas do not count.
            skeleton.append(_blank_quotes(command[start : match.start()]))
        if skeleton is not None:
            skeleton.append(text if kind in ("plain", "brace") else "_")
    flush(len(command))
    if "~" in command:
        _check_tildes(segments)
    return segments


def _refuse_control(command: str) -> None:
    """Refuse newlines and other control characters: a plan-mode command is one line of text."""
    control = _CONTROL.search(command)
    if control is not None:
        char = control.group()
        if char in "\n\r":
            raise ShellRefusal(f"newlines are not allowed in a plan-mode command; {CHAIN_HINT} on one line")
        raise ShellRefusal(
            f"control character U+{ord(char):04X} is not allowed in a plan-mode command; remove it"
        )


def _token_value(kind: str | None, text: str, following: str, *, in_word: bool) -> str:
    """What a word-building token contributes to the word's value, or ShellRefusal.
    `following`: the character after the token; `in_word`: the token continues a word."""
    if kind == "meta":
        if text == "#" and in_word:
            return text  # mid-word "#" is an ordinary character
        if text == "#":
            raise ShellRefusal("shell comments (#) are not allowed in plan mode; remove the comment")
        raise ShellRefusal(_meta_reason(text, following))
    if kind == "plain" or kind == "brace":
        return text
    if kind == "sq":
        return text[1:-1]
    if kind == "dq":
        return _double_quoted(text[1:-1])
    # backslash
    if len(text) == 1:
        raise ShellRefusal("a trailing backslash is not allowed in plan mode; remove it")
    if text[1] in _ESCAPABLE_META:
        raise ShellRefusal(f"a backslash escaping {text[1]!r} is not allowed in plan mode; {QUOTE_HINT}")
    return text[1]


# bash expands an unquoted ~ at the start of a word, and after the = of an assignment-shaped word.
_TILDE = LazyPattern(r"~|[A-Za-z_][A-Za-z0-9_]*=~")


def _check_tildes(segments: list[list[Word]]) -> None:
    for segment in segments:
        for word in segment:
            if _TILDE.match(word.raw):
                raise ShellRefusal(
                    f"{word.raw!r} starts with ~, which the shell expands to a home folder outside the project; "
                    "name a path inside the project (quote a literal ~)"
                )


def _blank_quotes(raw: str) -> str:
    out: list[str] = []
    for match in _TOKEN.finditer(raw):
        out.append(match.group() if match.lastgroup in ("plain", "brace") else "_")
    return "".join(out)


def _double_quoted(inner: str) -> str:
    if "$(" in inner:
        raise ShellRefusal(
            "command substitution $(...) is not allowed in plan mode, even in double quotes; run each git command on its own"
        )
    if "$" in inner:
        raise ShellRefusal(f"$ expansion inside double quotes is not allowed in plan mode; {QUOTE_HINT}")
    if "`" in inner:
        raise ShellRefusal(
            "command substitution (backticks) is not allowed in plan mode; run each git command on its own"
        )
    if "\\" not in inner:
        return inner
    out: list[str] = []
    index = 0
    while index < len(inner):
        char = inner[index]
        if char == "\\" and index + 1 < len(inner):
            following = inner[index + 1]
            if following in _DQ_SPECIAL:
                raise ShellRefusal(
                    f"a backslash escaping {following!r} is not allowed in plan mode; {QUOTE_HINT}"
                )
            out.append(char + following)  # inside "...", bash keeps a backslash before an ordinary character
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)
