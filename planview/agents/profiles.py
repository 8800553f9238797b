"""The one table of ACP agents planview knows: how to start each, its read-only mode, its hard limits,
its own state folders (what the agent profile's sandbox lets it write), the versions it was checked
against, and how much of plan mode it can honestly promise.

Adding an agent is one `AgentProfile` entry in `BUILTIN` plus its tests: help texts, refusals and the
sandbox read the table, and a test fails if another module names an agent. The table is a module of
frozen records rather than a TOML file so that mypy checks every entry, `--help` pays no parse at
start-up, and nested hard limits (`session_meta`) need no schema of their own.

`resolve_agent("gemini")` gives a built-in profile; any other text is a command line run with the
generic profile (modes are then matched by id and name). `require_installed` turns a missing
binary into one line naming how to install it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from planview.agents.errors import AgentConfigError, AgentNotInstalledError

# How far plan mode holds for an agent, strongest first (README's guarantees table says the same).
Guarantee = Literal["enforced", "sandboxed", "client-gated", "advisory"]

GUARANTEE_TEXT: Mapping[str, str] = {
    "sandboxed": "the agent's read-only mode is an OS sandbox; planview detects anything that slips through",
    "client-gated": "the agent writes through planview (fs/*) or asks first; planview refuses, and detects the rest",
    "advisory": "the agent writes with its own tools; its plan mode and planview's refusals are advisory, "
    "the breach detector is the backstop",
}

# Read-only modes of agents planview has no profile for, matched against mode ids and names.
GENERIC_PLAN_MODES = ("plan", "read-only", "readonly", "read_only", "architect", "ask")
GENERIC_EXECUTE_MODES = ("default", "code", "agent", "build", "auto", "normal")

# Where a state path is anchored: HOME, or an XDG base directory (its variable when set to an
# absolute path, as the XDG spec says, else its default under HOME).
StateBase = Literal["home", "config", "data", "cache", "state"]
_XDG: Mapping[str, tuple[str, str]] = {
    "config": ("XDG_CONFIG_HOME", ".config"),
    "data": ("XDG_DATA_HOME", ".local/share"),
    "cache": ("XDG_CACHE_HOME", ".cache"),
    "state": ("XDG_STATE_HOME", ".local/state"),
}


@dataclass(frozen=True)
class StatePath:
    """A folder (or one file) where an agent keeps its own state, cache or config: the agent profile's
    sandbox lets the agent write there while it plans. `moved_by` names the variable that, when set,
    is the folder instead (CODEX_HOME); a file moves into that folder under its own name
    (CLAUDE_CONFIG_DIR holds `.claude.json`)."""

    base: StateBase
    path: str  # relative to the base
    file: bool = False  # one file (Landlock then grants file rights on it alone)
    moved_by: str = ""

    def resolve(self, env: Mapping[str, str]) -> Path | None:
        """The absolute path in this environment; None without a usable HOME (nothing is granted)."""
        moved = env.get(self.moved_by, "") if self.moved_by else ""
        if moved and os.path.isabs(moved):
            return Path(moved) / os.path.basename(self.path) if self.file else Path(moved)
        home = env.get("HOME", "")
        if not os.path.isabs(home):
            return None
        if self.base == "home":
            return Path(home) / self.path
        variable, default = _XDG[self.base]
        chosen = env.get(variable, "")
        return Path(chosen if os.path.isabs(chosen) else os.path.join(home, default)) / self.path


@dataclass(frozen=True)
class VersionRange:
    """The agent versions planview's real-agent tests ran: low and high inclusive, dotted numbers."""

    low: str
    high: str
    checked: str  # what was run for real at those versions (README's agent table)

    def holds(self, version: str) -> bool:
        """Whether `version` ("1.18.3", "v0.9.0 (build)") lies in the range; False when unreadable."""
        found, low, high = _version(version), _version(self.low), _version(self.high)
        if found is None or low is None or high is None:
            return False
        return low <= found <= high


