"""What a user waits for: whole processes in a real pseudo-terminal, until the plan is on screen.

Run: `python benchmarks/terminal_paint.py [--repeat 5] [--size 120x40]`

Each command is started as a whole process on the slave side of a pty (os.openpty, TERM=xterm-256color,
the window size set with TIOCSWINSZ); this script reads the master side and stops the clock when the
plan's title and the first words of its first paragraph have been written to the terminal (escape
sequences stripped, whitespace runs folded). Then the process is killed. Measured in the same run,
interleaved, after one warm-up run each:

Bytecode caching is on (PYTHONPYCACHEPREFIX in a temp folder, written by the warm-up), as for an
installed package.

- `planview review PLAN` (PLANVIEW_HOME in a temp folder; the warm-up run leaves the review baseline,
  so the timed runs are a re-review, as a user would see it);
- `python -m rich.markdown PLAN` (renders the whole document, then writes it);
- a minimal Textual app that shows one Static holding the title and first paragraph (the floor for
  any Textual app);
- start-up of commands that draw nothing: `python -c pass`, `planview --help`, and `planview status`
  as a user runs it (in a git repository, without PLANVIEW_HOME, its plan approved), time until the
  process exits; beside them, for context, a process that only imports the standard-library modules
  those commands need.

Plans: the samples in plans/, a generated 10,000-line plan (the long sample repeated, headings
numbered so every section is distinct, 692 kB) and a generated 50,000-line plan of short lines (1.2 MB:
the long sample repeated would be over the 2 MiB that planview reads). Prints min / median per row and the ratios the
issue's targets name (judged on the minimums: the machine is shared and noisy); exit status 1
when a target is missed.
"""

from __future__ import annotations

import argparse
import codecs
import fcntl
import os
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHORT = REPO / "plans" / "2026-01-14-1030-add-rate-limiting.md"
LONG = REPO / "plans" / "2026-01-15-0900-billing-platform-migration.md"
TIMEOUT = 180.0

# CSI, OSC (BEL or ST terminated), DCS/APC/PM/SOS strings, two-byte escapes.
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[\]P^_X][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x1b[ -/]*[0-~]"
)
_PARTIAL = re.compile(r"\x1b[^\x07]{0,256}$")  # an escape sequence cut by the read boundary
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class Needles:
    title: str
    paragraph: str


def needles_for(text: str) -> Needles:
    """The plan's H1 and the first words of its first paragraph, as they appear on screen."""
    from planview.plan.document import parse_plan
    from planview.plan.markup import strip_inline

    document = parse_plan(text)
    title = document.title or ""
    for block in document.blocks:
        if block.kind in ("paragraph", "quote"):
            line = document.lines[block.start - 1].lstrip("> ")
            words = strip_inline(line).split()
            picked: list[str] = []
            for word in words:
                if sum(len(w) + 1 for w in picked) + len(word) > 24:
                    break
                picked.append(word)
            return Needles(title, " ".join(picked))
    return Needles(title, title)


def generated(text: str, lines_wanted: int) -> str:
    """`text` repeated to `lines_wanted` lines, headings numbered so every section is distinct."""
    lines: list[str] = []
    copy = 0
    source = text.split("\n")
    while len(lines) < lines_wanted:
        copy += 1
        for line in source:
            lines.append(f"{line} (part {copy})" if line.startswith("#") and copy > 1 else line)
    return "\n".join(lines[:lines_wanted]) + "\n"


def generated_compact(lines_wanted: int) -> str:
    """A plan of short lines (about 36 bytes each, so 50,000 lines stay under the 2 MiB read limit):
    sections with a paragraph, a task list, and now and then a code block or a table."""
    out = [
        "# Fleet rollout plan",
        "",
        "Roll the new agent out to every host in",
        "waves, with a health gate between waves.",
        "",
    ]
    n = 0
    while len(out) < lines_wanted:
        n += 1
        out += [
            f"## Wave {n}: hosts {n * 40}-{n * 40 + 39}",
            "",
            f"Wave {n} covers forty hosts; it",
            "starts when the previous gate is green.",
            "",
        ]
        out += [f"- [ ] Drain host group {n}.{i}" for i in range(1, 9)]
        out.append("")
        if n % 5 == 0:
            out += [
                "```python",
                f"def gate_{n}(hosts):",
                "    bad = [h for h in hosts",
                "           if not h.ok]",
                "    return not bad",
                "```",
                "",
            ]
        if n % 7 == 0:
            out += ["| host | state |", "|---|---|", f"| h{n}a | ok |", f"| h{n}b | ok |", ""]
    return "\n".join(out[:lines_wanted]) + "\n"


