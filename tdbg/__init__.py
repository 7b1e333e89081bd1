"""tdbg: a GDB-like debugger for Tenstorrent Tensix tile firmware."""

from importlib import metadata

try:
    __version__ = metadata.version("tdbg")  # the installed distribution's, from pyproject.toml
except metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "unknown"

__all__ = ["Session", "SessionError", "__version__"]


def __getattr__(name: str):
    """``tdbg.Session`` without importing Unicorn for ``tdbg --version``."""
    if name in ("Session", "SessionError"):
        from tdbg import session

        return getattr(session, name)
    raise AttributeError(name)
