"""The session screen: transcript, todo panel, busy line, prompt and the status row.

It renders session events (handed over by the app) and turns what the user types into
session calls. The session itself is owned by the app; this screen only talks to it through
the contract in docs/ARCHITECTURE.md.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import RenderableType
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Footer

from planview import keymap
from planview.errors import PlanviewError
from planview.session import events as ev
from planview.session.view import SessionView
from planview.textsafe import sanitize_for_terminal
from planview.tui import commands as cmd
from planview.tui.help_listing import HelpListing
from planview.tui.key_bindings import bindings
from planview.tui.messages import CancelRequested, PromptSubmitted
from planview.tui.styles import stylesheet
from planview.tui.widgets.chip import ModeChip, StatusBar
from planview.tui.widgets.prompt import BusyIndicator, PromptInput
from planview.tui.widgets.todos import TodoPanel
from planview.tui.widgets.transcript import Transcript

STALE_CHECK_SECONDS = 1.5
FOOTER_MIN_WIDTH = 38  # "ctrl+alt+p plan mode (/plan) ^o expand", compact
# The prompt's placeholder, longest first: the longest that fits is shown (whole, never cut).
PLACEHOLDERS = (
    "Ask the agent…  (/help for commands, Enter sends, Ctrl+J newline)",
    "Ask the agent…  (/help, Enter sends, Ctrl+J newline)",
    "Ask the agent…  (/help for commands)",
    "Ask the agent…",
)
# What the user's own toggle means, added to the runtime's "plan mode on/off" note.
MODE_NOTES = {
    "plan": " — the agent can only read; the one thing it may write is its plan",
    "execute": " — write tools are back",
}


def short_path(path: Path) -> str:
    """The path with the home folder as ~ (for the status row)."""
    try:
        return "~/" + str(path.relative_to(Path.home()))
    except ValueError:
        return str(path)


class SessionScreen(Screen):
    CSS_PATH = stylesheet("session")
    # The one key map (planview/keymap.py SESSION): Ctrl+Alt+P arrives as "alt+ctrl+p" through
    # planview.tui.chord_keys whatever the terminal sends; PgUp/PgDn page the transcript whatever has
    # focus (the prompt, a TextArea, would take them); /help lists the same rows.
    BINDINGS = bindings(keymap.SESSION, footer=True)

    def __init__(
        self,
        session: SessionView,
        *,
        project_root: Path,
        welcome: tuple[RenderableType, ...] = (),
        prompt_text: str = "",
    ) -> None:
        super().__init__()
        self.session = session
        self.project_root = project_root
        self.welcome = welcome
        self.prompt_text = prompt_text
        self.busy = False
        self.mode = "execute"
        self.plan_path: Path | None = None
        self.approved = False
        self.stale = False
        self._resume_notice: str | None = None  # told to the agent with the next message
        self._error_shown: str | None = None  # this turn's error, already on screen

    # -- layout ------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            yield Transcript(id="transcript")
            yield TodoPanel(id="todos")
        with Vertical(id="input"):
            yield BusyIndicator(id="busy")
            yield PromptInput(id="prompt", placeholder=PLACEHOLDERS[0])
        yield StatusBar(provider=self._provider_label(), project=short_path(self.project_root), id="status")
        yield Footer()

    def on_mount(self) -> None:
        for line in self.welcome:
            self.transcript.add_notice(line, kind="welcome")
        if self.welcome:
            self.transcript.show_from_top()
        conversation = self.session.conversation
        if conversation:
            from planview.tui.replay import replay_conversation

            replay_conversation(self.transcript, conversation)
            self.transcript.add_notice(f"Resumed session {self.session.id}.", kind="mode")
        # What the resume found (approved outside, or the approved plan changed): shown now, and the
        # agent learns it with the next message the user sends.
        if self.session.file_notice:  # the session file's torn last line was left out
            self.transcript.add_notice(self.session.file_notice, kind="mode")
        notice = self.session.resume_notice
        if notice is not None:
            self._resume_notice = notice.for_model
            self.transcript.add_notice(notice.shown, kind="warning" if notice.kind != "approved" else "mode")
        if not getattr(self.session, "sandboxed", True):  # said once, and the chip keeps saying it
            from planview.sandbox import status as sandbox_status

            self.chip.lists_only = True
            self.transcript.add_notice(
                "Plan mode here runs on planview's lists alone: "
                f"{sandbox_status.current().reason}. Plan-mode bash runs read-only git only "
                "(planview doctor says what enforces plan mode).",
                kind="warning",
            )
        self.sync_from_session()
        todos = self.session.todos
        if todos:
            self.query_one(TodoPanel).set_todos(todos)
        if self.prompt_text:
            self.prompt.load_text(self.prompt_text)
            self.prompt.move_cursor(self.prompt.document.end)
        self.prompt.focus()
        self.call_after_refresh(self._prompt_ready)
        keymap = getattr(self.app, "_keymap", {}) or {}
        key = keymap.get("todos.toggle", "ctrl+t").split(",")[0]
        self.todos.key = self.app.get_key_display(Binding(key, "toggle_todos"))
        self.set_interval(STALE_CHECK_SECONDS, self._check_stale)

    def _prompt_ready(self) -> None:
        ready = getattr(self.app, "prompt_ready", None)
        if callable(ready):
            ready()

    @property
    def transcript(self) -> Transcript:
        return self.query_one(Transcript)

    @property
    def prompt(self) -> PromptInput:
        return self.query_one(PromptInput)

    @property
    def chip(self) -> ModeChip:
        return self.query_one(ModeChip)

    @property
    def todos(self) -> TodoPanel:
        return self.query_one(TodoPanel)

    def _provider_label(self) -> str:
        return self.session.provider_label

    # -- session state -----------------------------------------------------------------------
    def sync_from_session(self) -> None:
        """Read mode, plan and approval from the session (at start and after user toggles)."""
        self.mode = self.session.mode
        self.plan_path = self.session.plan_path
        self.approved = self.session.approved
        self.stale = self._session_stale()
        self._paint_chip()

    def _session_stale(self) -> bool:
        if not self.approved:
            return False
        try:
            return bool(self.session.is_stale())
        except (OSError, PlanviewError):
            return False

    def _check_stale(self) -> None:
        if self.approved and self.mode == "execute":
            stale = self._session_stale()
            if stale != self.stale:
                self.stale = stale
                self._paint_chip()
                if stale:
                    self.transcript.add_notice(
                        "The approved plan changed on disk: its approval no longer holds. "
                        "The next change the agent tries returns the session to plan mode.",
                        kind="warning",
                    )

    def chip_label(self, path: Path | None) -> str | None:
        """A plan in the plans folder by its file name (the chip is one row); others relative to the project."""
        if path is None:
            return None
        if Path(path).parent == self.session.store.plans_dir:
            return Path(path).name
        return self.plan_label(path)

    def plan_label(self, path: Path | None) -> str | None:
        """The plan's path relative to the project root (for messages)."""
        if path is None:
            return None
        path = Path(path)
        try:  # the folder resolved, not the file: a symlinked plan is named as itself, not its target
            return str((path.parent.resolve() / path.name).relative_to(self.project_root.resolve()))
        except (ValueError, OSError):
            return path.name

    def _paint_chip(self) -> None:
        self.chip.show(self.mode, self.chip_label(self.plan_path), approved=self.approved, stale=self.stale)
        self.query_one(StatusBar).fit()

    def apply_event(self, event: ev.Event) -> None:
        """Render one session event."""
        t = self.transcript
        if isinstance(event, ev.TextDelta):
            t.append_text(event.text)
        elif isinstance(event, ev.ToolStarted):
            t.tool_started(event.call_id, event.name, event.headline)
        elif isinstance(event, ev.ToolFinished):
            t.tool_finished(
                event.call_id,
                event.name,
                event.result,
                refused=event.refused,
                reason=event.reason,
                error=event.error,
            )
        elif isinstance(event, ev.ModeChanged):
            self._mode_changed(event)
        elif isinstance(event, ev.PlanWritten):
            self.plan_path = event.path
            self._paint_chip()
        elif isinstance(event, ev.TodosChanged):
            self.todos.set_todos(event.todos)
            if event.deferred:
                t.add_notice(f"{len(event.deferred)} more steps wait for room on the todo list", kind="info")
        elif isinstance(event, ev.TurnEnded):
            self._turn_ended(event)
        elif isinstance(event, ev.ErrorEvent):
            t.add_notice(event.message, kind="error")
            self._error_shown = event.message
        elif isinstance(event, ev.McpNotice):
            t.add_notice(event.message, kind="warning")
        elif isinstance(event, ev.SubagentEvent):
            t.child_event(event.call_id, event.event)
        # ReviewRequested / ConfirmationRequested are answered through SessionUI (the app).

    def _mode_changed(self, event: ev.ModeChanged) -> None:
        self.mode, self.plan_path = event.mode, event.plan_path
        self.approved, self.stale = event.approved, event.stale
        self._paint_chip()
        if event.note:
            extra = MODE_NOTES.get(event.mode, "") if event.note in ("plan mode on", "plan mode off") else ""
            self.transcript.add_notice(f"⋮ {event.note}{extra}", kind="warning" if event.stale else "mode")

    def _turn_ended(self, event: ev.TurnEnded) -> None:
        t = self.transcript
        t.end_message()
        if event.reason == "cancelled":
            t.add_notice("Turn cancelled.", kind="warning")
        elif event.reason == "error":
            if not event.message or event.message != self._error_shown:  # said once, not twice
                t.add_notice(event.message or "The turn ended with an error.", kind="error")
        elif event.reason == "review" and event.message:
            t.add_notice(event.message, kind="info")
        self._error_shown = None

    # -- the prompt --------------------------------------------------------------------------
    @on(PromptSubmitted)
    def _submitted(self, message: PromptSubmitted) -> None:
        self.run_command(message.text)

    @on(CancelRequested)
    def _cancel_requested(self, _: CancelRequested) -> None:
        self.action_cancel_turn()

    def run_command(self, line: str) -> None:
        """Act on one submitted line (a prompt or a slash command)."""
        command = cmd.parse_command(line)
        t = self.transcript
        match command:
            case cmd.Empty():
                return
            case cmd.SendPrompt(text=text):
                self.send(text, original=line)
            case cmd.TogglePlan():
                self.action_toggle_plan()
            case cmd.PlanTask(task=task):
                if self.busy:
                    self._busy_refusal(line)
                    return
                if self.session.mode != "plan":
                    self.session.enter_plan_mode()
                    self.sync_from_session()
                self.send(task, original=line)
            case cmd.ReviewPlan(path=path, web=web):
                self.app.review_plan(path, web=web)  # type: ignore[attr-defined]
            case cmd.ListPlans():
                self.app.list_plans()  # type: ignore[attr-defined]
            case cmd.ListMcp():
                self.run_worker(self._list_mcp(), group="mcp-list", exclusive=True, exit_on_error=False)
            case cmd.ShowHelp():
                t.add_notice(HelpListing(), kind="info")
            case cmd.Quit():
                self.app.exit()
            case cmd.UnknownCommand(name=name):
                t.add_notice(HelpListing(sanitize_for_terminal(f"Unknown command /{name}.")), kind="warning")

    async def _list_mcp(self) -> None:
        from planview.tui.mcp_view import mcp_listing

        hub = getattr(self.session, "mcp", None)
        if hub is not None and hub.started:
            await hub.check()  # a server that died since its last call shows as stopped, not ready
        if self.is_attached:
            self.transcript.add_notice(mcp_listing(self.session))

    def _busy_refusal(self, line: str) -> None:
        self.notify(
            "The agent is still working — wait for it, or press Esc to cancel the turn.", severity="warning"
        )
        if not self.prompt.text:
            self.prompt.load_text(line)

    def send(self, text: str, *, original: str | None = None) -> None:
        if self.busy:
            self._busy_refusal(original or text)
            return
        self.transcript.add_user(original or text)
        notice, self._resume_notice = self._resume_notice, None
        if notice:
            text = f"{notice}\n\n{text}"
        self.set_busy(True)
        self.run_worker(self._turn(text), group="turn", exclusive=True, exit_on_error=False)

    async def _turn(self, text: str) -> None:
        try:
            await self.session.send(text)
        except PlanviewError as exc:
            self._report(str(exc))
        except Exception as exc:  # the UI must outlive a bug in a provider or tool
            self._report(f"{type(exc).__name__}: {exc}")
        finally:
            if self.is_attached:  # not when the app is quitting mid-turn
                self.transcript.end_message()
                self.set_busy(False)

    def _report(self, message: str) -> None:
        if self.is_attached:
            self.transcript.add_notice(message, kind="error")

    def set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.query_one(BusyIndicator).set_busy(busy)

    # -- actions -----------------------------------------------------------------------------
    def action_toggle_plan(self) -> None:
        self.session.toggle_plan_mode()  # its ModeChanged event adds the transcript note
        self.sync_from_session()

    def on_resize(self) -> None:
        self.todos.fit(self.size.width)
        # Below 60 columns the palette's key wrapped into the other hints ("^p palet te"); it is
        # still on Ctrl+P, and /help lists it.
        footer = self.query_one(Footer)
        footer.show_command_palette = self.size.width >= 60
        footer.compact = self.size.width < 50  # less space between the hints
        # Narrower than its two hints, the footer would cut "^o expand" mid-word: it goes (the keys
        # still work and /help lists them).
        footer.display = self.size.width >= FOOTER_MIN_WIDTH
        room = self.size.width - 2  # the prompt's padding
        self.prompt.placeholder = next((p for p in PLACEHOLDERS if len(p) <= room), PLACEHOLDERS[-1])

    def action_toggle_todos(self) -> None:
        if not self.todos.toggle_open():
            self.notify(
                "The todo list is already on screen" if self.todos.todos else "No todos yet", timeout=2
            )

    def action_expand_tools(self) -> None:
        expanded = self.transcript.toggle_expanded()
        self.notify("Tool results expanded" if expanded else "Tool results collapsed", timeout=1.5)

    def action_page_transcript(self, pages: int) -> None:
        if pages < 0:
            self.transcript.scroll_page_up(animate=False)
        else:
            self.transcript.scroll_page_down(animate=False)

    def action_cancel_turn(self) -> None:
        if self.busy:
            self.session.cancel()
            self.query_one(BusyIndicator).set_busy(True, "cancelling")
