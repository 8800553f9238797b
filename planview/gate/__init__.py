"""planview.gate"""
