"""planview.plan"""
