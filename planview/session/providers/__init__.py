"""Model providers behind one small interface (base.py); factory.py picks one for a session.

Each provider (scripted, openai, anthropic) is its own module, imported only when it is chosen.
"""
