"""Sign an approval for the team: what the one approval flow (planview.approval.flow) calls.

The flow has already refused a session's tool process; this builds the payload (see `record`),
has ssh-keygen sign it with the person's key, and appends the record to the git note on the base
commit. The key is `[approval] signing_key`, else git's `user.signingkey` when `gpg.format` is ssh.
"""

from __future__ import annotations

import hashlib
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from planview.team import git, notes, sshsig
from planview.team.errors import PolicyError, SigningError, TeamError
from planview.team.policy import SIGNERS_PATH, TEAM_FILES, parse_signers, policy_digest
from planview.team.record import Payload, SignedRecord, parse_line
from planview.team.scope import plan_scope

# What the refusal inside an agent's tool process adds: the marker is a guard rail an agent can unset.
AGENT_GUARD = (
    "signing refuses inside the agent's tools, but an agent that runs as your user can read an unprotected "
    "key: a passphrase on the key, or a hardware key or ssh-agent confirmation (ssh-add -c), is what stops it"
)


@dataclass(frozen=True)
class SignedApproval:
    """A signed record as stored (or found already stored), and any warning for the person."""

    record: SignedRecord
    new: bool
    warning: str | None = None


def signing_key_path(signing_key: str | None, root: Path, scratch: Path) -> Path:
    if signing_key:
        return Path(signing_key).expanduser()
    configured = git.config_get(root, "user.signingkey")
    if configured and git.config_get(root, "gpg.format") == "ssh":
        if configured.startswith(("key::", "ssh-", "ecdsa-", "sk-")):
            return sshsig.literal_key_file(configured, scratch)
        return Path(configured).expanduser()
    raise SigningError(
        'no SSH signing key: set `signing_key = "~/.ssh/id_ed25519"` under [approval] in '
        ".planview/config.toml, or `git config gpg.format ssh` and `git config user.signingkey ~/.ssh/id_ed25519`"
    )


def _principal(root: Path, base: str, public: str) -> tuple[str, str | None]:
    """The name allowed_signers gives `public` (working tree first, then the base), or git's email + a warning."""
    sources = []
    try:
        sources.append((root / SIGNERS_PATH).read_bytes())
    except OSError:
        pass
    at_base = git.file_at(root, base, SIGNERS_PATH)
    if at_base is not None:
        sources.append(at_base)
    for data in sources:
        try:
            signers = parse_signers(data)
        except PolicyError:
            continue
        for signer in signers:
            if signer.key == public and signer.principals:
                return signer.principals[0], None
    email = git.config_get(root, "user.email")
    if not email:
        raise SigningError(
            f"your key is not in {SIGNERS_PATH} and git has no user.email to name you; ask a team member to "
            "add your key (planview team init prints the line)"
        )
    return (
        email,
        f"your key is not in {SIGNERS_PATH}: the record names you {email}, and verify will not count it until a member adds your key",
    )


def _existing(root: Path, base: str, payload: Payload) -> SignedRecord | None:
    for line in notes.note_lines(root):
        if line.commit != base:
            continue
        try:
            found = parse_line(line.text)
        except ValueError:
            continue
        old = found.payload
        if (old.principal, old.plan_sha256, old.scope, old.policy, old.channel) == (
            payload.principal,
            payload.plan_sha256,
            payload.scope,
            payload.policy,
            payload.channel,
        ):
            return found
    return None


def preflight(project_root: Path | None, signing_key: str | None) -> None:
    """Raise what signing would, before anything is recorded: no git repository, no commit, no key."""
    if project_root is None:
        raise TeamError("signing needs a git repository (an approval is bound to its HEAD); run it in one")
    root = git.repo_root(project_root)
    if git.head_commit(root) is None:
        raise TeamError("the repository has no commit yet; commit first (an approval is bound to HEAD)")
    with tempfile.TemporaryDirectory(prefix="planview-key-") as scratch:
        key = signing_key_path(signing_key, root, Path(scratch))
        if not key.exists():
            raise SigningError(
                f"the signing key {key} does not exist; name an existing key ([approval] signing_key)"
            )


def sign_approval(
    project_root: Path,
    plan_key: str,
    data: bytes,
    text: str,
    *,
    channel: str,
    signing_key: str | None = None,
) -> SignedApproval:
    """Sign the approval of the plan whose bytes are `data` at HEAD, and store it as a note line."""
    from planview.plan.canonical import canonical_sha256

    root = git.repo_root(project_root)
    base = git.head_commit(root)
    if base is None:
        raise TeamError("the repository has no commit yet; commit first (an approval is bound to HEAD)")
    scope = plan_scope(text)
    policy = policy_digest({name: git.file_at(root, base, name) for name in TEAM_FILES})
    with tempfile.TemporaryDirectory(prefix="planview-key-") as scratch:
        key = signing_key_path(signing_key, root, Path(scratch))
        public = sshsig.public_key_text(key)
        principal, warning = _principal(root, base, public)
        payload = Payload(
            plan_canonical_sha256=canonical_sha256(text),
            plan_sha256=hashlib.sha256(data).hexdigest(),
            plan_path=plan_key,
            base=base,
            scope=scope,
            principal=principal,
            at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            channel=channel,
            policy=policy,
        )
        existing = _existing(root, base, payload)
        if existing is not None:
            return SignedApproval(existing, False, warning)
        message = payload.to_json()
        signature = sshsig.sign(message.encode("utf-8"), key)
    record = SignedRecord(message, signature, data.decode("utf-8"), payload)
    notes.append_record(root, base, record.to_line())
    return SignedApproval(record, True, warning)
