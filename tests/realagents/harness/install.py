"""Where the pinned agents live and how they get there.

The agents are installed by npm from the lock file beside this package into a cache folder named
by the lock file's hash, so a changed pin installs afresh and an unchanged one is reused (CI machines
are kept between runs). `PLANVIEW_REALAGENTS_CACHE` moves the cache.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

TIER = Path(__file__).resolve().parent.parent
MANIFEST = TIER / "package.json"
LOCK = TIER / "package-lock.json"
# Each agent's executable under node_modules/.bin and the version the tier pins (`--version` prints it).
BINARIES = {"claude": "claude", "opencode": "opencode", "gemini": "gemini"}
VERSIONS = {"claude": "2.1.328", "opencode": "1.18.33", "gemini": "0.61.0"}
# The install scripts that put each native binary in place; they only link or copy the binary from the
# platform package npm already installed (read them: neither downloads anything). Run by name rather
# than letting npm run every package's scripts (node-pty's would compile against downloaded headers).
LINKERS = (("@anthropic-ai/claude-code", "install.cjs"), ("opencode-ai", "postinstall.mjs"))
INSTALL_COMMAND = "python3 tests/realagents/install.py"


def cache_root() -> Path:
    override = os.environ.get("PLANVIEW_REALAGENTS_CACHE", "").strip()
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "planview-realagents"


def install_dir() -> Path:
    """The folder holding node_modules for exactly this lock file."""
    digest = hashlib.sha256(MANIFEST.read_bytes() + LOCK.read_bytes()).hexdigest()[:16]
    return cache_root() / digest


def bin_dir() -> Path:
    return install_dir() / "node_modules" / ".bin"


def missing() -> list[str]:
    """The agents whose executable is not installed (empty when the tier can run)."""
    folder = bin_dir()
    stamp = install_dir() / ".complete"
    if not stamp.is_file():
        return sorted(BINARIES)
    return sorted(name for name, exe in BINARIES.items() if not os.access(folder / exe, os.X_OK))


def install() -> int:
    target = install_dir()
    if not missing():
        print(f"realagents: agents already installed in {target}")
        return 0
    npm = shutil.which("npm")
    if npm is None:
        print(
            "realagents: npm is not installed (apt-get install npm); the real-agent tests need it",
            file=sys.stderr,
        )
        return 1
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    shutil.copy2(MANIFEST, tmp / "package.json")
    shutil.copy2(LOCK, tmp / "package-lock.json")
    # --ignore-scripts: every binary the tier runs ships inside its registry package; no install script
    # may download anything else. `npm install` with the lock rather than `npm ci`: npm records only this
    # platform's optional packages of opencode-ai in the lock, which `npm ci` then calls out of sync.
    command = [npm, "install", "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
    print(f"realagents: npm install (package-lock.json) into {target}", flush=True)
    done = subprocess.run(command, cwd=tmp)
    if done.returncode != 0:
        print(
            f"realagents: npm install failed (exit {done.returncode}); the real-agent tests cannot run",
            file=sys.stderr,
        )
        return 1
    node = shutil.which("node") or "node"
    for package, script in LINKERS:
        linked = subprocess.run([node, script], cwd=tmp / "node_modules" / package)
        if linked.returncode != 0:
            print(f"realagents: {package}'s {script} failed (exit {linked.returncode})", file=sys.stderr)
            return 1
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)
    for name, exe in BINARIES.items():
        try:
            shown = subprocess.run(
                [str(bin_dir() / exe), "--version"], capture_output=True, text=True, timeout=120
            )
        except OSError as exc:
            print(f"realagents: {name} does not run ({exc})", file=sys.stderr)
            return 1
        if VERSIONS[name] not in shown.stdout:
            print(
                f"realagents: {name} --version says {shown.stdout.strip()!r}, expected {VERSIONS[name]}",
                file=sys.stderr,
            )
            return 1
        print(f"realagents: {name} {VERSIONS[name]}")
    (target / ".complete").write_text("ok\n")
    return 0
