"""How plan-mode bash runs git: only git runs, nothing is written, only the project is read.

The gate lets only read-only git command shapes through (planview.gate.git_shell), but git itself
starts programs named in its config, refreshes the index, and reads files the config points at.
Plan mode neutralises those with mechanisms git guarantees, in this order of preference:

1. The environment (`plan_env`). Every inherited GIT_* variable is dropped (GIT_DIR, GIT_INDEX_FILE,
   GIT_TRACE=<file>, GIT_EXTERNAL_DIFF, GIT_SSH_COMMAND, GIT_CONFIG_PARAMETERS, ...: none of them is
   the repository's, and several run programs or write files). Then `GIT_CONFIG_NOSYSTEM`,
   `GIT_CONFIG_SYSTEM=/dev/null`, `GIT_CONFIG_GLOBAL=/dev/null` and `GIT_ATTR_NOSYSTEM`: the user's
   and the system's config are not part of the project, so plan-mode git never reads them (their
   credential helpers, tokens and programs included). `GIT_OPTIONAL_LOCKS=0`, no pager, no prompts,
   `GIT_WORK_TREE=<project>` so a `core.worktree` in the repository cannot point git elsewhere, and
   `GIT_CEILING_DIRECTORIES` so git never takes a repository above the project for the project's.
   PATH keeps only absolute folders outside the project (`search_path`): an empty or relative entry
   is the current folder, and plan-mode bash runs in the project, so `bin:$PATH` ran a repository's
   own `bin/git` instead of git.
2. Command-line config (`PLAN_CONFIG`, as GIT_CONFIG_COUNT/KEY/VALUE). It outranks every config
   file, and git hands it on to every git it starts, submodules included. It switches off fsmonitor,
   hooks, pagers, credential helpers, transports (`protocol.allow=never`), signature display,
   submodule recursion (`diff.submodule=short`, `diff.ignoreSubmodules=dirty`: no git runs inside a
   submodule), index refreshes (`diff.autoRefreshIndex=false`), and points every config-named file
   (excludes, attributes, mailmap, order file) at /dev/null. Filter drivers have no global off
   switch, so each one the repository's config defines gets an empty command (`filter_overrides`).
3. Options (`GIT_FUNCTION`, a bash function named git): `--no-ext-diff --no-textconv` for the diff
   family (no config value switches diff.external or textconv off), `--no-ignore-revs-file` for
   blame (an empty blame.ignoreRevsFile does not clear the list), `--no-includes` for config (an
   include.path may name a file outside the project), `--ignore-submodules=dirty` for the plumbing
   diffs (which do not read diff.ignoreSubmodules). The gate refuses the options that would turn
   these back on.

What cannot be neutralised is refused by the gate instead: --remerge-diff (runs merge drivers and
writes objects), signature display (--show-signature, %G formats, tag -v: they run gpg),
describe --dirty/--broken (rewrites the index), --recurse-submodules, --submodule=diff.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from planview.gate.git_formats import runs_gpg

PLAN_ENV: Mapping[str, str] = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_SYSTEM": os.devnull,
    "GIT_CONFIG_GLOBAL": os.devnull,  # ~/.gitconfig and $XDG_CONFIG_HOME/git/config are not read
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_OPTIONAL_LOCKS": "0",  # status does not refresh (write) the index
    "GIT_PAGER": "cat",  # outranks core.pager and pager.<cmd>
    "PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "",  # empty: outranks core.askPass and SSH_ASKPASS, and runs nothing
    "GIT_EDITOR": ":",
    "GIT_SEQUENCE_EDITOR": ":",
    "GIT_PROTOCOL_FROM_USER": "0",
    "GIT_ALLOW_PROTOCOL": "",  # no transport at all (protocol.allow=never says the same)
}
# Other inherited variables that start programs on git's behalf.
DROPPED_ENV = ("SSH_ASKPASS", "DISPLAY_ASKPASS")

PLAN_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value resets the helper list
    ("protocol.allow", "never"),  # no transport, so no ssh command, proxy or remote helper
    ("core.excludesFile", os.devnull),  # the repository's may name a file outside the project
    ("core.attributesFile", os.devnull),
    ("mailmap.file", os.devnull),
    ("diff.orderFile", os.devnull),
    ("log.showSignature", "false"),  # signature display runs gpg
    ("format.pretty", "medium"),  # a repository's default format may ask for %G (gpg)
    ("log.diffMerges", "separate"),  # -m must not mean --remerge-diff (merge drivers)
    ("gpg.program", "gpg"),  # git's defaults, never a program the repository chose
    ("gpg.openpgp.program", "gpg"),
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.x509.program", "gpgsm"),
    ("diff.submodule", "short"),  # =diff runs a git inside the submodule, with its config
    ("diff.ignoreSubmodules", "dirty"),  # no `git status` inside submodules
    ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"),
    ("diff.autoRefreshIndex", "false"),  # git diff would rewrite .git/index when stat data is stale
    ("core.untrackedCache", "keep"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("grep.fallbackToNoIndex", "false"),
    ("color.ui", "false"),  # escape sequences are noise for a model
)

_DIFF_OFF = "--no-ext-diff --no-textconv"
# Set when the repository's config names textconv drivers: range-diff's inner `git log -p` runs
# them and takes no option that stops it, so the git function refuses range-diff there.
TEXTCONV_FLAG = "PLANVIEW_GIT_TEXTCONV"
GIT_FUNCTION = f"""git() {{
  local -a pre=() extra=()
  local n=1
  while [[ $# -gt 0 && $1 == -* ]]; do pre+=("$1"); shift; done
  case ${{1-}} in
    diff|log|show|whatchanged) extra=({_DIFF_OFF}) ;;
    diff-files|diff-index) extra=(--no-ext-diff --ignore-submodules=dirty) ;;
    blame) extra=(--no-textconv --no-ignore-revs-file) ;;
    config) extra=(--no-includes) ;;
    reflog)
      case ${{2-}} in
        show) n=2; extra=({_DIFF_OFF}) ;;
        expire|delete|drop|write|exists) ;;
        *) extra=({_DIFF_OFF}) ;;
      esac ;;
    stash) case ${{2-}} in list|show) n=2; extra=({_DIFF_OFF}) ;; esac ;;
    range-diff)
      if [[ -n ${{{TEXTCONV_FLAG}-}} ]]; then
        echo "planview: git range-diff is refused in this repository: its config names textconv" \
          "programs, which range-diff's inner git log would run; compare the ranges with" \
          "git log -p <range> instead" >&2
        return 2
      fi ;;
  esac
  if [[ $# -eq 0 ]]; then command git "${{pre[@]}}"; return; fi
  command git "${{pre[@]}}" "${{@:1:n}}" "${{extra[@]}}" "${{@:n+1}}"
}}
"""

_DRIVER_KEYS = r"^(filter\..+\.(clean|smudge|process)|diff\..+\.textconv)$"
_LOOKUP_TIMEOUT = 10.0


def plan_script(command: str) -> str:
    """The bash script plan mode runs: the `git` function, then the (gate-checked) command."""
    return GIT_FUNCTION + command


def base_env(project_root: Path, inherited: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment without the filter overrides: inherited minus GIT_*, plus PLAN_ENV and PLAN_CONFIG."""
    env = {
        name: value
        for name, value in (os.environ if inherited is None else inherited).items()
        if not name.startswith("GIT_") and name not in DROPPED_ENV
    }
    env.update(PLAN_ENV)
    env["PATH"] = search_path(env.get("PATH"), project_root)
    if os.path.lexists(Path(project_root) / ".git"):
        env["GIT_WORK_TREE"] = str(project_root)  # outranks the repository's core.worktree
    _put_config(env, PLAN_CONFIG)
    return env