def run_in_pty(
    argv: list[str], *, size: tuple[int, int], env: dict[str, str], cwd: Path, needles: Needles | None
) -> float:
    """Seconds from spawn until both needles were written (or, without needles, until exit)."""
    master, slave = os.openpty()
    columns, rows = size
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
    )
    os.close(slave)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    pending = ""
    window = ""  # the visible text written so far (its tail), whitespace folded
    wanted = [needles.title, needles.paragraph] if needles else []
    found: float | None = None
    try:
        while True:
            left = TIMEOUT - (time.perf_counter() - start)
            if left <= 0:
                raise TimeoutError(f"{' '.join(argv)}: nothing matched within {TIMEOUT:.0f} s")
            ready, _, _ = select.select([master], [], [], min(left, 1.0))
            if not ready:
                if needles is None and proc.poll() is not None:
                    found = time.perf_counter() - start
                    break
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: the slave side closed (the process exited)
                chunk = b""
            if not chunk:
                proc.wait()
                if needles is None:
                    found = time.perf_counter() - start
                    break
                raise RuntimeError(f"{' '.join(argv)} exited ({proc.returncode}) before the plan showed")
            if needles is None:
                continue
            pending += decoder.decode(chunk)
            cut = _PARTIAL.search(pending)
            complete, pending = (pending[: cut.start()], pending[cut.start() :]) if cut else (pending, "")
            visible = _SPACES.sub(" ", _ESCAPE.sub("", complete))
            window = (window + visible)[-8192:]
            wanted = [needle for needle in wanted if needle not in window]
            if not wanted:
                found = time.perf_counter() - start
                break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        os.close(master)
    return found


