"""The backstop for every agent: watch the project while it plans, and name what changed.

A client cannot stop an agent that writes with its own tools, so during plan mode planview
watches the whole project (watchfiles, recursive, no default ignores) from before the agent
starts or opens its session, and treats any write outside `.planview/` as a breach, and any file
in `.planview/plans/` that is not a plan (a script, a subfolder, a dotfile) too. The watcher is
ready only once it has seen a probe file that planview itself wrote, so a write made right after
the turn starts is not missed; and it stops only after a second probe came through, so a write
made just before the agent ended its turn is not lost in the debounce window.

Ignored: git's index refresh (`.git/index`, `*.lock` under `.git/`), which read-only git commands
may do; files the agent's profile names as its own start-up bookkeeping (`own_files`, a cache
file under `.git/`); planview's own files in `.planview/` outside the plans folder (session logs,
agent logs, review state), which other planview sessions in the same project write too.
Anything else under `.git/` (refs, objects, HEAD) is a change to the repository. Not covered:
writes outside the project (the agent's home folder, /tmp) are not watched at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from planview.atomic import is_temp_name
from planview.gate.git_env import plan_env

READY_TIMEOUT = 5.0
DIFF_LINE_CAP = 200
_GIT_NOISE = ("index", "index.lock")


class BreachWatcher:
    """Reports writes outside `home` (the .planview folder), and in `plans_dir` writes that are not
    plans, while it runs. `plans_dir` must exist before it starts (the session creates it): the folder
    itself changing (deleted, replaced) is then a breach too.

    `on_breach(paths)` gets the project-relative paths of each batch of changes; `on_plan(path)` gets
    plans written under `plans_dir` by the agent's own tools (for agents without an exit-plan request).
    """

    def __init__(
        self,
        root: Path,
        home: Path,
        plans_dir: Path,
        on_breach: Callable[[tuple[str, ...]], None],
        on_plan: Callable[[Path], None] | None = None,
        debounce_ms: int = 50,
        own_files: tuple[str, ...] = (),  # project-relative files the agent writes as bookkeeping
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.home = Path(os.path.realpath(home))
        self.plans_dir = Path(os.path.realpath(plans_dir))
        self.on_breach = on_breach
        self.on_plan = on_plan
        self.debounce_ms = debounce_ms
        self.own_files = frozenset(own_files)
        self.changed: set[str] = set()
        self._stop = asyncio.Event()
        self._ready = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._probes: set[Path] = set()
        self._probe_dir = self.home if self.home.is_relative_to(self.root) else self.root
        self._probe = self._new_probe()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def _new_probe(self) -> Path:
        probe = self._probe_dir / f".watch-probe-{uuid.uuid4().hex[:8]}"
        self._probes.add(probe)  # a late event of an older probe is planview's own write too
        return probe

    async def start(self) -> None:
        """Start watching; returns once the watcher demonstrably sees writes."""
        if self.running:
            return
        self._stop.clear()
        self._task = asyncio.create_task(self._run())
        await self.settle()

    async def settle(self) -> None:
        """Write a probe until the watcher reports it: every change made before it has been seen too
        (the kernel reports a folder's changes in order)."""
        assert self._task is not None
        self._ready.clear()
        self._probe = self._new_probe()
        self._probe.parent.mkdir(parents=True, exist_ok=True)
        deadline = asyncio.get_running_loop().time() + READY_TIMEOUT
        while not self._ready.is_set() and not self._task.done():
            self._probe.write_text("probe")  # rewritten until seen: the watcher may still be setting up
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), 0.1)
            if asyncio.get_running_loop().time() > deadline:
                break
        with contextlib.suppress(OSError):
            self._probe.unlink()
        if self._task.done():
            self._task.result()  # the watcher failed to start: say why

    async def stop(self) -> None:
        """Stop watching, after the changes made so far have come through (a write made just before
        the turn ended is reported, not dropped with the debounce window)."""
        if self.running:
            with contextlib.suppress(Exception):
                await self.settle()
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._task, 2.0)
            self._task = None

    async def _run(self) -> None:
        from watchfiles import awatch

        async for changes in awatch(
            self.root,
            watch_filter=None,
            debounce=self.debounce_ms,
            step=20,
            stop_event=self._stop,
            recursive=True,
            ignore_permission_denied=True,
        ):
            self._batch(path for _, path in changes)

    def _batch(self, paths: Iterable[str]) -> None:
        breached: list[str] = []
        for raw in paths:
            path = Path(raw)
            if path in self._probes:
                if path == self._probe:
                    self._ready.set()
                continue
            kind = self.classify(path)
            if kind == "plan" and self.on_plan is not None:
                self.on_plan(path)
            elif kind == "breach":
                rel = self.relative(path)
                if rel not in self.changed:
                    self.changed.add(rel)
                    breached.append(rel)
        if breached:
            self.on_breach(tuple(sorted(breached)))

    def relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)

    def classify(self, path: Path) -> str:
        """ "plan" (a plan file), "ignored" (planview's own files, git's index refresh, the agent's own
        bookkeeping) or "breach" (anything else, a non-plan file in the plans folder included)."""
        if path.is_relative_to(self.plans_dir):
            if is_temp_name(path.name):  # planview's atomic writes
                return "ignored"
            from planview.plan.store import containment_problem  # the store's rule: sub-folders too

            return "plan" if containment_problem(path, self.plans_dir) is None else "breach"
        if path.is_relative_to(self.home):
            return "ignored"
        rel = path.relative_to(self.root).parts if path.is_relative_to(self.root) else ()
        if rel[:1] == (".git",) and (rel[-1] in _GIT_NOISE or rel[-1].endswith(".lock")):
            return "ignored"
        if "/".join(rel) in self.own_files:
            return "ignored"
        return "breach"


