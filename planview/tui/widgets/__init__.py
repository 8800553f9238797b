"""Widgets of the session screen: transcript, prompt, todo panel, mode chip."""