@dataclass
class Row:
    label: str
    argv: list[str]
    needles: Needles | None
    times: list[float]
    env: dict[str, str] | None = None  # instead of the run's common environment


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per command (after one warm-up)")
    parser.add_argument("--size", default="120x40", help="terminal COLUMNSxROWS")
    parser.add_argument("--no-50k", action="store_true", help="skip the 50,000-line plan")
    args = parser.parse_args()
    columns, rows = (int(n) for n in args.size.lower().split("x"))
    for sample in (SHORT, LONG):
        if not sample.is_file():
            print(f"sample plan missing: {sample}", file=sys.stderr)
            return 2
    python = sys.executable
    script = Path(python).with_name("planview")
    planview = [str(script)] if script.is_file() else [python, "-m", "planview"]

    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        env = {
            **os.environ,
            "TERM": "xterm-256color",
            "COLUMNS": str(columns),
            "LINES": str(rows),
            "PLANVIEW_HOME": str(work / "home"),
            # Bytecode as an installed package has it (the warm-up writes it here, not into the repo).
            "PYTHONPYCACHEPREFIX": str(work / "pycache"),
        }
        for name in ("TEXTUAL_ANIMATIONS", "PYTHONDONTWRITEBYTECODE"):
            env.pop(name, None)
        long_text = LONG.read_text(encoding="utf-8")
        plans: list[tuple[str, Path]] = [
            (f"{SHORT.name} ({len(SHORT.read_text().splitlines()):,} lines)", SHORT),
            (f"{LONG.name} ({len(long_text.splitlines()):,} lines)", LONG),
        ]
        path = work / "generated-10000.md"
        path.write_text(generated(long_text, 10_000), encoding="utf-8")
        plans.append(("generated 10,000-line plan (long sample repeated)", path))
        if not args.no_50k:
            # The long sample repeated would be 3.4 MB, over the 2 MiB limit planview reads.
            path = work / "generated-50000.md"
            path.write_text(generated_compact(50_000), encoding="utf-8")
            plans.append(("generated 50,000-line plan (short lines)", path))

        short_needles = needles_for(SHORT.read_text(encoding="utf-8"))
        minimal = work / "minimal_textual.py"
        minimal.write_text(
            "from textual.app import App\nfrom textual.widgets import Static\n\n"
            "class Minimal(App):\n    def compose(self):\n"
            f"        yield Static({short_needles.title + chr(10) * 2 + short_needles.paragraph!r})\n\n"
            "Minimal().run()\n",
            encoding="utf-8",
        )
        script = work / "one-answer.jsonl"
        script.write_text('{"text": "Nothing to plan."}\n', encoding="utf-8")
        # `planview status` as a user runs it: in a git repository, no PLANVIEW_HOME, its newest plan
        # approved (the home is found from the repository, the ledger read from its head).
        project = work / "project"
        project.mkdir()
        in_repo = {k: v for k, v in env.items() if k != "PLANVIEW_HOME" and not k.startswith("GIT_")}
        in_repo |= {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
        subprocess.run(["git", "init", "-q"], cwd=project, env=in_repo, check=True)
        saved = project / ".planview" / "plans" / SHORT.name
        saved.parent.mkdir(parents=True)
        saved.write_text(SHORT.read_text(encoding="utf-8"), encoding="utf-8")
        subprocess.run(
            [*planview, "approve", SHORT.name, "--as", "benchmark"],
            cwd=project,
            env=in_repo,
            check=True,
            capture_output=True,
        )
        said = subprocess.run([*planview, "status"], cwd=project, env=in_repo, capture_output=True, text=True)
        if not said.stdout.startswith("approved:"):
            print(
                f"planview status did not report the approved plan: {said.stdout}{said.stderr}",
                file=sys.stderr,
            )
            return 2

        table: list[Row] = [
            Row("python -c pass", [python, "-c", "pass"], None, []),
            Row("planview --help", [*planview, "--help"], None, []),
            Row("planview status (approved plan, git repository)", [*planview, "status"], None, [], in_repo),
            # What the commands above import from the standard library before a line of planview runs
            # (argparse for the CLI, dataclasses for the records, hashlib and json for the ledger).
            Row(
                "stdlib floor: import argparse, dataclasses, hashlib, json, pathlib",
                [python, "-c", "import argparse, dataclasses, hashlib, json, pathlib"],
                None,
                [],
            ),
            Row("minimal Textual app (one Static)", [python, str(minimal)], short_needles, []),
            # The main job's first screen: the session app in plan mode (the scripted provider, so no
            # key or network), until its prompt and its mode bar are on the terminal.
            Row(
                "planview --plan (session app, scripted provider)",
                [*planview, "--plan", "--script", str(script)],
                Needles("Ask the agent", "plan mode"),
                [],
            ),
        ]
        per_plan: list[tuple[str, Row, Row]] = []
        for label, path in plans:
            needles = needles_for(path.read_text(encoding="utf-8"))
            ours = Row(f"planview review  {label}", [*planview, "review", str(path)], needles, [])
            rich = Row(f"rich.markdown    {label}", [python, "-m", "rich.markdown", str(path)], needles, [])
            table += [ours, rich]
            per_plan.append((label, ours, rich))

        import textual

        print(
            f"Python {sys.version.split()[0]}, Textual {textual.__version__}, pty {columns}x{rows}, "
            f"{args.repeat} timed runs each after a warm-up (interleaved)"
        )

        def timed(row: Row) -> float:
            return run_in_pty(
                row.argv, size=(columns, rows), env=row.env or env, cwd=project, needles=row.needles
            )

        for row in table:  # warm-up: OS file cache, .pyc files, the review baselines
            timed(row)
        for _ in range(args.repeat):
            for row in table:
                row.times.append(timed(row))

    print()
    print("| command | min ms | median ms |")
    print("|---|---:|---:|")
    for row in table:
        print(f"| {row.label} | {fmt(min(row.times))} | {fmt(statistics.median(row.times))} |")

    by_label = {row.label: row for row in table}
    short_ours = per_plan[0][1]
    minimal_row = by_label["minimal Textual app (one Static)"]
    pass_row = by_label["python -c pass"]
    checks: list[tuple[str, Row, Row, float]] = []  # (what, row, baseline, limit): row/baseline <= limit
    for label, ours, rich in per_plan:
        if "10,000" in label:
            checks.append(("10k first screen / 63-line", ours, short_ours, 1.3))
            checks.append(("10k: planview / rich.markdown", ours, rich, 1 / 3))
        if "50,000" in label:
            checks.append(("50k first screen / 63-line", ours, short_ours, 1.5))
    checks.append(("63-line / minimal Textual app", short_ours, minimal_row, 1.5))
    for name in ("planview --help", "planview status (approved plan, git repository)"):
        checks.append((f"{name.split(' (')[0]} / python -c pass", by_label[name], pass_row, 4.0))
    print()
    print("Ratios of the minimums (the runs least disturbed by other processes; the verdict) and of the")
    print("medians:")
    print()
    print("| ratio | of minimums | of medians | target | |")
    print("|---|---:|---:|---:|---|")
    failed = 0
    for what, row, base, limit in checks:
        best = min(row.times) / min(base.times)
        typical = statistics.median(row.times) / statistics.median(base.times)
        ok = best <= limit
        failed += not ok
        print(f"| {what} | {best:.2f}x | {typical:.2f}x | ≤ {limit:.2f}x | {'ok' if ok else 'MISSED'} |")
    floor = next(row for row in table if row.label.startswith("stdlib floor"))
    app = by_label["planview --plan (session app, scripted provider)"]
    print()
    print(
        f"Context, not a target: the standard-library modules those commands import cost "
        f"{min(floor.times) / min(pass_row.times):.2f}x python -c pass by themselves (of minimums); the "
        f"session app's first screen (prompt, mode bar, footer) takes {min(app.times) / min(minimal_row.times):.2f}x "
        f"the minimal Textual app's ({statistics.median(app.times) / statistics.median(minimal_row.times):.2f}x "
        "of medians)."
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
