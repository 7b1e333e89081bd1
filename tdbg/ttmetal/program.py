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

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from tdbg.emu.elf import ElfImage
from tdbg.emu.stops import Stop, StopKind
from tdbg.ttmetal import boot, dram, tensors
from tdbg.ttmetal.boot import PROCESSORS, BootHost, TtMetalError
from tdbg.ttmetal.dprint import Print, PrintServer
from tdbg.ttmetal.mailboxes import (
    DEBUG_ASSERT_TYPES, DISPATCH_MODE_HOST, RUN_MSG_DONE, RUN_MSG_GO, RUN_MSG_NAMES, Mailboxes,
)
from tdbg.ttmetal.memmap import KERNEL_CONFIG_BASE, KERNEL_CONFIG_SIZE, L1_UNRESERVED_START

if TYPE_CHECKING:
    from tdbg.session import Session

#: tt-metal's kernel processors: B and NC run a data movement kernel each, T0..T2 the three parts
#: of a compute kernel; PROCESSOR_INDEX is the position here (the launch message's slot).
CORES = tuple(PROCESSORS)
KINDS = {"brisc": ("B",), "ncrisc": ("NC",), "compute": ("T0", "T1", "T2")}
#: The NoC tt-metal's Writer/ReaderDataMovementConfig give BRISC/NCRISC (measured: NOC_INDEX).
DEFAULT_NOC = {"brisc": 1, "ncrisc": 0}
NUM_CIRCULAR_BUFFERS = 64                # tt-metalium/circular_buffer_constants.h (Blackhole)
CB_CONFIG_BYTES = 16                     # UINT32_WORDS_PER_LOCAL_CIRCULAR_BUFFER_CONFIG words
L1_ALIGNMENT = 16                        # Blackhole's L1 alignment (kernel images, CB config)
REMOTE_DFB_OFFSET_NONE = 0xFF            # dev_msgs.h: no CrossNodeDFBs / PrefetcherPipes
#: kernel_config_base of the other programmable core types (active and idle Ethernet), which a
#: worker does not use (measured: what tt-metal 0.81.1 writes).
OTHER_CONFIG_BASES = (0xF330, 0xFDB0, 0)
DATA_FORMATS = ("Float16_b", "Float32", "Bfp8_b")


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

    @property
    def cores(self) -> tuple[str, ...]:
        return KINDS[self.processor]

    @property
    def name(self) -> str:
        return self.source.stem if self.source is not None else f"{self.processor} kernel"

    def arg_words(self) -> list[int]:
        words = []
        for arg in self.args:
            value = arg.placement().address if isinstance(arg, Buffer) else int(arg)
            if not 0 <= value < 1 << 32:
                raise TtMetalError(f"{self.name}: runtime argument {value} is not a 32-bit word")
            words.append(value)
        return words


