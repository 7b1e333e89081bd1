"""tdbg: a GDB-like debugger for Tenstorrent Tensix tile firmware."""

__version__ = "0.1.0"
