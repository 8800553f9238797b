"""Brace checking scales linearly: time for words of n and 2n braces, and the ratio (about 2; 4 is quadratic).

Run: python benchmarks/gate_braces.py
"""

from __future__ import annotations

import time

from planview.gate.git_shell import check_git_command


def _seconds(command: str) -> float:
    start = time.perf_counter()
    check_git_command(command)
    return time.perf_counter() - start


def main() -> None:
    for label, build in (
        ("nested {{..}}", lambda n: "git log " + "{" * n + "}" * n),
        ("flat x{}{}..", lambda n: "git log x" + "{}" * n),
    ):
        small, large = _seconds(build(50_000)), _seconds(build(100_000))
        print(
            f"{label:14} n=50k {small * 1000:8.1f} ms  n=100k {large * 1000:8.1f} ms  ratio {large / small:.2f}"
        )


if __name__ == "__main__":
    main()
