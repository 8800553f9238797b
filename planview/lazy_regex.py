"""Regular expressions compiled at their first use instead of at import.

Compiling a pattern costs tens to hundreds of microseconds (a class reaching past U+2000 about a
millisecond). The Claude hook is a fresh process before every tool call and imports the gate, the
state and (after a plan change) the canonical hash: a pattern compiled at import is paid on every
call, though most of them serve a branch the call never takes. `LazyPattern` keeps the module-level
spelling (`_TOKEN.finditer(text)`) and compiles on the first call; `tests/claude/test_hook_imports.py`
checks that the hook's hot paths compile nothing at import.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (start-up time)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

__all__ = ["LazyPattern"]


class LazyPattern:
    """A `re.Pattern` that is compiled when one of its methods is first called."""

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: Any, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[Any] | None = None

    def compiled(self) -> re.Pattern[Any]:
        """The compiled pattern (compiled now if this is its first use)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return compiled

    def match(self, string: Any, *args: int) -> re.Match[Any] | None:
        return self.compiled().match(string, *args)

    def fullmatch(self, string: Any, *args: int) -> re.Match[Any] | None:
        return self.compiled().fullmatch(string, *args)

    def search(self, string: Any, *args: int) -> re.Match[Any] | None:
        return self.compiled().search(string, *args)

    def finditer(self, string: Any, *args: int) -> Iterator[re.Match[Any]]:
        return self.compiled().finditer(string, *args)

    def findall(self, string: Any, *args: int) -> list[Any]:
        return self.compiled().findall(string, *args)

    def split(self, string: Any, maxsplit: int = 0) -> list[Any]:
        return self.compiled().split(string, maxsplit)

    def sub(self, repl: Any, string: Any, count: int = 0) -> Any:
        return self.compiled().sub(repl, string, count)

    def subn(self, repl: Any, string: Any, count: int = 0) -> tuple[Any, int]:
        return self.compiled().subn(repl, string, count)
