"""`planview plans` and `planview steps` from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planview.cli import main
from planview.plan.store import PlanStore

REPO = Path(__file__).resolve().parents[2]
SHORT = REPO / "plans" / "2026-01-14-1030-add-rate-limiting.md"
LONG = REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "planview", *args],
        cwd=cwd or REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def test_steps_of_the_short_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["steps", str(SHORT)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 7
    assert lines[0] == "[x] 1. Add RATE_LIMITS tiers and RATE_LIMIT_ENABLED to api/settings.py (default off)"
    assert lines[2].startswith("[ ] 3. Add RateLimitMiddleware")
    assert [line[:3] for line in lines] == ["[x]", "[x]", "[ ]", "[ ]", "[ ]", "[ ]", "[ ]"]


def test_steps_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["steps", str(SHORT), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["index"] for row in rows] == list(range(1, 8))
    assert set(rows[0]) == {"index", "text", "status", "completed", "notes"}
    assert rows[1]["completed"] is True and rows[2]["completed"] is False
    assert rows[1]["notes"] == ["tests run in the existing redis CI service; no new container needed"]


def test_steps_of_the_long_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["steps", str(LONG)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 30
    assert sum(line.startswith("[x]") for line in lines) == 3
    assert lines[-1].startswith("[ ] 30. Delete the Billing:: module")


def test_steps_reads_any_path_and_keeps_long_text_in_json(tmp_path: Path, capsys) -> None:
    long_step = "word " * 80
    plan = tmp_path / "elsewhere.md"
    plan.write_text(f"# P\r\n\r\n## Steps\r\n\r\n1. [DONE:1] first\r\n2) {long_step}\r\n", encoding="utf-8")
    assert main(["steps", str(plan)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "[x] 1. first"
    assert out[1].startswith("[ ] 2. word") and out[1].endswith("…") and len(out[1]) <= len("[ ] 2. ") + 200
    assert main(["steps", str(plan), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[1]["text"] == long_step.strip()


def test_steps_escape_sequences_are_not_sent_to_the_terminal(tmp_path: Path, capsys) -> None:
    plan = tmp_path / "evil.md"
    plan.write_text("## Steps\n- [ ] clear \x1b[2J screen\n")
    assert main(["steps", str(plan)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "[2J" not in out  # the one sanitiser removes the sequence whole
    assert "clear  screen" in out


def test_steps_without_any_list(tmp_path: Path, capsys) -> None:
    plan = tmp_path / "prose.md"
    plan.write_text("# Just prose\n\nNothing to do.\n")
    assert main(["steps", str(plan)]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "no steps" in captured.err
    assert main(["steps", str(plan), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: d / "missing.md", "plan not found"),
        (lambda d: (d / "notes.txt").write_text("x") and d / "notes.txt", "reads Markdown plans (.md)"),
        (lambda d: (d / "folder.md").mkdir() or d / "folder.md", "is a folder"),
        (lambda d: (d / "bin.md").write_bytes(b"# \xff\xfe\n") and d / "bin.md", "not UTF-8"),
    ],
)
def test_steps_bad_input_exits_2_with_one_line(tmp_path: Path, make, message: str) -> None:
    path = make(tmp_path)
    done = run_cli("steps", str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert message in done.stderr


def test_plans_in_a_project(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plans"]) == 0
    assert capsys.readouterr().err.startswith("no plans yet in .planview/plans")
    store = PlanStore.for_cwd()
    first = store.write("Add rate limiting", SHORT.read_text()).path
    os.utime(first, (1_700_000_000, 1_700_000_000))
    second = store.write("Billing platform migration", LONG.read_text()).path
    assert main(["plans"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f".planview/plans/{second.name}")
    assert "Billing platform migration" in lines[0] and lines[0].endswith("3/30")
    assert "Add rate limiting to the public API" in lines[1] and lines[1].endswith("2/7")
    assert main(["plans", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["file"] for row in rows] == [
        f".planview/plans/{second.name}",
        f".planview/plans/{first.name}",
    ]
    assert rows[1] == {
        "file": f".planview/plans/{first.name}",
        "path": str(first),
        "title": "Add rate limiting to the public API",
        "steps_done": 2,
        "steps_total": 7,
        "mtime": 1_700_000_000.0,
        "unreadable": None,
    }


def test_plans_json_when_empty(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plans", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_plans_dir_lists_the_samples(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plans", "--dir", str(REPO / "plans"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    files = {row["file"] for row in rows}
    assert {SHORT.name, LONG.name} <= files
    assert "README.md" not in files


def test_plans_dir_missing_exits_2() -> None:
    done = run_cli("plans", "--dir", "no-such-folder")
    assert done.returncode == 2
    assert (
        done.stderr.strip() == "planview: no-such-folder does not exist; pass a folder that holds .md plans"
    )


def test_plans_dir_naming_a_file_says_so(tmp_path: Path) -> None:
    plan = tmp_path / "plan.md"
    plan.write_text("# A plan\n", encoding="utf-8")
    done = run_cli("plans", "--dir", str(plan))
    assert done.returncode == 2
    assert (
        done.stderr.strip() == f"planview: {plan} is a file, not a folder; pass a folder that holds .md plans"
    )


def test_plans_via_subprocess_honours_planview_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env_home = {"PLANVIEW_HOME": str(home)}
    PlanStore(home).write("From env", "# From env\n\n## Steps\n- [x] a\n- [ ] b\n")
    done = subprocess.run(
        [sys.executable, "-m", "planview", "plans"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env_home},
    )
    assert done.returncode == 0, done.stderr
    assert "From env" in done.stdout and done.stdout.rstrip().endswith("1/2")


def test_reader_closing_the_pipe_early_is_not_an_error(tmp_path: Path) -> None:
    plan = tmp_path / "many.md"
    plan.write_text("## Steps\n" + "".join(f"- [ ] step number {i} {'x' * 60}\n" for i in range(6000)))
    reader = subprocess.Popen(
        [sys.executable, "-m", "planview", "steps", str(plan)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert reader.stdout.readline().startswith("[ ] 1. step number 0")
    reader.stdout.close()  # like `| head -1`: far more output than a pipe buffer is left unread
    stderr = reader.stderr.read()
    # 141 (as a shell reports SIGPIPE) when a write failed; 0 when the pipe took it all before closing.
    assert reader.wait(timeout=120) in (0, 141)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr


def test_a_fifo_named_like_a_plan_is_refused_not_read(project: Path) -> None:
    # open() on a FIFO blocks until a writer comes: steps, status and approve must refuse it instead.
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    fifo = plans / "pipe.md"
    os.mkfifo(fifo)
    for argv in (("steps", str(fifo)), ("status", str(fifo)), ("approve", str(fifo))):
        done = run_cli(*argv, cwd=project)
        assert done.returncode == 2, (argv, done.stderr)
        assert "is not a regular file" in done.stderr
        assert "Traceback" not in done.stderr


def test_plans_marks_a_plan_it_cannot_read(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # QA §11: a non-UTF-8 plan was listed with a title and a 2.6 MB one as "0/0", as if both were
    # fine, while steps, status and approve refuse them.
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True)
    (plans / "2026-01-01-0000-bin.md").write_bytes(b"# T\n\n\xff\xfe## Steps\n- [ ] a\n")
    (plans / "2026-01-01-0001-huge.md").write_bytes(b"# Huge\n" + b"x" * (2600 * 1024))
    (plans / "2026-01-01-0002-fine.md").write_text("# Fine\n\n## Steps\n\n- [x] a\n")
    for n, name in enumerate(("bin", "huge", "fine")):
        os.utime(plans / f"2026-01-01-000{n}-{name}.md", (1_700_000_000 + n, 1_700_000_000 + n))
    assert main(["plans"]) == 0
    fine, huge, binary = capsys.readouterr().out.splitlines()
    assert fine.endswith("1/1")
    assert huge.endswith("  unreadable: over the 2 MiB limit for a plan")
    assert binary.endswith("  unreadable: not UTF-8 text (byte 0xff at offset 5)")
    assert main(["plans", "--json"]) == 0
    rows = {Path(row["file"]).stem[16:]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["fine"]["unreadable"] is None
    assert rows["bin"]["unreadable"] == "not UTF-8 text (byte 0xff at offset 5)"
    assert rows["huge"]["unreadable"] == "over the 2 MiB limit for a plan"
    assert rows["bin"]["steps_total"] == 0 and rows["huge"]["title"] == "2026-01-01-0001-huge"


def test_plans_lists_links_and_fifos_as_unreadable_without_opening_them(
    project: Path, tmp_path: Path
) -> None:
    """QA3 #12: symlinked and FIFO .md entries were skipped without a word. A real process with a
    timeout: a FIFO opened blocking would hang it (no writer ever comes)."""
    plans = project / ".planview" / "plans"
    plans.mkdir(parents=True, exist_ok=True)
    (plans / "2026-01-01-0000-fine.md").write_text("# Fine\n\n## Steps\n\n- [x] a\n")
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret title\n\n## Steps\n- [ ] hidden\n")
    (plans / "2026-01-01-0001-link.md").symlink_to(secret)
    (plans / "2026-01-01-0002-gone.md").symlink_to(tmp_path / "gone.md")
    os.mkfifo(plans / "2026-01-01-0003-pipe.md")
    for n in range(4):
        name = next(plans.glob(f"2026-01-01-000{n}-*.md"))
        os.utime(name, (1_700_000_000 + n,) * 2, follow_symlinks=False)
    done = run_cli("plans", cwd=project)
    assert done.returncode == 0, done.stderr
    pipe, gone, link, fine = done.stdout.splitlines()
    assert fine.startswith(".planview/plans/2026-01-01-0000-fine.md") and fine.endswith("1/1")
    assert link.endswith(
        f"unreadable: a symbolic link to {secret}; planview reads no links in the plans folder: "
        "replace the link with the plan file itself"
    )
    assert "Secret title" not in done.stdout  # nothing was read through the link
    assert gone.endswith(
        f"unreadable: a symbolic link to {tmp_path / 'gone.md'}, which does not exist; remove the link"
    )
    assert pipe.endswith("unreadable: a FIFO (named pipe), not a plan file; move it aside")
    as_json = run_cli("plans", "--json", cwd=project)
    rows = {Path(row["file"]).stem[16:]: row["unreadable"] for row in json.loads(as_json.stdout)}
    assert (
        rows["fine"] is None and rows["pipe"].startswith("a FIFO") and rows["link"].startswith("a symbolic")
    )
    # the fix each one names is what status and approve already ask for
    refused = run_cli("status", ".planview/plans/2026-01-01-0001-link.md", cwd=project)
    assert refused.returncode == 2 and "symlink" in refused.stderr


@pytest.mark.parametrize("blocker", [".planview", ".planview/plans"])
def test_a_file_where_the_plans_folder_should_be_is_named(
    project: Path, capsys: pytest.CaptureFixture[str], blocker: str
) -> None:
    """QA3: a file named .planview (or .planview/plans) made plans and status say "no plans yet"
    and approve say "File exists; make it writable": none of which names the file in the way."""
    (project / blocker).parent.mkdir(parents=True, exist_ok=True)
    (project / blocker).write_text("not a folder\n")
    for argv in (["plans"], ["plans", "--json"], ["status"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert f"{project / blocker} is not a folder" in err and "move it aside" in err, (argv, err)
        assert "no plans" not in err
    if blocker == ".planview":
        (project / "p.md").write_text("# P\n")
        assert main(["approve", "p.md"]) == 2
        err = capsys.readouterr().err
        assert f"{project / blocker} is not a folder; move it aside" in err and "make it writable" not in err
