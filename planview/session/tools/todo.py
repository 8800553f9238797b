"""todo: the session's todo list — read it, replace it, add to it, or update one item."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from planview.session import todos as todolist
from planview.session.events import Todo
from planview.session.tools.base import ToolContext, ToolDef, ToolError, ToolResult, schema

_ITEM = {
    "type": "object",
    "properties": {
        "text": {"type": "string"},
        "status": {"type": "string", "enum": list(todolist.STATUSES)},
    },
    "required": ["text"],
}


def _item(value: Any, where: str) -> Todo:
    if isinstance(value, str):
        value = {"text": value}
    if not isinstance(value, Mapping) or not isinstance(value.get("text"), str) or not value["text"].strip():
        raise ToolError(f"{where}: each item needs a non-empty `text`")
    status = value.get("status", "pending")
    if status not in todolist.STATUSES:
        raise ToolError(f"{where}: status must be one of {', '.join(todolist.STATUSES)}")
    return Todo(value["text"].strip(), status)


def _find(todos: tuple[Todo, ...], args: Mapping[str, Any]) -> int:
    index = args.get("index")
    if index is not None:
        if not isinstance(index, int) or isinstance(index, bool) or not 1 <= index <= len(todos):
            raise ToolError(f"`index` must be 1..{len(todos)} (the list has {len(todos)} items)")
        return index - 1
    match = args.get("match")
    if isinstance(match, str) and match.strip():
        for i, todo in enumerate(todos):
            if todolist.same_text(todo.text, match):
                return i
        raise ToolError(f"no item reads {match!r}; call todo with action=read to see the list")
    raise ToolError("update needs `index` (1-based) or `match` (the item's text)")


async def todo(ctx: ToolContext, args: Mapping[str, Any]) -> ToolResult:
    session = ctx.host
    action = args.get("action", "read")
    todos, deferred = session.todos, session.deferred_steps
    if action == "read":
        return ToolResult(todolist.render(todos, deferred))
    if action == "replace":
        items = args.get("items")
        if not isinstance(items, list):
            raise ToolError("replace needs `items`: the whole new list")
        new = [_item(v, f"item {i}") for i, v in enumerate(items, 1)]
        kept = tuple(new[: todolist.TODO_CAP])
        over = tuple(t.text for t in new[todolist.TODO_CAP :])
        session.set_todos(kept, over + deferred)
        note = (
            f"\n{len(over)} item(s) past the {todolist.TODO_CAP}-item cap were deferred, not dropped."
            if over
            else ""
        )
        return ToolResult(todolist.render(session.todos, session.deferred_steps) + note)
    if action == "add":
        items = args.get("items")
        if not isinstance(items, list) or not items:
            raise ToolError("add needs `items`: one or more new items")
        new = [_item(v, f"item {i}") for i, v in enumerate(items, 1)]
        merged = todolist.merge_items(todos, new)
        session.set_todos(merged.todos, deferred + merged.deferred)
        notes = []
        if merged.skipped:
            notes.append(f"already listed: {'; '.join(merged.skipped)}")
        if merged.deferred:
            notes.append(f"{len(merged.deferred)} deferred by the {todolist.TODO_CAP}-item cap")
        tail = ("\n" + "\n".join(notes)) if notes else ""
        return ToolResult(todolist.render(session.todos, session.deferred_steps) + tail)
    if action == "update":
        i = _find(todos, args)
        current = todos[i]
        status = args.get("status", current.status)
        if status not in todolist.STATUSES:
            raise ToolError(f"status must be one of {', '.join(todolist.STATUSES)}")
        text = args.get("text") or current.text
        updated = list(todos)
        updated[i] = Todo(str(text).strip(), status)
        session.set_todos(tuple(updated), deferred)
        return ToolResult(todolist.render(session.todos, session.deferred_steps))
    raise ToolError("`action` must be read, replace, add or update")


TOOLS = (
    ToolDef(
        "todo",
        "Track the work as a todo list. action=read shows it; replace sets the whole list (items: "
        "[{text, status}]); add appends items not already listed; update changes one item (index 1-based "
        "or match = its text) to a new status and/or text. Statuses: pending, in_progress, completed. "
        f"At most {todolist.TODO_CAP} items; extra items are deferred, never dropped.",
        schema(
            {
                "action": {"type": "string", "enum": ["read", "replace", "add", "update"]},
                "items": {"type": "array", "items": _ITEM},
                "index": {"type": "integer", "description": "1-based item number (update)"},
                "match": {"type": "string", "description": "the item's text (update)"},
                "status": {"type": "string", "enum": list(todolist.STATUSES)},
                "text": {"type": "string", "description": "new text for the item (update)"},
            },
            ("action",),
        ),
        todo,
        lambda a: f"todo {a.get('action', 'read')}",
    ),
)
