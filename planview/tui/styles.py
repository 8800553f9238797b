"""Where the .tcss stylesheets live: `styles/` in a checkout, `planview/styles/` in an installed wheel."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def styles_dir() -> Path:
    for candidate in (_PACKAGE / "styles", _PACKAGE.parent / "styles"):
        if (candidate / "app.tcss").is_file():
            return candidate
    raise FileNotFoundError(f"planview styles not found next to {_PACKAGE}; reinstall planview")


def stylesheet(name: str) -> Path:
    """The path of `styles/<name>.tcss`."""
    return styles_dir() / f"{name}.tcss"