def _version(text: str) -> tuple[int, ...] | None:
    match = re.search(r"\d+(?:\.\d+)*", text)
    return tuple(int(part) for part in match.group().split(".")) if match else None


@dataclass(frozen=True)
class AgentProfile:
    """One ACP agent: how to start it, its planning and executing modes, what plan mode promises, and
    what its sandboxed planning process may write."""

    name: str  # "gemini", or the command for a generic agent
    argv: tuple[str, ...]  # how to start it speaking ACP on stdio
    install: str  # the one line a missing binary gets
    plan_modes: tuple[str, ...]  # mode ids (or config values) that mean read-only planning, best first
    execute_modes: tuple[str, ...]  # where planview puts it after an approval, best first
    guarantee: Guarantee
    layers: str  # which enforcement layers apply (README's table)
    advisory: str  # what remains advisory
    env: Mapping[str, str] = field(default_factory=dict)  # hard limits passed through the environment
    session_meta: Mapping[str, Any] = field(default_factory=dict)  # `_meta` of session/new (hard limits)
    exit_plan_titles: tuple[str, ...] = ()  # permission titles (lower case) that mean "exit plan mode"
    # Project files the agent writes as its own bookkeeping when it starts (not a breach); each one
    # observed on a real start-up of that agent (a watcher over a fresh repository).
    own_files: tuple[str, ...] = ()
    # The agent's own state, cache and config folders: all it may write outside `.planview/plans/`
    # and its private temp folder while it plans under the agent sandbox.
    state: tuple[StatePath, ...] = ()
    # The agent opens a listening TCP socket of its own (its internal server); without it, the agent
    # sandbox refuses TCP bind where the kernel can.
    listens: bool = False
    plan_mode_known: bool = True  # its plan/read-only mode is documented (not only hoped for)
    version_args: tuple[str, ...] = ("--version",)  # after argv[0]: prints its version (planview doctor)
    tested: VersionRange | None = None  # None: never run for real by the test suite
    builtin: bool = True

    @property
    def short_name(self) -> str:
        """How messages name the agent: "gemini", or its command with folders dropped."""
        if self.builtin:
            return self.name
        return " ".join(os.path.basename(a) if os.sep in a else a for a in self.argv)

    @property
    def label(self) -> str:
        """The session's provider label and the approval channel: "ACP: gemini", "ACP: python fake.py"."""
        return f"ACP: {self.short_name}"

    def state_paths(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        """The agent's state folders and files, absolute, in this environment."""
        found = (s.resolve(env) for s in self.state)
        return tuple(p for p in found if p is not None)


# Claude Code's own tools that change files or run programs; kept out of plan mode by Claude itself.
CLAUDE_MUTATING_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "KillShell")

