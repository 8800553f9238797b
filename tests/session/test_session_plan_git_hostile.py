"""Plan mode holds in a hostile repository: no program runs, nothing is written, nothing outside is read.

The repository (tests/session/hostile_repo.py) points every config key that names a program at a
marker script, has a submodule with programs of its own, a committed symlink to an outside folder,
and a HOME whose global config holds a token. Every command of the read-only corpus
(corpus/git_read_only.txt) runs through the real plan-mode bash tool of a real Session; after each
one no marker fired, no file under the project (.git included), HOME or the outside folder changed,
and the output holds none of the outside tokens. The refused corpus (corpus/git_refused.txt) is
refused by the gate with the project root, as `planview gate check` decides it. A last test runs
a few of the commands without the plan environment to prove the rig is real.

The fixture is built once per module (about a second); the corpus run takes a few seconds.

These tests try the lists and the plan environment alone (the kernel sandbox forced off, in
process), except the `contained` ones: a rig without its include of an outside file (which the
sandbox makes git refuse to read, so the sandboxed plan shell refuses git there), run with the
sandbox as this machine has it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from planview.gate.git_shell import check_git_command
from planview.sandbox import status as sandbox_status
from planview.session.providers.base import ModelToolCall
from planview.session.providers.scripted import ScriptedProvider, parse_script
from planview.session.session import Session

sys.path.insert(0, str(Path(__file__).parent))
import hostile_repo

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

CORPUS = Path(__file__).parent / "corpus"
TOKENS = (hostile_repo.OUTSIDE_TOKEN, hostile_repo.HOME_TOKEN, hostile_repo.SYSTEM_TOKEN)


def lines(name: str) -> list[str]:
    text = (CORPUS / name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.strip() and not line.startswith("#")]


READ_ONLY = lines("git_read_only.txt")
REFUSED = lines("git_refused.txt")


def _inherit(h: hostile_repo.Hostile, tmp: Path) -> Iterator[None]:
    """planview inherits the hostile HOME and system config, as a user's shell would hand them over."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("GIT_")]:
            patch.delenv(name)
        for name, value in h.env.items():
            patch.setenv(name, value)
        patch.setenv("PLANVIEW_HOME", str(tmp / "planview-home"))  # planview's own state stays out
        yield


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[hostile_repo.Hostile]:
    tmp = tmp_path_factory.mktemp("hostile")
    h = hostile_repo.build(tmp)
    yield from (h for _ in _inherit(h, tmp))


@pytest.fixture(scope="module")
def contained(tmp_path_factory: pytest.TempPathFactory) -> Iterator[hostile_repo.Hostile]:
    """The hostile rig without its include.path to an outside file."""
    tmp = tmp_path_factory.mktemp("contained")
    h = hostile_repo.build(tmp)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", "config", "--unset", "include.path"], cwd=h.root, env=env, check=True)
    yield from (h for _ in _inherit(h, tmp))


@pytest.fixture(autouse=True)
def _lists_alone(request: pytest.FixtureRequest) -> Iterator[None]:
    if "contained" in request.fixturenames:
        yield
        return
    with sandbox_status.forced(sandbox_status.lists_only("these tests try the lists alone")):
        yield


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[hostile_repo.Hostile]:
    tmp = tmp_path_factory.mktemp("plain")
    h = hostile_repo.build(tmp, rigged=False)
    yield from (h for _ in _inherit(h, tmp))


def session(root: Path) -> Session:
    provider = ScriptedProvider(parse_script(json.dumps({"text": "x"})))
    return Session(project_root=root, provider=provider, plan_mode=True, persist=False)


async def run_corpus(h: hostile_repo.Hostile, commands: list[str]) -> dict[str, str]:
    s = session(h.root)
    problems: list[str] = []
    outputs: dict[str, str] = {}
    for command in commands:
        before = h.snapshot()
        result = (await s.run_tool_call(ModelToolCall("c1", "bash", {"command": command}))).result
        outputs[command] = result.text
        assert not result.text.startswith("Refused"), (command, result.text)
        after = h.snapshot()
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        fired = h.fired()
        leaked = [token for token in TOKENS if token in result.text]
        if fired or changed or leaked:
            problems.append(f"{command}: fired={sorted(fired)} changed={changed[:4]} leaked={leaked}")
            for mark in h.marks.iterdir():
                mark.unlink()
    assert not problems, "\n".join(problems)
    return outputs


def test_the_corpora_are_large_and_disjoint() -> None:
    assert len(READ_ONLY) >= 180 and len(REFUSED) >= 100
    assert len(set(READ_ONLY)) == len(READ_ONLY) and len(set(REFUSED)) == len(REFUSED)
    assert not set(READ_ONLY) & set(REFUSED)


def test_the_gate_allows_the_read_only_corpus(hostile: hostile_repo.Hostile) -> None:
    refused = {c: r for c in READ_ONLY if not (r := check_git_command(c, hostile.root).reason) == ""}
    assert not refused, refused


def test_the_gate_refuses_the_hostile_corpus(hostile: hostile_repo.Hostile) -> None:
    allowed = [c for c in REFUSED if check_git_command(c, hostile.root).allowed]
    assert not allowed, allowed


