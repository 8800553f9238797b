"""The browser is never handed anything a later reader could act with (issue 25.1).

Before: the page's URL, token included, was the browser's argument, so any process of the same
user read it from /proc/*/cmdline and approved the plan through the page (the ledger recorded a
normal "browser review" approval). Now the browser is handed a private launch file whose one-time
ticket it spends on its first load; a process that reads the command line afterwards finds a file
that is gone and a ticket that is spent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(120)

# A browser: opens what it is given (a launch file's redirect, or a URL) once, keeps its cookie,
# says so, and stays open with its command line in /proc like a real one.
BROWSER = textwrap.dedent(
    r"""
    import http.cookiejar, os, re, sys, time, urllib.request
    from pathlib import Path
    target = sys.argv[-1]
    if target.startswith("file://"):
        from urllib.parse import unquote, urlparse
        text = Path(unquote(urlparse(target).path)).read_text()
        target = re.search(r'url=([^"]+)"', text).group(1).replace("&amp;", "&")
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with opener.open(target, timeout=30) as page:
        assert page.status == 200
    Path(sys.argv[1]).write_text(str(os.getpid()))
    time.sleep(90)
    """
)

# Another process of the same user: everything it can find in any process's command line.
ATTACKER = textwrap.dedent(
    r"""
    import json, os, re, sys, urllib.error, urllib.request, http.cookiejar
    from pathlib import Path
    from urllib.parse import unquote, urlparse
    base, found, answers = sys.argv[1], [], []
    for pid in os.listdir("/proc"):
        try:
            words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        for word in words:
            word = word.decode("utf-8", "replace")
            if word.startswith("http://127.0.0.1:") or word.startswith("file://"):
                found.append(word)
    for word in found:
        candidates = [word]
        if word.startswith("file://"):
            try:
                text = Path(unquote(urlparse(word).path)).read_text()
                candidates += re.findall(r'url=([^"]+)"', text)
            except OSError:
                pass
        for url in candidates:
            if not url.startswith("http://"):
                continue
            jar = http.cookiejar.CookieJar()
            opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
            try:
                opener.open(url, timeout=10).read()
            except (urllib.error.URLError, OSError):
                pass
            origin, _, query = url.partition("/?")
            approve = urllib.request.Request(
                f"{origin}/api/approve?{query}",
                data=json.dumps({"base_sha256": base, "comments": []}).encode(),
                headers={"Content-Type": "application/json"},
                method="POST",
            )
            try:
                answers.append(opener.open(approve, timeout=10).status)
            except urllib.error.HTTPError as exc:
                answers.append(exc.code)
            except (urllib.error.URLError, OSError):
                answers.append(0)
    print(json.dumps({"found": found, "answers": answers}))
    """
)


def test_a_process_reading_proc_cmdline_cannot_approve(plan: Path, home: Path, tmp_path: Path) -> None:
    import hashlib

    loaded = tmp_path / "browser-loaded"
    browser = tmp_path / "browser.py"
    browser.write_text(BROWSER)
    env = {
        **os.environ,
        "BROWSER": f"{sys.executable} {browser} {loaded} %s",
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
    }
    (tmp_path / "run").mkdir(mode=0o700)
    review = subprocess.Popen(
        [sys.executable, "-m", "planview", "review", "--web", "--approve", str(plan)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert review.stdout is not None
        printed = review.stdout.readline().strip()  # the terminal's own link (not what the browser got)
        assert printed.startswith("http://127.0.0.1:")
        deadline = time.monotonic() + 60
        while not loaded.exists() or not loaded.read_text():
            assert time.monotonic() < deadline, "the browser never loaded the page"
            assert review.poll() is None, review.communicate()[1]
            time.sleep(0.1)
        base = hashlib.sha256(plan.read_bytes()).hexdigest()
        attack = subprocess.run(
            [sys.executable, "-c", ATTACKER, base], capture_output=True, text=True, timeout=60
        )
        result = json.loads(attack.stdout)
        port = printed.split("127.0.0.1:", 1)[1].split("/", 1)[0]
        assert any(port in word or "review" in word for word in result["found"]), result  # it saw the browser
        # the launch file is gone with its spent ticket: nothing it found approves (a read of the file
        # before the browser spent it would give the same spent ticket: test_a_link_works_once)
        assert 200 not in result["answers"], result
        assert review.poll() is None  # still waiting for a person
        assert not (home / "ledger.jsonl").exists() or "approved" not in (home / "ledger.jsonl").read_text()
        assert not any((tmp_path / "run").rglob("*.html"))  # the launch file went with its ticket
    finally:
        review.kill()
        review.communicate(timeout=30)
        if loaded.exists() and loaded.read_text().isdigit():
            try:
                os.kill(int(loaded.read_text()), 9)  # the browser started detached: by its own pid
            except ProcessLookupError:
                pass
