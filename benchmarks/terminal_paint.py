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


def generated_long_steps(lines_wanted: int, items: int = 400) -> str:
    """`generated_compact` with a `## Steps` list of `items` tasks right after the intro (a long early
    section: the first screen must not wait for the whole parse), ending in a line `G` looks for."""
    head = [
        "# Fleet rollout plan",
        "",
        "Roll the new agent out to every host in",
        "waves, with a health gate.",
        "",
    ]
    steps = [
        "## Steps",
        "",
        *[f"- [ ] Step {i}: drain and upgrade group {i}" for i in range(1, items + 1)],
        "",
    ]
    tail = ["## Done", "", LAST_LINE]
    body = generated_compact(lines_wanted - len(head) - len(steps) - len(tail)).split("\n")[5:-1]
    return "\n".join(head + steps + body + tail) + "\n"


LAST_LINE = "Every wave is green and the rollout is over."


class Pty:
    """One command on the slave side of a pty; this side reads what it draws."""

    def __init__(self, argv: list[str], *, size: tuple[int, int], env: dict[str, str], cwd: Path) -> None:
        self.argv = argv
        self.master, slave = os.openpty()
        columns, rows = size
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(
            argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.pending = ""
        self.window = ""  # the visible text written so far (its tail), whitespace folded

    def wait_for(self, wanted: list[str]) -> float:
        """Seconds from spawn until every string in `wanted` was written (`[]`: until the process exits)."""
        wanted = list(wanted)
        while True:
            left = TIMEOUT - (time.perf_counter() - self.start)
            if left <= 0:
                raise TimeoutError(f"{' '.join(self.argv)}: nothing matched within {TIMEOUT:.0f} s")
            ready, _, _ = select.select([self.master], [], [], min(left, 1.0))
            if not ready:
                if not wanted and self.proc.poll() is not None:
                    return time.perf_counter() - self.start
                continue
            try:
                chunk = os.read(self.master, 1 << 16)
            except OSError:  # EIO: the slave side closed (the process exited)
                chunk = b""
            if not chunk:
                self.proc.wait()
                if not wanted:
                    return time.perf_counter() - self.start
                raise RuntimeError(
                    f"{' '.join(self.argv)} exited ({self.proc.returncode}) before the plan showed"
                )
            if not wanted:
                continue
            self.pending += self.decoder.decode(chunk)
            cut = _PARTIAL.search(self.pending)
            complete, self.pending = (
                (self.pending[: cut.start()], self.pending[cut.start() :]) if cut else (self.pending, "")
            )
            visible = _SPACES.sub(" ", _ESCAPE.sub("", complete))
            self.window = (self.window + visible)[-8192:]
            wanted = [needle for needle in wanted if needle not in self.window]
            if not wanted:
                return time.perf_counter() - self.start

    def send(self, data: bytes) -> float:
        os.write(self.master, data)
        return time.perf_counter() - self.start

    def drain(self, seconds: float) -> None:
        """Read (and forget) what is drawn for `seconds`."""
        end = time.perf_counter() + seconds
        while (left := end - time.perf_counter()) > 0:
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    os.read(self.master, 1 << 16)
                except OSError:
                    return

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def settle(self, quiet: float = 0.6, cap: float = 60.0) -> None:
        """Wait until the process used no CPU for `quiet` seconds (its background work is done)."""
        end = time.perf_counter() + cap
        last, still = self.cpu_seconds(), 0.0
        while time.perf_counter() < end and still < quiet:
            self.drain(0.2)
            now = self.cpu_seconds()
            still = still + 0.2 if now == last else 0.0
            last = now

    def rss_kib(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.master)


def run_in_pty(
    argv: list[str], *, size: tuple[int, int], env: dict[str, str], cwd: Path, needles: Needles | None
) -> float:
    """Seconds from spawn until both needles were written (or, without needles, until exit)."""
    pty = Pty(argv, size=size, env=env, cwd=cwd)
    try:
        return pty.wait_for([needles.title, needles.paragraph] if needles else [])
    finally:
        pty.close()


def last_words(text: str) -> str:
    """The first words of a plan's last non-blank line, as drawn (markup stripped)."""
    from planview.plan.markup import strip_inline

    line = next(line for line in reversed(text.splitlines()) if line.strip())
    words = strip_inline(line.lstrip("-*0123456789.[]xX ~>#")).split()
    return " ".join(words[:4])


SHORT_LINES = 63


def g_and_rss(
    argv: list[str], *, size: tuple[int, int], env: dict[str, str], cwd: Path, needles: Needles, last: str
) -> tuple[float, int]:
    """(seconds from pressing G until the plan's last line is drawn, RSS in KiB once all is settled)."""
    pty = Pty(argv, size=size, env=env, cwd=cwd)
    try:
        pty.wait_for([needles.title, needles.paragraph])
        pty.settle()  # the background load and layout slices are done: G is measured on its own
        pty.window = ""
        pressed = pty.send(b"G")
        landed = pty.wait_for([last]) - pressed
        pty.settle()
        return landed, pty.rss_kib()
    finally:
        pty.close()


@dataclass
class Row:
    label: str
    argv: list[str]
    needles: Needles | None
    times: list[float]
    env: dict[str, str] | None = None  # instead of the run's common environment


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:,.0f}"


