"""C++ names as GDB shows them: Itanium-ABI symbol names demangled, and the small spelling rules
GDB applies to them.

The demangler is the C++ runtime's own ``abi::__cxa_demangle`` (libstdc++'s ``libstdc++.so.6`` on
Linux, ``libc++abi`` on macOS), called through ``ctypes``.  Why this one, for the long term:

- libstdc++'s ``__cxa_demangle`` is built from libiberty's ``cp-demangle.c``, the code GDB itself
  demangles with (``gdb_demangle`` -> ``cplus_demangle``), so its text is GDB's by construction
  (``run_kernel(RuntimeParams const&)``, ``void f<(MathFidelity)4, 0>(unsigned int)``), where a
  reimplementation (a pure-Python parser) differs in spacing and corner cases;
- it is part of the Itanium C++ ABI every C++ runtime provides, present wherever Python's own
  dependencies brought a C++ runtime (Debian's apt is C++: every Debian or Ubuntu system has
  ``libstdc++.so.6``), so nothing is added to tdbg's dependencies;
- where no C++ runtime can be loaded, names stay mangled, as GDB shows them with
  ``set print demangle off``: one honest fallback, never a wrong name.

GDB's own options decide where demangled names appear (``set print demangle``, on: values,
frames, ``info symbol``; ``set print asm-demangle``, off: ``x/i``, ``disassemble`` and
``info line``, which keep the linkage name in ``<...>``, as GDB 13 does).
"""

from __future__ import annotations

import sys
from functools import cache

__all__ = ["demangle", "drop_return_type", "name_matches", "remove_params", "scoped_names", "split_params"]

_LIBRARIES = ("libc++abi.dylib", "libc++.1.dylib") if sys.platform == "darwin" else ("libstdc++.so.6",)


@cache
def _cxa_demangle():
    """``__cxa_demangle`` and ``free`` from the C++ runtime, or None when none can be loaded
    (``ctypes`` is imported here, at the first name to demangle, not at start-up)."""
    import ctypes
    import ctypes.util

    for name in _LIBRARIES:
        try:
            lib = ctypes.CDLL(name)
            libc = ctypes.CDLL(ctypes.util.find_library("c") if sys.platform == "darwin" else None)
        except OSError:
            continue
        function = lib.__cxa_demangle
        function.restype = ctypes.c_void_p
        function.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
        free = libc.free
        free.argtypes = [ctypes.c_void_p]
        return function, free
    return None


@cache
def demangle(name: str) -> str | None:
    """The demangled form of an Itanium-mangled ``name`` (``_Z...``), or None when it is not one
    (a C name) or no demangler is available."""
    if not name.startswith("_Z"):
        return None
    runtime = _cxa_demangle()
    if runtime is None:
        return None
    import ctypes

    function, free = runtime
    status = ctypes.c_int()
    pointer = function(name.encode(), None, None, ctypes.byref(status))
    if not pointer:
        return None
    try:
        return ctypes.string_at(pointer).decode(errors="replace") if status.value == 0 else None
    finally:
        free(pointer)


def _params_start(text: str) -> int | None:
    """Where the parameter list of a demangled function name starts (its top-level ``(``,
    the last one that closes at the end or before a trailing `` const``), or None."""
    end = len(text)
    for suffix in (" const", " volatile", " &", " &&"):
        if text[:end].endswith(suffix):
            end -= len(suffix)
    if not text[:end].endswith(")"):
        return None
    depth = 0
    for i in range(end - 1, -1, -1):
        c = text[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                return i
    return None


def remove_params(name: str) -> str:
    """GDB's ``cp_remove_params``: ``ns::f<int>(unsigned int) const`` -> ``ns::f<int>`` (what a
    frame line shows)."""
    start = _params_start(name)
    return name[:start] if start else name


def drop_return_type(name: str) -> str:
    """GDB's ``DMGL_RET_DROP``: a function template's demangled name without the return type
    the mangling carries (``void ns::f<4>(int)`` -> ``ns::f<4>(int)``)."""
    start = _params_start(name)
    if start is None or "operator" in name:
        return name
    depth = 0
    for i in range(start - 1, -1, -1):
        c = name[i]
        if c in ">)]":
            depth += 1
        elif c in "<([":
            depth -= 1
        elif c == " " and depth == 0:
            return name[i + 1:]
    return name


# -- names as the user types them (GDB's linespec matching) ---------------------------------------

def _squeeze(text: str) -> str:
    """``text`` with the spaces GDB's name comparison ignores removed: a space stays only
    between two characters of words (``unsigned int``, ``RuntimeParams const``)."""
    out: list[str] = []
    pending = False
    for c in text.strip():
        if c.isspace():
            pending = True
            continue
        if pending and out and (out[-1].isalnum() or out[-1] == "_") and (c.isalnum() or c == "_"):
            out.append(" ")
        pending = False
        out.append(c)
    return "".join(out)


def _split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _canonical_param(param: str) -> str:
    """A parameter type in the demangler's spelling: ``const T &`` -> ``T const&``."""
    param = _squeeze(param)
    if param.startswith("const "):
        body = param[len("const "):]
        stars = len(body) - len(body.rstrip("*&"))
        param = f"{body[:len(body) - stars]} const{body[len(body) - stars:]}"
    return param


def _without_templates(name: str) -> str:
    """``ns::f<(E)4, 0>`` -> ``ns::f`` (every template argument list removed)."""
    out, depth = [], 0
    for c in name:
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def split_params(name: str) -> tuple[str, str | None]:
    """(the name, its parameter list without parentheses, or None when it has none)."""
    start = _params_start(name)
    if start is None:
        return name, None
    return name[:start], name[start + 1:name.rindex(")")]


def name_matches(wanted: str, physname: str) -> bool:
    """Does ``wanted`` (what follows ``break``, quotes removed) name the function whose full
    name is ``physname`` (``ns::f<4>(unsigned int)``)?  As GDB's wild matching: leading scopes may
    be left out (``f``, ``math::f``), template arguments too when none are given, and the
    parameter list when none is given; spacing and ``const T&`` / ``T const&`` do not matter."""
    want_name, want_params = split_params(_squeeze(wanted))
    name, params = split_params(_squeeze(physname))
    if want_params is not None:
        if params is None:
            return False
        canon = [_canonical_param(p) for p in _split_top(want_params) if p.strip() not in ("", "void")]
        if canon != [_canonical_param(p) for p in _split_top(params) if p.strip()]:
            return False
    if "<" not in want_name:
        name = _without_templates(name)
    want_name = _squeeze(want_name).removeprefix("::")
    return name == want_name or name.endswith("::" + want_name)


def scoped_names(function: str | None, name: str) -> list[str]:
    """Where C++ looks ``name`` up from inside ``function`` (``ns::inner::f<4>``): in its
    namespaces and classes, innermost first, then at file scope (``ns::inner::name``,
    ``ns::name``, ``name``); a qualified ``name`` is itself only."""
    if "::" in name or not function:
        return [name.removeprefix("::")]
    scopes = _split_scopes(_without_templates(remove_params(function)))[:-1]
    return [*("::".join([*scopes[:i], name]) for i in range(len(scopes), 0, -1)), name]


def _split_scopes(name: str) -> list[str]:
    return [part for part in name.split("::") if part]