@dataclass(frozen=True)
class BreachChanges:
    """What a breach changed, as git sees it: files git tracks (changed or deleted), files git never had
    (new: `git restore` cannot undo them), and paths that are gone and were never tracked."""

    tracked: tuple[str, ...]
    new: tuple[str, ...]
    gone: tuple[str, ...]


async def classify(root: Path, paths: Iterable[str]) -> BreachChanges:
    """Sort the changed paths by what git knows of them (under planview's plan-mode git environment)."""
    env = await plan_env(root)
    tracked, new, gone = [], [], []
    for rel in paths:
        if await _git(root, env, ["ls-files", "--error-unmatch", "--", rel]) is not None:
            tracked.append(rel)
        elif (root / rel).exists() or (root / rel).is_symlink():
            new.append(rel)
        else:
            gone.append(rel)
    return BreachChanges(tuple(tracked), tuple(new), tuple(gone))


async def diff_of(root: Path, changes: BreachChanges, cap: int = DIFF_LINE_CAP) -> str:
    """`git diff` of the changed files (tracked ones against the index, new ones as additions)."""
    env = await plan_env(root)
    chunks: list[str] = []
    flags = ["--no-color", "--no-ext-diff", "--no-textconv"]
    if changes.tracked:
        chunks.append(await _git(root, env, ["diff", *flags, "--", *changes.tracked], ok=(0, 1)) or "")
    for rel in changes.new:
        if (root / rel).is_file():
            chunks.append(
                await _git(root, env, ["diff", *flags, "--no-index", "--", "/dev/null", rel], ok=(0, 1)) or ""
            )
    lines = "\n".join(c.rstrip("\n") for c in chunks if c.strip()).splitlines()
    if len(lines) > cap:
        lines = [*lines[:cap], f"… {len(lines) - cap} more diff lines (run git diff to see them)"]
    return "\n".join(lines)


def breach_message(agent: str, changes: BreachChanges, diff: str, resume: str) -> str:
    """What the person is told when the agent changed the project while planning: what changed, how to
    undo each kind of change, how to go on planning (`resume`: the command that does it), the diff last."""
    import shlex

    def words(paths: tuple[str, ...]) -> str:
        return " ".join(shlex.quote(p) for p in paths)

    every = (*changes.tracked, *changes.new, *changes.gone)
    lines = [
        f"Plan-mode breach: {agent} changed {', '.join(every)} while planning, so planview cancelled the "
        "turn; nothing was approved. To undo it:"
    ]
    if changes.tracked:
        lines.append(
            f"- changed files git tracks ({', '.join(changes.tracked)}): look with `git diff -- "
            f"{words(changes.tracked)}`, put them back with `git restore -- {words(changes.tracked)}`"
        )
    if changes.new:
        lines.append(
            f"- new files ({', '.join(changes.new)}): git never had them, so git restore cannot remove "
            f"them; delete them with `rm -r -- {words(changes.new)}`"
        )
    if changes.gone:
        lines.append(f"- created and removed again ({', '.join(changes.gone)}): nothing is left to undo")
    lines.append(f"Then go on planning: {resume}")
    message = "\n".join(lines)
    return f"{message}\n\n{diff}" if diff else message


async def _git(root: Path, env: dict[str, str], args: list[str], ok: tuple[int, ...] = (0,)) -> str | None:
    try:
        proc = await asyncio.create_subprocess_exec(
            "git",
            *args,
            cwd=root,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        out, _ = await proc.communicate()
    except OSError:
        return None
    if proc.returncode not in ok:
        return None
    return out.decode("utf-8", "replace")
