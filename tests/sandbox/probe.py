"""A hostile program for the sandbox tests: it tries everything plan mode must stop and says what worked.

Written into the project and run as `/usr/bin/python3 -I <probe> <config.json>` (directly, or as
the program a hostile repository's git config names). The tests never trust its report alone: they
look on disk and at the listeners for what it did.
"""

from __future__ import annotations

import json
from pathlib import Path

PYTHON = "/usr/bin/python3"

SOURCE = r"""
import json, os, signal, socket, sys
cfg = json.load(open(sys.argv[1]))
done = {}
def attempt(name, fn):
    try:
        fn()
        done[name] = "ok"
    except BaseException as exc:
        done[name] = f"{type(exc).__name__}: {exc}"
def write(path):
    with open(path, "w") as f:
        f.write("pwned")
attempt("write_inside", lambda: write(cfg["inside"]))
attempt("write_outside", lambda: write(cfg["outside"]))
attempt("read_home", lambda: done.__setitem__("home_text", open(cfg["home_secret"]).read()))
attempt("mkdir_inside", lambda: os.mkdir(cfg["inside"] + ".d"))
attempt("chmod_inside", lambda: os.chmod(cfg["existing"], 0o777))
def tcp():
    s = socket.create_connection(("127.0.0.1", cfg["tcp_port"]), timeout=2)
    s.sendall(b"pwned")
    s.close()
attempt("tcp_connect", tcp)
def unix():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(cfg["unix_path"])
    s.sendall(b"pwned")
    s.close()
attempt("unix_connect", unix)
def udp():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.sendto(b"pwned", ("127.0.0.1", cfg["udp_port"]))
attempt("udp_send", udp)
attempt("signal_outside", lambda: os.kill(cfg["victim_pid"], signal.SIGTERM))
print("PROBE " + json.dumps(done))
"""


def write_probe(folder: Path, config: dict) -> tuple[Path, Path]:
    """The probe script and its config file, both written into `folder` (inside the project)."""
    script = folder / "probe_evil.py"
    script.write_text(SOURCE, encoding="utf-8")
    conf = folder / "probe_config.json"
    conf.write_text(json.dumps(config), encoding="utf-8")
    return script, conf


def report_of(output: str) -> dict:
    for line in output.splitlines():
        if line.startswith("PROBE "):
            return json.loads(line[6:])
    raise AssertionError(f"the probe printed no report: {output[-2000:]!r}")
