"""Show a resumed session's conversation in the transcript (newest messages only)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from planview.tui.widgets.transcript import Transcript

REPLAY_MESSAGES = 200


def replay_conversation(
    transcript: Transcript, conversation: Sequence[Mapping[str, Any]], limit: int = REPLAY_MESSAGES
) -> int:
    """Render the last `limit` messages: user prompts, assistant text, tool rows with their results.

    Hidden runtime messages (the plan-mode note, the evidence packet) carry a `kind` and are skipped.
    Returns the number of messages shown.
    """
    from planview.session.tools import headline

    shown = 0
    names: dict[str, str] = {}
    for message in list(conversation)[-limit:]:
        if message.get("kind"):
            continue
        role, content = message.get("role"), message.get("content")
        if role == "user" and isinstance(content, str):
            transcript.add_user(content)
        elif role == "assistant":
            if isinstance(content, str) and content.strip():
                transcript.append_text(content)
                transcript.end_message()
            for call in message.get("tool_calls") or ():
                call_id, name = str(call.get("id", "")), str(call.get("name", ""))
                names[call_id] = name
                transcript.tool_started(call_id, name, headline(name, call.get("arguments") or {}))
        elif role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            transcript.tool_finished(
                call_id,
                names.get(call_id, str(message.get("name", ""))),
                str(content or ""),
                refused=False,
                reason=None,
                error=False,
            )
        else:
            continue
        shown += 1
    return shown
