"""PlanviewApp: the session app around one agent session.

The session is built by a factory injected through the constructor (Harlequin style), so
tests hand in a scripted session and the CLI hands in a configured one. The factory
receives the UI adapter (`TuiSessionUI`, answering review and confirmation requests) and
the event callback; events become Textual messages and are rendered by the session screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from planview.approval.channels import REVIEW_SCREEN
from planview.errors import PlanviewError
from planview.plan.decision import Approved, Keep, Refine, ReviewDecision
from planview.plan.store import PlanStore
from planview.session.events import Event
from planview.session.ui import ReviewRequest, SessionUI
from planview.session.view import SessionView
from planview.tui.confirm import ConfirmScreen
from planview.tui.messages import ConfirmRequested, ReviewRequested, SessionEventMessage
from planview.tui.palette import PlanCommands
from planview.tui.review.first_frame import after_first_frame
from planview.tui.session_screen import SessionScreen
from planview.tui.styles import stylesheet

EARLY_ENTER = "\x00"  # Enter among the keys typed before the prompt was up


def _keep_for_prompt(event: events.Key, early: list[str]) -> bool:
    """Keep a key typed before the prompt exists; False for keys that act on their own (Ctrl+C)."""
    # Before the terminal leaves cooked mode it turns Enter into a line feed, which arrives as ctrl+j.
    if event.key in ("enter", "ctrl+j"):
        early.append(EARLY_ENTER)
    elif event.key == "backspace":
        if early:
            early.pop()
    elif event.is_printable and event.character:
        early.append(event.character)
    else:
        return False
    return True


SessionFactory = Callable[[SessionUI, Callable[[Event], None]], SessionView]
"""(ui, on_event) -> the session (planview.session.builder builds the real one)"""


class TuiSessionUI:
    """The SessionUI the runtime awaits: each request becomes a message carrying a Future."""

    channel = REVIEW_SCREEN  # recorded on the ledger event of every approval made here

    def __init__(self, app: App) -> None:
        self.app = app

    async def review(self, request: ReviewRequest) -> ReviewDecision:
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.app.post_message(ReviewRequested(request, future))
        return await future

    async def confirm(self, title: str, message: str) -> bool:
        future: asyncio.Future = asyncio.get_running_loop().create_future()
        self.app.post_message(ConfirmRequested(title, message, future))
        return bool(await future)


class PlanviewApp(App):
    TITLE = "planview"
    # The session screen's sheet too: read with the app's, it is not parsed again (with every other
    # sheet) when the screen opens, which Textual does for a screen's own CSS_PATH.
    CSS_PATH = [stylesheet("app"), stylesheet("session")]
    COMMANDS = App.COMMANDS | {PlanCommands}
    BINDINGS = [Binding("ctrl+c", "interrupt", "quit", show=False, priority=True)]

    def __init__(
        self,
        session_factory: SessionFactory | None = None,
        *,
        project_root: Path | None = None,
        welcome: Sequence[RenderableType] = (),
        prompt_text: str = "",
        first_run: tuple[Path, Path | None] | None = None,
        theme: str | None = None,
        keymap: dict[str, str] | None = None,
        on_first_frame: Callable[[], object] | None = None,
    ) -> None:
        """`session_factory(ui, on_event)` builds the session; None shows the first-run screen
        (`first_run` = (user config path, project config path)). `on_first_frame` is called once
        the first frame is on the terminal."""
        super().__init__()
        self._on_first_frame = on_first_frame
        self.ui = TuiSessionUI(self)
        self.first_run = first_run
        self.welcome = tuple(welcome)
        self.prompt_text = prompt_text
        self._theme_name = theme
        self._keymap = dict(keymap or {})
        # Built here, before the terminal switches to the app, so a setup error is one line on stderr.
        self.session: SessionView | None = (
            session_factory(self.ui, self._on_session_event) if session_factory else None
        )
        root = project_root or (self.session.project_root if self.session is not None else None) or Path.cwd()
        self.project_root = Path(root)
        self.session_screen: SessionScreen | None = None
        # What is typed before the prompt can take it (the terminal delivers it as soon as the app
        # starts, before the session screen is up): kept, then put into the prompt.
        self._early_keys: list[str] | None = []

    def get_driver_class(self) -> Any:
        driver = super().get_driver_class()
        if driver.__name__ == "LinuxDriver":  # not on Windows or under a TEXTUAL_DRIVER override
            from planview.tui.chord_keys import ChordDriver

            return ChordDriver
        return driver

    # -- start -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        if self._on_first_frame is not None:
            after_first_frame(self.screen, self._on_first_frame)
        if self._theme_name and self._theme_name in self.available_themes:
            self.theme = self._theme_name
        elif self._theme_name:
            names = ", ".join(sorted(self.available_themes))
            self.notify(
                f"Unknown theme {self._theme_name!r} in the config; use one of: {names}",
                severity="warning",
                timeout=8,
            )
        if self._keymap:
            self.set_keymap(self._keymap)
        if self.session is None:
            from planview.tui.first_run import FirstRunScreen

            user, project = self.first_run or (Path("config.toml"), None)
            self.push_screen(FirstRunScreen(user, project))
            return
        # The MCP servers start beside the UI (a slow one never delays the first frame); a turn
        # sent before they are up waits for the same start.
        start = getattr(self.session, "start_servers", None)
        if callable(start):
            self.run_worker(start(), group="mcp", exit_on_error=False)

    def get_default_screen(self) -> Screen:
        # The session screen is the app's own first screen, not one pushed from on_mount: a pushed
        # screen is first laid out and drawn inside Textual's start-up batch, where that frame is
        # dropped and drawn again.
        if self.session is None:
            return super().get_default_screen()  # on_mount pushes the first-run screen over it
        if self.session_screen is None:
            self.session_screen = SessionScreen(
                self.session,
                project_root=self.project_root,
                welcome=self.welcome,
                prompt_text=self.prompt_text,
            )
        return self.session_screen

    async def on_event(self, event: events.Event) -> None:
        early = self._early_keys
        if early is not None and self.session is not None and isinstance(event, events.Key):
            if not event.is_forwarded and _keep_for_prompt(event, early):
                event.stop()
                return
        await super().on_event(event)

    def prompt_ready(self) -> None:
        """The session screen's prompt has focus: type what arrived before it (Enter sends)."""
        early, self._early_keys = self._early_keys or [], None
        screen = self.session_screen
        if not early or screen is None:
            return
        text = "".join(early)
        first, enter, rest = text.partition(EARLY_ENTER)
        prompt = screen.prompt
        prompt.move_cursor(prompt.document.end)
        prompt.insert(first)
        if enter:
            prompt.submit()
            prompt.insert(rest.replace(EARLY_ENTER, "\n"))

    def _on_session_event(self, event: Event) -> None:
        self.post_message(SessionEventMessage(event))

    def on_session_event_message(self, message: SessionEventMessage) -> None:
        screen = self.session_screen
        # Quitting mid-turn cancels the turn; its last events arrive after the screen is gone.
        if screen is not None and screen.is_attached and not self._exit:
            screen.apply_event(message.event)

    # -- requests from the runtime -----------------------------------------------------------
    def on_review_requested(self, message: ReviewRequested) -> None:
        future = message.future

        def resolve(decision: Any) -> None:
            if not future.done():
                future.set_result(decision if decision is not None else Keep())

        screen = self._open_review(Path(message.request.plan_path), resolve)
        if screen is not None:
            future.add_done_callback(lambda f: self._close_if_cancelled(f, screen))
        elif not future.done():
            future.set_result(Keep())

    def on_confirm_requested(self, message: ConfirmRequested) -> None:
        future = message.future

        def resolve(answer: bool | None) -> None:
            if not future.done():
                future.set_result(bool(answer))

        screen = ConfirmScreen(message.title, message.message)
        future.add_done_callback(lambda f: self._close_if_cancelled(f, screen))
        self.push_screen(screen, resolve)

    def _close_if_cancelled(self, future: asyncio.Future, screen: Any) -> None:
        # The turn was cancelled while the dialog was open: take the dialog away too.
        if future.cancelled() and screen.is_attached and screen in self.screen_stack:
            screen.dismiss(None)

    def _review_home(self) -> Path | None:
        return self.session.store.home if self.session is not None else None

    def _open_review(self, plan: Path, callback: Callable[[Any], None]) -> Any:
        from planview.tui.review.screen import ReviewScreen

        try:
            screen = ReviewScreen(plan, home=self._review_home())
        except PlanviewError as exc:
            self._notice(str(exc), "error")
            return None
        # No wrapper needed around the callback: the screen stops its own plan watcher before it
        # dismisses (ReviewScreen._decide), and Textual cancels a screen's workers when it unmounts.
        self.push_screen(screen, callback)
        return screen

    # -- user actions shared by slash commands and the palette -------------------------------
    def _notice(self, text: str | Text, kind: str = "info") -> None:
        if self.session_screen is not None:
            self.session_screen.transcript.add_notice(text, kind=kind)
        else:
            self.notify(str(text))

    def _store(self) -> PlanStore:
        if self.session is not None:
            return self.session.store
        return PlanStore.for_cwd(self.project_root)

    def review_plan(self, path: str | None = None, *, web: bool = False) -> None:
        """`/plan review [--web] [path]`: the given plan, else the session's plan, else the newest one."""
        if path is not None:
            from planview.plan.errors import PlanPathError
            from planview.plan.store import resolve_markdown_plan

            try:  # the command line's check: a bare file name means that plan in the plans folder
                plan = resolve_markdown_plan(path, self._store().plans_dir, cwd=self.project_root)
            except PlanPathError as exc:  # not Markdown (`/plan review /etc/passwd`): say so, open nothing
                self._notice(f"{exc}. /plans lists the plans of this project.", "error")
                return
            except PlanviewError:
                plan = None
            if plan is None or not plan.is_file():
                self._notice(f"No plan file at {path}. /plans lists the plans of this project.", "error")
                return
        else:
            plan = (self.session.plan_path if self.session is not None else None) or self._store().latest()
            if plan is None:
                self._notice("No plan yet. Ask for one with /plan <task>.", "warning")
                return
        if web:
            self.run_worker(self._review_in_browser(Path(plan)), group="web-review")
            return
        self._open_review(Path(plan), lambda decision: self._after_user_review(Path(plan), decision))

    async def _review_in_browser(self, plan: Path) -> None:
        """`/plan review --web`: a comment-only page; saved comments go to the model as a message."""
        from planview.web import launch
        from planview.web.decision import feedback_message
        from planview.web.review import start_review

        label = self.session_screen.plan_label(plan) if self.session_screen is not None else str(plan)
        try:
            server = await start_review(plan, approve=False, home=self._review_home(), to_model=True)
        except PlanviewError as exc:
            self._notice(f"Could not open the browser review: {exc}", "error")
            return
        try:
            self._notice(f"Browser review of {label} (comment-only) is open in the browser.")
            if not await asyncio.to_thread(launch.open_in_browser, server.launch_file()):
                self._notice(
                    f"No browser could be opened; open {server.link()} yourself (it works once).", "warning"
                )
            decision = await server.wait()
        finally:
            await server.stop()
        screen = self.session_screen
        if decision.outcome == "saved" and screen is not None:
            screen.send(f"Review feedback on the plan {label}:\n\n{feedback_message(decision.comments)}")
        else:
            self._notice(f"Browser review of {label} closed ({decision.reason}); nothing changed.")

    def _after_user_review(self, plan: Path, decision: ReviewDecision | None) -> None:
        screen = self.session_screen
        if screen is None:
            return
        label = screen.plan_label(plan)
        if isinstance(decision, Refine):
            screen.send(f"Review feedback on the plan {label}:\n\n{decision.text}")
        elif isinstance(decision, Approved):
            self._approve_from_review(plan, decision)
        elif isinstance(decision, Keep) or decision is None:
            self._notice(f"Review of {label} closed; nothing changed.")

    def _approve_from_review(self, plan: Path, decision: Approved) -> None:
        """Approve & run from `/plan review`: the one approval flow, then seed the steps and hand over."""
        from planview.plan.canonical import canonical_sha256
        from planview.plan.steps import extract_steps

        screen, session = self.session_screen, self.session
        assert screen is not None and session is not None
        label = screen.plan_label(plan)
        try:
            text = self._store().read(plan)
            if canonical_sha256(text) != decision.canonical_sha256:
                self._notice(
                    f"{label} changed while it was shown, so nothing was approved; review it again.",
                    "warning",
                )
                return
            if session.is_current_pin(plan):
                self._notice(f"{label} is already approved and unchanged; nothing new to carry out.")
                return
            session.approve_reviewed(plan, decision)  # sealed only if still what was shown
            session.seed_steps(extract_steps(text).steps)
        except (OSError, PlanviewError) as exc:
            self._notice(f"Could not approve {label}: {exc}", "error")
            return
        screen.sync_from_session()
        if screen.busy:
            self._notice(
                f"Approved {label}. The agent is still busy; tell it to carry out the plan when it stops."
            )
        else:
            note = f"\nThe reviewer's note with the approval: {decision.note}" if decision.note else ""
            screen.send(
                f"The plan {label} is approved. Carry it out step by step and tick each step with "
                f"set_plan_steps.{note}"
            )

    def list_plans(self) -> None:
        store = self._store()
        try:
            plans = store.list()
        except (OSError, PlanviewError) as exc:
            self._notice(f"Cannot list plans: {exc}", "error")
            return
        if not plans:
            self._notice("No plans yet. Ask for one with /plan <task>.")
            return
        screen = self.session_screen
        heading = f"Plans ({len(plans)}), newest first — /plan review <path> opens one"
        if screen is None:
            self.notify(heading)
            return
        self._pick_plan(plans, screen)

    def _pick_plan(self, plans: list[Any], screen: Any) -> None:
        """The list to pick from (↑/↓, Enter reviews, `a` approves what can be approved)."""
        from planview.approval.approvals import Approvals
        from planview.tui.plans_picker import PlansPicker

        store = self._store()
        approvals = Approvals(store.home, store.project_root)
        approvable = []
        for info in plans:
            try:
                ok = (
                    info.unreadable is None
                    and self.session is not None
                    and not approvals.is_current(info.path)
                )
            except (OSError, PlanviewError):
                ok = False
            approvable.append(ok)
        labels = [screen.plan_label(info.path) or info.path.name for info in plans]
        self.push_screen(PlansPicker(plans, labels, approvable), self._picked)

    def _picked(self, choice: tuple[str, Path] | None) -> None:
        if choice is None:
            return
        action, plan = choice
        if action == "review":
            self.review_plan(str(plan))
            return
        from planview.approval.channels import PLANS_LIST
        from planview.plan.canonical import canonical_sha256

        try:
            text = self._store().read(plan)
        except (OSError, PlanviewError) as exc:
            self._notice(f"Could not approve {plan.name}: {exc}", "error")
            return
        self._approve_from_review(plan, Approved(plan, canonical_sha256(text), channel=PLANS_LIST))

    def palette_toggle_plan(self) -> None:
        if self.session_screen is not None:
            self.session_screen.action_toggle_plan()

    def palette_review_plan(self) -> None:
        self.review_plan(None)

    def palette_list_plans(self) -> None:
        self.list_plans()

    # -- keys --------------------------------------------------------------------------------
    def action_interrupt(self) -> None:
        """Ctrl+C: copy a selection, else cancel the running turn, else clear the prompt, else quit."""
        screen = self.session_screen
        if screen is None or self.screen is not screen:
            self.exit()
            return
        prompt = screen.prompt
        if prompt.selected_text:
            self.copy_to_clipboard(prompt.selected_text)
        elif screen.busy:
            screen.action_cancel_turn()
        elif prompt.text:
            prompt.load_text("")
        else:
            self.exit()

    async def action_quit(self) -> None:
        if self.session_screen is not None and self.session_screen.busy and self.session is not None:
            self.session.cancel()
        self.exit()

    async def on_unmount(self) -> None:
        # The MCP servers this session started, and an ACP agent's process (planview.agents), stop with the app.
        close = getattr(self.session, "close", None)
        if close is not None:
            await close()
