"""Layering: the pure layers never import textual, not even indirectly.

Each check runs in a fresh interpreter, imports every module of the packages (whichever exist)
with importlib, and reports the first module after whose import "textual" appeared in
sys.modules.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

PROBE = r"""
import importlib, json, pkgutil, sys, traceback
packages = sys.argv[1:]
imported, errors, culprit = [], {}, None
for name in packages:
    try:
        package = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            continue  # this package does not exist (yet)
        errors[name] = traceback.format_exc(limit=3)
        continue
    except Exception:
        errors[name] = traceback.format_exc(limit=3)
        continue
    names = [name]
    if hasattr(package, "__path__"):
        names += sorted(m.name for m in pkgutil.walk_packages(package.__path__, name + "."))
    for module in names:
        try:
            importlib.import_module(module)
        except Exception:
            errors[module] = traceback.format_exc(limit=3)
            continue
        imported.append(module)
        if culprit is None and "textual" in sys.modules:
            culprit = module
print(json.dumps({"imported": imported, "errors": errors, "culprit": culprit,
                  "textual": "textual" in sys.modules}))
"""


def probe(*packages: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *packages],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "package",
    [
        "planview.plan",
        "planview.gate",
        "planview.approval",
        "planview.session",
        "planview.claude",
        "planview.web",
        "planview.agents",
    ],
)
def test_pure_layer_never_imports_textual(package):
    report = probe(package)
    assert not report["errors"], f"modules failed to import: {report['errors']}"
    assert not report["textual"], f"{report['culprit']} imports textual (only planview.tui may)"


def test_plan_package_imports_all_its_modules():
    report = probe("planview.plan")
    expected = {
        "planview.plan",
        "planview.plan.document",
        "planview.plan.steps",
        "planview.plan.diff",
        "planview.plan.feedback",
        "planview.plan.canonical",
        "planview.plan.decision",
        "planview.plan.markup",
    }
    assert expected <= set(report["imported"])


def test_all_pure_layers_together_stay_textual_free():
    report = probe(
        "planview.errors", "planview.plan", "planview.gate", "planview.approval", "planview.session"
    )
    assert not report["textual"], f"{report['culprit']} imports textual"


def test_plan_package_reexports_lazily():
    code = (
        "import sys, planview.plan as p\n"
        "assert 'markdown_it' not in sys.modules, 'importing planview.plan loaded markdown-it'\n"
        "missing = [name for name in p.__all__ if getattr(p, name, None) is None]\n"
        "assert not missing, missing\n"
        "print('ok')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr
