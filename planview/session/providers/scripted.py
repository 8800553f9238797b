"""A provider that replays a script: JSON Lines, one model turn per line.

    {"text": "...", "tool_calls": [{"name": "read", "arguments": {"path": "README.md"}}]}

Both keys are optional; `delay` (seconds) pauses before the turn streams, for demos and
cancellation tests. Each model request consumes the next line; when the lines run out the
model ends its turn with no text. Blank lines and lines starting with `//` are skipped.
The format is documented in docs/SCRIPTED_PROVIDER.md.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planview.errors import not_utf8
from planview.nesting import MAX_DEPTH, too_deep_json
from planview.session.providers.base import (
    Done,
    ModelRequest,
    ModelToolCall,
    ProviderError,
    StreamEvent,
    TextChunk,
    ToolCallChunk,
)

_TURN_KEYS = {"text", "tool_calls", "delay"}
MAX_SCRIPT_BYTES = 16 * 1024 * 1024
_CALL_KEYS = {"name", "arguments", "id", "script"}


class ScriptError(ProviderError):
    """A script line is not a valid model turn; the message names the file and line."""


@dataclass(frozen=True)
class ScriptTurn:
    """One model turn of a script: a line of the file, or a step of a subagent call's `script`."""

    line: int
    text: str
    tool_calls: tuple[ModelToolCall, ...]
    delay: float = 0.0
    # A subagent call's own script (the child's turns), by the call's id.
    children: tuple[tuple[str, tuple[ScriptTurn, ...]], ...] = ()


def parse_script(text: str, source: str = "<script>") -> tuple[ScriptTurn, ...]:
    turns: list[ScriptTurn] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        where = f"{source}: line {number}"
        if too_deep_json(line):
            raise ScriptError(f"{where}: nested more than {MAX_DEPTH} levels deep; a turn needs far fewer")
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ScriptError(f"{where}: not valid JSON ({exc.msg}); each line is one JSON object") from exc
        turns.append(_turn(data, where, number, f"call_{number}"))
    return tuple(turns)


def _turn(data: Any, where: str, number: int, id_prefix: str) -> ScriptTurn:
    if not isinstance(data, dict):
        raise ScriptError(f'{where}: expected a JSON object like {{"text": "..."}}')
    unknown = set(data) - _TURN_KEYS
    if unknown:
        raise ScriptError(
            f"{where}: unknown key(s) {', '.join(sorted(unknown))}; use text, tool_calls, delay"
        )
    text_value = data.get("text", "")
    if not isinstance(text_value, str):
        raise ScriptError(f"{where}: `text` must be a string")
    delay = data.get("delay", 0)
    if not isinstance(delay, int | float) or isinstance(delay, bool) or delay < 0:
        raise ScriptError(f"{where}: `delay` must be a number of seconds >= 0")
    calls_value = data.get("tool_calls", [])
    if not isinstance(calls_value, list):
        raise ScriptError(f"{where}: `tool_calls` must be a list")
    calls: list[ModelToolCall] = []
    children: list[tuple[str, tuple[ScriptTurn, ...]]] = []
    for i, call in enumerate(calls_value, 1):
        if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
            raise ScriptError(f'{where}: tool call {i} needs a "name" string')
        extra = set(call) - _CALL_KEYS
        if extra:
            raise ScriptError(f"{where}: tool call {i}: unknown key(s) {', '.join(sorted(extra))}")
        args: Any = call.get("arguments", {})
        if not isinstance(args, dict):
            raise ScriptError(f"{where}: tool call {i}: `arguments` must be an object")
        call_id = str(call.get("id") or f"{id_prefix}_{i}")
        calls.append(ModelToolCall(call_id, call["name"], args))
        if "script" in call:
            children.append((call_id, _child_script(call, f"{where}: tool call {i}", number, call_id)))
    return ScriptTurn(number, text_value, tuple(calls), float(delay), tuple(children))


def _child_script(call: dict[str, Any], where: str, number: int, call_id: str) -> tuple[ScriptTurn, ...]:
    """The `script` of a subagent call: the child's turns, in the same shape as script lines."""
    if call["name"] != "subagent":
        raise ScriptError(f"{where}: only a subagent call takes a `script` (the child's turns)")
    script = call["script"]
    if not isinstance(script, list):
        raise ScriptError(f'{where}: `script` must be a list of turns like [{{"text": "..."}}]')
    return tuple(
        _turn(turn, f"{where}: script turn {k}", number, f"{call_id}_c{k}")
        for k, turn in enumerate(script, 1)
    )


class ScriptedProvider:
    """Replays turns in order; one turn per `stream()` call."""

    def __init__(
        self, turns: Sequence[ScriptTurn], label: str = "scripted", digest: str = "", path: Path | None = None
    ) -> None:
        self.turns = tuple(turns)
        self.path = path  # remembered in the session file, so `--resume` finds the script again
        self.digest = digest  # identifies the script, so a resumed session continues where it stopped
        self.position = 0
        self.label = label
        self.requests: list[ModelRequest] = []  # what the model was sent (tests inspect it)
        self.children = {cid: script for turn in self.turns for cid, script in turn.children}
        self.spawned: list[ScriptedProvider] = []  # the children's providers (tests inspect them)

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedProvider:
        from planview.fileguard import NotAFileError, TooLargeError, explain, read_regular

        path = Path(path)
        try:
            text = read_regular(path, MAX_SCRIPT_BYTES, "script").decode("utf-8")
        except FileNotFoundError:
            raise ScriptError(
                f"script not found: {path}; pass an existing JSON Lines file to --script"
            ) from None
        except (NotAFileError, TooLargeError) as exc:
            raise ScriptError(str(exc)) from None
        except UnicodeDecodeError as exc:
            raise ScriptError(f"cannot read script {path}: {not_utf8(exc)}; save it as UTF-8") from exc
        except OSError as exc:
            raise ScriptError(explain(exc, f"read script {path}")) from exc
        return cls(
            parse_script(text, str(path)),
            label=f"scripted · {path.name}",
            digest=_digest(text),
            path=path.resolve(),
        )

    @classmethod
    def from_text(cls, text: str) -> ScriptedProvider:
        return cls(parse_script(text), digest=_digest(text))

    def child(self, call_id: str) -> ScriptedProvider:
        """The provider of a subagent call's child: the `script` written for that call (none: no turns)."""
        child = ScriptedProvider(self.children.get(call_id, ()), label=f"{self.label} · subagent")
        self.spawned.append(child)
        return child

    def snapshot(self) -> dict[str, Any]:
        snap: dict[str, Any] = {"kind": "scripted", "digest": self.digest, "position": self.position}
        if self.path is not None:
            snap["path"] = str(self.path)
        return snap

    def restore(self, state: Mapping[str, Any]) -> None:
        """Continue a resumed session at the saved line, when it is the same script."""
        if state.get("kind") == "scripted" and self.digest and state.get("digest") == self.digest:
            self.position = min(int(state.get("position", 0)), len(self.turns))

    @property
    def remaining(self) -> int:
        return len(self.turns) - self.position

    async def stream(self, request: ModelRequest) -> AsyncGenerator[StreamEvent, None]:
        self.requests.append(request)
        if self.position >= len(self.turns):
            yield Done("script_exhausted")
            return
        turn = self.turns[self.position]
        self.position += 1
        if turn.delay:
            await asyncio.sleep(turn.delay)
        if turn.text:
            yield TextChunk(turn.text)
        for call in turn.tool_calls:
            yield ToolCallChunk(call)
        yield Done("tool_use" if turn.tool_calls else "end_turn")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
