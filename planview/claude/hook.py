"""`planview claude hook`: one Claude Code hook event in, one binding answer out.

- ExitPlanMode (PreToolUse, and PermissionRequest) -> the plan is saved and reviewed by a person
  (`handoff`); approve -> seal + ledger event (channel "Claude Code") + `allow`, and the session is
  pinned to that approval; refine -> `deny` carrying the feedback; keep / timeout -> `deny`.
- Planning (Claude's permission_mode is `plan`, or planview's mode for the session is plan) -> the
  call goes through planview's gate (`tools.plan_mode_verdict`).
- Executing under a pin -> Write / Edit / MultiEdit / NotebookEdit / PowerShell / Bash first check
  the approved plan is still the pinned text; if it changed, `deny` naming the changed sections, a
  `revoked` event, and the session back to plan mode. An edit of the plan file itself that would
  change its text (anything but ticking Steps checkboxes) is refused before it happens.
- Anything else -> no decision: Claude Code's own permissions apply.

`run(stdin_bytes)` never raises: any failure becomes `answer.failure`, which denies.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from planview.claude import answer
from planview.claude.answer import HookAnswer
from planview.claude.event import HookEvent, HookInputError, event_name_hint, parse_event
from planview.claude.state import ClaudeState, Pin, SessionState
from planview.errors import PlanviewError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (this runs before every tool call)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["DEFAULT_TIMEOUT", "handle", "run"]

# Checked against the approval pin before they run (the ones that can change the plan or the project).
PIN_CHECKED = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "PowerShell", "Bash"})
DEFAULT_TIMEOUT = 3600.0  # seconds Claude Code waits for the hook (the installed "timeout")
REVIEW_MARGIN = 20.0  # answer this long before Claude Code would give up on the hook


def _locate(cwd: Path) -> tuple[Path, Path]:
    """The project root (git toplevel, else cwd) and planview's home for it, with one git call."""
    from planview.home import HOME_ENV, default_home, ensure_home, find_project_root

    found = find_project_root(cwd)
    root = Path(os.path.realpath(found if found is not None else cwd))
    home = default_home(None if os.environ.get(HOME_ENV, "").strip() else found)
    ensure_home(home)
    return root, home


def _stat(path: Path) -> tuple[int, int, int, int]:
    from planview.fileguard import stat_stamp

    stamp = stat_stamp(path)
    if stamp is None:
        raise FileNotFoundError(path)
    return stamp


def _listed_tools(path: Path) -> frozenset[str]:
    """`[claude] read_only_tools` in one config file (nothing when it is missing or unreadable)."""
    if not path.is_file():
        return frozenset()
    try:
        import tomllib

        data = tomllib.loads(path.read_text(encoding="utf-8")[: 256 * 1024])
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return frozenset()
    names = data.get("claude", {}).get("read_only_tools", []) if isinstance(data.get("claude"), dict) else []
    return frozenset(n for n in names if isinstance(n, str)) if isinstance(names, list) else frozenset()


def _read_only_tools(home: Path) -> tuple[frozenset[str], str | None]:
    """MCP tools the user vouches for: `[claude] read_only_tools` in the user's config, and in the
    project's `.planview/config.toml` only while git does not track it (`.planview/` ignores itself,
    so a tracked one was committed by whoever wrote the repository: a cloned repository must not
    declare its own write tools read-only). Also the sentence naming an ignored tracked list."""
    from planview.config import user_config_path
    from planview.session.mcp.trust import tracked_by_git

    user = user_config_path()
    vouched = _listed_tools(user)
    project = home / "config.toml"
    listed = _listed_tools(project) - vouched
    if not listed:
        return vouched, None
    tracked = tracked_by_git(project)
    if tracked is None:
        return vouched | listed, None
    return vouched, (
        f"{project} lists it in [claude] read_only_tools, but that file is tracked by git (it came with the "
        f"repository), so it cannot vouch for tools; list the tool in your user config ({user}) or stop "
        f"tracking the file (from the repository's top folder: git rm --cached {tracked})"
    )


def _kernel_sandbox(home: Path) -> bool:
    """Whether plan-mode Bash runs in the kernel sandbox here; with `[sandbox] require = true` in the
    user's or the project's config and no sandbox, a PlanviewError that refuses it (naming why)."""
    from planview.sandbox import status as sandbox_status

    found = sandbox_status.current()
    if found.enforcing:
        return True
    from planview.config import user_config_path

    for path in (user_config_path(), home / "config.toml"):
        if _requires_sandbox(path):
            from planview.sandbox.errors import SandboxRequired

            raise SandboxRequired(
                f"plan mode needs the kernel sandbox ([sandbox] require = true in {path}), and this machine "
                f"offers none: {found.reason}. Bash is refused while planning; run where Linux has Landlock, "
                "or remove that setting to plan on planview's lists alone"
            )
    return False


