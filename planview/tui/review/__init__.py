"""The plan review screen: a fast sectioned body, changed-section markers, gauge, inline refine.

`app.ReviewApp` runs the screen on its own (`planview review`); `screen.ReviewScreen` is the screen
itself (rows, keys, decisions), pushed by the session app too. It extends `plan_screen.PlanScreen`,
which keeps the plan in step with its file (`loading` holds the widget-free parts of that), and
hands a review to the browser through `web_handoff`. The body (`body.PlanBody`) draws the lines
`lines.LaidOutLines` holds, rendered section by section by `render.SectionRenderer` in a
`theme.RenderTheme`; work that must not delay the first visible frame waits for
`first_frame.after_first_frame`.
"""
