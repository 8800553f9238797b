"""The one session builder, shared by `planview` (the session app) and `planview run` (headless).

`prepare` resolves everything a session needs from the command line and the disk, before any UI
starts, so a bad flag or a missing session is one clear line: the project root and its plan store,
the config, the session to resume (an id resolved to its file), and what runs the turns - planview's
own agent with a provider (a resumed session keeps the script or model it ran with unless a flag
says otherwise) or an external ACP agent (`--agent`, a resumed ACP session, or `[agent] command`).
`SessionSpec.build` then makes the session, new or resumed, with whichever UI and event callback
the caller attaches.

It lives with the commands because it is the one place that knows every kind of session
(`planview.session` and `planview.agents`); both sit below it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: start-up stays short
if TYPE_CHECKING:
    from typing import Any

    from planview.agents.session import AcpSession
    from planview.config import Config
    from planview.plan.store import PlanStore
    from planview.session.events import Event
    from planview.session.session import Session
    from planview.session.ui import SessionUI


@dataclass(frozen=True)
class SessionSpec:
    """Everything a session needs, resolved from the flags and the disk before any UI starts."""

    project_root: Path
    store: PlanStore
    config: Config
    resume: str | None  # the saved session's id, or None for a new session
    provider_name: str | None  # after the config and the resumed session's own choice
    model: str | None
    script: str | Path | None
    plan_mode: bool = False
    agent: str | None = None  # an external ACP agent runs the turns (planview.agents)

    @property
    def has_provider(self) -> bool:
        return bool(self.agent or self.script or self.provider_name or self.config.provider.name)

    def build(
        self,
        *,
        ui: SessionUI | None = None,
        on_event: Callable[[Event], None] | None = None,
        provider: Any = None,
    ) -> Session | AcpSession:
        """The session: resumed when `resume` names one (`--plan` applies only if it saved no mode).

        `provider` is built once by the caller when the factory may run more than once (it keeps a
        script's position); None builds it here."""
        common: dict[str, Any] = {
            "project_root": self.project_root,
            "ui": ui,
            "on_event": on_event,
            "store": self.store,
            "plan_mode": self.plan_mode,
            "allow_read_only_hint": self.config.allow_read_only_hint,
            "mcp_servers": self.config.mcp_servers,
        }
        if self.agent is not None:  # an ACP agent runs the turn; everything else is the same
            from planview.agents.session import build

            plan_mode = common.pop("plan_mode")
            return build(self.agent, plan_mode=plan_mode, resume=self.resume, **common)
        from planview.session.session import Session

        common["provider"] = provider if provider is not None else self.make_provider()
        if self.resume is not None:
            return Session.resume(self.resume, **common)
        return Session(**common)

    def make_provider(self) -> Any:
        from planview.session.providers.factory import make_provider

        return make_provider(self.provider_name, self.model, self.script, self.config)


def prepare(
    *,
    cwd: Path | None = None,
    provider: str | None = None,
    model: str | None = None,
    script: str | Path | None = None,
    resume: str | None = None,
    plan_mode: bool = False,
    agent: str | None = None,
) -> SessionSpec:
    """Resolve the flags against the disk; `resume=""` means the newest saved session."""
    from planview.agents.profiles import agent_spec
    from planview.config import load_config
    from planview.home import find_project_root
    from planview.plan.store import PlanStore

    here = Path.cwd() if cwd is None else Path(cwd)
    root = find_project_root(here) or here
    store = PlanStore.for_cwd(here)
    explicit = provider is not None or script is not None
    saved = None
    if resume is not None:
        from planview.session.persistence import find_session, saved_provider
        from planview.session.providers.factory import saved_provider_args

        resume = find_session(store.home, resume or None).stem  # no such session: say so first
        saved = saved_provider(store.home, resume)
        provider, model, script = saved_provider_args(saved, provider, model, script)
    config = load_config(store.home)  # ConfigError names the file, line and problem
    require_sandbox(config)
    chosen = agent_spec(agent, saved, config, explicit=explicit)
    if agent is None and saved and chosen is not None:
        _check_saved_agent(chosen, resume)
    return SessionSpec(root, store, config, resume, provider, model, script, plan_mode, chosen)


def require_sandbox(config: Config) -> None:
    """`[sandbox] require = true` and no kernel sandbox here: refuse, since any session can plan."""
    if not config.sandbox_require:
        return
    from planview.sandbox import status as sandbox_status
    from planview.sandbox.errors import SandboxRequired

    found = sandbox_status.current()
    if not found.enforcing:
        where = next((str(p) for p in reversed(config.sources)), "the config")
        raise SandboxRequired(
            f"plan mode needs the kernel sandbox ([sandbox] require = true in {where}), and this machine "
            f"offers none: {found.reason}. Run planview where Linux has Landlock, or remove that setting "
            "to plan on planview's lists alone (`planview doctor` says what enforces plan mode here)"
        )


def _check_saved_agent(spec: str, session_id: str | None) -> None:
    """The agent a resumed session ran with must still start; the fix names the way to choose another
    (the user typed no --agent, so "--agent needs a name" alone would not say where it came from)."""
    from planview.agents.errors import AgentError
    from planview.agents.profiles import require_installed, resolve_agent

    try:
        require_installed(resolve_agent(spec))
    except AgentError as exc:
        raise type(exc)(
            f"{exc} (session {session_id} ran with this agent; resume it with another: --agent NAME|COMMAND)"
        ) from None