def test_gate_check_decides_both_corpora_in_the_project(hostile: hostile_repo.Hostile) -> None:
    """`planview gate check --mode plan` run in the repository: refuses the hostile corpus, allows the other."""
    commands = REFUSED + READ_ONLY
    calls = "".join(json.dumps({"tool": "bash", "input": {"command": c}}) + "\n" for c in commands)
    done = subprocess.run(
        [sys.executable, "-m", "planview", "gate", "check", "--mode", "plan"],
        input=calls,
        capture_output=True,
        text=True,
        cwd=hostile.root,
        timeout=60,
    )
    answers = [json.loads(line)["decision"] for line in done.stdout.splitlines()]
    assert len(answers) == len(commands)
    wrong = [c for c, a in zip(commands, answers, strict=True) if a != ("deny" if c in REFUSED else "allow")]
    assert not wrong, wrong


async def test_plan_mode_runs_the_corpus_in_the_hostile_repository(hostile: hostile_repo.Hostile) -> None:
    outputs = await run_corpus(hostile, READ_ONLY)
    # git still answers: the work tree's changes, history, the submodule's new state
    assert "b.bin" in outputs["git status"] and "d.bin" not in outputs["git status"]
    assert "+two" in outputs["git diff"] and "+more" in outputs["git diff"]
    assert "signed commit" in outputs["git log --oneline"]
    assert "Subproject commit" in outputs["git diff --submodule=short HEAD~4"]
    assert "a note" in outputs["git notes show HEAD"]
    assert "refs/heads/main" in outputs["git symbolic-ref HEAD"]
    # config reads show the project's config and nothing from HOME, the system or an include
    listing = outputs["git config --local --list"]
    assert "user.email=t@example.com" in listing and "included.token" not in listing
    # range-diff is refused at run time here: the repository names textconv programs
    assert "range-diff is refused in this repository" in outputs["git range-diff side...main"]


async def test_plan_mode_runs_the_corpus_in_a_plain_repository(plain: hostile_repo.Hostile) -> None:
    outputs = await run_corpus(plain, READ_ONLY)
    assert "a.txt" in outputs["git status"]


async def test_plan_mode_runs_the_corpus_in_the_sandbox(contained: hostile_repo.Hostile) -> None:
    """The same corpus through plan-mode bash with the kernel sandbox as this machine has it."""
    outputs = await run_corpus(contained, READ_ONLY)
    assert "b.bin" in outputs["git status"] and "d.bin" not in outputs["git status"]
    assert "+two" in outputs["git diff"] and "+more" in outputs["git diff"]
    assert "signed commit" in outputs["git log --oneline"]
    assert "a note" in outputs["git notes show HEAD"]


async def test_the_sandbox_refuses_git_when_the_config_includes_an_outside_file(
    contained: hostile_repo.Hostile,
) -> None:
    if not sandbox_status.current().enforcing:
        pytest.skip("no kernel sandbox here: the lists alone decide (the tests above)")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(
        ["git", "config", "include.path", str(contained.outside / "included.cfg")],
        cwd=contained.root,
        env=env,
        check=True,
    )
    try:
        s = session(contained.root)
        result = (await s.run_tool_call(ModelToolCall("c1", "bash", {"command": "git status"}))).result
        assert result.text.startswith("Refused") and "include.path" in result.text, result.text
        ls = (await s.run_tool_call(ModelToolCall("c2", "bash", {"command": "ls"}))).result
        assert "a.txt" in ls.text, ls.text
    finally:
        subprocess.run(["git", "config", "--unset", "include.path"], cwd=contained.root, env=env, check=True)


def test_planview_run_plan_in_the_hostile_repository(contained: hostile_repo.Hostile, tmp_path: Path) -> None:
    """The whole CLI path: `planview run --plan --script` (scripted model) calling bash with a slice of
    the corpus; its JSON transcript holds no outside text, and nothing ran or changed (a planview
    process of its own: the sandbox as this machine has it)."""
    hostile = contained
    commands = READ_ONLY[::6]
    turn = {"tool_calls": [{"name": "bash", "arguments": {"command": c}} for c in commands]}
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps(turn) + "\n" + json.dumps({"text": "done"}) + "\n")
    before = hostile.snapshot()
    done = subprocess.run(
        [sys.executable, "-m", "planview", "run", "--plan", "--script", str(script), "--json", "look around"],
        capture_output=True,
        text=True,
        cwd=hostile.root,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    finished = [e for e in events if e["type"] == "tool_finished"]
    assert len(finished) == len(commands)
    assert not [e for e in finished if e.get("refused")], [
        e["result"][:120] for e in finished if e.get("refused")
    ]
    assert not [t for t in TOKENS if t in done.stdout + done.stderr]
    assert hostile.fired() == set()
    after = hostile.snapshot()
    assert sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k)) == []


def test_the_rig_is_real(hostile: hostile_repo.Hostile) -> None:
    """Without the plan environment the same git runs the repository's programs (runs last: it writes)."""
    env = {**hostile.env, "GIT_PAGER": "", "PAGER": ""}
    commands = (
        ["diff", "--", "a.txt"],
        ["diff", "--", "c.dat"],
        ["log", "--show-signature", "-1"],
        ["status"],
        ["blame", "b.bin"],
    )
    for command in commands:
        subprocess.run(["git", *command], cwd=hostile.root, env=env, capture_output=True, timeout=60)
    fired = hostile.fired()
    assert {"diff_external", "diff_drv_command", "core_fsmonitor", "gpg_openpgp_program"} <= fired, fired
    assert any(name.startswith("filter_flt") for name in fired), fired
