"""`d` on the review screen: the changed sections word by word against the last review."""

from __future__ import annotations

from pathlib import Path

from planview.plan.reviews import ReviewBaselines
from planview.tui.review.app import ReviewApp

BEFORE = (
    "# Rollout\n\nIntro.\n\n## Goal\n\nDeploy the limiter to staging before Friday.\n\n"
    "## Steps\n\n- [ ] write it\n- [ ] test it\n\n## Risks\n\nNone known.\n"
)
AFTER = BEFORE.replace("to staging before", "to production after").replace("None known.", "Traffic spikes.")


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "2026-01-14-1030-rollout.md"
    path.write_text(text, encoding="utf-8")
    return path


def styled_words(body, style_check) -> list[str]:
    """The texts drawn in a style that passes `style_check`, over every laid-out line."""
    out = []
    for strip in body.laid_out.strips:
        for segment in strip:
            if segment.style is not None and style_check(segment.style) and segment.text.strip():
                out.append(segment.text.strip())
    return out


async def test_d_shows_the_words_a_refinement_changed_and_d_again_the_plan(tmp_path: Path) -> None:
    path = write(tmp_path, AFTER)
    ReviewBaselines(tmp_path / "home").save(path, BEFORE)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        screen, body = app.review, app.review.body
        plain = [body.line_text(i) for i in range(body.total_lines)]
        await pilot.press("d")
        assert body.show_diff
        assert set(body.diffs) == {1, 3}  # Goal and Risks; Steps is unchanged
        assert styled_words(body, lambda s: bool(s.strike)) == ["staging before", "None known"]
        assert styled_words(body, lambda s: bool(s.underline) and not s.bold) == [
            "production after",
            "Traffic spikes",
        ]
        assert "2 sections changed since your last review, word by word" in screen.notice_text
        text = "\n".join(body.line_text(i) for i in range(body.total_lines))
        assert "Deploy the limiter to staging beforeproduction after Friday." in text
        assert "- [ ] write it" not in text or "◻ write it" in text  # unchanged sections stay rendered
        await pilot.press("d")
        assert not body.show_diff and screen.notice_text == ""
        assert [body.line_text(i) for i in range(body.total_lines)] == plain


async def test_d_without_an_earlier_review_says_there_is_nothing_to_compare(tmp_path: Path) -> None:
    app = ReviewApp(write(tmp_path, AFTER), home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 30)) as pilot:
        await pilot.pause()
        await pilot.press("d")
        assert not app.review.body.show_diff
        assert "no earlier review" in app.review.notice_text


async def test_d_follows_a_reload_and_keys_still_scroll(tmp_path: Path) -> None:
    path = write(tmp_path, AFTER)
    ReviewBaselines(tmp_path / "home").save(path, BEFORE)
    app = ReviewApp(path, home=tmp_path / "home", watch=False)
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        screen, body = app.review, app.review.body
        await pilot.press("d")
        path.write_text(AFTER.replace("write it", "write it twice"), encoding="utf-8")
        assert screen.reload_from_disk()
        assert set(body.diffs) == {1, 2, 3}  # Steps changed too now
        assert "twice" in styled_words(body, lambda s: bool(s.underline) and not s.bold)
        top = body.top_line
        await pilot.press("ctrl+d")  # half a page down moved off `d`
        assert body.top_line > top
