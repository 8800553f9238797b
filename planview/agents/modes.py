"""Finding an agent's read-only mode and telling whether the agent confirmed it (pure).

ACP offers two ways to switch modes: the older `modes` (session/set_mode with a mode id) and
`configOptions` (session/set_config_option on the option whose category is "mode"). An agent may
offer either or both; planview prefers the config option (the protocol's direction) and falls
back to set_mode.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal


@dataclass(frozen=True)
class ModeTarget:
    """A mode the agent offers, and which of ACP's two calls (set_mode or set_config_option) selects it."""

    via: Literal["config", "mode"]
    value: str  # the mode id (set_mode) or the option value (set_config_option)
    name: str  # what the agent calls it
    config_id: str | None = None  # the config option's id when via == "config"


@dataclass(frozen=True)
class AgentModes:
    """What session/new (or a later update) said about the agent's modes."""

    current: str | None
    choices: tuple[tuple[str, str], ...]  # (id, name) of each available mode
    config_id: str | None = None  # the "mode" config option, when the agent offers one

    @classmethod
    def from_response(cls, modes: Any, config_options: Sequence[Any] | None) -> AgentModes:
        option = mode_option(config_options)
        if option is not None:
            values = tuple((v.value, v.name) for v in _flat_options(getattr(option, "options", ()) or ()))
            return cls(getattr(option, "current_value", None), values, option.id)
        if modes is not None:
            choices = tuple((m.id, m.name) for m in (modes.available_modes or ()))
            return cls(modes.current_mode_id, choices)
        return cls(None, ())

    def find(self, wanted: Iterable[str]) -> ModeTarget | None:
        """The first of `wanted` the agent offers, matched on id, then on name (case-insensitive)."""
        via: Literal["config", "mode"] = "config" if self.config_id else "mode"
        for want in wanted:
            key = want.lower()
            for mode_id, name in self.choices:
                if mode_id.lower() == key or name.lower() == key:
                    return ModeTarget(via, mode_id, name, self.config_id)
        return None

    def listing(self) -> str:
        return ", ".join(
            f"{mode_id} ({name})" if name != mode_id else mode_id for mode_id, name in self.choices
        )


def mode_option(config_options: Sequence[Any] | None) -> Any | None:
    """The select option of category "mode" (id "mode" when the category is not given)."""
    for option in config_options or ():
        if getattr(option, "type", None) != "select":
            continue
        if getattr(option, "category", None) == "mode" or getattr(option, "id", None) == "mode":
            return option
    return None


def _flat_options(options: Sequence[Any]) -> list[Any]:
    flat: list[Any] = []
    for option in options:
        inner = getattr(option, "options", None)
        if inner is not None and not hasattr(option, "value"):  # a group of options
            flat.extend(inner)
        else:
            flat.append(option)
    return flat


def current_from_update(update: Any) -> str | None:
    """The mode a current_mode_update / config_option_update reports, else None."""
    kind = getattr(update, "session_update", None)
    if kind == "current_mode_update":
        return update.current_mode_id
    if kind == "config_option_update":
        option = mode_option(update.config_options)
        if option is not None:
            return option.current_value
    return None
