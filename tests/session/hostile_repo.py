"""A hostile-but-ordinary repository, built with real git for the plan-mode shell tests.

Everything a repository (or the user's HOME, or the system config) can name as a program points at
a marker script that records that it ran; every file outside the project holds a token that must
never appear in plan-mode output. `build(tmp)` returns the layout; `snapshot()` fingerprints every
file under the project (`.git` included) and HOME so a test can assert that nothing changed.

Layout under tmp:
  bin/        marker scripts (each touches marks/<name>, then behaves like cat / succeeds)
  marks/      one empty file per program that ran
  outside/    files outside the project, each holding OUTSIDE_TOKEN
  home/       HOME: .gitconfig with a token-bearing http.extraHeader and programs, XDG git files
  system.cfg  stands in for /etc/gitconfig (passed as GIT_CONFIG_SYSTEM in the inherited env)
  project/    the repository: filter/diff/merge drivers in .gitattributes, a committed symlink
              ext -> ../outside, a signed-looking commit and tag, a conflicting merge, a submodule
              sub/ whose own config names its own programs, stale stat data everywhere
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

OUTSIDE_TOKEN = "OUTSIDE-7f3a-TOKEN"
HOME_TOKEN = "HOME-91c2-TOKEN"
SYSTEM_TOKEN = "SYSTEM-4d0e-TOKEN"

# A fake PGP signature: enough for git to hand the payload to gpg.program.
_SIG = "-----BEGIN PGP SIGNATURE-----\n\niQEzBAABCAAdFiEE\n=abcd\n-----END PGP SIGNATURE-----\n"


@dataclass(frozen=True)
class Hostile:
    tmp: Path
    root: Path  # the project (repository top level)
    home: Path
    marks: Path
    outside: Path
    env: dict[str, str]  # the environment planview itself would inherit (HOME, system config, PATH)

    def fired(self) -> set[str]:
        return {p.name for p in self.marks.iterdir()}

    def snapshot(self) -> dict[str, tuple[int, int, int, int]]:
        """(mode, inode, size, mtime_ns) of every file, folder and link under the project, HOME and outside.

        An atomic rewrite changes the inode, an in-place one the size or mtime: cheap enough to take
        around every command.
        """
        out: dict[str, tuple[int, int, int, int]] = {}
        for top in (self.root, self.home, self.outside):
            for folder, dirs, files in os.walk(top):
                for name in (folder, *(os.path.join(folder, n) for n in dirs + files)):
                    info = os.lstat(name)
                    out[name] = (info.st_mode, info.st_ino, info.st_size, info.st_mtime_ns)
        return out


def _marker(bin_dir: Path, marks: Path, name: str) -> str:
    script = bin_dir / name
    # Behaves like a filter/pager/textconv (copies stdin or its file argument) so git carries on.
    script.write_text(
        f'#!/bin/sh\ntouch "{marks / name}"\nif [ -f "$1" ]; then cat "$1"; else cat; fi\nexit 0\n'
    )
    script.chmod(0o755)
    return str(script)


PROGRAM_KEYS = (
    "core.fsmonitor",
    "core.pager",
    "core.editor",
    "core.askPass",
    "core.sshCommand",
    "core.gitProxy",
    "core.alternateRefsCommand",
    "sequence.editor",
    "diff.external",
    "diff.drv.command",
    "diff.drv.textconv",
    "diff.tool",
    "difftool.m.cmd",
    "merge.drv.driver",
    "filter.flt.clean",
    "filter.flt.smudge",
    "filter.flt.process",
    "gpg.program",
    "gpg.openpgp.program",
    "gpg.ssh.program",
    "gpg.x509.program",
    "gpg.ssh.defaultKeyCommand",
    "credential.helper",
    "pager.log",
    "pager.show",
    "pager.diff",
    "pager.status",
    "pager.grep",
    "pager.blame",
    "pager.branch",
    "pager.tag",
    "pager.config",
    "uploadpack.packObjectsHook",
    "web.browser",
    "man.viewer",
    "sendemail.smtpServer",
    "imap.tunnel",
)
HOOKS = (
    "post-index-change",
    "pre-commit",
    "post-checkout",
    "post-merge",
    "reference-transaction",
    "fsmonitor-watchman",
    "pre-auto-gc",
    "post-rewrite",
)


def _git(cwd: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True)
    return done.stdout


def _rig_config(repo: Path, env: dict[str, str], bin_dir: Path, marks: Path, prefix: str) -> None:
    for key in PROGRAM_KEYS:
        name = f"{prefix}{key.replace('.', '_')}"
        if prefix:  # the submodule: drivers named subdrv / subflt
            key = key.replace(".drv.", ".subdrv.").replace(".flt.", ".subflt.")
        _git(repo, env, "config", key, _marker(bin_dir, marks, name))
    _git(repo, env, "config", f"filter.{'subflt' if prefix else 'flt'}.required", "true")
    hooks = repo / ".git" / "hooks" if (repo / ".git").is_dir() else None
    if hooks is None:  # a submodule: its git dir lives under the superproject's .git/modules
        hooks = Path(_git(repo, env, "rev-parse", "--absolute-git-dir").strip()) / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in HOOKS:
        Path(_marker(bin_dir, marks, f"{prefix}hook_{hook}")).replace(hooks / hook)


def build(tmp: Path, *, rigged: bool = True) -> Hostile:
    bin_dir, marks, outside, home, root = (tmp / n for n in ("bin", "marks", "outside", "home", "project"))
    for folder in (bin_dir, marks, outside, home, root):
        folder.mkdir()
    (outside / "secret.cfg").write_text(f"[secret]\n\ttoken = {OUTSIDE_TOKEN}\n")
    (outside / "included.cfg").write_text(f"[included]\n\ttoken = {OUTSIDE_TOKEN}\n")
    (outside / "revs").write_text(f"{OUTSIDE_TOKEN}\n")
    (outside / "ignore").write_text(f"*.{OUTSIDE_TOKEN}\na.txt\n")
    (outside / "attributes").write_text(f"* {OUTSIDE_TOKEN}=yes\n")
    (outside / "mailmap").write_text(f"{OUTSIDE_TOKEN} <t@example.com>\n")
    (outside / "order").write_text(f"{OUTSIDE_TOKEN}\n")
    (outside / "notes.txt").write_text(f"{OUTSIDE_TOKEN}\n")
    # HOME: the user's global config holds a token and programs of its own; so does "system".
    (home / ".gitconfig").write_text(
        f"[http]\n\textraHeader = Authorization: Bearer {HOME_TOKEN}\n"
        f"[user]\n\tname = {HOME_TOKEN}\n\temail = home@example.com\n"
        f"[core]\n\tpager = {_marker(bin_dir, marks, 'home_pager')}\n"
        f"\tfsmonitor = {_marker(bin_dir, marks, 'home_fsmonitor')}\n"
        f"[credential]\n\thelper = {_marker(bin_dir, marks, 'home_credential')}\n"
        f"[diff]\n\texternal = {_marker(bin_dir, marks, 'home_extdiff')}\n"
    )
    xdg = home / ".config" / "git"
    xdg.mkdir(parents=True)
    (xdg / "ignore").write_text(f"*.{HOME_TOKEN}\n")
    (xdg / "attributes").write_text(f"* {HOME_TOKEN}=yes\n")
    system = tmp / "system.cfg"
    system.write_text(
        f"[system]\n\ttoken = {SYSTEM_TOKEN}\n[core]\n\tpager = {_marker(bin_dir, marks, 'system_pager')}\n"
    )
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "GIT_CONFIG_SYSTEM": str(system),
        "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
        "LANG": "C",
    }
    # Building uses a clean config so the rig does not fire while it is set up.
    build_env = {**env, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    build_env |= {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "protocol.file.allow",
        "GIT_CONFIG_VALUE_0": "always",
    }

    # The submodule's own repository, with its own programs.
    sub_src = tmp / "sub-src"
    sub_src.mkdir()
    _git(sub_src, build_env, "init", "-q", "-b", "main")
    for key, value in (("user.name", "t"), ("user.email", "t@example.com")):
        _git(sub_src, build_env, "config", key, value)
    (sub_src / "s.bin").write_text("sub one\n")
    (sub_src / "t.bin").write_text("same size\n")
    # The submodule's drivers have names of their own: only its own config defines them.
    (sub_src / ".gitattributes").write_text("*.bin diff=subdrv filter=subflt\n")
    _git(sub_src, build_env, "add", ".")
    _git(sub_src, build_env, "commit", "-qm", "sub init")

    _git(root, build_env, "init", "-q", "-b", "main")
    for key, value in (("user.name", "t"), ("user.email", "t@example.com")):
        _git(root, build_env, "config", key, value)
    (root / "a.txt").write_text("one\n")
    (root / "b.bin").write_text("raw\n")
    (root / "c.dat").write_text("data\n")
    (root / "m.txt").write_text("base\n")
    (root / "d.bin").write_text("same size\n")
    (root / ".gitattributes").write_text("*.bin diff=drv filter=flt\n*.dat diff=drv\nm.txt merge=drv\n")
    (root / ".mailmap").symlink_to(outside / "mailmap")  # git refuses in-tree symlinked .mailmap
    (root / "ext").symlink_to(outside)
    (root / "link").symlink_to(outside / "notes.txt")  # a committed symlink to an outside file
    _git(root, build_env, "add", ".")
    _git(root, build_env, "commit", "-qm", "init")
    _git(root, build_env, "submodule", "add", "-q", str(sub_src), "sub")
    _git(root, build_env, "commit", "-qm", "add sub")
    # A conflicting merge (for --remerge-diff and the merge driver).
    _git(root, build_env, "checkout", "-qb", "side")
    (root / "m.txt").write_text("side\n")
    (root / "c.dat").write_text("side data\n")
    (root / "b.bin").write_text("side raw\n")
    _git(root, build_env, "commit", "-qam", "side")
    _git(root, build_env, "checkout", "-q", "main")
    (root / "m.txt").write_text("main\n")
    _git(root, build_env, "commit", "-qam", "main change")
    subprocess.run(["git", "merge", "-q", "side"], cwd=root, env=build_env, capture_output=True)
    (root / "m.txt").write_text("merged\n")
    _git(root, build_env, "commit", "-qam", "merge side")
    # A commit and a tag that carry signatures, so signature display would run gpg.program.
    tree = _git(root, build_env, "rev-parse", "HEAD^{tree}").strip()
    head = _git(root, build_env, "rev-parse", "HEAD").strip()
    body = (
        f"tree {tree}\nparent {head}\nauthor t <t@example.com> 1704067200 +0000\n"
        f"committer t <t@example.com> 1704067200 +0000\n"
        "gpgsig " + _SIG.rstrip("\n").replace("\n", "\n ") + "\n\nsigned commit\n"
    )
    signed = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=root,
        env=build_env,
        input=body,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    _git(root, build_env, "update-ref", "refs/heads/main", signed)
    tag = (
        f"object {signed}\ntype commit\ntag v1\ntagger t <t@example.com> 1704067200 +0000\n\nrelease\n{_SIG}"
    )
    tag_id = subprocess.run(
        ["git", "hash-object", "-t", "tag", "-w", "--stdin"],
        cwd=root,
        env=build_env,
        input=tag,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    _git(root, build_env, "update-ref", "refs/tags/v1", tag_id)
    _git(root, build_env, "notes", "add", "-m", "a note", "HEAD")
    _git(root, build_env, "stash", "list")

    if rigged:
        _rig(root, build_env, bin_dir, marks, outside)
    # Stale stat data and real changes, in the project and in the submodule.
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.bin").write_text("raw\nmore\n")
    (root / "c.dat").write_text("data\nmore\n")
    (root / "sub" / "s.bin").write_text("sub one\nsub two\n")
    for path in (root / "m.txt", root / "d.bin", root / "sub" / "t.bin", root / "sub" / ".gitattributes"):
        os.utime(path, (1_800_000_000, 1_800_000_000))
    return Hostile(tmp=tmp, root=root, home=home, marks=marks, outside=outside, env=env)


def _rig(root: Path, build_env: dict[str, str], bin_dir: Path, marks: Path, outside: Path) -> None:
    """Rig both repositories' own config after the history exists (building must not fire them)."""
    _rig_config(root, build_env, bin_dir, marks, "")
    _rig_config(root / "sub", build_env, bin_dir, marks, "sub_")
    rel = os.path.relpath(outside, root)
    for key, value in (
        ("include.path", str(outside / "included.cfg")),
        ("core.excludesFile", str(outside / "ignore")),
        ("core.attributesFile", str(outside / "attributes")),
        ("blame.ignoreRevsFile", str(outside / "revs")),
        ("mailmap.file", str(outside / "mailmap")),
        ("diff.orderFile", str(outside / "order")),
        ("format.pretty", "format:%h %G? %GS"),
        ("pretty.sig", "format:%h %GG"),
        ("log.showSignature", "true"),
        ("diff.submodule", "diff"),
        ("status.submoduleSummary", "true"),
        ("submodule.recurse", "true"),
        ("diff.ignoreSubmodules", "none"),
        ("log.diffMerges", "remerge"),
        ("diff.autoRefreshIndex", "true"),
        ("core.untrackedCache", "true"),
        ("core.splitIndex", "true"),
        ("gc.auto", "1"),
        ("color.ui", "always"),
        ("remote.origin.url", f"ext::{bin_dir / 'ext_remote'} %S"),
        ("notes.displayRef", "refs/notes/*"),
        ("alias.st", f"!{_marker(bin_dir, marks, 'alias')}"),
        ("grep.fallbackToNoIndex", "true"),
        ("core.hooksPath", str(root / ".git" / "hooks")),
        ("blame.markIgnoredLines", "true"),
        ("safe.directory", rel),
    ):
        _git(root, build_env, "config", key, value)
    _marker(bin_dir, marks, "ext_remote")
