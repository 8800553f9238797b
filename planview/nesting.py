"""How deeply JSON or TOML text nests, measured before it is parsed.

`json.loads` and `tomllib.loads` recurse once per nested array or object, so a few thousand `[`
in a ledger line, a session file, a `--script` file or `config.toml` end in RecursionError (a
traceback, not a message). planview's own files nest a handful of levels; anything past
`MAX_DEPTH` is refused before the parser sees it. The scan is linear and runs in C (one regex
pass); text with fewer brackets than the limit is not scanned at all.
"""

from __future__ import annotations

import re

MAX_DEPTH = 64

# Strings (where brackets do not count) and the brackets themselves. Compiled (and cached by `re`)
# only for text with enough brackets to need a scan: every command's start-up reads a JSON file.
_JSON_TOKENS = r'"(?:[^"\\]|\\.)*"?|[\[\]{}]'
# TOML adds literal and multi-line strings and comments.
_TOML_TOKENS = (
    r'"""(?:[^\\]|\\.)*?(?:"""|$)|\'\'\'.*?(?:\'\'\'|$)|"(?:[^"\\\n]|\\.)*"?|\'[^\'\n]*\'?|#[^\n]*|[\[\]{}]'
)


def _depth(text: str, tokens: str, limit: int) -> int:
    if text.count("[") + text.count("{") <= limit:
        return 0  # cannot nest deeper than the limit: skip the scan
    depth = deepest = 0
    for match in re.finditer(tokens, text, re.DOTALL):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif char in "]}":
            depth = max(depth - 1, 0)
    return deepest


def too_deep_json(text: str | bytes, limit: int = MAX_DEPTH) -> bool:
    """True when the JSON text nests arrays/objects more than `limit` levels deep."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return _depth(text, _JSON_TOKENS, limit) > limit


def too_deep_toml(text: str, limit: int = MAX_DEPTH) -> bool:
    """True when the TOML text nests arrays/inline tables more than `limit` levels deep."""
    return _depth(text, _TOML_TOKENS, limit) > limit