class Program:
    """Buffers, circular buffers and kernels, as a tt-metal host program creates them."""

    def __init__(self, dprint: bool = False) -> None:
        self.dprint = dprint          # kernels built with DPRINT on (tdbg.ttmetal.dprint shows it)
        self.buffers: dict[str, Buffer] = {}
        self.cbs: dict[int, CircularBuffer] = {}
        self.kernels: list[Kernel] = []

    # -- describing it -----------------------------------------------------------------------------
    def buffer(self, name: str, data: bytes | np.ndarray | str | Path | None = None, page_size: int = 2048,
               pages: int | None = None, dump: str | Path | None = None, address: int | None = None) -> Buffer:
        """A DRAM buffer: ``data`` as bytes, a ``.npy`` or raw file, or a numpy array (a float
        array is written as bfloat16 tiles, ``tensors.bf16_tiles``; any other as its bytes);
        ``pages`` defaults to what the data fills."""
        raw = _bytes(data)
        if pages is None:
            if raw is None:
                raise TtMetalError(f"buffer {name}: give its data or its number of pages")
            pages = -(-len(raw) // page_size)
        if raw is not None and len(raw) > pages * page_size:
            raise TtMetalError(f"buffer {name}: {len(raw)} bytes do not fit {pages} pages of {page_size}")
        if name in self.buffers:
            raise TtMetalError(f"two buffers named {name}")
        found = self.buffers[name] = Buffer(name, page_size, pages, raw, Path(dump) if dump else None, address)
        return found

    def cb(self, index: int, pages: int, page_size: int, format: str = "Float16_b") -> CircularBuffer:
        """A local circular buffer (``CreateCircularBuffer``)."""
        if not 0 <= index < NUM_CIRCULAR_BUFFERS:
            raise TtMetalError(f"CB index {index} is outside 0..{NUM_CIRCULAR_BUFFERS - 1}")
        if format not in DATA_FORMATS:
            raise TtMetalError(f"CB {index}: data format {format!r} is not one of {', '.join(DATA_FORMATS)}")
        if pages <= 0 or page_size <= 0 or page_size % L1_ALIGNMENT:
            raise TtMetalError(f"CB {index}: {pages} pages of {page_size} bytes (a page is a multiple of {L1_ALIGNMENT})")
        self.cbs[index] = CircularBuffer(index, pages, page_size, format)
        return self.cbs[index]

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
        """A program from a TOML file (``PROGRAM_FORMAT``); relative paths are the file's."""
        path = Path(path)
        try:
            spec = tomllib.loads(path.read_text())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise TtMetalError(f"{path}: {exc}") from None
        return from_spec(spec, path.parent, sources)

    # -- building and placing it ----------------------------------------------------------------
    def allocate(self) -> None:
        """Give every buffer without an address one, as tt-metal's allocator does."""
        free = [b for b in self.buffers.values() if b.address is None]
        taken = [b.placement() for b in self.buffers.values() if b.address is not None]
        base = max([dram.DRAM_UNRESERVED_BASE] + [dram.aligned(t.address + t.bank_bytes) for t in taken])
        for buffer, placed in zip(free, dram.allocate([(b.page_size, b.pages) for b in free], base)):
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
                          compile_args=tuple(kernel.compile_args), named_args=tuple(sorted(kernel.named_args.items())),
                          noc=kernel.noc, compute=kit.ComputeConfig(**kernel.compute), debug_print=self.dprint)
        try:
            kernel.binaries = kit.build(spec).binaries
        except (kit.KernelBuildError, TtnnUnavailable) as exc:
            raise TtMetalError(f"{kernel.name}: {exc}") from None
        return kernel.binaries


def _bytes(data: bytes | np.ndarray | str | Path | None) -> bytes | None:
    if data is None or isinstance(data, bytes):
        return data
    if isinstance(data, (str, Path)):
        path = Path(data)
        try:
            data = np.load(path) if path.suffix == ".npy" else path.read_bytes()
        except (OSError, ValueError) as exc:
            raise TtMetalError(f"{path}: {exc}") from None
        if isinstance(data, bytes):
            return data
    array = np.asarray(data)
    if array.dtype.kind == "f":
        return tensors.bf16_tiles(array)
    return array.tobytes()


# -- the file format ---------------------------------------------------------------------------------

PROGRAM_FORMAT = """\
# A tt-metal program on one tile (tdbg tt-metal program FILE): C = A + B, 12 bfloat16 tiles.
# Paths are relative to this file; {ops} is the ttnn wheel's ttnn/cpp/ttnn/operations folder.
# dprint = true                   # build the kernels with DPRINT on (their prints show at each stop)

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
"""

_KERNEL_KEYS = {"processor", "source", "args", "compile_args", "defines", "named_args", "noc", "compute"}


