"""`subagent`: delegate a task to a child session with its own conversation.

The child runs in the same project with the same provider (the scripted provider hands it the
script written for this call) and returns its final answer and the files it read. What it may
call is decided by its tool registry, not by its prompt:

- read-only (`readOnly: true`, forced by the gate in plan mode, and by this tool too whenever the
  parent plans): the child runs in plan mode with only read, grep, find and ls. Any other call is
  an unknown tool to it, and the gate would refuse it in plan mode anyway.
- otherwise (execute mode): read, grep, find, ls, bash, write and edit, pinned to the parent's
  approval exactly as the parent's own writes are, plus the parent's MCP servers.

A child never gets `subagent` itself (no unbounded nesting), nor the plan and todo tools, which
belong to the parent. Cancelling the parent's turn cancels the child's: the child's turn is
awaited inside this call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from planview.session.tools.base import ToolContext, ToolDef, ToolResult, schema, string_arg

if TYPE_CHECKING:
    from planview.session.events import Event

CHILD_MAX_REQUESTS = 60
MAX_FILES_LISTED = 20
READERS = ("read", "grep", "find", "ls")
WRITERS = (*READERS, "bash", "write", "edit")

CHILD_PROMPT = """\
You are a subagent of a coding agent working in the user's project through planview. You were \
given one task; do it with the tools you have and finish with a concise answer for the agent that \
asked (facts, file paths, line numbers). The working directory is the project root.{read_only}

When a call is refused, the result says why; follow it rather than retrying the same call."""
READ_ONLY_NOTE = (
    " You are read-only: you have read, grep, find and ls, and nothing else exists for you; "
    "report what should change instead of changing it."
)


@dataclass
class _Watch:
    """What the child did, gathered from its events: the files its reads returned."""

    reads: dict[str, str] = field(default_factory=dict)  # call id -> path
    files: list[str] = field(default_factory=list)
    ended: Any = None  # the child's TurnEnded

    def see(self, event: Event) -> None:
        from planview.session.events import ToolFinished, ToolStarted, TurnEnded

        if isinstance(event, TurnEnded):
            self.ended = event
        elif isinstance(event, ToolStarted) and event.name == "read":
            path = event.arguments.get("path")
            if isinstance(path, str):
                self.reads[event.call_id] = path
        elif isinstance(event, ToolFinished) and event.call_id in self.reads:
            path = self.reads.pop(event.call_id)
            if not (event.refused or event.error) and path not in self.files:
                self.files.append(path)


async def _run(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    parent = ctx.host
    # The gate forces readOnly in plan mode; the tool checks the parent's mode as well, so a
    # planning parent can never get a writing child whatever reached it.
    read_only = args.get("readOnly") is True or parent.mode == "plan"
    watch = _Watch()
    child = parent.spawn_child(
        ctx.call_id,
        read_only=read_only,
        plan_tools=READERS,
        execute_tools=READERS if read_only else WRITERS,
        system_prompt=CHILD_PROMPT.format(read_only=READ_ONLY_NOTE if read_only else ""),
        max_model_requests=CHILD_MAX_REQUESTS,
        watch=watch.see,
    )
    await child.send(str(args["task"]))  # CancelledError (the parent's cancel) propagates
    ended = watch.ended
    answer = child.final_answer().strip()
    files = watch.files
    listing = ", ".join(files[:MAX_FILES_LISTED]) + (
        f" and {len(files) - MAX_FILES_LISTED} more" if len(files) > MAX_FILES_LISTED else ""
    )
    kind = "read-only subagent" if read_only else "subagent"
    lines = [answer or f"(the {kind} gave no answer)"]
    lines.append(f"\nFiles read ({len(files)}): {listing}" if files else "\nFiles read: none")
    if not read_only and child.mode == "plan":  # the child's pin failed: the parent's approval is gone too
        why = parent.revoke_if_changed() or "the approved plan changed while the subagent worked"
        stale = child.mode_state.stale
        if stale:  # the child saw the change first and knows the sections
            why = (
                f"the approved plan changed while the subagent worked (changed sections: {', '.join(stale)})"
            )
        lines.append(
            f"\n{why[:1].upper()}{why[1:]}. The subagent's writes after that were refused, and the session "
            "is back in plan mode: review the change, then call exit_plan_mode to get the plan approved again."
        )
        return ToolResult("\n".join(lines), error=True)
    if ended is not None and ended.reason == "error":
        lines.insert(0, f"The {kind} stopped with an error: {ended.message}")
        return ToolResult("\n".join(lines), error=True)
    return ToolResult("\n".join(lines))


def _headline(args: Mapping[str, Any]) -> str:
    mark = " (read-only)" if args.get("readOnly") is True else ""
    return f"subagent{mark} {args.get('task', '')}"


TOOLS = (
    ToolDef(
        "subagent",
        "Delegate one self-contained task (exploring, searching, summarising code) to a subagent with "
        "its own conversation; it returns its final answer and the files it read. readOnly: true gives "
        "it only read, grep, find and ls (always so in plan mode).",
        schema(
            {
                "task": string_arg("what the subagent should do and what it should report back"),
                "readOnly": {
                    "type": "boolean",
                    "description": "true: the subagent can only read (read, grep, find, ls); forced in plan mode",
                },
            },
            ("task",),
        ),
        _run,
        _headline,
    ),
)
