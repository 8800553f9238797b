"""greet: print a friendly greeting.

    python greet.py Ada          ->  Hello, Ada!
    python greet.py Ada --times 2
"""

from __future__ import annotations

import argparse


def greeting(name: str) -> str:
    """The greeting for one person."""
    return f"Hello, {name}!"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="greet", description="Print a friendly greeting.")
    parser.add_argument("name", help="who to greet")
    parser.add_argument("--times", type=int, default=1, help="how many times to greet")
    args = parser.parse_args(argv)
    for _ in range(args.times):
        print(greeting(args.name))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
