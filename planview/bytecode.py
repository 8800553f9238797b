"""Whether this planview starts from cached bytecode, for `planview doctor`.

An editable install runs planview from its source tree. Where bytecode writing is off
(`PYTHONDONTWRITEBYTECODE=1`, `python -B`; many container images and these development machines set
it) no `__pycache__` is ever written there, so every process compiles planview from source again:
about 30 ms on each `planview claude hook`, which Claude Code runs before every tool call
(benchmarks/README.md). `python -m compileall` writes the cache once (it writes whatever the flag
says), and later processes read it even with writing off.
"""

from __future__ import annotations

import os
import sys
from collections import namedtuple
from pathlib import Path

__all__ = ["BytecodeReport", "bytecode_report"]


class BytecodeReport(namedtuple("BytecodeReport", "editable writing_off cached modules source fix")):
    """How planview's own modules load in this interpreter, and the one-line fix when they compile."""

    __slots__ = ()
    editable: bool  # installed with `pip install -e` (runs from its source tree)
    writing_off: bool  # sys.dont_write_bytecode (PYTHONDONTWRITEBYTECODE or -B)
    cached: int  # planview modules with a bytecode cache file for this interpreter
    modules: int  # planview modules
    source: Path  # the package folder
    fix: str | None  # the command that writes the cache, when every start compiles


def _editable() -> bool:
    import json
    from importlib import metadata

    try:
        raw = metadata.distribution("planview").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return True  # run from a checkout without installing: the same as editable here
    try:
        info = json.loads(raw) if raw else {}
    except ValueError:
        return False
    return bool(
        isinstance(info, dict) and isinstance(info.get("dir_info"), dict) and info["dir_info"].get("editable")
    )


def bytecode_report() -> BytecodeReport:
    """Count planview's cached modules; name the fix when an editable install compiles every start."""
    import importlib.util
    import shlex

    source = Path(__file__).resolve().parent
    sample = source / "demo" / "project"  # the demo's sample project is data, never imported
    files = [p for p in source.rglob("*.py") if sample not in p.parents]
    cached = sum(1 for p in files if os.path.exists(importlib.util.cache_from_source(str(p))))
    editable, writing_off = _editable(), bool(sys.dont_write_bytecode)
    fix = None
    if editable and writing_off and cached < len(files):
        fix = shlex.join([sys.executable, "-m", "compileall", "-q", str(source)])
    return BytecodeReport(editable, writing_off, cached, len(files), source, fix)