def search_path(value: str | None, project_root: Path) -> str:
    """PATH with only absolute folders that lie outside the project, in their order (os.defpath
    when none is left): the programs plan mode runs are the system's, never ones the project ships."""
    inside = os.path.realpath(project_root).rstrip(os.sep) + os.sep
    kept: list[str] = []
    for entry in (value or "").split(os.pathsep):
        if not os.path.isabs(entry) or entry in kept:
            continue
        real = os.path.realpath(entry).rstrip(os.sep) + os.sep
        if not real.startswith(inside):
            kept.append(entry)
    return os.pathsep.join(kept) or os.defpath


def _put_config(env: dict[str, str], pairs: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> None:
    start = int(env.get("GIT_CONFIG_COUNT", "0"))
    for offset, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{start + offset}"] = key
        env[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    env["GIT_CONFIG_COUNT"] = str(start + len(pairs))


def filter_overrides(drivers: list[str]) -> list[tuple[str, str]]:
    """Empty commands for each filter driver: git skips an empty filter (and required = false lets it)."""
    pairs: list[tuple[str, str]] = []
    for driver in drivers:
        pairs += [(f"filter.{driver}.{key}", "") for key in ("clean", "smudge", "process")]
        pairs.append((f"filter.{driver}.required", "false"))
    return pairs


async def plan_env(project_root: Path, inherited: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for plan-mode bash in `project_root` (inherits `inherited`, default os.environ)."""
    env = _scoped_env(project_root, inherited)
    return _with_drivers(env, await _git_output(project_root, env, _DRIVER_LOOKUP))


def plan_env_now(project_root: Path, inherited: Mapping[str, str] | None = None) -> dict[str, str]:
    """plan_env without an event loop (the Claude Code hook answers in a short-lived process)."""
    import subprocess

    env = _scoped_env(project_root, inherited)
    try:
        done = subprocess.run(
            _DRIVER_LOOKUP,
            cwd=project_root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_LOOKUP_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired):
        listing = None
    else:
        listing = _lookup_text(done.returncode, done.stdout)
    return _with_drivers(env, listing)


def _scoped_env(project_root: Path, inherited: Mapping[str, str] | None) -> dict[str, str]:
    env = base_env(project_root, inherited)
    # Discovery stops at the project: a repository in a folder above it is not the project's.
    env["GIT_CEILING_DIRECTORIES"] = str(Path(project_root).absolute().parent)
    return env


def _with_drivers(env: dict[str, str], listing: str | None) -> dict[str, str]:
    filters, textconv = parse_drivers(listing)
    _put_config(env, filter_overrides(filters))
    if textconv:
        env[TEXTCONV_FLAG] = "1"
    return env


async def repo_filter_drivers(project_root: Path, env: Mapping[str, str]) -> list[str]:
    """Names of the filter drivers the repository's config defines (includes followed)."""
    return (await repo_drivers(project_root, env))[0]


# Run with the plan environment, so only the repository's own files (and includes they name) are
# read; the user's and the system's config are not in scope at all. One git process.
_DRIVER_LOOKUP = ["git", "config", "--null", "--name-only", "--includes", "--get-regexp", _DRIVER_KEYS]


async def repo_drivers(project_root: Path, env: Mapping[str, str]) -> tuple[list[str], bool]:
    """(filter driver names, whether any textconv driver is named) from the repository's config."""
    return parse_drivers(await _git_output(project_root, env, _DRIVER_LOOKUP))


# The repository's own config keys that make a read-only git command, run without planview's
# neutralisation, start a program (or read another folder: core.worktree; or run git inside a
# submodule under that submodule's config): the ones plan mode switches off for its own bash.
# Keys that only network, editing or help commands use (editor, credential, ssh, browser) are left out.
_PROGRAM_KEYS = (
    r"^(core\.(fsmonitor|pager|worktree|hookspath)|pager\..+|diff\.external|diff\..+\.(command|textconv)"
    r"|merge\..+\.driver|filter\..+\.(clean|smudge|process)|gpg\.(.+\.)?program"
    r"|log\.showsignature|format\.pretty|pretty\..+|diff\.submodule|submodule\.recurse"
    r"|status\.submodulesummary)$"
)
_FALSE = frozenset({"false", "no", "off", "0"})
# The one hook a read-only command runs: git status refreshing the index (fsmonitor-watchman needs
# core.fsmonitor, named above); commit, push and checkout hooks never run for them.
_READ_HOOKS = ("post-index-change",)


def _starts_a_program(key: str, value: str | None) -> bool:
    if key in ("log.showsignature", "submodule.recurse", "status.submodulesummary"):
        return value is None or value.strip().lower() not in _FALSE
    if key == "format.pretty" or key.startswith("pretty."):
        return value is not None and runs_gpg(value)  # signature placeholders run gpg
    if key == "diff.submodule":
        return value is not None and value.strip().lower() == "diff"
    return key != "core.hookspath"  # judged by the hook it would run


def repository_programs(project_root: Path) -> tuple[str, ...]:
    """What the repository itself names that a read-only git command run without planview's
    neutralisation would start: its config keys (includes followed; the user's and the system's
    config are not read) and the index-refresh hook. For a shell planview does not run (an ACP
    agent's): there, read-only git is only read-only when this is empty. A lookup git cannot
    answer counts as a program (the caller refuses)."""
    import subprocess

    from planview.gate.git_store import common_dir

    # The plan environment without its own command-line config (which names core.pager and more).
    env = {k: v for k, v in _scoped_env(project_root, None).items() if not k.startswith("GIT_CONFIG_")}
    env |= {
        name: PLAN_ENV[name] for name in ("GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL")
    }
    try:
        done = subprocess.run(
            ["git", "config", "--null", "--includes", "--get-regexp", _PROGRAM_KEYS],
            cwd=project_root,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_LOOKUP_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return ("(git config could not be read)",)
    listing = _lookup_text(done.returncode, done.stdout)
    if listing is None:
        return ("(git config could not be read)",)
    found: list[str] = []
    hooks_path: str | None = None
    for entry in listing.split("\0"):
        if not entry:
            continue
        key, newline, value = entry.partition("\n")
        if key == "core.hookspath":
            hooks_path = value
        if _starts_a_program(key, value if newline else None):
            found.append(key)
    root = Path(project_root).absolute()
    common = common_dir(os.fspath(root))
    if hooks_path:
        hooks: Path | None = root / Path(hooks_path).expanduser()  # relative to the work tree
    else:
        hooks = Path(common) / "hooks" if common is not None else None
    for name in _READ_HOOKS if hooks is not None else ():
        hook = hooks / name  # type: ignore[operator]
        if hook.is_file() and os.access(hook, os.X_OK):
            found.append(f"core.hooksPath {name} hook" if hooks_path else f"hooks/{name}")
    return tuple(dict.fromkeys(found))


def parse_drivers(listing: str | None) -> tuple[list[str], bool]:
    drivers: list[str] = []
    textconv = False
    for name in (listing or "").split("\0"):
        if not name:
            continue
        if name.startswith("diff."):
            textconv = True
            continue
        driver = name.split(".", 1)[1].rsplit(".", 1)[0]  # the subsection may itself contain dots
        if driver not in drivers:
            drivers.append(driver)
    return drivers, textconv


def _lookup_text(returncode: int | None, out: bytes) -> str | None:
    """The lookup's output: an empty string when nothing matched (exit 1), None when git could not answer."""
    if returncode == 1:
        return ""
    if returncode != 0:
        return None
    return out.decode("utf-8", errors="surrogateescape")


async def _git_output(cwd: Path, env: Mapping[str, str], argv: list[str]) -> str | None:
    """stdout of a git command; "" when nothing matched (exit 1); None when git could not answer."""
    import asyncio  # not at module level: plan_env_now (the Claude hook) runs without an event loop

    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return None  # no git: the command itself will say so
    try:
        out, _ = await asyncio.wait_for(proc.communicate(), _LOOKUP_TIMEOUT)
    except TimeoutError:
        return None
    finally:
        if proc.returncode is None:  # timed out or cancelled
            proc.kill()
    return _lookup_text(proc.returncode, out)
