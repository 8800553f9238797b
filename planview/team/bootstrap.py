"""`planview team init`: write the tracked team policy with this person's key, and install the hook."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from planview.atomic import atomic_write
from planview.home import track_team_policy
from planview.team import git, hooks, sshsig
from planview.team.errors import PolicyError, TeamError
from planview.team.policy import NAMESPACE, POLICY_PATH, SIGNERS_PATH, parse_policy, parse_signers
from planview.team.signing import signing_key_path

SIGNERS_HEADER = """\
# planview team: who may sign plan approvals (ssh-keygen's allowed-signers format).
# One line per person: principal (their email), the namespace, their SSH public key.
# planview verify reads this file from the BASE commit of a pull request, never from its head:
# adding a key takes a change approved under the policy already on the target branch.
"""

DEFAULT_POLICY = """\
# planview team policy: which signed plan approvals a change needs (planview verify).
# Rules match repository paths; the LAST matching rule wins. A path no rule matches fails verify.
# Patterns: * within one path segment, ? one character, ** any number of segments. Nothing else.
#
# [groups]
# maintainers = ["ada@example.com", "grace@example.com"]

[[rules]]
paths = ["**"]
approvals = 1              # distinct people whose signed approvals are needed

[[rules]]
paths = [".planview/allowed_signers", ".planview/policy.toml"]
approvals = 1
exclude_author = true      # nobody approves their own change to who may approve
# group = "maintainers"    # only the group's members count
"""


@dataclass(frozen=True)
class InitReport:
    """What `planview team init` wrote and set up, for the explanation it prints."""

    root: Path
    principal: str
    key: Path
    signers_written: str  # "created", "added your key", "already lists your key"
    policy_written: str  # "created", "kept"
    hook: str
    gitignore_ok: bool


def signer_line(principal: str, public: str) -> str:
    return f'{principal} namespaces="{NAMESPACE}" {public}\n'


def init(
    start: Path, *, signing_key: str | None, principal: str | None, command: str, home: Path
) -> InitReport:
    root = git.repo_root(start)
    with tempfile.TemporaryDirectory(prefix="planview-key-") as scratch:
        key = signing_key_path(signing_key, root, Path(scratch))
        public = sshsig.public_key_text(key)
    who = principal or git.config_get(root, "user.email")
    if not who or any(ch in who for ch in ' ,*?!"') or who.startswith("-"):
        raise TeamError("cannot name you in allowed_signers: set git's user.email, or pass --principal EMAIL")
    signers_path, policy_path = root / SIGNERS_PATH, root / POLICY_PATH
    signers_path.parent.mkdir(parents=True, exist_ok=True)
    line = signer_line(who, public)
    if signers_path.exists():
        current = signers_path.read_bytes()
        signers = parse_signers(current) if current.strip(b"# \n\t") else ()
        if any(s.key == public for s in signers):
            signers_state = "already lists your key"
        else:
            text = current.decode("utf-8")
            atomic_write(signers_path, text + ("" if text.endswith("\n") or not text else "\n") + line)
            signers_state = "added your key"
    else:
        atomic_write(signers_path, SIGNERS_HEADER + line)
        signers_state = "created"
    if policy_path.exists():
        try:
            parse_policy(policy_path.read_bytes())
        except PolicyError as exc:
            raise TeamError(f"{exc}; fix it (or move it aside and run planview team init again)") from None
        policy_state = "kept"
    else:
        atomic_write(policy_path, DEFAULT_POLICY)
        policy_state = "created"
    gitignore_ok = track_team_policy(home)
    hook = hooks.install(root, command)
    return InitReport(root, who, key, signers_state, policy_state, hook, gitignore_ok)
