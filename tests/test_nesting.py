"""Nesting depth measured before parsing: brackets inside strings and comments do not count."""

from __future__ import annotations

import json
import tomllib

import pytest

from planview.nesting import MAX_DEPTH, too_deep_json, too_deep_toml


def test_json_depth() -> None:
    assert not too_deep_json('{"a": [1, {"b": [2]}]}')
    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert too_deep_json(deep) and too_deep_json(deep.encode())
    assert not too_deep_json("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    in_string = json.dumps({"text": "[" * 10_000})
    assert not too_deep_json(in_string)  # brackets inside a string are text
    escaped = json.dumps({"text": '\\"' + "[" * 10_000})
    assert not too_deep_json(escaped)
    with pytest.raises(RecursionError):
        json.loads("[" * 100_000 + "]" * 100_000)  # what the check is there to prevent


def test_toml_depth() -> None:
    text = '[table]\nkey = "[[[[["\nlit = \'{{{{\'\n# [[[[[[[[\nml = """\n[[[[\n"""\narr = [[1], [2]]\n'
    assert tomllib.loads(text)["table"]["arr"] == [[1], [2]]
    assert not too_deep_toml(text * 40)
    assert too_deep_toml("a = " + "[" * 200 + "]" * 200)
    assert too_deep_toml("a = " + "{b = " * 100 + "1" + "}" * 100)
