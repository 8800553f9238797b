"""Sealed plan artifacts: `<home>/artifacts/<uuid>.md`, the exact approved bytes, read-only.

The uuid is derived from the plan's canonical hash (uuid5), so sealing the same canonical content
again - a retry after a crash, a re-approval, a copy of the plan - finds the same artifact instead of
making a second one. The first sealed bytes are kept; the artifact's sha256 and size describe them.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from dataclasses import dataclass
from pathlib import Path

from planview.approval.errors import ApprovalError

# Fixed namespace: artifact ids are stable across machines and versions.
ARTIFACT_NAMESPACE = uuid.UUID("6a1c1f7e-4f3b-5d52-9c0e-8e2b7a1d9f40")
_ARTIFACT_RE = re.compile(r"^artifact:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")


@dataclass(frozen=True)
class SealedArtifact:
    """Where a plan's approved bytes are sealed, their hashes, and whether this call wrote them."""

    artifact: str  # "artifact:<uuid>"
    path: Path
    sha256: str  # of the sealed bytes
    bytes: int
    canonical_sha256: str
    created: bool  # False when the artifact already existed (idempotent retry)


def artifact_for(canonical_sha256: str) -> str:
    return f"artifact:{uuid.uuid5(ARTIFACT_NAMESPACE, canonical_sha256)}"


def artifact_path(artifacts_dir: Path, artifact: str) -> Path:
    match = _ARTIFACT_RE.match(artifact)
    if match is None:
        raise ApprovalError(f"{artifact!r} is not an artifact id; expected artifact:<uuid>")
    return artifacts_dir / f"{match.group(1)}.md"


def packet_path(artifacts_dir: Path, artifact: str) -> Path:
    return artifact_path(artifacts_dir, artifact).with_suffix(".packet.json")


def _canonical_of(data: bytes, where: Path) -> str:
    from planview.plan.canonical import canonical_sha256

    try:
        return canonical_sha256(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ApprovalError(f"{where} is not UTF-8 text") from exc


def read_artifact(artifacts_dir: Path, artifact: str) -> bytes:
    from planview.fileguard import NotAFileError, explain, read_regular

    path = artifact_path(artifacts_dir, artifact)
    try:
        return read_regular(path)  # a FIFO or device in its place is refused, never read
    except FileNotFoundError as exc:
        raise ApprovalError(
            f"sealed artifact {path} is missing; the approval cannot be checked - approve the plan again"
        ) from exc
    except NotAFileError as exc:
        raise ApprovalError(str(exc)) from None
    except OSError as exc:
        raise ApprovalError(explain(exc, f"read the sealed artifact {path}")) from exc


def seal(artifacts_dir: Path, data: bytes, canonical_sha256: str) -> SealedArtifact:
    """Seal `data` (whose canonical hash the caller computed) unless its artifact already exists."""
    from planview.atomic import atomic_write

    artifact = artifact_for(canonical_sha256)
    path = artifact_path(artifacts_dir, artifact)
    created = False
    if path.exists():
        data = read_artifact(artifacts_dir, artifact)
        if _canonical_of(data, path) != canonical_sha256:
            raise ApprovalError(
                f"sealed artifact {path} was modified after sealing; it no longer matches its id - "
                "move it aside (keep it as evidence) and approve again"
            )
    else:
        from planview.atomic import sweep_folder
        from planview.fileguard import explain

        try:
            artifacts_dir.mkdir(parents=True, exist_ok=True)
            sweep_folder(artifacts_dir)  # what approvals killed mid-seal left
            atomic_write(path, data, mode=0o444)
        except OSError as exc:
            from planview.home import blocking_file

            blocker = blocking_file(artifacts_dir)
            if blocker is not None:  # mkdir said only "File exists"
                raise ApprovalError(
                    f"cannot seal the plan: {blocker} is a file where planview keeps the sealed plans "
                    "(a folder); move it aside, then approve again; nothing was approved"
                ) from exc
            raise ApprovalError(explain(exc, f"seal the plan as {path}") + "; nothing was approved") from exc
        created = True
    return SealedArtifact(
        artifact=artifact,
        path=path,
        sha256=hashlib.sha256(data).hexdigest(),
        bytes=len(data),
        canonical_sha256=canonical_sha256,
        created=created,
    )
