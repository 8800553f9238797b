"""Handing the review page to a browser: a private redirect file, and a browser started detached.

The browser is never given the page's URL. `write_launch_file` writes a small HTML file (0600, in
a per-user 0700 folder) that redirects to a one-time ticket URL, as Jupyter does; the browser's
command line and environment hold only that file's path, and the server deletes the file when the
ticket is spent. What this does not stop is written down in docs/BROWSER_REVIEW.md.

`open_in_browser` never waits on the browser: a `BROWSER` command runs in its own session with no
terminal, so one that stays in the foreground (a console browser, a wrapper that waits) holds up
nothing, and the review's timeout already runs from when the page was served. Without `BROWSER`,
Python's `webbrowser` picks one, in a thread given a moment to report a failure.
"""

from __future__ import annotations

import html
import os
import secrets
import shlex
import shutil
import subprocess
import threading
from pathlib import Path

from planview.atomic import atomic_write

QUICK_FAILURE_SECONDS = 0.5  # a BROWSER command that exits non-zero this soon did not open anything


def launch_folder() -> Path:
    """Where launch files wait: the per-user runtime folder (else the state folder), made 0700."""
    import platformdirs

    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    base = Path(runtime) if runtime and os.path.isdir(runtime) else platformdirs.user_state_path("planview")
    folder = base / "planview-review" if runtime else base / "review-pages"
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    return folder


def write_launch_file(url: str) -> Path:
    """A new 0600 file that sends the browser to `url` (which must be a one-time ticket URL)."""
    path = launch_folder() / f"review-{secrets.token_hex(8)}.html"
    link = html.escape(url, quote=True)
    atomic_write(
        path,
        '<!doctype html>\n<html><head><meta charset="utf-8">\n'
        f'<meta http-equiv="refresh" content="0;url={link}">\n'
        "<title>planview review</title></head>\n"
        f'<body><p>Opening the planview review… <a href="{link}">continue</a></p></body></html>\n',
        mode=0o600,
    )
    return path


def _browser_commands(target: str) -> list[list[str]]:
    """`BROWSER` as webbrowser reads it: os.pathsep-separated commands, `%s` for the target (else last)."""
    commands = []
    for entry in os.environ.get("BROWSER", "").split(os.pathsep):
        try:
            words = shlex.split(entry)
        except ValueError:
            continue
        if not words:
            continue
        if any("%s" in word for word in words):
            words = [word.replace("%s", target) for word in words]
        else:
            words.append(target)
        commands.append(words)
    return commands


def _reap(process: subprocess.Popen[bytes]) -> None:
    threading.Thread(target=process.wait, daemon=True).start()


def _start_detached(words: list[str]) -> bool:
    if shutil.which(words[0]) is None:
        return False
    try:
        process = subprocess.Popen(
            words,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own session: our terminal's signals and our exit do not reach it
            close_fds=True,
        )
    except OSError:
        return False
    try:
        code = process.wait(QUICK_FAILURE_SECONDS)
    except subprocess.TimeoutExpired:
        _reap(process)
        return True  # still running: a browser (or a wrapper) that stays; nobody waits on it
    return code == 0


def open_in_browser(target: str | Path) -> bool:
    """Open `target` (a launch file, or a URL) in a browser without waiting on it; False when none
    could be started. Tests replace this."""
    if isinstance(target, Path):
        target = target.as_uri()
    commands = _browser_commands(target)
    if commands:
        return any(_start_detached(words) for words in commands)
    import webbrowser

    result: list[bool] = []

    def run() -> None:
        try:
            result.append(bool(webbrowser.open(target, new=2)))
        except webbrowser.Error:
            result.append(False)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(QUICK_FAILURE_SECONDS * 4)
    return result[0] if result else True  # a console browser in the foreground: it opened
