"""Repository slugs (`owner/name`) in hinted tools' arguments are not paths; paths still are.

Before: every value with a slash counted as a path, so a hinted GitHub tool's `{"repo": "octo/hello"}`
and a search for `repo:octo/hello is:open` were refused as if they named files. Now a value is a slug
when it stands under a key that names a repository (`repo`, `repository`, `full_name`, `model_id`, ...)
or follows GitHub's `repo:` qualifier, has exactly one slash between GitHub-shaped names (no `.`,
`..` or dotfile part), and names no file or folder from the project root, `/`, the home folder or the
current folder (so `etc/passwd`, `home/me` and a slug-shaped walk through a symlink such as
`ext/secret` stay paths). Anything else is judged as before.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from planview.gate.calls import GatePolicy, ToolCall
from planview.gate.path_guard import takes_path
from planview.gate.policy import decide

HINT = {"readOnlyHint": True}


def hinted(arguments: dict[str, object], root: Path | None = None) -> tuple[bool, str]:
    decision = decide(
        ToolCall(name="mcp__github__list_issues", input=arguments, annotations=HINT, builtin=False),
        "plan",
        GatePolicy(project_root=root),
    )
    return decision.allowed, decision.reason


@pytest.mark.parametrize(
    "arguments",
    [
        {"repo": "octo/hello"},
        {"repository": "pallets/flask", "state": "open"},
        {"full_name": "Textualize/textual"},
        {"fullName": "python/cpython"},
        {"nameWithOwner": "astral-sh/ruff"},
        {"repos": ["octo/hello", "octo/world"]},
        {"model_id": "meta-llama/Llama-3.1-8B"},
        {"query": "repo:octo/hello is:open label:bug"},
        {"q": "repo:python/cpython gate"},
        {"filter": {"repo": "octo/hello_world.js"}},
    ],
)
def test_slugs_are_not_paths(arguments: dict[str, object], tmp_path: Path) -> None:
    assert takes_path(arguments) is None, takes_path(arguments)
    assert hinted(arguments, tmp_path) == (True, "readOnlyHint, no path arguments")


@pytest.mark.parametrize(
    "arguments",
    [
        {"repo": "etc/passwd"},  # exists from /
        {"repo": "usr/bin"},
        {"repository": "proc/self"},
        {"repo": "../secret"},
        {"repo": "./hello"},
        {"repo": "octo/.ssh"},  # a dotfile part
        {"repo": "octo/.."},
        {"repo": ".config/x"},
        {"repo": "a/b/c"},  # more than one slash
        {"repo": "/octo/hello"},
        {"repo": "octo/hello/"},
        {"repo": "octo\\hello"},
        {"repo": "～/x"},
        {"repo": "octo／hello"},  # full-width slash: not the ASCII shape
        {"repo": "octo/hello\n/etc/passwd"},
        {"repo": "octo/hello /etc/passwd"},
        {"query": "repo:../x"},
        {"query": "repo:etc/passwd"},
        {"query": "repo:octo/hello /etc/passwd"},
        {"q": "octo/hello"},  # not under a repository key, no repo: qualifier: still a path
        {"title": "see src/app.py"},
        {"repo_path": "octo/hello"},  # a path key stays a path key
        {"repo": "octo/hello", "path": "README.md"},
    ],
)
def test_paths_that_look_like_slugs_stay_paths(arguments: dict[str, object], tmp_path: Path) -> None:
    assert takes_path(arguments, (tmp_path,)) is not None
    allowed, reason = hinted(arguments, tmp_path)
    assert not allowed and "takes a file path" in reason


def test_a_slug_that_names_something_in_the_project_is_a_path(tmp_path: Path) -> None:
    """`ext/secret` is slug-shaped, but from the project root it walks through a symlink to a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("token\n")
    root = tmp_path / "project"
    root.mkdir()
    (root / "ext").symlink_to(outside)
    (root / "src").mkdir()
    (root / "src" / "app").write_text("x\n")
    for value in ("ext/secret", "src/app"):
        allowed, reason = hinted({"repo": value}, root)
        assert not allowed and value in reason
        allowed, _ = hinted({"query": f"repo:{value}"}, root)
        assert not allowed
    assert hinted({"repo": "octo/hello"}, root)[0]


def test_a_slug_that_names_something_in_the_home_or_current_folder_is_a_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, here = tmp_path / "home", tmp_path / "here"
    (home / "Documents").mkdir(parents=True)
    (home / "Documents" / "taxes").write_text("x\n")
    (here / "build").mkdir(parents=True)
    (here / "build" / "out").write_text("x\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(here)
    assert takes_path({"repo": "Documents/taxes"}) is not None
    assert takes_path({"repo": "build/out"}) is not None
    assert takes_path({"repo": "octo/hello"}) is None


def test_gate_check_allows_a_hinted_tool_with_a_slug(tmp_path: Path) -> None:
    calls = [
        {"tool": "mcp__gh__get_repo", "annotations": HINT, "builtin": False, "input": {"repo": "octo/hello"}},
        {"tool": "mcp__gh__get_repo", "annotations": HINT, "builtin": False, "input": {"repo": "etc/passwd"}},
    ]
    done = subprocess.run(
        [sys.executable, "-m", "planview", "gate", "check", "--mode", "plan"],
        input="".join(json.dumps(c) + "\n" for c in calls),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    answers = [json.loads(line)["decision"] for line in done.stdout.splitlines()]
    assert answers == ["allow", "deny"], done.stdout + done.stderr
