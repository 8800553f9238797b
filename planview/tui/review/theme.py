"""The colours the review body is drawn with, resolved from the active Textual theme."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from rich.style import Style
from textual.color import Color

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from rich.syntax import PygmentsSyntaxTheme


@dataclass(frozen=True)
class RenderTheme:
    """The colours the body is drawn with (resolved hex colours of the active Textual theme)."""

    name: str = "textual-dark"
    dark: bool = True
    foreground: str = "#e0e0e0"
    muted: str = "#8a8a8a"
    primary: str = "#0178d4"
    secondary: str = "#004578"
    accent: str = "#fea62b"
    success: str = "#4ebf71"
    warning: str = "#fea62b"
    error: str = "#f14c4c"
    code_background: str = "#1e1e1e"
    link: str = "#5fafff"

    @cached_property
    def styles(self) -> dict[str, Style]:
        return {
            "h1": Style(color=self.primary, bold=True, underline=True),
            "h2": Style(color=self.primary, bold=True),
            "h3": Style(color=self.accent, bold=True),
            "h4": Style(color=self.foreground, bold=True),
            "h5": Style(color=self.foreground, bold=True, italic=True),
            "h6": Style(color=self.muted, bold=True, italic=True),
            "muted": Style(color=self.muted),
            "code_inline": Style(color=self.accent, bgcolor=self.code_background),
            "code_block": Style(color=self.foreground, bgcolor=self.code_background),
            "quote": Style(color=self.muted, italic=True),
            "quote_bar": Style(color=self.secondary if self.dark else self.muted),
            "link": Style(color=self.link, underline=True),
            "bullet": Style(color=self.primary),
            "task_done": Style(color=self.success),
            "task_open": Style(color=self.muted),
            "task_active": Style(color=self.warning, bold=True),
            "rule": Style(color=self.muted),
            "table_header": Style(bold=True, color=self.foreground),
            "table_border": Style(color=self.muted),
            # `d`: what a refinement changed (colour and a line style, so it reads without colour too).
            "diff_insert": Style(color=self.success, underline=True),
            "diff_delete": Style(color=self.error, strike=True),
        }

    @cached_property
    def _token_styles(self) -> dict[object, Style]:
        return {}

    @cached_property
    def _syntax_theme(self) -> PygmentsSyntaxTheme:
        # Pygments loads with the first highlighted block, not with the screen (start-up time).
        from rich.syntax import PygmentsSyntaxTheme

        return PygmentsSyntaxTheme("monokai" if self.dark else "friendly")

    def token_style(self, token_type: Any) -> Style:
        """The foreground of a Pygments token type (the code block keeps its own background)."""
        styles = self._token_styles
        style = styles.get(token_type)
        if style is None:
            full = self._syntax_theme.get_style_for_token(token_type)
            style = Style(color=full.color, bold=full.bold, italic=full.italic, underline=full.underline)
            styles[token_type] = style
        return style


def theme_from_variables(name: str, dark: bool, variables: dict[str, str]) -> RenderTheme:
    """A RenderTheme from Textual's resolved CSS variables (alpha colours blended over the background)."""
    background = Color.parse(variables.get("background", "#000000"))

    def solid(key: str, fallback: str) -> str:
        try:
            color = Color.parse(variables.get(key, fallback))
        except Exception:  # a variable that is not a plain colour ("auto 60%")
            color = Color.parse(fallback)
        return (background + color).hex if color.a < 1 else color.hex

    return RenderTheme(
        name=name,
        dark=dark,
        foreground=solid("foreground", "#e0e0e0"),
        muted=solid("foreground-muted", "#8a8a8a"),
        # The text-* variants are the theme's colours tuned for legible text on its background.
        primary=solid("text-primary" if "text-primary" in variables else "primary", "#57a5e2"),
        secondary=solid("secondary", "#004578"),
        accent=solid("text-accent" if "text-accent" in variables else "accent", "#ffc473"),
        success=solid("text-success" if "text-success" in variables else "success", "#8ad4a1"),
        warning=solid("warning", "#fea62b"),
        error=solid("text-error" if "text-error" in variables else "error", "#f14c4c"),
        code_background=solid("surface" if dark else "panel", "#1e1e1e"),
        link=solid("text-primary" if "text-primary" in variables else "primary", "#5fafff"),
    )
