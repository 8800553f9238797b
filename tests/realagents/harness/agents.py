"""How each real agent is pointed at its scripted model server: a private HOME with the agent's own
config seeded, and the environment that keeps it offline and quiet.

Every function returns the environment for the agent's process (and for planview when planview starts
the agent): PATH leads with the pinned agents, HOME is the test's own.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from harness.install import bin_dir

# The key Claude Code is given; its last 20 characters are what ~/.claude.json marks as approved.
CLAUDE_KEY = "sk-ant-scripted-0123456789abcdefghijklmn"


def base_env(home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TZ", "TEXTUAL_ANIMATIONS")}
    return {
        **keep,
        "PATH": f"{bin_dir()}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "TMPDIR": str(home / "tmp"),
        "TERM": "xterm-256color",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
        "GIT_AUTHOR_NAME": "Ada Reviewer",
        "GIT_AUTHOR_EMAIL": "ada@example.com",
        "GIT_COMMITTER_NAME": "Ada Reviewer",
        "GIT_COMMITTER_EMAIL": "ada@example.com",
    }


def claude_env(home: Path, server_url: str, project: Path, *, todo_tools: bool = False) -> dict[str, str]:
    """Claude Code against the Anthropic server; ~/.claude.json seeded so interactive mode starts
    without onboarding, key approval or the trust dialog."""
    env = base_env(home)
    (home / "tmp").mkdir(exist_ok=True)
    config = {
        "hasCompletedOnboarding": True,
        "customApiKeyResponses": {"approved": [CLAUDE_KEY[-20:]], "rejected": []},
        "projects": {str(project): {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}},
        "autoUpdates": False,
    }
    (home / ".claude.json").write_text(json.dumps(config))
    env.update(
        ANTHROPIC_BASE_URL=server_url,
        ANTHROPIC_API_KEY=CLAUDE_KEY,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_TELEMETRY="1",
    )
    if todo_tools:
        # 2.1.328 offers its Task* todo tools only with this set (or on some third-party providers).
        env["CLAUDE_CODE_ENABLE_TODO_TOOLS"] = "1"
    return env


def opencode_env(home: Path, server_url: str) -> dict[str, str]:
    """opencode with one OpenAI-compatible provider (bundled with opencode, so nothing is fetched)."""
    env = base_env(home)
    (home / "tmp").mkdir(exist_ok=True)
    folder = home / ".config" / "opencode"
    folder.mkdir(parents=True, exist_ok=True)
    provider = {
        "npm": "@ai-sdk/openai-compatible",
        "name": "Scripted",
        "options": {"baseURL": server_url + "/v1", "apiKey": "scripted"},
        "models": {"scripted": {"name": "Scripted", "tool_call": True}},
    }
    config = {
        "provider": {"scripted": provider},
        "model": "scripted/scripted",
        "small_model": "scripted/scripted",
        "autoupdate": False,
        "share": "disabled",
    }
    (folder / "opencode.json").write_text(json.dumps(config))
    env.update(
        OPENCODE_DISABLE_AUTOUPDATE="1",
        OPENCODE_DISABLE_LSP_DOWNLOAD="1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS="1",
        OPENCODE_DISABLE_MODELS_FETCH="1",
    )
    return env


def gemini_env(home: Path, server_url: str) -> dict[str, str]:
    """Gemini CLI with an API key against the Gemini server; update checks and telemetry off."""
    env = base_env(home)
    (home / "tmp").mkdir(exist_ok=True)
    folder = home / ".gemini"
    folder.mkdir(parents=True, exist_ok=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
    }
    (folder / "settings.json").write_text(json.dumps(settings))
    env.update(GEMINI_API_KEY="scripted", GOOGLE_GEMINI_BASE_URL=server_url)
    return env
