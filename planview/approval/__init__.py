"""planview.approval"""
