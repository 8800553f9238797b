"""planview's settings: TOML from the user config dir and the project's `.planview/config.toml`.

Precedence, lowest first: user file, project file, environment (PLANVIEW_PROVIDER,
PLANVIEW_MODEL, PLANVIEW_BASE_URL), then command-line flags (applied by the caller).
With no provider configured, an OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment
picks one. A setting that would switch the gate off is refused at load: plan mode is a
guarantee, not a preference.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from platformdirs import user_config_dir

from planview.errors import PlanviewError, not_utf8
from planview.home import CONFIG_NAME, HomeLayout
from planview.mcp_config import McpServerConfig, parse_mcp_section

PROVIDERS = ("scripted", "openai", "anthropic")
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}

EXAMPLE_CONFIG = """\
# ~/.config/planview/config.toml (or <repo>/.planview/config.toml for one project)
[provider]
name = "openai"                 # openai | anthropic | scripted
model = "gpt-4o"
# base_url = "http://localhost:11434/v1"   # Ollama, vLLM, llama.cpp, LM Studio, OpenRouter
api_key_env = "OPENAI_API_KEY"  # the variable holding the key (not the key itself)

[ui]
theme = "textual-dark"

[gate]
allow_read_only_hint = true     # false also refuses tools that only claim readOnlyHint

[sandbox]
require = false                 # true: refuse plan mode where the kernel offers no sandbox (planview doctor)

# [mcp.servers.docs]            # an MCP server started with the session (tools: mcp__docs__*)
# command = "uvx"
# args = ["some-mcp-server"]
# [approval]
# sign = "ssh"                  # sign every approval for the team (planview.team; see docs/TEAM.md)
# signing_key = "~/.ssh/id_ed25519"   # else git's user.signingkey when gpg.format = ssh
# [agent]
# command = "NAME"              # an ACP agent instead of a provider: a name `planview run --help`
#                               # lists, or a command line such as "python my_agent.py"
"""

_KNOWN = {
    "provider": {"name", "model", "base_url", "api_key_env"},
    "ui": {"theme"},
    "gate": {"allow_read_only_hint"},
    "agent": {"command"},
    "approval": {"sign", "signing_key"},
    "sandbox": {"require"},
}
SIGN_VALUES = ("ssh", "off")
# Keys (normalised: lower case, no "_"/"-") that would turn the gate off.
_BYPASS_KEYS = {
    "bypass",
    "bypasspermissions",
    "bypassgate",
    "dangerouslyskippermissions",
    "skippermissions",
    "nogate",
    "disablegate",
    "gatedisabled",
    "yolo",
}
_GATE_ON_SWITCHES = {"enabled", "enable", "on", "active", "enforce", "enforced"}  # false -> off
_GATE_OFF_SWITCHES = {"disabled", "disable", "off", "skip"}  # true -> off
_PERMISSION_KEYS = {"permissionmode", "permissions", "defaultmode"}


class ConfigError(PlanviewError):
    """A config file could not be read or holds an invalid setting."""


class BypassConfigError(PlanviewError):
    """A configuration tries to switch the plan-mode gate off (refused at load)."""


@dataclass(frozen=True)
class ApprovalSettings:
    """The `[approval]` settings: sign every approval with SSH, and with which key."""

    sign: bool = False
    signing_key: str | None = None


@dataclass(frozen=True)
class ProviderConfig:
    """The `[provider]` settings: which model provider, model, endpoint and key variable."""

    name: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None

    def key_env(self) -> str | None:
        return self.api_key_env or DEFAULT_KEY_ENV.get(self.name or "")


@dataclass(frozen=True)
class Config:
    """planview's settings after merging the user file, the project file and the environment."""

    provider: ProviderConfig = field(default_factory=ProviderConfig)
    theme: str | None = None
    keys: Mapping[str, str] = field(default_factory=dict)
    allow_read_only_hint: bool = True
    mcp_servers: tuple[McpServerConfig, ...] = ()  # [mcp.servers.NAME], in file order
    agent_command: str | None = None  # [agent] command: an ACP agent (planview.agents) instead of a provider
    # [sandbox] require: plan mode is refused where the kernel offers no sandbox (it only ever tightens)
    sandbox_require: bool = False
    sources: tuple[Path, ...] = ()  # the files that were read, lowest precedence first
    provider_origin: str = "default"  # where provider.name came from (for messages)
    approval: ApprovalSettings = field(default_factory=ApprovalSettings)

    def with_provider(self, **changes: Any) -> Config:
        clean = {k: v for k, v in changes.items() if v is not None}
        if not clean:
            return self
        origin = "command line" if "name" in clean else self.provider_origin
        return replace(self, provider=replace(self.provider, **clean), provider_origin=origin)


