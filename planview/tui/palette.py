"""Command palette entries (Ctrl+P): the same plan actions as the slash commands and keys."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

# (title, help, name of the PlanviewApp method it calls)
ACTIONS = (
    (
        "Toggle plan mode",
        "Plan mode: the agent may only read (also /plan, Ctrl+Alt+P)",
        "palette_toggle_plan",
    ),
    (
        "Review plan",
        "Open the session's plan, or the newest plan, on the review screen (/plan review)",
        "palette_review_plan",
    ),
    ("List plans", "Show the plans of this project in the transcript (/plans)", "palette_list_plans"),
)


class PlanCommands(Provider):
    """Plan-mode actions; only offered while a session is running."""

    def _commands(self):
        app = self.app
        if getattr(app, "session_screen", None) is None:
            return
        for title, help_text, method in ACTIONS:
            yield title, help_text, partial(getattr(app, method))

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
