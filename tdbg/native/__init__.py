"""The coprocessor model's hot loops in C, built at first use by the bundled zig and called
through ctypes; the numpy model stays the reference.

What is here (each C file names the Python function it mirrors, step for step, and
``tests/test_native.py`` runs both on random inputs and requires identical bits):

* ``fpu.c``: the Matrix Unit datapath of ``tdbg.tensix.fpu_datapath`` (MVMUL, DOTPV, GAPOOL,
  ELWADD, ELWSUB, ELWMUL, working on ``Dst`` in place) and GMPOOL's column loop;
* ``sfpu.c``: the Vector Unit's FMA (``tdbg.tensix.sfpu.numerics.fma``) on 32 lanes, and
  ``SFPLOAD`` / ``SFPSTORE``'s lane moves and format conversions in the common case
  (``tdbg.tensix.sfpu.loadstore``: every LaneConfig zero, no lane held back);
* ``pack.c``: the packer's float and BFP format conversion (``tdbg.tensix.pack_conversion.pack`` when
  nothing is staged between its early and late conversions) and its ``Dst`` gather.
* ``l1track.c``: the Unicorn store hook that marks the L1 a core writes (``tdbg.emu.l1_written``);
* ``push.c``: the Unicorn code hook of ``.ttinsn`` words that pushes the common instructions
  (``tdbg.emu.native_push``), with ``unpack_pack.c``'s UNPACR and PACR (``tdbg.emu.native_units``),
  ``frontend.c``: the MOP and Replay Expanders (``tdbg.tensix.frontend``) and ``ctrl.c``: the
  control and sync words (``tdbg.emu.native_ctrl``: config writes, semaphores, met waits) and
  ``matrix_push.c``: the Matrix Unit's common words (``tdbg.emu.native_matrix``).

Why C built at first use by zig (measured on this project's benchmarks, ``scripts/bench.py``):
the numpy model spends its time in per-call overhead on arrays of 16 to 2048 elements (an MVMUL
is some 150 numpy calls, about 280 us); the same arithmetic in C is a few microseconds, and a
ctypes call with the pointers cached costs about 0.4 us.  zig is already tdbg's dependency (the
firmware compiler), so the library builds wherever tdbg runs, from a clean clone or the wheel,
with nothing else installed, and the wheel stays pure Python (no per-platform builds).  numba
would add a large dependency with seconds of JIT at every start; cffi or a setuptools C
extension would need a C compiler at install time or per-platform wheels.  The library is built
with ``-nostdlib`` (no libc, no C runtime to build: under a second the first time), for the host's
CPU, once per source digest, zig version and host (``_host``), into tdbg's cache
(``tdbg.toolchain.zig.cache_dir``).

When it cannot be built or loaded, tdbg says so in one line on stderr and runs the numpy model;
``TDBG_NATIVE=0`` selects the numpy model without a word.  ``disabled()`` does the same for a
block of code (the tests run both paths with it).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

SOURCES = ("fpu.c", "sfpu.c", "pack.c", "l1track.c", "push.c", "unpack_pack.c", "frontend.c", "ctrl.c", "matrix_push.c")
#: ``python -m ziglang cc`` flags: a shared library for the host, no libc (the code calls nothing;
#: ``-z defs`` fails the build, visibly, should the compiler ever call memset or memcpy).
FLAGS = ("-shared", "-O2", "-nostdlib", "-fno-builtin", "-Wl,-z,defs")
COMPILE_TIMEOUT = 300

_P = ctypes.c_void_p
_I = ctypes.c_int
#: Exported functions and their argument types.
SIGNATURES: dict[str, tuple] = {
    "tdbg_matmul": (_P, _P, _I, _I, _I, _P, _P, _P, _I, _I, _I, _I),
    "tdbg_elw": (_P, _P, _I, _I, _P, _P, _P, _I, _I, _I, _I, _I, _I, _I),
    "tdbg_gmpool": (_P, _P, _P, _P, _I, _I, _I),
    "tdbg_fma": (_P, _P, _P, _P, _I),
    "tdbg_pack": (_P, _I, _P, _P, _P, _P, _P, _P, _P, _I, ctypes.c_int64, _P),
    "tdbg_sfpload": (_I, _I, _I, _P, _P, _P, _P, _I, _P, _P, _P, _P),
    "tdbg_sfpstore": (_I, _I, _I, _P, _P, _P, _P, _I, _P, _P, _P, _P),
    "tdbg_ask_stop": (_P,),
    "tdbg_push_size": (_I,),
    "tdbg_units_size": (),
    "tdbg_ctrl_size": (),
    "tdbg_word_entry": (_P, ctypes.c_uint32),
    "tdbg_push_word": (_P, ctypes.c_uint32, ctypes.c_uint32),
    "tdbg_run_queued": (_P, _I, ctypes.c_uint32),
    "tdbg_matrix_size": (),
    "tdbg_units_log": (_P, ctypes.c_uint64, _I, ctypes.c_uint32, ctypes.c_int64, ctypes.c_int64, _I),
    "tdbg_shared_put": (_P, _P),
    "tdbg_shared_get": (_P, _P),
}
RETURNS = {"tdbg_pack": _I, "tdbg_sfpload": _I, "tdbg_sfpstore": _I, "tdbg_ask_stop": _I, "tdbg_push_size": ctypes.c_uint32,
           "tdbg_units_size": ctypes.c_uint32, "tdbg_ctrl_size": ctypes.c_uint32, "tdbg_word_entry": _P,
           "tdbg_push_word": ctypes.c_int32, "tdbg_run_queued": ctypes.c_int32, "tdbg_matrix_size": ctypes.c_uint32,
           "tdbg_shared_put": ctypes.c_int32, "tdbg_shared_get": ctypes.c_int32}  # the others return nothing

_lib: ctypes.CDLL | None = None
_tried = False
_enabled = os.environ.get("TDBG_NATIVE", "1") != "0"


class NativeError(Exception):
    """The native library could not be built or loaded (the message says why)."""


def library() -> ctypes.CDLL | None:
    """The loaded library (built first if the cache lacks it), or None: disabled, or it could
    not be had (said once, on stderr)."""
    global _lib, _tried
    if not _enabled:
        return None
    if not _tried:
        _tried = True
        try:
            _lib = load()
        except NativeError as exc:
            print(f"tdbg: {exc}; running the numpy model (slower)", file=sys.stderr, flush=True)
    return _lib


def load() -> ctypes.CDLL:
    """Build (unless cached) and load the library; raises ``NativeError``."""
    path = build()
    try:
        lib = ctypes.CDLL(str(path))
        for name, argtypes in SIGNATURES.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = argtypes, RETURNS.get(name)
    except (OSError, AttributeError) as exc:
        raise NativeError(f"the native library {path} does not load: {exc}") from exc
    return lib


def _sources() -> list[tuple[str, bytes]]:
    folder = resources.files(__name__)
    return [(name, folder.joinpath(name).read_bytes()) for name in SOURCES]


def build() -> Path:
    """The library's path in the cache, compiled with the bundled zig when it is not there yet."""
    from tdbg.toolchain.zig import cache_dir, zig_version

    sources = _sources()
    h = hashlib.sha256("\0".join((*FLAGS, zig_version(), _host())).encode())
    for name, text in sources:
        h.update(b"\0" + name.encode() + b"\0" + text)
    lib = cache_dir() / "native" / h.hexdigest()[:24] / "libtdbg_native.so"
    if lib.is_file():
        return lib
    import subprocess   # only a build runs the compiler
    import tempfile

    lib.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=lib.parent) as tmp:
        for name, text in sources:
            (Path(tmp) / name).write_bytes(text)
        out = Path(tmp) / lib.name
        cmd = [sys.executable, "-m", "ziglang", "cc", *FLAGS, *(str(Path(tmp) / n) for n, _ in sources), "-o", str(out)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise NativeError(f"could not run zig to build the native datapath: {exc}") from exc
        if done.returncode != 0 or not out.is_file():
            detail = (done.stderr or done.stdout).strip().splitlines()
            raise NativeError(f"building the native datapath failed: {detail[0] if detail else f'exit {done.returncode}'}")
        os.replace(out, lib)  # atomic: a concurrent build never sees half a library
    return lib


def _host() -> str:
    """What a built library is good for: zig builds for the host's CPU (measured: MVMUL's C is a
    third faster than for a baseline x86-64), so the CPU's feature flags (Linux) key the cache
    with the OS and machine, and a cache shared by different machines keeps one build each.
    No ``platform.processor()``: on Linux it runs ``uname -p`` in a child process at every start
    (4 ms of a kernel run's CPU, measured) for what the machine and the flags already say."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as info:
            flags = next((line for line in info if line.startswith(("flags", "Features"))), "")
    except OSError:
        pass
    return "\0".join((platform.system(), platform.machine(), flags))


@contextmanager
def disabled() -> Iterator[None]:
    """Run the numpy model inside the block."""
    global _enabled
    before, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = before


_addresses: dict[int, tuple[object, int]] = {}


def address(array) -> int:  # type: ignore[no-untyped-def]
    """The address of a C-contiguous numpy array's data, for C calls; looked up once per array
    object (kept with the array, so an array that replaces another gets its own)."""
    hit = _addresses.get(id(array))
    if hit is not None and hit[0] is array:
        return hit[1]
    if not array.flags.c_contiguous:
        raise ValueError("native code needs C-contiguous arrays")
    if len(_addresses) > 256:
        _addresses.clear()
    value = _addresses[id(array)] = (array, array.ctypes.data)
    return value[1]
