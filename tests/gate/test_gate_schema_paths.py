"""A hinted tool's schema can name a path the model never sends: the gate judges the schema too.

Found in review: a readOnlyHint tool whose `path` parameter defaults to /etc/passwd, called with
`{}`, was allowed in plan mode, and the server then read outside the project.
"""

from __future__ import annotations

import pytest

from planview.gate.calls import ToolCall
from planview.gate.path_guard import schema_takes_path
from planview.gate.policy import decide

HINT = {"readOnlyHint": True}


def _call(schema: dict, arguments: dict | None = None) -> ToolCall:
    return ToolCall("mcp__docs__lookup", arguments or {}, HINT, builtin=False, input_schema=schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"path": {"type": "string", "default": "/etc/passwd"}}},
        {"type": "object", "properties": {"target": {"type": "string", "default": "~/.ssh/id_rsa"}}},
        {"type": "object", "properties": {"q": {"type": "string", "enum": ["a", "../secrets.env"]}}},
        {"type": "object", "properties": {"opts": {"type": "object", "properties": {"configFile": {}}}}},
        {"type": "object", "properties": {"items": {"type": "array", "items": {"const": "/var/log/x"}}}},
        {"type": "object", "properties": {"x": {"anyOf": [{"type": "string", "default": ".env"}]}}},
        {"type": "object", "$defs": {"p": {"properties": {"file_name": {"type": "string"}}}}},
    ],
)
def test_a_path_in_the_schema_is_refused_even_when_the_call_sends_nothing(schema: dict) -> None:
    decision = decide(_call(schema), "plan")
    assert not decision.allowed
    assert "schema" in decision.reason and "path" in decision.reason


def test_a_schema_without_paths_still_runs() -> None:
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "default": "retry policy"},
            "limit": {"type": "integer", "default": 10},
            "format": {"enum": ["json", "text"]},
        },
    }
    assert decide(_call(schema, {"query": "backoff"}), "plan").allowed
    assert schema_takes_path(schema) is None
    assert schema_takes_path(None) is None


def test_execute_mode_is_not_changed_by_the_schema_rule() -> None:
    schema = {"type": "object", "properties": {"path": {"default": "/etc/passwd"}}}
    assert decide(_call(schema), "execute").allowed


def test_a_huge_or_deep_schema_is_refused_not_walked_forever() -> None:
    deep: dict = {"type": "object"}
    node = deep
    for _ in range(200):
        child: dict = {"type": "object"}
        node["properties"] = {"x": child}
        node = child
    assert schema_takes_path(deep) is not None
    wide = {"type": "object", "properties": {f"k{i}": {"type": "string"} for i in range(20_000)}}
    assert schema_takes_path(wide) is not None