def user_config_path() -> Path:
    return Path(user_config_dir("planview", appauthor=False)) / CONFIG_NAME


def config_paths(home: Path | None = None) -> tuple[Path, Path]:
    """(user file, project file) — the project file overrides the user file."""
    if home is None:
        from planview.home import planview_home

        home = planview_home()
    return user_config_path(), HomeLayout(Path(home)).config


def load_config(
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    paths: tuple[Path, ...] | None = None,
) -> Config:
    env = os.environ if env is None else env
    files = paths if paths is not None else config_paths(home)
    merged: dict[str, dict[str, Any]] = {}
    sources: list[Path] = []
    origin = "default"
    servers: dict[str, McpServerConfig] = {}
    for path in files:
        data = _read(path)
        if data is None:
            continue
        sources.append(path)
        _check(path, data)
        for section in ("provider", "ui", "gate", "keys", "agent", "approval", "sandbox"):
            if section in data:
                merged.setdefault(section, {}).update(data[section])
        if "mcp" in data:
            servers.update(parse_mcp_section(path, data["mcp"]))  # a project table replaces a user one
        if "name" in data.get("provider", {}):
            origin = str(path)
    prov = merged.get("provider", {})
    provider = ProviderConfig(
        name=prov.get("name"),
        model=prov.get("model"),
        base_url=prov.get("base_url"),
        api_key_env=prov.get("api_key_env"),
    )
    overrides = {
        "name": env.get("PLANVIEW_PROVIDER") or None,
        "model": env.get("PLANVIEW_MODEL") or None,
        "base_url": env.get("PLANVIEW_BASE_URL") or None,
    }
    if overrides["name"]:
        origin = "PLANVIEW_PROVIDER"
    provider = replace(provider, **{k: v for k, v in overrides.items() if v})
    if provider.name is None:
        # Detection: a key in the environment is the user's intent.
        for name, var in DEFAULT_KEY_ENV.items():
            if env.get(var):
                provider = replace(provider, name=name)
                origin = var
                break
    if provider.name is not None and provider.name not in PROVIDERS:
        raise ConfigError(
            f"unknown provider {provider.name!r} (from {origin}); use one of: {', '.join(PROVIDERS)}"
        )
    return Config(
        provider=provider,
        theme=merged.get("ui", {}).get("theme"),
        keys=dict(merged.get("keys", {})),
        allow_read_only_hint=merged.get("gate", {}).get("allow_read_only_hint", True),
        mcp_servers=tuple(servers.values()),
        agent_command=merged.get("agent", {}).get("command"),
        sandbox_require=merged.get("sandbox", {}).get("require", False),
        sources=tuple(sources),
        provider_origin=origin,
        approval=_approval(merged.get("approval", {})),
    )


def _approval(table: Mapping[str, Any]) -> ApprovalSettings:
    return ApprovalSettings(sign=table.get("sign") == "ssh", signing_key=table.get("signing_key"))


def load_approval_settings(home: Path | None = None) -> ApprovalSettings:
    """Only `[approval]` (what every approval consults), from the same files `load_config` reads and
    checked the same way, without the provider detection an approval does not need."""
    merged: dict[str, Any] = {}
    for path in config_paths(home):
        data = _read(path)
        if data is None:
            continue
        _check(path, data)
        merged.update(data.get("approval", {}))
    return _approval(merged)


MAX_CONFIG_BYTES = 1024 * 1024