def sample_plans(work: Path, *, with_50k: bool) -> list[tuple[str, Path]]:
    """The plans the review is timed on: the two samples and the generated long ones (written into work)."""
    long_text = LONG.read_text(encoding="utf-8")
    plans: list[tuple[str, Path]] = [
        (f"{SHORT.name} ({len(SHORT.read_text().splitlines()):,} lines)", SHORT),
        (f"{LONG.name} ({len(long_text.splitlines()):,} lines)", LONG),
    ]
    path = work / "generated-10000.md"
    path.write_text(generated(long_text, 10_000), encoding="utf-8")
    plans.append(("generated 10,000-line plan (long sample repeated)", path))
    if with_50k:
        # The long sample repeated would be 3.4 MB, over the 2 MiB limit planview reads.
        path = work / "generated-50000.md"
        path.write_text(generated_compact(50_000), encoding="utf-8")
        plans.append(("generated 50,000-line plan (short lines)", path))
        path = work / "generated-50000-steps.md"
        path.write_text(generated_long_steps(50_000), encoding="utf-8")
        plans.append(("generated 50,000-line plan, 400-item Steps list early", path))
    return plans


def status_project(work: Path, env: dict[str, str], planview: list[str]) -> tuple[Path, dict[str, str]] | str:
    """A git repository whose newest plan is approved and the environment to run in it, or why not."""
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
        return f"planview status did not report the approved plan: {said.stdout}{said.stderr}"
    return project, in_repo


def g_measurements(
    steps_path: Path,
    planview: list[str],
    size: tuple[int, int],
    env: dict[str, str],
    project: Path,
    repeat: int,
) -> list[tuple[str, list[float], list[int]]]:
    """G's times and the idle RSS for the short sample and the 50,000-line plan with its Steps list early."""
    g_rows: list[tuple[str, list[float], list[int]]] = []
    for label, path, last in (
        ("63-line sample", SHORT, last_words(SHORT.read_text(encoding="utf-8"))),
        ("50,000-line plan, 400-item Steps early", steps_path, LAST_LINE),
    ):
        times, rss = [], []
        needles = needles_for(path.read_text(encoding="utf-8"))
        for _ in range(max(1, repeat // 2)):
            landed, kib = g_and_rss(
                [*planview, "review", str(path)],
                size=size,
                env=env,
                cwd=project,
                needles=needles,
                last=last,
            )
            times.append(landed)
            rss.append(kib)
        g_rows.append((label, times, rss))
    return g_rows


def ratio_checks(
    per_plan: list[tuple[str, Row, Row]], by_label: dict[str, Row]
) -> list[tuple[str, Row, Row, float]]:
    """The targets as (what, row, baseline, limit): row/baseline <= limit."""
    short_ours = per_plan[0][1]
    checks: list[tuple[str, Row, Row, float]] = []
    for label, ours, rich in per_plan:
        if "10,000" in label:
            checks.append(("10k first screen / 63-line", ours, short_ours, 1.3))
            checks.append(("10k: planview / rich.markdown", ours, rich, 1 / 3))
        if "400-item" in label:
            checks.append(("50k, 400-item Steps early: first screen / 63-line", ours, short_ours, 1.3))
        elif "50,000" in label:
            checks.append(("50k first screen / 63-line", ours, short_ours, 1.5))
    checks.append(
        ("63-line / minimal Textual app", short_ours, by_label["minimal Textual app (one Static)"], 1.2)
    )
    for name in ("planview --help", "planview status (approved plan, git repository)"):
        checks.append(
            (f"{name.split(' (')[0]} / python -c pass", by_label[name], by_label["python -c pass"], 4.0)
        )
    return checks


def print_g_rows(g_rows: list[tuple[str, list[float], list[int]]]) -> int:
    """Print G's times and memory; the number of targets missed."""
    print()
    print(
        "G and memory (pressed once the first screen is drawn and the process is idle; RSS once idle again):"
    )
    print()
    print("| plan | G: press to last line drawn, min / median ms | RSS min MiB |")
    print("|---|---:|---:|")
    for label, times, rss in g_rows:
        print(f"| {label} | {fmt(min(times))} / {fmt(statistics.median(times))} | {min(rss) / 1024:.1f} |")
    (_short, _t, short_rss), (_big, big_times, big_rss) = g_rows[0], g_rows[-1]
    per_line = (min(big_rss) - min(short_rss)) * 1024 / (50_000 - SHORT_LINES)
    ok_g, ok_rss = min(big_times) < 1.0, per_line < 512
    print()
    print(
        f"| G at 50,000 lines (min) | {fmt(min(big_times))} ms | < 1,000 ms | {'ok' if ok_g else 'MISSED'} |"
    )
    print(
        f"| RSS per plan line (50k RSS - 63-line RSS) / lines | {per_line:.0f} bytes | < 512 bytes | "
        f"{'ok' if ok_rss else 'MISSED'} |"
    )
    return (not ok_g) + (not ok_rss)


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
        plans = sample_plans(work, with_50k=not args.no_50k)

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
        made = status_project(work, env, planview)
        if isinstance(made, str):
            print(made, file=sys.stderr)
            return 2
        project, in_repo = made

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
            # (rich.markdown of a second 50,000-line plan adds minutes and no target)
            table += [ours] if "400-item" in label else [ours, rich]
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
        g_rows: list[tuple[str, list[float], list[int]]] = []
        if not args.no_50k:
            g_rows = g_measurements(plans[-1][1], planview, (columns, rows), env, project, args.repeat)

    print()
    print("| command | min ms | median ms |")
    print("|---|---:|---:|")
    for row in table:
        print(f"| {row.label} | {fmt(min(row.times))} | {fmt(statistics.median(row.times))} |")

    by_label = {row.label: row for row in table}
    minimal_row = by_label["minimal Textual app (one Static)"]
    pass_row = by_label["python -c pass"]
    checks = ratio_checks(per_plan, by_label)
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
    if g_rows:
        failed += print_g_rows(g_rows)
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