def _requires_sandbox(path: Path) -> bool:
    if not path.is_file():
        return False
    try:
        import tomllib

        data = tomllib.loads(path.read_text(encoding="utf-8")[: 256 * 1024])
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return False
    table = data.get("sandbox")
    return isinstance(table, dict) and table.get("require") is True


class HookContext:
    """What one hook call works with: the event, the project, planview's home and the session state."""

    def __init__(self, event: HookEvent, timeout: float) -> None:
        self.event = event
        self.timeout = timeout
        self.root, self.home = _locate(event.cwd)
        self.claude = ClaudeState(self.home)
        self.session = self.claude.session(event.session_id)

    def save(self, session: SessionState) -> None:
        self.session = session
        self.claude.save(self.event.session_id, session)

    @property
    def planning(self) -> bool:
        if self.event.claude_plan_mode or self.session.mode == "plan":
            return True
        return self.session.mode != "execute" and self.claude.project_plan_mode()

    def approvals(self) -> Any:
        from planview.approval.approvals import Approvals

        return Approvals(self.home, project_root=self.root)


# -- ExitPlanMode ------------------------------------------------------------------------------


def _steps_context(plan: Path, seq: int, text: str) -> str:
    from planview.plan.steps import extract_steps

    steps = extract_steps(text).steps
    lines = [
        f"planview: the plan was approved (ledger seq {seq}) and is saved at {plan}.",
        "Carry it out. Its steps are your todo list (keep them with TaskCreate / TaskUpdate if you have "
        "those tools); when one is done, tick its checkbox in that file ('- [ ]' -> '- [x]') with Edit. "
        "Changing any other text of the plan sends you back to plan mode.",
    ]
    lines += [f"{step.index}. {step.display}" for step in steps]
    return "\n".join(lines)


def _plan_file_text(value: Any) -> str | None:
    """The plan draft ExitPlanMode names, read only from Claude's own plans folder (a regular .md
    file, bounded): the event may not make the hook copy any other file into a plan."""
    from planview.claude.tools import claude_plans_dir
    from planview.fileguard import read_regular
    from planview.plan.store import MAX_PLAN_BYTES

    if not isinstance(value, str) or not value.endswith(".md") or "\x00" in value:
        return None
    path = Path(os.path.realpath(value))
    if path.parent != Path(os.path.realpath(claude_plans_dir())):
        return None
    try:
        return read_regular(path, MAX_PLAN_BYTES, "plan draft").decode("utf-8")
    except (OSError, PlanviewError, UnicodeDecodeError):
        return None


def _exit_plan_mode(ctx: HookContext) -> HookAnswer:
    from planview.claude.handoff import choose_reviewer, plan_title
    from planview.plan.canonical import canonical_parts
    from planview.plan.store import PlanStore

    event = ctx.event
    text = event.tool_input.get("plan")
    if not isinstance(text, str) or not text.strip():
        text = _plan_file_text(event.tool_input.get("planFilePath"))
    if not isinstance(text, str) or not text.strip():
        return _refuse(ctx, "ExitPlanMode carried no plan text; write the plan and call ExitPlanMode again")
    parts = canonical_parts(text)
    canonical = parts.sha256
    pin = ctx.session.pin
    if pin is not None and pin.canonical_sha256 == canonical and ctx.session.mode == "execute":
        return _approved_answer(ctx, Path(pin.plan), pin.seq, text)  # already reviewed and approved
    store = PlanStore(ctx.home, project_root=ctx.root)
    previous = ctx.session.plan if ctx.session.plan and os.path.exists(ctx.session.plan) else None
    written = store.write(plan_title(text), text, plan_path=previous)
    plan = Path(written.path)
    ctx.save(ctx.session._replace(plan=str(plan), mode="plan", pin=None, steps_offered=False))
    seconds = max(1.0, ctx.timeout - REVIEW_MARGIN)
    outcome = choose_reviewer()(plan, canonical, seconds)
    shown = store.relative(plan)
    if outcome.decision == "refine":
        feedback = outcome.feedback.strip() or "(no text)"
        return _refuse(
            ctx,
            f"the reviewer asked for changes to the plan ({shown}); stay in plan mode, revise the plan "
            f"and call ExitPlanMode again. Feedback:\n{feedback}",
        )
    if outcome.decision != "approve":
        why = "the review timed out" if outcome.decision == "timeout" else "the reviewer kept planning"
        return _refuse(
            ctx, f"not approved ({why}); keep planning and call ExitPlanMode when the plan is ready"
        )
    status = ctx.approvals().status(plan)
    record = status.record
    if status.state != "approved" or record is None or record.canonical_sha256 != canonical:
        return _refuse(ctx, f"the plan in {shown} is not approved as submitted; call ExitPlanMode again")
    ctx.save(
        ctx.session._replace(
            mode="execute",
            pin=Pin(record.seq, canonical, str(plan), _stat(plan), parts.skeleton, parts.code_ranges),
            steps_offered=False,
        )
    )
    return _approved_answer(ctx, plan, record.seq, text)


