"""CLI subcommands for this area (filled in by the area's issue)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add this area's subcommands."""
