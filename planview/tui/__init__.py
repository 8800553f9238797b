"""planview.tui"""
