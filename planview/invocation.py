"""How to run this planview again: the command word printed in hints, so they run as shown.

README installs planview into `.venv`, so a bare `planview` is often "command not found". A hint
says `planview` only when that name on PATH is the program running now; otherwise it names the
running program by its absolute path (hints are often run from another folder, e.g. after the
demo's `cd`), or `python -m planview` the way it was started.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

# Captured at import (the CLI imports this before any os.chdir): a relative argv[0] such as
# `.venv/bin/planview` only means something from the folder it was typed in.
_START_DIR = os.getcwd()


def planview_command(argv0: str | None = None, *, path: str | None = None, here: bool = False) -> str:
    """The shell words that run this planview (`planview`, `/abs/.venv/bin/planview`, `… -m planview`).

    `here`: the command is for the folder planview runs in (not after a `cd`), so a program below
    it may be named relative to it (`.venv/bin/planview`). `argv0` defaults to sys.argv[0]; `path`
    to $PATH (both seams for tests).
    """
    argv0 = sys.argv[0] if argv0 is None else argv0
    module = f"{shlex.quote(sys.executable)} -m planview"
    if not Path(argv0).name.lower().startswith("planview"):  # python -m planview, or embedded (tests)
        return module
    import shutil  # not at module level: `planview status` prints no hint when the plan is approved

    on_path = shutil.which("planview", path=path)
    if os.sep not in argv0 and not (os.altsep and os.altsep in argv0):  # typed as a bare name: PATH found it
        return "planview" if on_path else module
    program = Path(_START_DIR, argv0).absolute()
    if on_path and _same_file(Path(on_path), program):
        return "planview"
    if here and program.is_relative_to(Path.cwd()):
        rest = str(program.relative_to(Path.cwd()))
        if shlex.quote(rest) == rest:
            return rest if os.sep in rest else f".{os.sep}{rest}"
    try:  # ~/… is shorter and the shell expands it, as long as nothing after it needs quoting
        rest = str(program.relative_to(Path.home()))
        if shlex.quote(rest) == rest:
            return f"~{os.sep}{rest}"
    except ValueError:
        pass
    return shlex.quote(str(program))


def spelled_as_run(message: str, command: str | None = None) -> str:
    """`message` with each quoted `` `planview …` `` command spelled the way this planview runs.

    A typed error's message names its fix as `planview audit --repair`, wherever it was raised (the
    ledger, the plan store): the CLI prints it through here, so the hint runs as shown from a venv
    that is not on PATH. `command` defaults to `planview_command()` (a seam for tests).
    """
    if "`planview" not in message:
        return message
    command = planview_command() if command is None else command
    if command == "planview":
        return message
    import re

    return re.sub(r"`planview(?=[ `])", lambda _m: f"`{command}", message)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:
        return False


def install_extra_command(extra: str) -> str:
    """The shell words that add an optional extra's packages to the environment running planview.

    `pip install 'planview[openai]'` does not run (planview is installed from its checkout, not an
    index); installing the extra's requirements, as pyproject.toml pins them, with this interpreter's
    pip does, wherever it is typed.
    """
    from importlib import metadata

    try:
        requires = metadata.requires("planview") or []
    except metadata.PackageNotFoundError:
        requires = []
    wanted = [
        req.split(";", 1)[0].strip()
        for req in requires
        if ";" in req and req.split(";", 1)[1].replace('"', "'").strip() == f"extra == '{extra}'"
    ]
    words = [sys.executable, "-m", "pip", "install", *(wanted or [extra])]
    return shlex.join(words)
