"""A tt-metal program on one tile, and tt-metal 0.81.1's host running it (slow dispatch).

A ``Program`` is what ``CreateBuffer``, ``CreateCircularBuffer``, ``CreateKernel`` and
``SetRuntimeArgs`` describe in tt-metal: DRAM buffers (interleaved over the banks), circular
buffers, and kernels (a source the kit builds as tt-metal's JIT build does, or prebuilt
binaries) with their runtime arguments.  ``Program.load`` reads the same from a TOML file.

``ProgramHost`` plays the host around the run, as tt-metal 0.81.1 was measured doing it on ttsim
(TTMETAL_PROGRAM.md): once the firmware has booted (``boot``), it writes the DRAM buffers, the
kernel configuration buffer at ``kernel_config_base`` (runtime arguments, the CB configuration,
the kernel images; ``Layout``), ``mailboxes.launch[0]`` and the go message
(``go_messages[0].signal = RUN_MSG_GO``); when every core waits again and the signal reads
``RUN_MSG_DONE`` the program is done: the buffers are read back (and written to their files)
and the run ends with a ``StopKind.HOST`` stop.  If the cores wait for each other instead, the
run ends with a hang report (``hang.report``).
"""

from __future__ import annotations

import datetime
import io
import operator
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from tdbg.arch import profile_for
from tdbg.emu.elf import ElfImage
from tdbg.debug import Stop, StopKind
from tdbg.debug.hostfiles import HostFileError, read_host_file, write_host_file
from tdbg.ttmetal import boot, dram, metal2, tensors
from tdbg.ttmetal.boot import PROCESSORS, BootHost, TtMetalError
from tdbg.ttmetal.dprint import Print, PrintServer
from tdbg.ttmetal.kit import DATA_FORMATS as KIT_FORMATS, DEFAULT_NOC
from tdbg.ttmetal.mailboxes import (
    DEBUG_ASSERT_TYPES, DISPATCH_MODE_HOST, RUN_MSG_DONE, RUN_MSG_GO, RUN_MSG_NAMES, Mailboxes,
)
from tdbg.ttmetal.device import DRAM_BANK_SIZE, NUM_DRAM_BANKS
from tdbg.ttmetal.memmap import KERNEL_CONFIG_BASE, KERNEL_CONFIG_SIZE, L1_UNRESERVED_START
from tdbg.ttmetal.metal2 import Metal2

if TYPE_CHECKING:
    from tdbg.session import Session

#: tt-metal's kernel processors: B and NC run a data movement kernel each, T0..T2 the three parts
#: of a compute kernel; PROCESSOR_INDEX is the position here (the launch message's slot).
CORES = tuple(PROCESSORS)
KINDS = {"brisc": ("B",), "ncrisc": ("NC",), "compute": ("T0", "T1", "T2")}
NUM_CIRCULAR_BUFFERS = 64                # tt-metalium/circular_buffer_constants.h (Blackhole)
CB_CONFIG_BYTES = 16                     # UINT32_WORDS_PER_LOCAL_CIRCULAR_BUFFER_CONFIG words
L1_ALIGNMENT = 16                        # Blackhole's L1 alignment (kernel images, CB config)
REMOTE_DFB_OFFSET_NONE = 0xFF            # dev_msgs.h: no CrossNodeDFBs / PrefetcherPipes
#: kernel_config_base of the other programmable core types (active and idle Ethernet), which a
#: worker does not use (measured: what tt-metal 0.81.1 writes).
OTHER_CONFIG_BASES = (0xF330, 0xFDB0, 0)
DATA_FORMATS = tuple(KIT_FORMATS)        # a CB's data format: one the kit builds descriptors for
MAX_PROGRAM_FILE_BYTES = 1 << 20          # a program file (TOML) tdbg reads
MAX_BUFFER_FILE_BYTES = 1 << 30           # a buffer's data file


class Binary(Protocol):
    """A kernel built for one processor (``tdbg.ttmetal.kit.Binary``): the ELF and where it is
    linked, and the image the host writes."""

    core: str
    elf: Path
    entry: int
    image: bytes


@dataclass
class Buffer:
    """A DRAM buffer, interleaved over the banks in pages; ``data`` its initial bytes (None: not
    written), ``dump`` a file its bytes go to after the run; ``address`` given or allocated."""

    name: str
    page_size: int
    pages: int
    data: bytes | None = None
    dump: Path | None = None
    address: int | None = None

    @property
    def size(self) -> int:
        return self.page_size * self.pages

    @property
    def accessor_args(self) -> list[int]:
        """``TensorAccessorArgs(buffer).get_compile_time_args()`` of an interleaved DRAM buffer."""
        return [dram.ARG_CONFIG_IS_DRAM, self.page_size]

    def placement(self) -> dram.Interleaved:
        if self.address is None:
            raise TtMetalError(f"buffer {self.name} has no address yet")
        return dram.Interleaved(self.address, self.page_size, self.pages)


@dataclass(frozen=True)
class CircularBuffer:
    """A local circular buffer: ``pages`` of ``page_size`` bytes in data format ``format``."""

    index: int
    pages: int
    page_size: int
    format: str = "Float16_b"

    @property
    def size(self) -> int:
        return self.pages * self.page_size


