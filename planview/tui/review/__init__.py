"""The plan review screen: a fast sectioned body, changed-section markers, gauge, inline refine.

`app.ReviewApp` runs the screen on its own (`planview review`); `screen.ReviewScreen` is the screen
itself, pushed by the session app too.
"""
