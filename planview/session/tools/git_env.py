"""How plan-mode bash runs git: without the programs a repository's configuration names.

The gate lets only read-only git commands through, but git itself starts programs named in its
config, and a read-only command that runs an arbitrary program is not read-only:

- core.fsmonitor: a hook run by every `git status` / `git diff`;
- filter.<driver>.clean / .process: status and diff re-hash changed files through them;
- diff.external, diff.<driver>.command and .textconv: diff, log -p, show, reflog -p, stash list -p,
  blame (textconv);
- hooks (post-index-change when status refreshes the index), core.pager / pager.<cmd>,
  gpg.program (log --show-signature, %G? formats, tag -v), credential helpers, askpass, transports.

So plan mode runs git with:
1. environment variables (`PLAN_ENV`): no optional index writes, no pager, no prompts;
2. command-line config (`PLAN_CONFIG`, passed as GIT_CONFIG_COUNT/KEY/VALUE, which outranks every
   config file) plus, for every filter driver the repository's own config (local or worktree,
   includes followed) defines, an empty command that git skips and `required = false`;
3. a `git` shell function (`GIT_FUNCTION`) adding `--no-ext-diff --no-textconv` to the diff family:
   no config value switches diff.external off (an empty one makes git try to run ""), and textconv
   drivers have no off switch but the option. The gate refuses `--ext-diff` and `--textconv`, so
   nothing later on the command line turns them back on.

Filter drivers of the user's own (global/system) config, such as git-lfs, keep working.
Not covered: filter drivers defined only in a submodule's config (status recurses into submodules).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path

PLAN_ENV: Mapping[str, str] = {
    "GIT_OPTIONAL_LOCKS": "0",  # status/diff do not refresh (write) the index
    "GIT_PAGER": "cat",  # outranks core.pager and pager.<cmd>
    "PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "",  # empty: outranks core.askPass and SSH_ASKPASS, and runs nothing
}
# Dropped from the inherited environment: they would outrank or undo the settings below.
DROPPED_ENV = ("GIT_CONFIG_PARAMETERS", "GIT_EXTERNAL_DIFF")

PLAN_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value resets the helper list
    ("protocol.allow", "never"),  # no transport (and so no ssh command or remote helper) at all
    ("log.showSignature", "false"),
    ("gpg.program", "gpg"),  # git's defaults, not a program the repository chose
    ("gpg.ssh.program", "ssh-keygen"),
    ("gpg.x509.program", "gpgsm"),
)

_DIFF_OFF = "--no-ext-diff --no-textconv"
GIT_FUNCTION = f"""git() {{
  local -a pre=() extra=()
  local n=1
  while [[ $# -gt 0 && $1 == -* ]]; do pre+=("$1"); shift; done
  case ${{1-}} in
    diff|log|show|whatchanged) extra=({_DIFF_OFF}) ;;
    blame) extra=(--no-textconv) ;;
    reflog)
      case ${{2-}} in
        show) n=2; extra=({_DIFF_OFF}) ;;
        expire|delete|drop|write|exists) ;;
        *) extra=({_DIFF_OFF}) ;;
      esac ;;
    stash) case ${{2-}} in list|show) n=2; extra=({_DIFF_OFF}) ;; esac ;;
  esac
  if [[ $# -eq 0 ]]; then command git "${{pre[@]}}"; return; fi
  command git "${{pre[@]}}" "${{@:1:n}}" "${{extra[@]}}" "${{@:n+1}}"
}}
"""

_FILTER_KEYS = r"^filter\..+\.(clean|smudge|process)$"
_REPO_SCOPES = frozenset({"local", "worktree"})
_LOOKUP_TIMEOUT = 10.0


def plan_script(command: str) -> str:
    """The bash script plan mode runs: the `git` function, then the (gate-checked) command."""
    return GIT_FUNCTION + command


async def plan_env(project_root: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for plan-mode bash in `project_root` (inherits `base`, default os.environ)."""
    env = dict(os.environ if base is None else base)
    for name in DROPPED_ENV:
        env.pop(name, None)
    env.update(PLAN_ENV)
    overrides = list(PLAN_CONFIG)
    for driver in await repo_filter_drivers(project_root, env):
        overrides += [(f"filter.{driver}.{key}", "") for key in ("clean", "smudge", "process")]
        overrides.append((f"filter.{driver}.required", "false"))
    try:
        start = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        start = 0
    start = max(start, 0)  # the user's own entries stay; ours come after them, so ours win
    for offset, (key, value) in enumerate(overrides):
        env[f"GIT_CONFIG_KEY_{start + offset}"] = key
        env[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    env["GIT_CONFIG_COUNT"] = str(start + len(overrides))
    return env


async def repo_filter_drivers(project_root: Path, env: Mapping[str, str]) -> list[str]:
    """Names of the filter drivers the repository's own config files define (includes followed)."""
    base = ["git", "config", "--null", "--name-only", "--includes"]
    listing = await _git_output(project_root, env, [*base, "--show-scope", "--get-regexp", _FILTER_KEYS])
    if listing is not None:
        fields = listing.split("\0")
        names = [
            name for scope, name in zip(fields[::2], fields[1::2], strict=False) if scope in _REPO_SCOPES
        ]
    else:  # a git without --show-scope (before 2.26): the local file is what matters most
        listing = await _git_output(project_root, env, [*base, "--local", "--get-regexp", _FILTER_KEYS])
        names = [name for name in (listing or "").split("\0") if name]
    drivers: list[str] = []
    for name in names:
        driver = name.split(".", 1)[1].rsplit(".", 1)[0]  # the subsection may itself contain dots
        if driver not in drivers:
            drivers.append(driver)
    return drivers


async def _git_output(cwd: Path, env: Mapping[str, str], argv: list[str]) -> str | None:
    """stdout of a git command; "" when nothing matched (exit 1); None when git could not answer."""
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
    if proc.returncode == 1:
        return ""
    if proc.returncode != 0:
        return None
    return out.decode("utf-8", errors="surrogateescape")