def from_spec(spec: Mapping[str, object], base: Path, sources: Path | None = None) -> Program:
    """A program from a parsed TOML document (``PROGRAM_FORMAT``)."""
    program = Program(bool(spec.get("dprint", False)))
    unknown = set(spec) - {"buffers", "cbs", "kernels", "dprint"}
    if unknown:
        raise TtMetalError(f"unknown table(s) {', '.join(sorted(unknown))}; a program has buffers, cbs and kernels "
                           "(and dprint = true)")
    for name, b in dict(spec.get("buffers", {})).items():
        extra = set(b) - {"file", "page_size", "pages", "dump", "address"}
        if extra:
            raise TtMetalError(f"buffer {name}: unknown key(s) {', '.join(sorted(extra))}")
        program.buffer(name, base / b["file"] if "file" in b else None, b.get("page_size", 2048), b.get("pages"),
                       base / b["dump"] if "dump" in b else None, b.get("address"))
    for index, c in dict(spec.get("cbs", {})).items():
        if not str(index).isdigit():
            raise TtMetalError(f"CB index {index!r} is not a number")
        program.cb(int(index), c["pages"], c["page_size"], c.get("format", "Float16_b"))
    for k in spec.get("kernels", []):
        extra = set(k) - _KERNEL_KEYS
        if extra:
            raise TtMetalError(f"kernel: unknown key(s) {', '.join(sorted(extra))}")
        source = _source(k.get("source"), base, sources)
        program.kernel(k["processor"], source, args=[_value(program, a) for a in k.get("args", [])],
                       compile_args=[w for a in k.get("compile_args", []) for w in _words(program, a)],
                       defines=dict(k.get("defines", {})), named_args=dict(k.get("named_args", {})),
                       noc=k.get("noc"), compute=dict(k.get("compute", {})))
    return program


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


def _value(program: Program, arg: object) -> int | Buffer:
    if isinstance(arg, str):
        if arg not in program.buffers:
            raise TtMetalError(f"runtime argument {arg!r} names no buffer")
        return program.buffers[arg]
    return int(arg)   # type: ignore[arg-type]


def _words(program: Program, arg: object) -> list[int]:
    if isinstance(arg, str):
        name, _, what = arg.partition(".")
        if what != "accessor" or name not in program.buffers:
            raise TtMetalError(f"compile-time argument {arg!r}: a number, or BUFFER.accessor")
        return program.buffers[name].accessor_args
    return [int(arg)]   # type: ignore[call-overload]


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
    rta_words: dict[int, list[int]]          # offset -> words written there
    local_cb_offset: int
    remote_cb_offset: int
    cb_addresses: dict[int, int]
    text_offset: dict[str, int]
    images: dict[str, bytes]

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
        return cls(base, rta_offset, rta_words, local_cb, remote_cb, cb_addresses, text_offset, images)

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
                    detail=f"tt-metal device assert: {core} tripped ASSERT at {self._assert_site(session, core, pc, line, kernel)} "
                           f"({DEBUG_ASSERT_TYPES[kind]})",
                    report=(f"  {core} hangs in assert_and_hang, at {session.describe_pc(core, pc)}",))

    @staticmethod
    def _assert_site(session: Session, core: str, pc: int, line: int, kernel: Kernel | None) -> str:
        """``FILE:LINE`` of the tripped ``ASSERT``: the call site of the inlined ``assert_and_hang``
        the core hangs in when its line is the one recorded (an ASSERT in a header has that
        header's line), else the recorded line in the kernel's source."""
        info = session.debug_info_at(core, pc)
        for frame in info.inline_chain(pc) if info is not None else ():
            if frame.name == "assert_and_hang" and frame.call_file is not None and frame.call_line == line:
                return f"{frame.call_file.name}:{line}"
        source = kernel.source.name if kernel is not None and kernel.source is not None else "its kernel"
        return f"line {line} of {source}"

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
            if buffer.dump is not None:
                try:
                    buffer.dump.write_bytes(data)
                except OSError as exc:
                    raise TtMetalError(f"{buffer.dump}: {exc.strerror or exc}") from None
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