def _read(path: Path) -> dict[str, Any] | None:
    from planview.fileguard import NotAFileError, TooLargeError, explain, read_regular
    from planview.nesting import MAX_DEPTH, too_deep_toml

    try:
        raw = read_regular(path, MAX_CONFIG_BYTES, "config file")
    except FileNotFoundError:
        return None
    except (NotAFileError, TooLargeError) as exc:
        raise ConfigError(str(exc)) from None
    except OSError as exc:
        raise ConfigError(explain(exc, f"read the config file {path}")) from exc
    try:
        text = raw.decode("utf-8")
        if too_deep_toml(text):
            raise ConfigError(
                f"{path}: arrays or tables nested more than {MAX_DEPTH} levels deep; fix the TOML or move "
                "the file aside"
            )
        return tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: {not_utf8(exc)}; save it as UTF-8") from exc
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = re.search(r"\(at line (\d+), column (\d+)\)", message)
        problem = re.sub(r"\s*\(at line \d+, column \d+\)", "", message) or "invalid TOML"
        where = f"line {found.group(1)}, column {found.group(2)}" if found else "somewhere"
        raise ConfigError(f"{path}: {where}: {problem}; fix the TOML or move the file aside") from exc


def _norm(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


def _bypass(path: Path, where: str) -> PlanviewError:
    return BypassConfigError(
        f"{path}: {where} would switch the plan-mode gate off, and planview refuses that setting; "
        "remove it (leave plan mode with /plan or by approving a plan instead)"
    )


def _scan_bypass(path: Path, data: Mapping[str, Any], prefix: str = "") -> None:
    for key, value in data.items():
        name = f"{prefix}{key}"
        nkey = _norm(str(key))
        if isinstance(value, Mapping):
            _scan_bypass(path, value, f"{name}.")
            continue
        if nkey in _BYPASS_KEYS and value not in (False, 0, "", None):
            raise _bypass(path, f"`{name} = {_toml(value)}`")
        if isinstance(value, str) and _norm(value) in {"bypasspermissions", "bypass", "dontask"}:
            raise _bypass(path, f"`{name} = {_toml(value)}`")
        if nkey in _PERMISSION_KEYS and isinstance(value, str) and _norm(value) not in {"plan", "default"}:
            raise _bypass(path, f"`{name} = {_toml(value)}`")


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _check(path: Path, data: Mapping[str, Any]) -> None:
    _scan_bypass(path, data)
    gate = data.get("gate", {})
    if isinstance(gate, Mapping):
        for key, value in gate.items():
            if _switches_gate_off(_norm(key), value):
                raise _bypass(path, f"`[gate] {key} = {_toml(value)}`")
    for section, allowed in _KNOWN.items():
        table = data.get(section)
        if table is None:
            continue
        if not isinstance(table, Mapping):
            raise ConfigError(f"{path}: `{section}` must be a table ([{section}])")
        for key, value in table.items():
            _check_setting(path, section, allowed, key, value)
    keys = data.get("keys")
    if keys is not None:
        if not isinstance(keys, Mapping):
            raise ConfigError(f"{path}: `keys` must be a table ([keys])")
        from planview.keymap import KeyMapError, check_overrides

        try:
            check_overrides(keys, f"{path}: [keys]")
        except KeyMapError as exc:
            raise ConfigError(str(exc)) from None


def _switches_gate_off(nkey: str, value: Any) -> bool:
    return (
        (nkey in _GATE_ON_SWITCHES and value in (False, 0, "false", "off", "no"))
        or (nkey in _GATE_OFF_SWITCHES and value not in (False, 0, "", None))
        or (nkey == "mode" and _norm(str(value)) not in {"plan", "default", "on", "enforce"})
    )


def _check_setting(path: Path, section: str, allowed: Any, key: str, value: Any) -> None:
    """One `[section] key = value`: known, of its type, and never a key in a file."""
    if section == "provider" and key in ("api_key", "key", "token"):
        raise ConfigError(
            f"{path}: [provider] {key}: planview does not read keys from config files; put the key in an "
            'environment variable and name it with api_key_env = "OPENAI_API_KEY"'
        )
    if key not in allowed:
        raise ConfigError(f"{path}: unknown setting [{section}] {key}; known: {', '.join(sorted(allowed))}")
    if section in ("gate", "sandbox"):
        if not isinstance(value, bool):
            raise ConfigError(f"{path}: [{section}] {key} must be true or false")
    elif not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{path}: [{section}] {key} must be a non-empty string")
    elif section == "approval" and key == "sign" and value not in SIGN_VALUES:
        raise ConfigError(f'{path}: [approval] sign must be "ssh" or "off"')