_PROFILES: tuple[AgentProfile, ...] = (
    AgentProfile(
        name="gemini",
        argv=("gemini", "--acp", "--approval-mode", "plan"),
        install="npm install -g @google/gemini-cli",
        plan_modes=("plan",),
        execute_modes=("default",),
        guarantee="client-gated",
        layers="plan mode (set_mode plan, verified), started with --approval-mode plan, fs/write_text_file "
        "refused, edit/execute permissions refused by the gate, breach detector",
        advisory="gemini runs shell commands itself: a command its own plan mode lets through is only "
        "detected, not prevented",
        exit_plan_titles=("plan approval", "exit plan mode", "requesting plan approval"),
        # Gemini CLI keeps settings, OAuth credentials, history and its tmp/ chats in ~/.gemini.
        state=(StatePath("home", ".gemini"),),
        tested=VersionRange(
            "0.61.0", "0.61.0", "plan mode over ACP: reads, its own refusal of write_file reaching the model"
        ),
    ),
    AgentProfile(
        name="claude",
        argv=("claude-agent-acp",),
        install="npm install -g @zed-industries/claude-agent-acp",
        plan_modes=("plan",),
        execute_modes=("default",),
        guarantee="advisory",
        layers="plan mode (set_mode plan, verified), disallowedTools for Write/Edit/Bash while planning, "
        "edit/execute permissions refused by the gate, ExitPlanMode routed to planview's review, breach detector",
        advisory="Claude Code writes with its own tools and asks only when its own permission settings "
        "say so; a write its settings allow is only detected",
        session_meta={"claudeCode": {"options": {"disallowedTools": list(CLAUDE_MUTATING_TOOLS)}}},
        # ~/.claude (settings, credentials, projects/ transcripts, todos); ~/.claude.json (onboarding,
        # trusted folders, approved keys). CLAUDE_CONFIG_DIR moves the folder (and the file into it).
        state=(
            StatePath("home", ".claude", moved_by="CLAUDE_CONFIG_DIR"),
            StatePath("home", ".claude.json", file=True, moved_by="CLAUDE_CONFIG_DIR"),
        ),
    ),
    AgentProfile(
        name="codex",
        argv=("codex-acp",),
        install="npm install -g @zed-industries/codex-acp",
        plan_modes=("read-only",),
        execute_modes=("auto", "agent"),
        guarantee="sandboxed",
        layers="read-only mode (set_mode read-only, verified; an OS sandbox), started read-only "
        "(INITIAL_AGENT_MODE), edit/execute permissions refused by the gate, breach detector",
        advisory="after approval codex edits inside its own workspace sandbox; planview pins each "
        "permission it asks for",
        env={"INITIAL_AGENT_MODE": "read-only"},
        # config.toml, auth.json, sessions/, logs and its sqlite state; CODEX_HOME replaces it.
        state=(StatePath("home", ".codex", moved_by="CODEX_HOME"),),
    ),
    AgentProfile(
        name="goose",
        argv=("goose", "acp"),
        install="install goose from https://block.github.io/goose/ (goose is not on npm or PyPI)",
        plan_modes=("plan", "chat"),
        execute_modes=("smart_approve", "approve", "auto"),
        guarantee="client-gated",
        layers="plan mode if it offers one (verified), fs/write_text_file refused, edit/execute "
        "permissions refused by the gate, breach detector",
        advisory="tools of goose extensions that do not go through fs/* are only detected",
        plan_mode_known=False,
        # config.yaml and history (config), sessions/sessions.db (data), logs/ (state).
        state=(StatePath("config", "goose"), StatePath("data", "goose"), StatePath("state", "goose")),
    ),
    AgentProfile(
        name="opencode",
        argv=("opencode", "acp"),
        install="npm install -g opencode-ai",
        plan_modes=("plan",),
        execute_modes=("build",),
        guarantee="advisory",
        layers="its plan agent (set_mode plan, verified), edit/execute permissions refused by the gate, "
        "breach detector",
        advisory="opencode writes with its own tools; its plan agent's limits are its own, planview only "
        "detects a write",
        own_files=(".git/opencode",),  # opencode 1.18 caches its project id (the root commit) there
        # auth.json, logs and project storage (data), packages and models (cache), opencode.json
        # (config), prompt history and the like (state): the XDG layout on every system.
        state=(
            StatePath("data", "opencode"),
            StatePath("cache", "opencode"),
            StatePath("config", "opencode"),
            StatePath("state", "opencode"),
        ),
        tested=VersionRange(
            "1.18.33",
            "1.18.33",
            "plan agent over ACP: reads, its own refusal of its write tool reaching the model",
        ),
        listens=True,  # `opencode acp` drives its own HTTP server on loopback
    ),
)

BUILTIN: Mapping[str, AgentProfile] = {p.name: p for p in _PROFILES}


def builtin_names(*, plan_mode: bool = False) -> str:
    """The built-in agents' names for help texts and refusals ("gemini, claude, ..."); with
    `plan_mode`, only those whose plan or read-only mode is documented."""
    return ", ".join(p.name for p in _PROFILES if p.plan_mode_known or not plan_mode)


