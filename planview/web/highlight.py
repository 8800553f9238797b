"""Fenced code as lines of `[token class, text]` runs, tokenized by Pygments on the server.

The client turns each run into a `<span class="tok-…">` holding a text node, so a code line is
never parsed as markup. Classes are a short fixed set the page's stylesheet colours.
"""

from __future__ import annotations

from typing import Any

from pygments import lex
from pygments.lexers import get_lexer_by_name
from pygments.token import Comment, Error, Generic, Keyword, Name, Number, Operator, String, Token
from pygments.util import ClassNotFound

MAX_HIGHLIGHT_CHARS = 64 * 1024  # longer blocks are shown plain: colour is not worth a slow page

# Most specific first: the first type a token is a subtype of names its class.
_CLASSES: tuple[tuple[Any, str], ...] = (
    (Comment, "c"),
    (String, "s"),
    (Number, "m"),
    (Keyword, "k"),
    (Name.Function, "f"),
    (Name.Class, "t"),
    (Name.Builtin, "b"),
    (Name.Tag, "k"),
    (Name.Attribute, "a"),
    (Name.Decorator, "a"),
    (Operator, "o"),
    (Generic.Inserted, "gi"),
    (Generic.Deleted, "gd"),
    (Generic.Heading, "k"),
    (Generic.Subheading, "k"),
    (Error, ""),
)


def _class(ttype: Any) -> str:
    for parent, name in _CLASSES:
        if ttype in parent:  # pygments token types support `in` for "is a subtype of"
            return name
    return ""


def highlight(code: str, lang: str) -> list[list[list[str]]]:
    """`code` split into lines, each a list of [class, text] runs ("" = plain text)."""
    lexer = None
    if lang and len(code) <= MAX_HIGHLIGHT_CHARS:
        try:
            lexer = get_lexer_by_name(lang.lower(), stripnl=False, ensurenl=False)
        except ClassNotFound:
            lexer = None
    if code.endswith("\n"):
        code = code[:-1]
    if lexer is None:
        return [[["", line]] if line else [] for line in code.split("\n")]
    lines: list[list[list[str]]] = [[]]
    for ttype, value in lex(code, lexer):
        cls = _class(ttype) if ttype is not Token.Text else ""
        parts = value.split("\n")
        for n, part in enumerate(parts):
            if n:
                lines.append([])
            if not part:
                continue
            runs = lines[-1]
            if runs and runs[-1][0] == cls:
                runs[-1][1] += part
            else:
                runs.append([cls, part])
    return lines