@dataclass
class Kernel:
    """A kernel of the program: where it runs (``brisc``, ``ncrisc`` or ``compute``), its source
    (built by the kit) or prebuilt ``binaries``, its runtime arguments (a ``Buffer`` stands for
    its address), and what tt-metal's JIT build takes: compile-time args, defines, named args,
    the NoC, the compute configuration (``tdbg.ttmetal.kit.ComputeConfig`` fields)."""

    processor: str
    source: Path | None = None
    args: Sequence[int | Buffer] = ()
    compile_args: Sequence[int] = ()
    defines: Mapping[str, str] = field(default_factory=dict)
    named_args: Mapping[str, int] = field(default_factory=dict)
    noc: int | None = None
    compute: Mapping[str, object] = field(default_factory=dict)
    binaries: Sequence[Binary] = ()
    #: Metal 2.0 (``tdbg.ttmetal.metal2``): named runtime and common runtime args (in order), the
    #: CBs it binds as ``dfb::`` names and the buffers as ``tensor::`` names
    rt_args: Mapping[str, int | Buffer] = field(default_factory=dict)
    common_args: Mapping[str, int | Buffer] = field(default_factory=dict)
    dfbs: Mapping[str, int] = field(default_factory=dict)
    tensors: Mapping[str, Buffer] = field(default_factory=dict)

    @property
    def cores(self) -> tuple[str, ...]:
        return KINDS[self.processor]

    @property
    def metal2(self) -> Metal2 | None:
        """The kernel's Metal 2.0 schema (None: a legacy kernel)."""
        if not (self.rt_args or self.common_args or self.dfbs or self.tensors):
            return None
        tensors = metal2.tensor_offsets(len(self.compile_args), len(self.common_args),
                                        [(name, len(b.accessor_args)) for name, b in self.tensors.items()])
        return Metal2(tuple(self.rt_args), tuple(self.common_args), tuple(sorted(self.named_args.items())),
                      tuple(self.dfbs.items()), tensors)

    @property
    def all_compile_args(self) -> list[int]:
        """The positional compile-time args, then each tensor binding's accessor args."""
        return [*self.compile_args, *(w for b in self.tensors.values() for w in b.accessor_args)]

    def common_words(self) -> list[int]:
        """The common runtime args: the named ones, then each tensor binding's address."""
        return self._words([*self.common_args.values(), *self.tensors.values()])

    @property
    def name(self) -> str:
        return self.source.stem if self.source is not None else f"{self.processor} kernel"

    def arg_words(self) -> list[int]:
        """The runtime args: the named ones (Metal 2.0), then the positional ones."""
        return self._words([*self.rt_args.values(), *self.args])

    def _words(self, args: Sequence[int | Buffer]) -> list[int]:
        words = []
        for arg in args:
            try:
                value = arg.placement().address if isinstance(arg, Buffer) else operator.index(arg)
            except TypeError:
                raise TtMetalError(f"{self.name}: runtime argument {arg!r} is not an integer or a buffer") from None
            if not 0 <= value < 1 << 32:
                raise TtMetalError(f"{self.name}: runtime argument {value} is not a 32-bit word")
            words.append(value)
        return words