def _approved_answer(ctx: HookContext, plan: Path, seq: int, text: str) -> HookAnswer:
    # PermissionRequest: allow, and switch Claude to acceptEdits. PreToolUse: no decision (with the
    # steps as context), so Claude's ExitPlanMode prompt still comes and the PermissionRequest hook
    # answers it from the pin: that is the answer that can set Claude's mode.
    if ctx.event.name == "PermissionRequest":
        return answer.permission_allow("acceptEdits")
    ctx.save(ctx.session._replace(steps_offered=True))
    return answer.pass_through(_steps_context(plan, seq, text))


def _refuse(ctx: HookContext, reason: str) -> HookAnswer:
    if ctx.event.name == "PermissionRequest":
        return answer.permission_deny(reason)
    return answer.deny(reason)


# -- execute mode: the pin -------------------------------------------------------------------


def _simulated(tool: str, tool_input: Mapping[str, Any], current: str) -> str | None:
    """The plan text a Write / Edit / MultiEdit of the plan file would leave, or None if unknowable."""
    if tool == "Write":
        content = tool_input.get("content")
        return content if isinstance(content, str) else None
    edits: list[Any]
    if tool == "Edit":
        edits = [tool_input]
    elif tool == "MultiEdit" and isinstance(tool_input.get("edits"), list):
        edits = list(tool_input["edits"])
    else:
        return None
    text = current
    for edit in edits:
        if not isinstance(edit, Mapping):
            return None
        old, new = edit.get("old_string"), edit.get("new_string")
        if not isinstance(old, str) or not isinstance(new, str) or old not in text:
            return text  # Claude's tool will fail on its own; the plan is not changed
        text = text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
    return text


def _changes_since_pin(approvals: Any, pin: Pin, plan: Path) -> tuple[str, ...]:
    """Sections that differ between the pinned approval's sealed text and the plan file now."""
    for entry in approvals.history():
        if entry.record.seq == pin.seq:
            return approvals.changed_since(entry.record, plan)
    return ()


def _revoke(ctx: HookContext, pin: Pin) -> HookAnswer:
    plan = Path(pin.plan)
    sections: tuple[str, ...] = ()
    try:
        approvals = ctx.approvals()
        from planview.approval.channels import CLAUDE_CODE  # the approval package is heavy to import

        revocation = approvals.check_and_revoke(plan, channel=CLAUDE_CODE)
        if revocation is not None and revocation.revokes == pin.seq:
            sections = revocation.changed_sections
        elif plan.exists():
            # Someone approved the changed text meanwhile: that approval is not this session's pin.
            sections = _changes_since_pin(approvals, pin, plan)
    except PlanviewError:
        pass  # the ledger's own problem is reported by `planview audit`; the answer is deny either way
    ctx.save(ctx.session._replace(mode="plan", pin=None, steps_offered=False))
    named = ", ".join(sections) if sections else ("the file is gone" if not plan.exists() else "formatting")
    from planview.claude.tools import for_claude_mode

    # Claude itself is in acceptEdits now (the approval set it), where it rejects ExitPlanMode.
    return answer.deny(
        for_claude_mode(
            f"the approved plan {plan.name} changed after approval ({named}), so the approval no longer "
            "holds and you are back in plan mode: revise the plan and call ExitPlanMode for a new review",
            ctx.event.claude_plan_mode,
        )
    )


def _pinned(ctx: HookContext, pin: Pin) -> HookAnswer:
    # The canonical hash needs the Markdown parser (most of this hook's start-up): only when the
    # plan's stat changed since the last verified call, or the call edits the plan file itself.
    plan = Path(pin.plan)
    event = ctx.event
    try:
        stat = _stat(plan)
    except OSError:
        return _revoke(ctx, pin)
    text: str | None = None
    if stat != pin.stat:
        text = _plan_text(plan)
        parts = _canonical(text, pin)
        if parts.sha256 != pin.canonical_sha256:
            return _revoke(ctx, pin)
        pin = pin._replace(stat=stat, skeleton=parts.skeleton, code=parts.code_ranges)
        ctx.save(ctx.session._replace(pin=pin))
    target = event.tool_input.get("file_path")
    if event.tool_name in ("Write", "Edit", "MultiEdit") and isinstance(target, str):
        if os.path.realpath(target) == os.path.realpath(plan):
            current = text if text is not None else _plan_text(plan)
            after = _simulated(event.tool_name, event.tool_input, current)
            if after is None or _canonical(after, pin).sha256 != pin.canonical_sha256:
                return answer.deny(
                    f"that edit would change the approved plan's text ({plan.name}); while executing, only "
                    "tick its Steps checkboxes. To change the plan, ask the user to send you back to plan mode."
                )
    if not ctx.session.steps_offered:
        current = text if text is not None else _plan_text(plan)
        ctx.save(ctx.session._replace(steps_offered=True))
        return answer.pass_through(_steps_context(plan, pin.seq, current))
    return answer.pass_through()


