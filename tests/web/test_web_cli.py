"""`planview review --web PATH`: the URL first on stdout, then the decision decides the exit status."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import review_link


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "planview", "review", "--web", "--no-open", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "BROWSER": "false"},
    )


def post(url: str, route: str, body: dict) -> tuple[int, dict]:
    return review_link.post(url, route, body)


def finish(proc: subprocess.Popen) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err


def test_prints_the_url_first_and_exits_1_when_closed(plan):
    proc = start(str(plan))
    url = proc.stdout.readline().strip()
    assert url.startswith("http://127.0.0.1:") and "/?ticket=" in url
    origin, opener = review_link.opener_for(url)
    with opener.open(origin + "/", timeout=30) as response:  # the printed URL opens the page as printed
        assert response.status == 200 and b"plan-data" in response.read()
    assert post(url, "/api/cancel", {})[0] == 200
    code, out, err = finish(proc)
    assert code == 1, err
    assert out.strip() == "closed: Back"


def test_saved_feedback_exits_1_and_json_lists_the_comments(plan):
    proc = start(str(plan), "--json")
    url = proc.stdout.readline().strip()
    base = hashlib.sha256(plan.read_bytes()).hexdigest()
    status, _ = post(
        url, "/api/feedback", {"base_sha256": base, "comments": [{"anchor_line": 5, "text": "How fast?"}]}
    )
    assert status == 200
    code, out, err = finish(proc)
    assert code == 1, err
    decision = json.loads(out)
    assert decision["decision"] == "refine"
    assert decision["comments"] == [{"anchor_line": 5, "text": "How fast?"}]
    assert "How fast?" in decision["feedback"]
    assert "> [!REVIEW] How fast?" in plan.read_text(encoding="utf-8")


def test_approve_exits_0_and_records_the_browser_channel(plan, home):
    proc = start(str(plan), "--approve", "--json")
    url = proc.stdout.readline().strip()
    base = hashlib.sha256(plan.read_bytes()).hexdigest()
    assert post(url, "/api/approve", {"base_sha256": base, "comments": []})[0] == 200
    code, out, err = finish(proc)
    assert code == 0, err
    assert json.loads(out)["decision"] == "approve"
    event = json.loads((home / "ledger.jsonl").read_text().splitlines()[-1])
    assert event["type"] == "approved" and event["channel"] == "browser review"
    status = subprocess.run(
        [sys.executable, "-m", "planview", "status", str(plan)], capture_output=True, text=True, timeout=60
    )
    assert status.returncode == 0, status.stdout + status.stderr


def test_without_approve_the_page_cannot_approve(plan, home):
    proc = start(str(plan))
    url = proc.stdout.readline().strip()
    base = hashlib.sha256(plan.read_bytes()).hexdigest()
    assert post(url, "/api/approve", {"base_sha256": base, "comments": []})[0] == 403
    assert post(url, "/api/cancel", {})[0] == 200
    assert finish(proc)[0] == 1
    assert not (home / "ledger.jsonl").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["missing.md"], "plan not found"),
        (["notes.txt"], "not a Markdown plan"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_url(home, tmp_path: Path, args, message):
    (tmp_path / "notes.txt").write_text("x")
    proc = subprocess.run(
        [sys.executable, "-m", "planview", "review", "--web", "--no-open", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_web_flags_need_web(plan):
    proc = subprocess.run(
        [sys.executable, "-m", "planview", "review", "--no-open", str(plan)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "--web" in proc.stderr


def test_approve_of_a_file_outside_the_plans_folder_is_refused_up_front(plan, home, tmp_path: Path):
    """QA: `review --web --approve README.md` served an Approve that could only fail (422), wrote the
    comment into README.md and never exited."""
    readme = tmp_path / "README.md"
    readme.write_text("# project\n")
    proc = subprocess.run(
        [sys.executable, "-m", "planview", "review", "--web", "--no-open", "--approve", str(readme)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        env={**os.environ, "BROWSER": "false"},
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""  # no URL: no page was served
    assert "only plans saved in the plans folder can be approved" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert readme.read_text() == "# project\n"
    assert not (home / "ledger.jsonl").exists()


def test_a_person_at_a_terminal_is_told_what_the_url_is_for(plan):
    """`--no-open` printed a bare URL and then nothing: at a terminal (stderr a tty) one line says
    to open it and how the review ends; stdout stays the URL alone for scripts."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "planview", "review", "--web", "--no-open", str(plan)],
        stdout=subprocess.PIPE,
        stderr=follower,
        text=True,
        env={**os.environ, "BROWSER": "false"},
    )
    os.close(follower)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        import select

        said = b""
        while b"Ctrl+C" not in said:
            ready, _, _ = select.select([leader], [], [], 30)
            assert ready, f"nothing more on the terminal after {said!r}"
            said += os.read(leader, 4096)
        text = said.decode()
        assert "open it in your browser" in text and "goes Back" in text and "nothing decided" in text
        assert post(url, "/api/cancel", {})[0] == 200
        assert proc.wait(timeout=60) == 1
        assert proc.stdout.read().strip() == "closed: Back"
    finally:
        os.close(leader)
        if proc.poll() is None:
            proc.kill()


def test_approve_prints_the_lines_and_labels_approve_prints(plan, home):
    """Issue 29: `review --web --approve` printed `artifact: artifact:…` and put the canonical hash
    under `sha256:`, where `planview approve` prints the file's hash under that label."""
    proc = start(str(plan), "--approve")
    url = proc.stdout.readline().strip()
    data = plan.read_bytes()
    assert (
        post(url, "/api/approve", {"base_sha256": hashlib.sha256(data).hexdigest(), "comments": []})[0] == 200
    )
    code, out, err = finish(proc)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("approved: ")
    assert lines[1].startswith("artifact:") and not lines[1].startswith("artifact: ")
    fields = dict(line.split(":", 1) for line in lines[2:])
    assert fields["sha256"] == hashlib.sha256(plan.read_bytes()).hexdigest()  # the file's bytes, as approve
    event = json.loads((home / "ledger.jsonl").read_text().splitlines()[-1])
    assert fields["canonical"] == event["canonical_sha256"]
    assert fields["channel"] == "browser review" and "bytes" in fields and "seq" in fields
