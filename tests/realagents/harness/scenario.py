"""A scenario: the model's turns, in order, that a scripted server plays to a real agent.

Each turn is text and/or tool calls. A turn may also be a function of the request it answers (to use a
path or id the agent sent back, or to stop early); it receives a `Seen` view of that request.
When the scenario runs out the server answers a plain "Done." so the agent ends its turn.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One tool call the scripted model makes: the agent's own tool name and its input."""

    name: str
    input: Mapping[str, Any] = field(default_factory=dict)
    id: str = ""


@dataclass(frozen=True)
class Turn:
    """One model reply: text first, then the tool calls (none = the model ends its turn)."""

    text: str = ""
    calls: tuple[ToolCall, ...] = ()


@dataclass(frozen=True)
class ToolResult:
    """A tool result the agent sent back to the model: where planview's decisions show."""

    call_id: str
    name: str
    text: str
    is_error: bool


@dataclass(frozen=True)
class Seen:
    """What a turn function can look at: the request it answers, decoded."""

    body: Mapping[str, Any]
    results: tuple[ToolResult, ...]  # every tool result in the conversation so far, oldest first
    user_texts: tuple[str, ...]  # every user text in the conversation so far

    @property
    def last_result(self) -> ToolResult | None:
        return self.results[-1] if self.results else None


Step = Turn | Callable[[Seen], Turn]

_ids = itertools.count(1)


def say(text: str) -> Turn:
    return Turn(text=text)


def call(name: str, text: str = "", **tool_input: Any) -> Turn:
    """A turn with one tool call (`call("Bash", command="ls")`)."""
    return Turn(text=text, calls=(ToolCall(name, tool_input, f"call_{next(_ids)}"),))


def calls(*pairs: tuple[str, Mapping[str, Any]], text: str = "") -> Turn:
    """A turn with several tool calls at once."""
    return Turn(text=text, calls=tuple(ToolCall(n, dict(i), f"call_{next(_ids)}") for n, i in pairs))


def with_ids(turn: Turn) -> Turn:
    """Every call of the turn with an id (turns built by hand may leave it empty)."""
    fixed = tuple(c if c.id else ToolCall(c.name, c.input, f"call_{next(_ids)}") for c in turn.calls)
    return Turn(turn.text, fixed)
