"""What is typed while the app is still starting reaches the prompt (it was lost)."""

from __future__ import annotations

from pathlib import Path

from textual import events

from tests.tui.test_app_flow import scripted_app, user_texts, wait_for


def typing_before_the_screen(root: Path, lines: list[dict], keys: list[tuple[str, str | None]]):
    """A scripted app that receives `keys` the way the terminal delivers them at start-up: before
    the session screen exists."""
    app, provider = scripted_app(root, lines)

    class Early(type(app)):  # type: ignore[misc]
        def on_mount(self) -> None:
            for key, character in keys:
                self.post_message(events.Key(key, character))
            super().on_mount()

    app.__class__ = Early
    return app, provider


def chars(text: str) -> list[tuple[str, str | None]]:
    return [("space" if c == " " else c, c) for c in text]


async def test_a_line_typed_during_start_up_is_sent(project: Path) -> None:
    app, provider = typing_before_the_screen(
        project, [{"text": "got it"}], [*chars("hello there"), ("enter", "\r")]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.session_screen
        await wait_for(pilot, lambda: provider.position == 1 and not screen.busy, "the turn")
        assert user_texts(app) == ["hello there"]
        assert screen.prompt.text == ""


async def test_enter_typed_before_the_terminal_was_raw_arrives_as_a_line_feed(project: Path) -> None:
    # The tty turns Enter into \n until the app switches it to raw mode: Textual reads ctrl+j.
    app, provider = typing_before_the_screen(
        project, [{"text": "got it"}], [*chars("hi"), ("ctrl+j", "\n"), *chars("next")]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        screen = app.session_screen
        await wait_for(pilot, lambda: provider.position == 1 and not screen.busy, "the turn")
        assert user_texts(app) == ["hi"] and screen.prompt.text == "next"


async def test_unsent_text_typed_during_start_up_waits_in_the_prompt(project: Path) -> None:
    app, provider = typing_before_the_screen(
        project, [{"text": "got it"}], [*chars("draftx"), ("backspace", None), *chars(" idea")]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.session_screen.prompt.text == "draft idea"
        assert provider.position == 0  # nothing was sent without Enter


async def test_keys_after_start_up_go_to_the_prompt_as_usual(project: Path) -> None:
    app, _ = scripted_app(project, [{"text": "got it"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("a", "b")
        assert app.session_screen.prompt.text == "ab"
