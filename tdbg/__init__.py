"""tdbg: a GDB-like debugger for Tenstorrent Tensix tile firmware."""

__version__ = "0.1.0"

__all__ = ["Session", "SessionError", "__version__"]


def __getattr__(name: str):
    """``tdbg.Session`` without importing Unicorn for ``tdbg --version``."""
    if name in ("Session", "SessionError"):
        from tdbg import session

        return getattr(session, name)
    raise AttributeError(name)
