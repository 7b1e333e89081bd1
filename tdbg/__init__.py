"""tdbg: a GDB-like debugger for Tenstorrent Tensix tile firmware."""

__all__ = ["Session", "SessionError", "__version__"]


def __getattr__(name: str):
    """``tdbg.Session`` without importing Unicorn for ``tdbg --version``; ``tdbg.__version__``
    without importing ``importlib.metadata`` (tens of milliseconds) at every start."""
    if name in ("Session", "SessionError"):
        from tdbg import session

        return getattr(session, name)
    if name == "__version__":
        from importlib import metadata

        try:
            return metadata.version("tdbg")  # the installed distribution's, from pyproject.toml
        except metadata.PackageNotFoundError:  # imported from a source tree that was never installed
            return "unknown"
    raise AttributeError(name)
