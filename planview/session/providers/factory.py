"""Which model provider a session gets: from the flags, the config, or what a resumed session ran with."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from planview.config import Config
from planview.session.providers.base import Provider, ProviderError

NO_PROVIDER = (
    "no model provider configured: pass --script FILE (offline), or --provider openai|anthropic, "
    "or set OPENAI_API_KEY / ANTHROPIC_API_KEY, or write [provider] in config.toml"
)


def make_provider(
    name: str | None = None,
    model: str | None = None,
    script: str | Path | None = None,
    config: Config | None = None,
    env: Mapping[str, str] | None = None,
) -> Provider:
    """Build the provider: explicit arguments win over the config (which already holds env overrides)."""
    config = config or Config()
    if script is not None:
        if name not in (None, "scripted"):
            raise ProviderError(
                f"--script replays a file and cannot be combined with --provider {name}; drop one"
            )
        from planview.session.providers.scripted import ScriptedProvider

        return ScriptedProvider.from_file(script)
    prov = config.provider
    name = name or prov.name
    if name is None:
        raise ProviderError(NO_PROVIDER)
    if name == "scripted":
        raise ProviderError(
            "the scripted provider replays a file: pass --script FILE (see docs/SCRIPTED_PROVIDER.md)"
        )
    # The configured model / URL / key variable belong to the configured provider only.
    same = prov.name in (None, name)
    model = model or (prov.model if same else None)
    key_env = prov.api_key_env if same else None
    base_url = prov.base_url if same else None
    if name == "openai":
        from planview.session.providers.openai import OpenAIProvider

        return OpenAIProvider(model, base_url=base_url, api_key_env=key_env, env=env)
    if name == "anthropic":
        from planview.session.providers.anthropic import AnthropicProvider

        return AnthropicProvider(model, base_url=base_url, api_key_env=key_env, env=env)
    raise ProviderError(f"unknown provider {name!r}; use scripted (with --script), openai or anthropic")


def saved_provider_args(
    snapshot: Mapping[str, object] | None, name: str | None, model: str | None, script: str | Path | None
) -> tuple[str | None, str | None, str | Path | None]:
    """(name, model, script) for a resumed session: what the user passed wins, else what it ran with.

    So `planview run --resume` continues with the same script or model without repeating the flags.
    """
    if name is not None or script is not None or not snapshot:
        return name, model, script
    kind = snapshot.get("kind")
    if kind == "scripted" and isinstance(snapshot.get("path"), str):
        return "scripted", model, snapshot["path"]  # type: ignore[return-value]
    if kind in ("openai", "anthropic"):
        saved_model = snapshot.get("model")
        return str(kind), model or (saved_model if isinstance(saved_model, str) else None), script
    return name, model, script