# Flags that switch an agent's own permission checks off; planview refuses to start an agent with them.
_BYPASS_FLAGS = frozenset(
    {
        "yolo",
        "dangerouslyskippermissions",
        "dangerouslybypassapprovalsandsandbox",
        "bypasspermissions",
        "fullauto",
    }
)


def _bypass_flag(argv: tuple[str, ...]) -> str | None:
    for i, arg in enumerate(argv[1:], 1):
        flag, _, value = arg.partition("=")
        norm = flag.lstrip("-").replace("-", "").replace("_", "").lower()
        if arg.startswith("-") and norm in _BYPASS_FLAGS:
            return arg
        if norm in ("approvalmode", "permissionmode", "sandbox", "mode") and arg.startswith("-"):
            chosen = value or (argv[i + 1] if i + 1 < len(argv) else "")
            if chosen.replace("-", "").replace("_", "").lower() in _BYPASS_FLAGS | {
                "dangerfullaccess",
                "dontask",
            }:
                return f"{flag} {chosen}"
    return None


def resolve_agent(spec: str) -> AgentProfile:
    """A built-in profile by name, else the generic profile for the command line `spec`."""
    text = (spec or "").strip()
    if not text:
        raise AgentConfigError(
            f'--agent needs a name ({builtin_names()}) or a command such as "python my_agent.py"'
        )
    if text in BUILTIN:
        return BUILTIN[text]
    try:
        argv = tuple(shlex.split(text))
    except ValueError as exc:
        raise AgentConfigError(f"cannot read the agent command {text!r} ({exc}); check its quotes") from None
    if not argv:
        raise AgentConfigError(f"the agent command {text!r} is empty")
    bypass = _bypass_flag(argv)
    if bypass is not None:
        raise AgentConfigError(
            f"the agent command turns the agent's own permission checks off ({bypass}); planview refuses "
            "that: drop the flag (plan mode and approvals decide what the agent may do)"
        )
    return AgentProfile(
        name=text,
        argv=argv,
        install=f"check the command {argv[0]!r} (it is not on PATH) or use one of: {builtin_names()}",
        plan_modes=GENERIC_PLAN_MODES,
        execute_modes=GENERIC_EXECUTE_MODES,
        guarantee="advisory",
        layers="its plan/read-only mode if it offers one (verified), fs/write_text_file refused and "
        "terminal/create gated (read-only git only), mutating permissions refused by the gate, breach detector",
        advisory="anything the agent does with its own tools is only detected",
        builtin=False,
    )


def require_installed(profile: AgentProfile, path: str | None = None) -> AgentProfile:
    """The profile with argv[0] resolved on PATH; AgentNotInstalledError (one line) when it is missing."""
    program = profile.argv[0]
    found = shutil.which(program, path=path if path is not None else os.environ.get("PATH"))
    if found is None:
        raise AgentNotInstalledError(f"{program} is not installed: {profile.install}")
    return replace(profile, argv=(found, *profile.argv[1:]))


def agent_spec(
    flag: str | None, saved: Mapping[str, Any] | None, config: Any, *, explicit: bool
) -> str | None:
    """Which agent a run drives: --agent, else the one a resumed session ran with, else `[agent] command`.

    `explicit` is true when --provider or --script chose planview's own agent; `saved` is the resumed
    session's provider snapshot (a session that ran planview's own agent resumes with it)."""
    if flag is not None:
        if explicit:
            raise AgentConfigError(
                "--agent runs an external agent and cannot be combined with --provider or --script; drop one"
            )
        return flag
    if explicit:
        return None
    if saved:
        agent = saved.get("agent") if saved.get("kind") == "acp" else None
        return agent if isinstance(agent, str) else None
    return getattr(config, "agent_command", None)
