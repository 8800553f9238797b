"""The Claude hook's hot paths import only what they use and compile nothing at import (issue 28).

Claude Code starts `planview claude hook` as a fresh process before every tool call, so what its
modules do at import is paid on every call. Each case runs the real hook in a subprocess with a
probe that records every module loaded and every regular expression compiled while a planview
module's body was running (the innermost `<module>` frame is planview's), then answers the event.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from planview.approval.approvals import Approvals
from planview.claude.state import ClaudeState, Pin, SessionState
from planview.fileguard import stat_stamp
from planview.plan.canonical import canonical_parts
from planview.plan.store import PlanStore

REPO = Path(__file__).resolve().parents[2]
PROBE = r"""
import io, json, re, sys
compiled = []
_compile = re._compile

def spy(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_name != "<module>":
        frame = frame.f_back  # the innermost module body running: the one being imported
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    if name.startswith("planview"):
        compiled.append(f"{name}: {str(pattern)[:60]!r}")
    return _compile(pattern, flags)

re._compile = spy
sys.stdin = io.TextIOWrapper(io.BytesIO(open(sys.argv[1], "rb").read()))
out = io.StringIO()
real_stdout, sys.stdout = sys.stdout, out
from planview.cli import main
try:
    code = main(["claude", "hook", "--timeout", "600"])
finally:
    sys.stdout = real_stdout
print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules), "compiled": compiled}))
"""
# Never on a hot path: dataclasses (and inspect, ast, dis, tokenize it loads) and typing cost
# ~10 ms of a ~40 ms hook; markdown_it is the canonical hash's full parse; shutil loads bz2/lzma.
NEVER = ("dataclasses", "inspect", "typing", "markdown_it", "shutil", "tomllib", "uuid", "asyncio")
PLAN = "# Plan\n\n## Goal\n\nGreet.\n\n## Steps\n\n- [ ] one\n- [ ] two\n\n```\n- [ ] code, not a step\n```\n"


def _event(root: Path, tool: str, tool_input: dict[str, Any], mode: str, session: str) -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": str(root),
        "permission_mode": mode,
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_1",
    }


@pytest.fixture
def pinned(project: Path) -> Path:
    """An approved plan and a Claude session `pinned` executing under it."""
    home = project / ".planview"
    written = PlanStore(home, project_root=project).write("Plan", PLAN)
    record = Approvals(home, project_root=project).approve(written.path, "Ada", channel="Claude Code")
    parts = canonical_parts(PLAN)  # as the hook pins an approval it recorded
    pin = Pin(
        record.seq,
        parts.sha256,
        str(written.path),
        stat_stamp(written.path),
        parts.skeleton,
        parts.code_ranges,
    )
    ClaudeState(home).save(
        "pinned", SessionState(mode="execute", plan=str(written.path), pin=pin, steps_offered=True)
    )
    return Path(written.path)


def _probe(project: Path, payload: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    event_file = tmp_path / "event.json"
    event_file.write_text(json.dumps(payload))
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(event_file)],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cases(root: Path) -> dict[str, dict[str, Any]]:
    readme = str(root / "README.md")
    return {
        "plan Read": _event(root, "Read", {"file_path": readme}, "plan", "s1"),
        "plan Grep": _event(root, "Grep", {"pattern": "x", "path": str(root)}, "plan", "s1"),
        "plan Glob": _event(root, "Glob", {"pattern": "*.md"}, "plan", "s1"),
        "plan LS": _event(root, "LS", {"path": str(root)}, "plan", "s1"),
        "plan Bash": _event(root, "Bash", {"command": "git status"}, "plan", "s1"),
        "pinned Write": _event(
            root, "Write", {"file_path": str(root / "x"), "content": "x"}, "acceptEdits", "pinned"
        ),
        "unpinned Read": _event(root, "Read", {"file_path": readme}, "acceptEdits", "pinned"),
    }


@pytest.mark.parametrize(
    "case", ["plan Read", "plan Grep", "plan Glob", "plan LS", "plan Bash", "pinned Write", "unpinned Read"]
)
def test_a_hot_path_imports_only_what_it_uses(project: Path, pinned: Path, tmp_path: Path, case: str) -> None:
    report = _probe(project, _cases(project)[case], tmp_path)
    assert report["code"] == 0
    if case.startswith("plan"):
        assert '"allow"' in report["out"], report["out"]
    else:
        assert '"deny"' not in report["out"], report["out"]
    loaded = set(report["modules"])
    assert not loaded & set(NEVER), f"{case} imports {sorted(loaded & set(NEVER))}"
    assert report["compiled"] == [], f"{case} compiles at import: {report['compiled']}"
    if case != "plan Bash":  # only Bash asks git for the repository's filter drivers
        assert "subprocess" not in loaded
    if not case.startswith("plan"):  # execute mode never loads the gate
        assert not {m for m in loaded if m.startswith("planview.gate")}


def test_a_ticked_plan_is_re_hashed_without_markdown_it(project: Path, pinned: Path, tmp_path: Path) -> None:
    """A checkbox tick moves the plan's stat: the hook re-hashes, exactly, without the Markdown parser."""
    pinned.write_text(PLAN.replace("- [ ] one", "- [x] one"))
    report = _probe(project, _cases(project)["pinned Write"], tmp_path)
    assert report["code"] == 0 and '"deny"' not in report["out"], report["out"]
    assert "markdown_it" not in report["modules"]
    assert report["compiled"] == []
    # ...and the state now holds the new stat, so the next call does not hash at all.
    state = ClaudeState(project / ".planview").session("pinned")
    assert state.pin is not None and tuple(state.pin.stat) == stat_stamp(pinned)


def test_a_ticked_box_inside_code_still_revokes(project: Path, pinned: Path, tmp_path: Path) -> None:
    """The fast path must not read a box in a code block as a step: that text is pinned verbatim."""
    pinned.write_text(PLAN.replace("- [ ] code, not a step", "- [x] code, not a step"))
    report = _probe(project, _cases(project)["pinned Write"], tmp_path)
    assert '"deny"' in report["out"] and "changed after approval" in report["out"], report["out"]
