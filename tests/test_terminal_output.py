"""Everything planview prints goes through one helper (textsafe.say), and hostile text cannot drive the terminal.

Issue 25.6: `planview approve` printed the approver and channel raw, so a forged ledger event (the
chain has no key) sent a clipboard write (OSC 52), a screen clear and a hyperlink (OSC 8) to the
terminal. The wrappers were tested; the places that print were not. The first test finds every such
place by walking planview's syntax trees; the others feed hostile text through the commands.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

PLANVIEW = Path(__file__).resolve().parent.parent / "planview"
HELPER = PLANVIEW / "textsafe.py"
NOT_PLANVIEW_OUTPUT = {
    PLANVIEW
    / "demo"
    / "project"
    / "greet.py",  # the demo's sample program for the agent, not planview's output
    # `planview sandbox exec`'s lean entry point (os.write before any import): it prints only its own
    # words, the command's name with control characters escaped by its own `_say`
    # (tests/sandbox/test_sandbox_exec.py), and its JSON report (json.dumps escapes controls).
    PLANVIEW / "sandbox" / "exec.py",
}
STREAMS = {"stdout", "stderr", "__stdout__", "__stderr__"}

HOSTILE = "Mallory\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"


def _is_stream(node: ast.AST) -> bool:
    """sys.stdout / sys.stderr (and their .buffer)."""
    if isinstance(node, ast.Attribute) and node.attr == "buffer":
        node = node.value
    return (
        isinstance(node, ast.Attribute)
        and node.attr in STREAMS
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


def _printing_places() -> list[str]:
    found = []
    for path in sorted(PLANVIEW.rglob("*.py")):
        if path == HELPER or path in NOT_PLANVIEW_OUTPUT:
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            where = f"{path.relative_to(PLANVIEW.parent)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Name) and node.id == "print":
                found.append(f"{where} print")  # a call, or print handed on as a callback
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                func = node.func
                if func.attr in ("write", "writelines") and _is_stream(func.value):
                    if "# textsafe: protocol" not in lines[node.lineno - 1]:
                        found.append(f"{where} sys.{ast.unparse(func.value)[4:]}.{func.attr}")
                elif (
                    func.attr == "write"
                    and isinstance(func.value, ast.Name)
                    and func.value.id == "os"
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value in (1, 2)
                ):
                    found.append(f"{where} os.write to fd {node.args[0].value}")
    return found


def test_nothing_prints_except_through_say() -> None:
    """A new print (or sys.stdout.write) anywhere in planview/ fails here: use planview.textsafe.say.
    A protocol channel that is not text for a terminal (the Claude hook's JSON answer) says so on its
    line with `# textsafe: protocol`."""
    assert _printing_places() == []


def test_the_walk_finds_a_print(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself: a module with a print and a sys.stderr.write is reported."""
    fake = tmp_path / "planview"
    (fake / "commands").mkdir(parents=True)
    (fake / "textsafe.py").write_text("")
    (fake / "commands" / "x.py").write_text("import sys\nprint(1)\nsys.stderr.write('x')\nf = print\n")
    monkeypatch.setattr(sys.modules[__name__], "PLANVIEW", fake)
    monkeypatch.setattr(sys.modules[__name__], "HELPER", fake / "textsafe.py")
    assert len(_printing_places()) == 3


def _clean(text: str) -> bool:
    return "\x1b" not in text and "\x07" not in text and "52;c" not in text and "evil.example" not in text


def _planview(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planview", *args],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PLANVIEW_APPROVER": "Ada"},
    )


def test_a_forged_ledger_events_approver_and_channel_cannot_drive_the_terminal(project: Path) -> None:
    """The chain has no key: whoever can write the ledger can put any approver and channel in it."""
    from planview.approval.approvals import Approvals
    from planview.plan.store import PlanStore

    plan = PlanStore.for_cwd().write("Ship", "# Ship\n\n## Goal\n\nShip it.\n\n## Steps\n\n- [ ] one\n").path
    approvals = Approvals(project / ".planview", project)
    approvals.approve(plan, "Mallory", channel="terminal")
    (event,) = approvals.ledger.events()  # the same event again, with the forger's approver and channel
    forged = {k: v for k, v in event.items() if k not in ("seq", "prev", "at")}
    approvals.ledger.append({**forged, "approver": HOSTILE, "channel": "terminal " + HOSTILE})
    for args in (["approve", str(plan)], ["status", str(plan)], ["audit"], ["plans"]):
        done = _planview(project, *args)
        assert _clean(done.stdout) and _clean(done.stderr), (args, done.stdout, done.stderr)
    shown = _planview(project, "approve", str(plan))
    assert "approver:Mallory" in shown.stdout  # the text is still there, only the control sequences went


@pytest.mark.parametrize(
    "args",
    [
        ["plans"],
        ["plans", "--json"],
        ["steps", "{plan}"],
        ["steps", "{plan}", "--json"],
        ["status", "{plan}"],
    ],
)
def test_non_ascii_plans_under_a_c_locale_do_not_crash(project: Path, args: list[str]) -> None:
    """Issue 25.9: with PYTHONUTF8=0 and LC_ALL=C (PYTHONIOENCODING unset) stdout is ASCII; these
    commands died with UnicodeEncodeError on a plan named in another script. --json stays valid JSON."""
    import json

    from planview.plan.store import PlanStore

    plan = PlanStore.for_cwd().write("Café déjà vu", "# Café déjà vu 🚀\n\n## Steps\n\n- [ ] één\n").path
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONIOENCODING", "LANG", "LC_ALL", "LC_CTYPE")}
    env.update({"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0"})
    done = subprocess.run(
        [sys.executable, "-m", "planview", *(a.replace("{plan}", str(plan)) for a in args)],
        cwd=project,
        capture_output=True,
        timeout=120,
        env=env,
    )
    assert b"Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr.decode(
        "ascii", "replace"
    )
    done.stdout.decode("ascii")  # nothing the terminal cannot show
    if "--json" in args:
        data = json.loads(done.stdout)
        text = json.dumps(data, ensure_ascii=False)
        assert ("Café déjà vu" in text) if args[0] == "plans" else ("één" in text)
