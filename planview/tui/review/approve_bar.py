"""The `a` confirmation line: how much of the plan was shown, and an optional note for the approval.

The note goes into the ledger event (`note`) through the one approval flow and to the agent with the
approval. Enter approves (with or without a note); Esc goes back to the plan with nothing approved.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual import events
from textual.message import Message
from textual.widgets import Input

NOTE_LIMIT = 500  # characters: a note is a sentence or two for the record, not a second plan


def seen_sentence(seen: int, total: int, unseen: Sequence[str]) -> str:
    """ "You have seen 5 of 8 sections (not yet: Risks, Verification, …)." """
    if total <= 0:
        return ""
    noun = "section" if total == 1 else "sections"
    if seen >= total:
        return f"You have seen all {total} {noun}."
    names = ", ".join(unseen[:3]) + (", …" if len(unseen) > 3 else "")
    return f"You have seen {seen} of {total} {noun}" + (f" (not yet: {names})." if names else ".")


class ApproveNote(Input):
    """The note; Enter posts `Input.Submitted` (approve), Esc posts `Back`."""

    class Back(Message):
        """Esc: nothing approved, back to the plan."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(
            placeholder="optional note for the approval (Enter approves, Esc goes back)",
            id=id,
            compact=True,
            max_length=NOTE_LIMIT,
        )

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            event.stop()
            event.prevent_default()
            self.post_message(self.Back())
            return
        await super()._on_key(event)
