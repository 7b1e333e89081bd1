"""The engine: what ``tdbg.Session`` composes (work in progress, see tdbg/session.py)."""