class Program:
    """Buffers, circular buffers and kernels, as a tt-metal host program creates them."""

    def __init__(self, dprint: bool = False, watcher: bool = False) -> None:
        self.dprint = dprint          # kernels built with DPRINT on (tdbg.ttmetal.dprint shows it)
        self.watcher = watcher        # kernels built with the watcher (waypoints, ASSERTs; kit.Kernel.watcher)
        self.buffers: dict[str, Buffer] = {}
        self.cbs: dict[int, CircularBuffer] = {}
        self.kernels: list[Kernel] = []

    # -- describing it -----------------------------------------------------------------------------
    def buffer(self, name: str, data: bytes | np.ndarray | str | Path | None = None, page_size: int = 2048,
               pages: int | None = None, dump: str | Path | None = None, address: int | None = None) -> Buffer:
        """A DRAM buffer: ``data`` as bytes, a ``.npy`` or raw file, or a numpy array (a float
        array is written as bfloat16 tiles, ``tensors.bf16_tiles``; any other as its bytes);
        ``pages`` defaults to what the data fills."""
        if page_size <= 0:
            raise TtMetalError(f"buffer {name}: page_size {page_size}; a page is a positive number of bytes")
        if pages is not None and pages <= 0:
            raise TtMetalError(f"buffer {name}: {pages} pages; a buffer has at least one")
        if address is not None and address < 0:
            raise TtMetalError(f"buffer {name}: address {address} is negative")
        if name in self.buffers:
            raise TtMetalError(f"two buffers named {name}")
        raw = _bytes(data)
        if pages is None:
            if raw is None:
                raise TtMetalError(f"buffer {name}: give its data or its number of pages")
            pages = max(1, -(-len(raw) // page_size))
        if raw is not None and len(raw) > pages * page_size:
            raise TtMetalError(f"buffer {name}: {len(raw)} bytes do not fit {pages} pages of {page_size}")
        found = Buffer(name, page_size, pages, raw, Path(dump) if dump else None, address)
        _fits_banks(found, dram.DRAM_UNRESERVED_BASE if address is None else address)
        self.buffers[name] = found
        return found

    def cb(self, index: int, pages: int, page_size: int, format: str = "Float16_b") -> CircularBuffer:
        """A local circular buffer (``CreateCircularBuffer``)."""
        if not 0 <= index < NUM_CIRCULAR_BUFFERS:
            raise TtMetalError(f"CB index {index} is outside 0..{NUM_CIRCULAR_BUFFERS - 1}")
        if format not in DATA_FORMATS:
            raise TtMetalError(f"CB {index}: data format {format!r} is not one of {', '.join(DATA_FORMATS)}")
        if pages <= 0 or page_size <= 0 or page_size % L1_ALIGNMENT:
            raise TtMetalError(f"CB {index}: {pages} pages of {page_size} bytes (a page is a multiple of {L1_ALIGNMENT})")
        found = CircularBuffer(index, pages, page_size, format)
        end = L1_UNRESERVED_START + sum(cb.size for i, cb in self.cbs.items() if i != index) + found.size
        l1_size = profile_for().l1_size   # tt-metal's MEM_L1_SIZE
        if end > l1_size:
            raise TtMetalError(f"CB {index}: {pages} pages of {page_size} bytes: the circular buffers grow to "
                               f"{end:#x}, beyond max L1 size of {l1_size} B (they start at {L1_UNRESERVED_START:#x})")
        self.cbs[index] = found
        return found

    def kernel(self, processor: str, source: str | Path | None = None, **options) -> Kernel:
        """A kernel (``Kernel``'s fields as keywords); one per processor."""
        if processor not in KINDS:
            raise TtMetalError(f"processor must be brisc, ncrisc or compute, not {processor!r}")
        taken = {c for k in self.kernels for c in k.cores}
        if taken & set(KINDS[processor]):
            raise TtMetalError(f"the program already has a {processor} kernel")
        found = Kernel(processor, Path(source) if source is not None else None, **options)
        if found.source is None and not found.binaries:
            raise TtMetalError(f"the {processor} kernel needs a source or binaries")
        self.kernels.append(found)
        return found

    @classmethod
    def load(cls, path: str | Path, sources: Path | None = None) -> Program:
        """A program from a TOML file (``PROGRAM_FORMAT``); relative paths are the file's.  Only
        a regular file is read (``tdbg.debug.hostfiles``: a FIFO or a device would block or never end)."""
        path = Path(path)
        try:
            spec = tomllib.loads(read_host_file(path, MAX_PROGRAM_FILE_BYTES, "program file").decode())
        except HostFileError as exc:
            raise TtMetalError(str(exc)) from None
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise TtMetalError(f"{path}: {exc}") from None
        return from_spec(spec, path.parent, sources)

    # -- building and placing it ----------------------------------------------------------------
    def allocate(self) -> None:
        """Give every buffer without an address one, as tt-metal's allocator does."""
        free = [b for b in self.buffers.values() if b.address is None]
        taken = [b.placement() for b in self.buffers.values() if b.address is not None]
        base = max([dram.DRAM_UNRESERVED_BASE] + [dram.aligned(t.address + t.bank_bytes) for t in taken])
        for buffer, placed in zip(free, dram.allocate([(b.page_size, b.pages) for b in free], base)):
            _fits_banks(buffer, placed.address)
            buffer.address = placed.address

    def binaries(self) -> dict[str, Binary]:
        """Each processor's binary (the kit builds a kernel given by its source, once)."""
        out: dict[str, Binary] = {}
        for kernel in self.kernels:
            built = kernel.binaries or self._build(kernel)
            for binary in built:
                out[binary.core] = binary
            missing = set(kernel.cores) - {b.core for b in built}
            if missing:
                raise TtMetalError(f"{kernel.name}: no binary for {', '.join(sorted(missing))}")
        return out

    def _build(self, kernel: Kernel) -> Sequence[Binary]:
        from tdbg.toolchain.ttnn import TtnnUnavailable
        from tdbg.ttmetal import kit

        spec = kit.Kernel(kernel.source, kernel.processor, {i: cb.format for i, cb in self.cbs.items()},
                          defines=tuple(sorted((k, str(v)) for k, v in kernel.defines.items())),
                          compile_args=tuple(kernel.all_compile_args), named_args=tuple(sorted(kernel.named_args.items())),
                          noc=kernel.noc, compute=kit.ComputeConfig(**kernel.compute), debug_print=self.dprint,
                          watcher=self.watcher, runtime_args=len(kernel.rt_args) + len(kernel.args),
                          metal2=kernel.metal2)
        try:
            kernel.binaries = kit.build(spec).binaries
        except (kit.KernelBuildError, TtnnUnavailable) as exc:
            raise TtMetalError(f"{kernel.name}: {exc}") from None
        return kernel.binaries


def _fits_banks(buffer: Buffer, address: int) -> None:
    """Refuse ``buffer`` at bank address ``address`` when its pages do not fit a DRAM bank, as
    tt-metal's allocator refuses it ("Out of Memory": the soc descriptor's ``dram_view_size``
    per bank, ``device.DRAM_BANK_SIZE``)."""
    per_bank = dram.Interleaved(address, buffer.page_size, buffer.pages).bank_bytes
    if address + per_bank > DRAM_BANK_SIZE:
        raise TtMetalError(f"buffer {buffer.name}: out of memory: {buffer.size} B across {NUM_DRAM_BANKS} DRAM banks "
                           f"need {per_bank} B in each from {address:#x}, but a bank is {DRAM_BANK_SIZE} B")


def _bytes(data: bytes | np.ndarray | str | Path | None) -> bytes | None:
    """A buffer's data as bytes: a float array as bfloat16 tiles, a file read as ``restore``
    reads one (a regular file of at most ``MAX_BUFFER_FILE_BYTES``; ``.npy`` without pickles)."""
    if data is None or isinstance(data, bytes):
        return data
    if isinstance(data, (str, Path)):
        path = Path(data)
        try:
            raw = read_host_file(path, MAX_BUFFER_FILE_BYTES, "buffer file")
            if path.suffix != ".npy":
                return raw
            data = np.load(io.BytesIO(raw), allow_pickle=False)
        except HostFileError as exc:
            raise TtMetalError(str(exc)) from None
        except (ValueError, EOFError) as exc:
            raise TtMetalError(f"{path}: not a .npy array ({exc})") from None
    array = np.asarray(data)
    if array.dtype.kind == "f":
        try:
            return tensors.bf16_tiles(array)
        except ValueError as exc:
            raise TtMetalError(f"a float array of shape {array.shape} as bfloat16 tiles: {exc}") from None
    return array.tobytes()


# -- the file format ---------------------------------------------------------------------------------

PROGRAM_FORMAT = """\
# A tt-metal program on one tile (tdbg tt-metal program FILE): C = A + B, 12 bfloat16 tiles.
# Paths are relative to this file; {ops} is the ttnn wheel's ttnn/cpp/ttnn/operations folder.
# dprint = true                   # build the kernels with DPRINT on (their prints show at each stop)
# watcher = true                  # build them with the watcher: waypoints, ASSERTs (a tripped one stops)

[buffers.a]                       # DRAM, interleaved over the 8 banks in pages
file = "a.npy"                    # .npy (a float array is written as bfloat16 tiles) or raw bytes
page_size = 2048
[buffers.b]
file = "b.npy"
[buffers.c]
pages = 12                        # no data: only allocated
page_size = 2048
dump = "c.bin"                    # its bytes after the run

[cbs]                             # index = { pages, page_size, format }
0 = { pages = 2, page_size = 2048, format = "Float16_b" }
1 = { pages = 2, page_size = 2048 }
2 = { pages = 2, page_size = 2048 }

[[kernels]]
processor = "ncrisc"              # brisc | ncrisc | compute
source = "{ops}/eltwise/binary/device/kernels/dataflow/reader_binary_interleaved_start_id.cpp"
compile_args = [0, "a.accessor", "b.accessor"]     # "NAME.accessor": TensorAccessorArgs of buffer NAME
args = ["a", "b", 12, 0, 0, 0, 0]                  # "NAME": buffer NAME's address

[[kernels]]
processor = "brisc"
source = "{ops}/eltwise/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp"
compile_args = [2, "c.accessor"]
args = ["c", 12, 0]

[[kernels]]
processor = "compute"
source = "{ops}/eltwise/binary/device/kernels/compute/eltwise_binary_kernel.cpp"
defines = { ELTWISE_OP = "add_tiles", ELTWISE_OP_TYPE = "EltwiseBinaryType::ELWADD" }
args = [12, 1]
# also: named_args = { cb_in0 = 0 }, noc = 1, compute = { math_fidelity = "HiFi4", fp32_dest_acc_en = false }
# Metal 2.0 kernels (args::, dfb::, tensor::): rt_args = { num_tiles = 12 }, common_args = { ... },
# dfbs = { in0 = 0 } (the CB each dfb:: name binds), tensors = { src = "a" } (the buffer each tensor:: name binds)
"""

_BUFFER_KEYS = ("file", "page_size", "pages", "dump", "address")
_CB_KEYS = ("pages", "page_size", "format")
_KERNEL_KEYS = ("processor", "source", "args", "compile_args", "defines", "named_args", "noc", "compute",
                "rt_args", "common_args", "dfbs", "tensors")
WORD = 1 << 32


def from_spec(spec: Mapping[str, object], base: Path, sources: Path | None = None) -> Program:
    """A program from a parsed TOML document (``PROGRAM_FORMAT``).  Every key is checked for its
    type and range before anything is built: a wrong one is a ``TtMetalError`` naming the key
    (``buffers.a.pages``, ``kernels[1].args[0]``), what it must be and what it is."""
    _known(spec, ("buffers", "cbs", "kernels", "dprint", "watcher"), "the program", "table(s)")
    program = Program(_boolean(spec, "dprint", "dprint"), _boolean(spec, "watcher", "watcher"))
    for name, b in _table(spec, "buffers", "buffers").items():
        where = f"buffers.{name}"
        b = _as_table(b, where, "{ file, page_size, pages, dump, address }")
        _known(b, _BUFFER_KEYS, where)
        file, dump = _string(b, "file", where), _string(b, "dump", where)
        program.buffer(name, base / file if file is not None else None, _integer(b, "page_size", where, 2048),
                       _integer(b, "pages", where), base / dump if dump is not None else None,
                       _integer(b, "address", where))
    for index, c in _table(spec, "cbs", "cbs").items():
        where = f"cbs.{index}"
        if not (index.isascii() and index.isdigit()):
            raise TtMetalError(f"CB index {index!r} is not a number")
        c = _as_table(c, where, "{ pages, page_size, format }")
        _known(c, _CB_KEYS, where)
        program.cb(int(index), _integer(c, "pages", where, required="{ pages, page_size, format }"),
                   _integer(c, "page_size", where, required="{ pages, page_size, format }"),
                   _string(c, "format", where, "Float16_b"))
    kernels = spec.get("kernels", [])
    if not isinstance(kernels, list):
        raise TtMetalError(f"kernels: an array of tables ([[kernels]] before each kernel), not {_kind(kernels)}")
    for i, k in enumerate(kernels):
        where = f"kernels[{i}]"
        k = _as_table(k, where, "([[kernels]])")
        _known(k, _KERNEL_KEYS, where)
        processor = _string(k, "processor", where, required="brisc | ncrisc | compute")
        source = _source(_string(k, "source", where), base, sources)
        program.kernel(processor, source, args=[_value(program, a, f"{where}.args[{j}]")
                                                for j, a in enumerate(_array(k, "args", where))],
                       compile_args=[w for j, a in enumerate(_array(k, "compile_args", where))
                                     for w in _words(program, a, f"{where}.compile_args[{j}]")],
                       defines=_defines(k, where), named_args=_named_args(k, where), noc=_noc(k, where),
                       compute=_compute(k, where),
                       rt_args={n: _value(program, a, f"{where}.rt_args.{n}")
                                for n, a in _table(k, "rt_args", f"{where}.rt_args").items()},
                       common_args={n: _value(program, a, f"{where}.common_args.{n}")
                                    for n, a in _table(k, "common_args", f"{where}.common_args").items()},
                       dfbs={n: _int(i, f"{where}.dfbs.{n}", 0, NUM_CIRCULAR_BUFFERS)
                             for n, i in _table(k, "dfbs", f"{where}.dfbs").items()},
                       tensors={n: _buffer(program, b, f"{where}.tensors.{n}")
                                for n, b in _table(k, "tensors", f"{where}.tensors").items()})
    return program


def _kind(value: object) -> str:
    """What a TOML value is, for a message: its type and the value."""
    for types, name in ((bool, "a boolean"), (int, "an integer"), (float, "a float"), (str, "a string"),
                        (list, "an array"), (dict, "a table"),
                        ((datetime.date, datetime.time), "a date or time")):
        if isinstance(value, types):
            break
    else:
        name = type(value).__name__
    shown = repr(value)
    return f"{name} ({shown if len(shown) <= 40 else shown[:37] + '...'})"


def _known(table: Mapping[str, object], keys: Sequence[str], where: str, what: str = "key(s)") -> None:
    extra = sorted(set(table) - set(keys))
    if extra:
        raise TtMetalError(f"{where}: unknown {what} {', '.join(extra)}; it has {', '.join(keys)}")


def _as_table(value: object, where: str, shape: str) -> Mapping[str, object]:
    if not isinstance(value, dict):
        raise TtMetalError(f"{where}: a table {shape}, not {_kind(value)}")
    return value


def _missing(table: Mapping[str, object], key: str, where: str, required: str | None) -> bool:
    """True when ``key`` is absent and may be; an error naming it and its table when it is required."""
    if key in table:
        return False
    if required is not None:
        raise TtMetalError(f"{where}: no {key} (the table is {required})" if required.startswith("{")
                           else f"{where}: no {key} ({required})")
    return True


def _table(table: Mapping[str, object], key: str, where: str) -> Mapping[str, object]:
    return {} if key not in table else _as_table(table[key], where, f"[{key}]")


def _array(table: Mapping[str, object], key: str, where: str) -> list[object]:
    value = table.get(key, [])
    if not isinstance(value, list):
        raise TtMetalError(f"{where}.{key}: an array, not {_kind(value)}")
    return value


def _boolean(table: Mapping[str, object], key: str, where: str) -> bool:
    value = table.get(key, False)
    if not isinstance(value, bool):
        raise TtMetalError(f"{where}: true or false, not {_kind(value)}")
    return value


def _string(table: Mapping[str, object], key: str, where: str, default: str | None = None,
            required: str | None = None) -> str | None:
    if _missing(table, key, where, required):
        return default
    value = table[key]
    if not isinstance(value, str):
        raise TtMetalError(f"{where}.{key}: a string, not {_kind(value)}")
    return value


def _integer(table: Mapping[str, object], key: str, where: str, default: int | None = None,
             required: str | None = None) -> int | None:
    if _missing(table, key, where, required):
        return default
    return _int(table[key], f"{where}.{key}")


def _int(value: object, where: str, low: int = -(1 << 63), high: int = 1 << 63) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TtMetalError(f"{where}: an integer, not {_kind(value)}")
    if not low <= value < high:
        raise TtMetalError(f"{where}: {value} is outside {low}..{high - 1}")
    return value


def _source(text: str | None, base: Path, sources: Path | None) -> Path | None:
    if text is None:
        return None
    if "{ops}" in text:
        if sources is None:
            from tdbg.toolchain import ttnn

            try:
                sources = ttnn.tree().operations
            except ttnn.TtnnUnavailable as exc:
                raise TtMetalError(str(exc)) from None
        text = text.replace("{ops}", str(sources))
    return base / text


def _buffer(program: Program, name: object, where: str) -> Buffer:
    """A Metal 2.0 tensor binding: the name of one of the program's buffers."""
    if not isinstance(name, str) or name not in program.buffers:
        raise TtMetalError(f"{where}: tensor binding {name!r} names no buffer")
    return program.buffers[name]


def _value(program: Program, arg: object, where: str) -> int | Buffer:
    """A runtime argument: a 32-bit word, or a buffer's name (its address)."""
    if isinstance(arg, str):
        if arg not in program.buffers:
            raise TtMetalError(f"{where}: runtime argument {arg!r} names no buffer")
        return program.buffers[arg]
    if isinstance(arg, bool) or not isinstance(arg, int):
        raise TtMetalError(f"{where}: a 32-bit word or a buffer name, not {_kind(arg)}")
    return _int(arg, where, 0, WORD)


def _words(program: Program, arg: object, where: str) -> list[int]:
    """A compile-time argument: a 32-bit word, or ``BUFFER.accessor`` (its TensorAccessorArgs)."""
    if isinstance(arg, str):
        name, _, what = arg.rpartition(".")
        if what != "accessor" or name not in program.buffers:
            raise TtMetalError(f"{where}: compile-time argument {arg!r}: a number, or BUFFER.accessor")
        return program.buffers[name].accessor_args
    if isinstance(arg, bool) or not isinstance(arg, int):
        raise TtMetalError(f"{where}: a 32-bit word or BUFFER.accessor, not {_kind(arg)}")
    return [_int(arg, where, 0, WORD)]


def _defines(kernel: Mapping[str, object], where: str) -> dict[str, str]:
    """``defines``: a table of macro -> string or integer (tt-metal's ``std::map<string, string>``)."""
    out = {}
    for name, value in _table(kernel, "defines", f"{where}.defines").items():
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise TtMetalError(f"{where}.defines.{name}: a string or an integer, not {_kind(value)}")
        out[name] = str(value)
    return out


def _named_args(kernel: Mapping[str, object], where: str) -> dict[str, int]:
    return {name: _int(value, f"{where}.named_args.{name}", 0, WORD)
            for name, value in _table(kernel, "named_args", f"{where}.named_args").items()}


def _noc(kernel: Mapping[str, object], where: str) -> int | None:
    noc = _integer(kernel, "noc", where)
    if noc not in (None, 0, 1):
        raise TtMetalError(f"{where}.noc: 0 or 1, not {noc}")
    return noc


def _compute(kernel: Mapping[str, object], where: str) -> dict[str, object]:
    """``compute``: ``tdbg.ttmetal.kit.ComputeConfig``'s fields (the math fidelity a string, the
    rest true or false)."""
    from tdbg.ttmetal.kit import MATH_FIDELITY, ComputeConfig

    table = _table(kernel, "compute", f"{where}.compute")
    keys = [f.name for f in fields(ComputeConfig)]
    _known(table, keys, f"{where}.compute")
    for key, value in table.items():
        if key == "math_fidelity":
            if not isinstance(value, str) or value not in MATH_FIDELITY:
                raise TtMetalError(f"{where}.compute.math_fidelity: one of {', '.join(MATH_FIDELITY)}, not {_kind(value)}")
        elif not isinstance(value, bool):
            raise TtMetalError(f"{where}.compute.{key}: true or false, not {_kind(value)}")
    return dict(table)


# -- the kernel configuration buffer and the launch message -------------------------------------------

@dataclass(frozen=True)
class Layout:
    """Where the host puts the program in the kernel configuration buffer (offsets from
    ``kernel_config_base``), as tt-metal 0.81.1 lays it out: each processor's runtime arguments
    in processor order (a compute kernel's once, for T0..T2; none: offset 0), the CB
    configuration (16 bytes per index up to the highest used, at ``local_cb_offset`` =
    the arguments' end rounded to 16; ``sem_offset`` there too: no semaphores), then the kernel
    images in processor order, each at a multiple of 16.  CBs take L1 from
    ``l1_unreserved_start`` in index order."""

    base: int
    rta_offset: dict[str, int]
    rta_words: dict[int, list[int]]          # offset -> words written there (runtime and common runtime args)
    local_cb_offset: int
    remote_cb_offset: int
    cb_addresses: dict[int, int]
    text_offset: dict[str, int]
    images: dict[str, bytes]
    crta_offset: dict[str, int] = field(default_factory=dict)   # common runtime args: after every kernel's own

    @classmethod
    def of(cls, program: Program, binaries: Mapping[str, Binary], base: int = KERNEL_CONFIG_BASE) -> Layout:
        rta_offset = {core: 0 for core in CORES}
        rta_words: dict[int, list[int]] = {}
        at = 0
        for kernel in sorted(program.kernels, key=lambda k: CORES.index(k.cores[0])):
            words = kernel.arg_words()
            if words:
                rta_words[at] = words
                for core in kernel.cores:
                    rta_offset[core] = at
                at += 4 * len(words)
        crta_offset = {core: 0 for core in CORES}
        for kernel in sorted(program.kernels, key=lambda k: CORES.index(k.cores[0])):
            words = kernel.common_words()
            if words:
                rta_words[at] = words
                for core in kernel.cores:
                    crta_offset[core] = at
                at += 4 * len(words)
        local_cb = _align(at)
        remote_cb = local_cb + CB_CONFIG_BYTES * (max(program.cbs, default=-1) + 1)
        cb_addresses, address = {}, L1_UNRESERVED_START
        for index in sorted(program.cbs):
            cb_addresses[index] = address
            address += program.cbs[index].size
        text_offset, images, at = {}, {}, remote_cb
        for core in CORES:
            if core in binaries:
                text_offset[core] = at
                images[core] = binaries[core].image
                at = _align(at + len(binaries[core].image))
        if at > KERNEL_CONFIG_SIZE:
            raise TtMetalError(f"the kernels and their configuration take {at} bytes; the kernel configuration "
                               f"buffer holds {KERNEL_CONFIG_SIZE}")
        return cls(base, rta_offset, rta_words, local_cb, remote_cb, cb_addresses, text_offset, images, crta_offset)

    def cb_config(self, program: Program) -> bytes:
        """The local CB configuration: per index, fifo_addr, fifo_size, fifo_num_pages, fifo_page_size."""
        out = bytearray(self.remote_cb_offset - self.local_cb_offset)
        for index, cb in program.cbs.items():
            words = (self.cb_addresses[index], cb.size, cb.pages, cb.page_size)
            out[CB_CONFIG_BYTES * index:CB_CONFIG_BYTES * (index + 1)] = b"".join(w.to_bytes(4, "little") for w in words)
        return bytes(out)


def _align(n: int) -> int:
    return -(-n // L1_ALIGNMENT) * L1_ALIGNMENT


def launch_message(mailboxes: Mailboxes, program: Program, layout: Layout, program_id: int = 1):
    """``launch[0]``'s ``kernel_config_msg_t`` for ``program`` (a ``Record``)."""
    r = mailboxes.record("launch[0]")
    k = ".kernel_config"
    for i, base in enumerate((layout.base, *OTHER_CONFIG_BASES)):
        r.set(f"{k}.kernel_config_base[{i}]", base)
    r.set(f"{k}.sem_offset[0]", layout.local_cb_offset)
    r.set(f"{k}.local_cb_offset", layout.local_cb_offset)
    r.set(f"{k}.remote_cb_offset", layout.remote_cb_offset)
    cores = {core: kernel for kernel in program.kernels for core in kernel.cores}
    enables = 0
    for index, core in enumerate(CORES):
        r.set(f"{k}.rta_offset[{index}].rta_offset", layout.rta_offset[core])
        r.set(f"{k}.rta_offset[{index}].crta_offset", layout.crta_offset.get(core, 0))
        if core in layout.text_offset:
            r.set(f"{k}.kernel_text_offset[{index}]", layout.text_offset[core])
            r.set(f"{k}.kernel_text_size[{index}]", len(layout.images[core]))
            enables |= 1 << index
        if core in cores:
            r.set(f"{k}.watcher_kernel_ids[{index}]", program.kernels.index(cores[core]) + 1)
    r.set(f"{k}.mode", DISPATCH_MODE_HOST)
    r.set(f"{k}.cross_node_dfb_offset", REMOTE_DFB_OFFSET_NONE)
    r.set(f"{k}.prefetcher_pipe_offset", REMOTE_DFB_OFFSET_NONE)
    r.set(f"{k}.local_cb_mask", sum(1 << i for i in program.cbs))
    writer = cores.get("B")
    r.set(f"{k}.brisc_noc_id", (writer.noc if writer.noc is not None else DEFAULT_NOC["brisc"]) if writer else 0)
    r.set(f"{k}.min_remote_cb_start_index", NUM_CIRCULAR_BUFFERS)
    r.set(f"{k}.host_assigned_id", program_id)
    r.set(f"{k}.enables", enables)
    return r


# -- the host -----------------------------------------------------------------------------------------

DEVICE_ASSERT = "tt-metal device assert"    # how a tripped ASSERT's stop begins (ProgramHost.assertion)


def device_assert(stop: Stop) -> bool:
    """True when ``stop`` is a kernel's tripped ASSERT."""
    return stop.kind is StopKind.HOST and stop.detail.startswith(DEVICE_ASSERT + ":")


@dataclass
class Result:
    """What the program left: each buffer's bytes after the run."""

    buffers: dict[str, bytes]

    def tensor(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """Buffer ``name`` read as bfloat16 tiles, as float32 values of ``shape``."""
        return tensors.from_bf16_tiles(self.buffers[name], shape)


class ProgramHost(BootHost):
    """tt-metal's host for one program: boots the firmware, sends the program once the cores
    idle, reads the results back when they idle again with the go message done."""

    def __init__(self, mailboxes: Mailboxes, program: Program, binaries: Mapping[str, Binary]) -> None:
        super().__init__(mailboxes)
        self.program, self.binaries = program, dict(binaries)
        self.layout = Layout.of(program, self.binaries)
        self.elves = {core: ElfImage.load(b.elf) for core, b in self.binaries.items()}
        #: each image's code: the executable segment's bytes (its data follows)
        self.text = {core: sum(len(s.data) for s in elf.segments if s.executable) for core, elf in self.elves.items()}
        self.sent = False
        self.result: Result | None = None
        self.prints = PrintServer(mailboxes, self.elves) if program.dprint else None   # DPRINT's server

    def restarted(self, session: Session) -> None:
        self.sent, self.result = False, None
        if self.prints is not None:
            self.prints = PrintServer(self.mailboxes, self.elves)

    def saved(self) -> object:
        """Whether the program was sent, its result, the print server's lines (a checkpoint's)."""
        return self.sent, self.result, None if self.prints is None else self.prints.copy()

    def resumed(self, saved: object) -> None:
        self.sent, self.result, prints = saved  # type: ignore[misc]
        self.prints = None if prints is None else prints.copy()

    def drain_prints(self, session: Session) -> list[Print]:
        """Every DPRINT line the kernels have printed so far (the buffer drained now)."""
        if self.prints is None:
            return []
        self.prints.drain(session)
        return list(self.prints.prints)

    def runs_kernel(self, core: str, pc: int) -> bool:
        """True when ``pc`` is in ``core``'s kernel."""
        if core not in self.layout.images:
            return False
        start = self.layout.base + self.layout.text_offset[core]
        return start <= pc < start + len(self.layout.images[core])

    def idle(self, session: Session, stop: Stop) -> Stop | None:
        tripped = self.assertion(session)
        if tripped is not None:
            return tripped
        if self.prints is not None and self.prints.drain(session):
            return None   # a kernel may wait for room in the print buffer: it has it now
        signal = self.signal(session)
        if signal != RUN_MSG_DONE:
            from tdbg.ttmetal.hang import report

            return report(session, self, stop)
        if not self.sent:
            self.send(session)
            return None
        self.result = self.collect(session)
        lines = [f"tt-metal program done: go_messages[0].signal = {RUN_MSG_NAMES[signal]}"]
        for name, buffer in self.program.buffers.items():
            where = f"; written to {buffer.dump}" if buffer.dump else ""
            lines.append(f"  buffer {name}: {buffer.size} bytes at DRAM {buffer.address:#x}{where}")
        return Stop(StopKind.HOST, stop.core, stop.pc, detail="\n".join(lines))

    def assertion(self, session: Session) -> Stop | None:
        """A kernel's tripped ASSERT (a watcher build's ``assert_and_hang``: the line and the
        processor in ``mailboxes.watcher.assert_status``, then ``while (1)``) as the stop that
        names it, at the core that tripped it; None when none has."""
        line, kind, which = (self.mailboxes.read(f"watcher.assert_status.{m}") for m in ("line_num", "tripped", "which"))
        if kind not in DEBUG_ASSERT_TYPES or which >= len(CORES):
            return None
        core = CORES[which]
        kernel = next((k for k in self.program.kernels if core in k.cores), None)
        with session.on_core(core):
            pc = session.register("pc")
        return Stop(StopKind.HOST, core, pc,
                    detail=f"{DEVICE_ASSERT}: {core} tripped ASSERT at {self._assert_site(session, core, pc, line, kernel)} "
                           f"({DEBUG_ASSERT_TYPES[kind]})",
                    report=(f"  {core} hangs in assert_and_hang, at {session.describe_pc(core, pc)}",))

    @staticmethod
    def _assert_site(session: Session, core: str, pc: int, line: int, kernel: Kernel | None) -> str:
        return assert_site(session, core, pc, line,
                           kernel.source.name if kernel is not None and kernel.source is not None else None)

    def send(self, session: Session) -> None:
        """The program's writes, in tt-metal's order: buffers, the kernel configuration buffer,
        ``launch[0]``, the go message."""
        program, layout = self.program, self.layout
        for buffer in program.buffers.values():
            if buffer.data is not None:
                buffer.placement().write(session, buffer.data)
        with session.on_core("B"):
            for core in CORES:
                if core in layout.images:   # the text is code; the data after it, what the kernel copies
                    at, image, text = layout.base + layout.text_offset[core], layout.images[core], self.text[core]
                    session.load_code(at, image[:text])
                    session.write_memory(at + text, image[text:])
            session.write_memory(layout.base + layout.local_cb_offset, layout.cb_config(program))
            for offset, words in layout.rta_words.items():
                session.write_memory(layout.base + offset, b"".join(w.to_bytes(4, "little") for w in words))
            launch = launch_message(self.mailboxes, program, layout)
            session.write_memory(launch.address, bytes(launch.data))
            go = self.mailboxes.record("go_messages[0]")
            go.set(".signal", RUN_MSG_GO)
            session.write_memory(go.address, bytes(go.data))
        self.sent = True

    def collect(self, session: Session) -> Result:
        out = {}
        for name, buffer in self.program.buffers.items():
            data = buffer.placement().read(session)
            out[name] = data
            if buffer.dump is not None:   # as ``dump`` writes: a FIFO refused (opening one waits for a reader)
                try:
                    write_host_file(buffer.dump, data)
                except HostFileError as exc:
                    raise TtMetalError(str(exc)) from None
        return Result(out)


def prepare(session: Session, program: Program, folder: str | Path | None = None) -> ProgramHost:
    """Boot set-up (``boot.prepare``), the program built and placed; the session's host runs it."""
    binaries = program.binaries()
    program.allocate()
    booted = boot.prepare(session, folder)
    host = ProgramHost(booted.mailboxes, program, binaries)
    for core, binary in binaries.items():   # the kernels' symbols where they will run
        session.add_symbol_file(core, binary.elf, host.layout.base + host.layout.text_offset[core])
    session.host = host
    session.name_noc(dram.namer(session, {name: b.placement() for name, b in program.buffers.items()}))
    return host


def run(session: Session, program: Program, folder: str | Path | None = None) -> Result:
    """Boot the tile, run ``program`` to its end, and return its buffers; a ``TtMetalError``
    naming the stop when it does not finish (a hang, a fault)."""
    host = prepare(session, program, folder)
    stop = session.cont()
    if stop.kind is not StopKind.HOST or host.result is None:
        raise TtMetalError(f"the program did not finish: {stop.describe()}")
    return host.result


def assert_site(session: Session, core: str, pc: int, line: int, source: str | None) -> str:
    """``FILE:LINE`` of the tripped ``ASSERT`` ``core`` hangs in at ``pc``: the call site of the
    inlined ``assert_and_hang`` when its line is the one recorded (an ASSERT in a header has that
    header's line), else the recorded line in the kernel's ``source`` (a file name)."""
    info = session.debug_info_at(core, pc)
    for frame in info.inline_chain(pc) if info is not None else ():
        if frame.name == "assert_and_hang" and frame.call_file is not None and frame.call_line == line:
            return f"{frame.call_file.name}:{line}"
    return f"line {line} of {source or 'its kernel'}"