def _plan_text(plan: Path) -> str:
    from planview.plan.store import read_plan_text

    return read_plan_text(plan)


def _canonical(text: str, pin: Pin) -> Any:
    """`text`'s CanonicalParts: from the pin's last verified parts when only boxes were ticked
    since (no Markdown parser), else in full."""
    from planview.plan.canonical import CanonicalParts, canonical_parts, canonical_sha256_known

    if pin.skeleton:
        known = canonical_sha256_known(text, CanonicalParts(pin.canonical_sha256, pin.skeleton, pin.code))
        if known is not None:
            return known
    return canonical_parts(text)


# -- dispatch --------------------------------------------------------------------------------


def handle(event: HookEvent, timeout: float = DEFAULT_TIMEOUT) -> HookAnswer:
    ctx = HookContext(event, timeout)
    if event.tool_name == "ExitPlanMode":
        if _inside_planview_session():
            # `planview run --agent claude` started this Claude: that session reviews the plan and
            # records the approval (its own review screen, through ACP). The hook's review would ask
            # the person a second time, then could not record (approvals refuse a planview tool
            # process) and would deny: Claude's own permission flow, which reaches the session, decides.
            return HookAnswer(0)
        return _exit_plan_mode(ctx)
    if ctx.planning:
        from planview.claude.tools import for_claude_mode, plan_mode_verdict

        # The config lists MCP tools the user vouches for: read it only for an MCP call.
        vouched, ignored = (
            _read_only_tools(ctx.home) if event.tool_name.startswith("mcp__") else (frozenset(), None)
        )
        # Bash runs in the kernel sandbox where this machine has one (the wider read-only list then
        # applies); asked only for Bash: the sandbox's probe loads ctypes.
        sandboxed = event.tool_name == "Bash" and _kernel_sandbox(ctx.home)
        verdict = plan_mode_verdict(
            event.tool_name, event.tool_input, ctx.root, vouched, event.cwd, sandboxed=sandboxed
        )
        if not verdict.allowed and ignored is not None and event.tool_name not in vouched:
            verdict = verdict._replace(reason=f"{verdict.reason}; {ignored}")
        if not verdict.allowed:
            verdict = verdict._replace(reason=for_claude_mode(verdict.reason, event.claude_plan_mode))
        if event.name == "PermissionRequest":
            return answer.permission_deny(verdict.reason) if not verdict.allowed else HookAnswer(0)
        if verdict.allowed and event.tool_name == "Bash":
            from planview.claude.git_wrap import neutralised_command

            wrapped = neutralised_command(str(event.tool_input["command"]), ctx.root, sandboxed=sandboxed)
            return answer.allow(
                f"planview plan mode: {verdict.reason}",
                updated_input={**event.tool_input, "command": wrapped},
            )
        if verdict.allowed:
            return answer.allow(f"planview plan mode: {verdict.reason}")
        return answer.deny(verdict.reason)
    pin = ctx.session.pin
    if pin is not None and event.name == "PreToolUse" and event.tool_name in PIN_CHECKED:
        return _pinned(ctx, pin)
    return HookAnswer(0)


def _inside_planview_session() -> bool:
    from planview.approval.channels import TOOL_PROCESS_ENV

    return bool(os.environ.get(TOOL_PROCESS_ENV, "").strip())


def run(raw: bytes, timeout: float = DEFAULT_TIMEOUT) -> HookAnswer:
    """The answer to the event in `raw`; never raises, never allows on a failure."""
    hint = ""
    try:
        event = parse_event(raw)
        hint = event.name
        return handle(event, timeout)
    except HookInputError as exc:
        return answer.failure(str(exc), event_name_hint(raw))
    except PlanviewError as exc:
        return answer.failure(str(exc), hint)
    except Exception as exc:  # a bug must deny, not crash into Claude Code's fail-open path
        return answer.failure(f"internal error ({type(exc).__name__}: {str(exc)[:200]})", hint)
