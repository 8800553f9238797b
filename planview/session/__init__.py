"""planview.session"""
