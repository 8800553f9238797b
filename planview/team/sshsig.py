"""Signing and verifying with `ssh-keygen -Y` (namespace planview-approval-v1); nothing else holds keys.

The private key never passes through planview: ssh-keygen reads it (asking for its passphrase on the
terminal) or asks ssh-agent to sign when the key given is a public key whose private half the agent
holds (a hardware key then asks for a touch).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from planview.team.errors import SigningError, TeamError
from planview.team.policy import NAMESPACE

SIGN_TIMEOUT = 300  # a person typing a passphrase or touching a key
VERIFY_TIMEOUT = 30


def _ssh_keygen(args: list[str], data: bytes, timeout: int) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["ssh-keygen", *args], input=data, capture_output=True, timeout=timeout, check=False
        )
    except FileNotFoundError as exc:
        raise TeamError(
            "ssh-keygen is not installed; install OpenSSH's client (apt install openssh-client)"
        ) from exc
    except subprocess.TimeoutExpired as exc:
        raise SigningError(f"ssh-keygen gave no answer within {timeout} s") from exc


def sign(message: bytes, key: Path) -> str:
    """The armored SSH signature of `message` by `key` (a private key file, or a public key in ssh-agent)."""
    done = _ssh_keygen(["-q", "-Y", "sign", "-f", str(key), "-n", NAMESPACE], message, SIGN_TIMEOUT)
    signature = done.stdout.decode("ascii", "replace")
    if done.returncode != 0 or "BEGIN SSH SIGNATURE" not in signature:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SigningError(
            f"ssh-keygen could not sign with {key}: {said[-1] if said else 'no signature'}; check the key "
            "file, its passphrase, or that ssh-agent holds it"
        )
    return signature.strip() + "\n"


def _with_files(signers: bytes, signature: str) -> tuple[tempfile.TemporaryDirectory[str], Path, Path]:
    """A private folder holding the signers file and the signature (ssh-keygen reads both by path)."""
    folder = tempfile.TemporaryDirectory(prefix="planview-sig-")
    signers_path = Path(folder.name, "allowed_signers")
    sig_path = Path(folder.name, "message.sig")
    signers_path.write_bytes(signers)
    sig_path.write_text(signature, encoding="ascii", errors="replace")
    return folder, signers_path, sig_path


def verify(message: bytes, signature: str, principal: str, signers: bytes) -> str | None:
    """None when `signature` is `principal`'s over `message` under `signers`; else why not (one line)."""
    if not principal or principal.startswith("-") or any(ch in principal for ch in "*?!,\n"):
        return f"principal {principal!r} is not a plain name"
    folder, signers_path, sig_path = _with_files(signers, signature)
    with folder:
        args = [
            "-Y",
            "verify",
            "-f",
            str(signers_path),
            "-I",
            principal,
            "-n",
            NAMESPACE,
            "-s",
            str(sig_path),
        ]
        done = _ssh_keygen(args, message, VERIFY_TIMEOUT)
    if done.returncode == 0:
        return None
    said = (done.stderr or done.stdout).decode("utf-8", "replace").strip().splitlines()
    return f"signature does not verify for {principal} ({said[-1] if said else 'ssh-keygen said no'})"


def public_key_text(key: Path) -> str:
    """The public half of `key` (`TYPE BASE64`), from `key.pub` or `key` itself when it is public."""
    for candidate in (Path(f"{key}.pub"), key):
        try:
            words = candidate.read_text(encoding="utf-8", errors="replace").split()
        except OSError:
            continue
        if len(words) >= 2 and words[0].startswith(("ssh-", "ecdsa-", "sk-")):
            return f"{words[0]} {words[1]}"
    done = _ssh_keygen(["-y", "-f", str(key)], b"", SIGN_TIMEOUT)
    words = done.stdout.decode("ascii", "replace").split()
    if done.returncode != 0 or len(words) < 2:
        raise SigningError(f"cannot read a public key from {key}; name a key file ([approval] signing_key)")
    return f"{words[0]} {words[1]}"


def literal_key_file(text: str, folder: Path) -> Path:
    """git's `user.signingkey = key::ssh-ed25519 AAAA…` (a literal public key) written where ssh-keygen reads it."""
    path = folder / "signing_key.pub"
    path.write_text(text.removeprefix("key::").strip() + "\n", encoding="utf-8")
    os.chmod(path, 0o600)
    return path
