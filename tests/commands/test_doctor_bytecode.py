"""`planview doctor` says once when an editable planview compiles itself on every start (issue 28).

Each case is a real `planview doctor --json` process with its bytecode cache redirected to an empty
folder (PYTHONPYCACHEPREFIX), so the repository's own __pycache__ is neither read nor written.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _doctor(cache: Path, *, writing_off: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(cache), PYTHONPATH=str(REPO))
    if writing_off:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "planview", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["bytecode"]


def test_writing_off_names_the_fix_and_the_fix_runs_as_printed(tmp_path: Path) -> None:
    cache = tmp_path / "pycache"
    report = _doctor(cache, writing_off=True)
    assert report["editable"] and report["dont_write_bytecode"]
    assert report["cached_modules"] == 0 and report["modules"] > 100
    fix = report["fix"]
    assert fix is not None and "compileall" in fix
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(cache), "PYTHONDONTWRITEBYTECODE": "1"}
    subprocess.run(shlex.split(fix), env=env, check=True, capture_output=True, timeout=300)
    after = _doctor(cache, writing_off=True)
    assert after["fix"] is None and after["cached_modules"] == after["modules"]


def test_with_writing_on_there_is_nothing_to_fix(tmp_path: Path) -> None:
    report = _doctor(tmp_path / "pycache", writing_off=False)
    assert not report["dont_write_bytecode"] and report["fix"] is None


def test_the_text_report_says_it_once(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPYCACHEPREFIX": str(tmp_path / "c"),
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": str(REPO),
    }
    done = subprocess.run(
        [sys.executable, "-m", "planview", "doctor"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.stdout.count("compileall") == 1 and "bytecode writing is off" in done.stdout
