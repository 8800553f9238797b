"""planview.config: files, precedence, env detection, broken files, bypass refusal."""

from __future__ import annotations

from pathlib import Path

import pytest

from planview.config import EXAMPLE_CONFIG, BypassConfigError, Config, ConfigError, config_paths, load_config


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_project_overrides_user_and_env_overrides_both(tmp_path: Path) -> None:
    user = write(
        tmp_path / "user.toml", '[provider]\nname = "anthropic"\nmodel = "u-model"\n[ui]\ntheme = "dark"\n'
    )
    project = write(
        tmp_path / "proj.toml", '[provider]\nmodel = "p-model"\n[keys]\n"review.refine" = "ctrl+r"\n'
    )
    config = load_config(paths=(user, project), env={})
    assert config.provider.name == "anthropic"
    assert config.provider.model == "p-model"
    assert config.theme == "dark"
    assert config.keys == {"review.refine": "ctrl+r"}
    assert config.sources == (user, project)
    env = {"PLANVIEW_PROVIDER": "openai", "PLANVIEW_MODEL": "env-model", "PLANVIEW_BASE_URL": "http://x/v1"}
    config = load_config(paths=(user, project), env=env)
    assert (config.provider.name, config.provider.model, config.provider.base_url) == (
        "openai",
        "env-model",
        "http://x/v1",
    )
    assert config.provider_origin == "PLANVIEW_PROVIDER"


def test_key_detection_picks_a_provider_only_when_none_is_configured(tmp_path: Path) -> None:
    assert load_config(paths=(), env={"ANTHROPIC_API_KEY": "k"}).provider.name == "anthropic"
    assert (
        load_config(paths=(), env={"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k"}).provider.name == "openai"
    )
    assert load_config(paths=(), env={}).provider.name is None
    user = write(tmp_path / "u.toml", '[provider]\nname = "anthropic"\n')
    assert load_config(paths=(user,), env={"OPENAI_API_KEY": "k"}).provider.name == "anthropic"
    assert load_config(paths=(), env={}).provider.key_env() is None
    assert Config().with_provider(name="openai").provider.key_env() == "OPENAI_API_KEY"


def test_broken_toml_names_file_line_and_problem(tmp_path: Path) -> None:
    bad = write(tmp_path / "config.toml", '[provider]\nname = "openai"\nmodel = \n')
    with pytest.raises(ConfigError) as info:
        load_config(paths=(bad,), env={})
    message = str(info.value)
    assert str(bad) in message and "line 3" in message and "move the file aside" in message


@pytest.mark.parametrize(
    "text",
    [
        "[gate]\nenabled = false\n",
        "[gate]\nbypass = true\n",
        '[gate]\npermission_mode = "bypassPermissions"\n',
        'permissionMode = "bypassPermissions"\n',
        "[gate]\ndisabled = true\n",
        "[session]\ndangerously_skip_permissions = true\n",
    ],
)
def test_settings_that_switch_the_gate_off_are_refused(tmp_path: Path, text: str) -> None:
    path = write(tmp_path / "config.toml", text)
    with pytest.raises(BypassConfigError) as info:
        load_config(paths=(path,), env={})
    assert str(path) in str(info.value) and "gate off" in str(info.value)


def test_unknown_and_mistyped_settings_are_errors(tmp_path: Path) -> None:
    typo = write(tmp_path / "a.toml", '[provider]\nmodle = "x"\n')
    with pytest.raises(ConfigError, match=r"unknown setting \[provider\] modle"):
        load_config(paths=(typo,), env={})
    wrong = write(tmp_path / "b.toml", "[gate]\nallow_read_only_hint = 1\n")
    with pytest.raises(ConfigError, match="true or false"):
        load_config(paths=(wrong,), env={})
    secret = write(tmp_path / "d.toml", '[provider]\napi_key = "sk-123"\n')
    with pytest.raises(ConfigError, match="name it with api_key_env"):
        load_config(paths=(secret,), env={})
    unknown_provider = write(tmp_path / "c.toml", '[provider]\nname = "gemini"\n')
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        load_config(paths=(unknown_provider,), env={})


def test_gate_switch_and_example_round_trip(tmp_path: Path) -> None:
    path = write(tmp_path / "config.toml", "[gate]\nallow_read_only_hint = false\n")
    assert load_config(paths=(path,), env={}).allow_read_only_hint is False
    example = write(tmp_path / "example.toml", EXAMPLE_CONFIG)
    config = load_config(paths=(example,), env={})
    assert config.provider.name == "openai" and config.allow_read_only_hint is True


def test_config_paths_user_dir_then_project_home(project: Path) -> None:
    user, proj = config_paths()
    assert user.name == "config.toml" and "planview" in str(user)
    assert proj == project / ".planview" / "config.toml"


def test_a_config_that_is_not_utf8_names_the_byte_and_offset_as_plans_do(tmp_path: Path) -> None:
    # QA §11: it said "not UTF-8 text (byte 0)", meaning offset 0; plans say "byte 0xff at offset 0".
    path = tmp_path / "config.toml"
    path.write_bytes(b'[ui]\ntheme = "\xff"\n')
    with pytest.raises(ConfigError) as caught:
        load_config(paths=(path,), env={})
    assert str(caught.value) == f"{path}: not UTF-8 text (byte 0xff at offset 14); save it as UTF-8"
