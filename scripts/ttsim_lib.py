"""Drive Tenstorrent's simulator as a host does: ``libttsim.so`` (a Blackhole build made by hand,
named by ``TTSIM_LIB``) through its public API, for the scripts that measure ttsim beside tdbg.

One Tensix tile, (1, 2), is reached through BAR0's 2 MiB TLB windows (ttsim v1.10.0
libttsim.cpp ``tlb_translate``: window ``i`` at ``BAR0 + i * 2 MiB``, configured by three words at
``BAR0 + 0x1FC00000 + 12 i``: the address's bits 52..21, then its bits 63..53 with the NoC
coordinate ``x | y << 6`` at bit 11, then 0).  The TRISCs start where ``TRISC{n}_RESET_PC`` says
once ``TRISC_RESET_PC_OVERRIDE`` enables it and their ``SOFT_RESET_0`` bits (12..14) are cleared
(../shared/kernels/README.md, "How a host runs them").  The library can be initialised once per
process: run one ``Ttsim`` per child process.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import pickle
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from elftools.elf.elffile import ELFFile

TILE = (1, 2)                       # a Tensix tile in NoC 0 coordinates
WINDOW = 1 << 21                    # Blackhole BAR0 TLB window size
TLB_CONFIG = 0x1FC00000             # BAR0 offset of the TLB configuration words
SOFT_RESET_0 = 0xFFB121B0           # RISCV_DEBUG_REG_SOFT_RESET_0
TRISC_RESET_PC = 0xFFB12228         # TRISC0_RESET_PC; TRISC1/2 follow, then the override enable
TRISC_RESET_PC_OVERRIDE = 0xFFB12234
TRISC_RESET_BIT = 12                # SOFT_RESET_0 bit of TRISC0 (TRISC1, TRISC2: 13, 14)


def library() -> Path | None:
    """The library ``TTSIM_LIB`` names, when it exists."""
    path = os.environ.get("TTSIM_LIB")
    return Path(path) if path and Path(path).is_file() else None


class Ttsim:
    """The simulator, initialised, with TLB windows onto one tile (one per 2 MiB region used)."""

    def __init__(self, path: Path, tile: tuple[int, int] = TILE) -> None:
        self.lib = ctypes.CDLL(str(path))
        self.lib.libttsim_pci_config_rd32.restype = ctypes.c_uint32
        self.lib.libttsim_pci_mem_rd_bytes.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint32]
        self.lib.libttsim_pci_mem_wr_bytes.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint32]
        self.lib.libttsim_clock.argtypes = [ctypes.c_uint32]
        self.lib.libttsim_init()
        lo, hi = (self.lib.libttsim_pci_config_rd32(0, off) for off in (0x10, 0x14))
        self.bar0 = ((hi << 32) | lo) & ~0xF
        self.tile = tile
        self.windows: dict[int, int] = {}   # 2 MiB region base -> TLB index

    def _pci_write(self, paddr: int, data: bytes) -> None:
        buf = ctypes.create_string_buffer(bytes(data), len(data))
        self.lib.libttsim_pci_mem_wr_bytes(paddr, buf, len(data))

    def _window(self, addr: int) -> int:
        base = addr & ~(WINDOW - 1)
        if base not in self.windows:
            index = len(self.windows)
            x, y = self.tile
            words = ((base >> 21) & 0xFFFFFFFF, ((base >> 53) & 0x7FF) | ((x | y << 6) << 11), 0)
            for i, word in enumerate(words):   # ttsim takes the configuration a word at a time
                self._pci_write(self.bar0 + TLB_CONFIG + 12 * index + 4 * i, struct.pack("<I", word))
            self.windows[base] = index
        return self.bar0 + self.windows[base] * WINDOW + (addr - base)

    def write(self, addr: int, data: bytes) -> None:
        """Write ``data`` into the tile at ``addr`` (L1, or a register with a 4-byte ``data``)."""
        at = 0
        while at < len(data):  # a chunk per window it falls in
            chunk = data[at:at + WINDOW - ((addr + at) & (WINDOW - 1))]
            self._pci_write(self._window(addr + at), chunk)
            at += len(chunk)

    def read(self, addr: int, size: int) -> bytes:
        """``size`` bytes of the tile from ``addr`` (within one 2 MiB window)."""
        buf = ctypes.create_string_buffer(size)
        self.lib.libttsim_pci_mem_rd_bytes(self._window(addr), buf, size)
        return buf.raw

    def write32(self, addr: int, value: int) -> None:
        self.write(addr, struct.pack("<I", value))

    def read32(self, addr: int) -> int:
        return struct.unpack("<I", self.read(addr, 4))[0]

    def clock(self, n: int) -> None:
        self.lib.libttsim_clock(n)

    def load_elf(self, elf: Path) -> int:
        """Write the ELF's loadable segments into L1 at their physical addresses; its entry."""
        with open(elf, "rb") as f:
            image = ELFFile(f)
            for seg in image.iter_segments():
                if seg["p_type"] == "PT_LOAD" and seg["p_filesz"]:
                    self.write(seg["p_paddr"], seg.data())
            return image["e_entry"]

    def release_triscs(self, pcs: dict[int, int]) -> None:
        """Start TRISC ``n`` at ``pcs[n]`` for each ``n`` given (the others stay in reset)."""
        for n, pc in pcs.items():
            self.write32(TRISC_RESET_PC + 4 * n, pc)
        self.write32(TRISC_RESET_PC_OVERRIDE, sum(1 << n for n in pcs))
        reset = self.read32(SOFT_RESET_0)
        self.write32(SOFT_RESET_0, reset & ~sum(1 << (TRISC_RESET_BIT + n) for n in pcs))

    def hold_triscs(self, ns: list[int]) -> None:
        """Put TRISC ``n`` back in reset for each ``n`` (released again, it starts at its reset PC)."""
        reset = self.read32(SOFT_RESET_0)
        self.write32(SOFT_RESET_0, reset | sum(1 << (TRISC_RESET_BIT + n) for n in ns))

    def run_until(self, addr: int, value: int, step: int = 256, limit: int = 10_000_000) -> int:
        """Clock ``step`` at a time until the word at ``addr`` reads ``value``; the clocks taken."""
        clocks = 0
        while self.read32(addr) != value:
            if clocks >= limit:
                raise TimeoutError(f"L1 {addr:#x} never read {value:#x} in {limit} clocks")
            self.clock(step)
            clocks += step
        return clocks


@dataclass
class Kernel:
    """What a host does to run a kernel: the bytes it writes (the ELFs' placements, the inputs),
    the TRISCs it starts and where; the kernel is done when every word in ``done`` reads ``0xFF``
    (tt-llk's KERNEL_COMPLETE in each TRISC's mailbox)."""

    writes: list[tuple[int, bytes]]
    pcs: dict[int, int]
    done: list[int]
    output: tuple[int, int]


def _run_kernel(lib: Path, kernel: Kernel, clocks: int | None) -> dict:
    """In this (child) process: load and run ``kernel``, to done (``clocks`` None: polled every
    256 clocks) or for exactly ``clocks``; the CPU seconds from the first write to the end."""
    sim = Ttsim(lib)
    t0 = time.process_time()
    for addr, data in kernel.writes:
        sim.write(addr, data)
    sim.release_triscs(kernel.pcs)
    loaded = time.process_time()
    if clocks is None:
        clocks = 0
        while any(sim.read32(a) != 0xFF for a in kernel.done):
            sim.clock(256)
            clocks += 256
    else:
        sim.clock(clocks)
    cpu = time.process_time() - t0
    return {"clocks": clocks, "cpu": cpu, "load": loaded - t0, "done": all(sim.read32(a) == 0xFF for a in kernel.done),
            "output": hashlib.sha256(sim.read(*kernel.output)).hexdigest()}


def kernel_time(lib: Path, kernel: Kernel, repeat: int = 9) -> tuple[float, float, int, str]:
    """ttsim's CPU seconds for ``kernel``, load to done and its load alone (the best run of
    ``repeat``, a child process each, clocked to the count at which a first run found it done),
    that count, and the sha256 of its output."""
    with tempfile.TemporaryDirectory() as d:
        spec = Path(d, "kernel.pickle")
        spec.write_bytes(pickle.dumps(kernel))

        def child(clocks: int | None) -> dict:
            r = subprocess.run([sys.executable, __file__, str(lib), str(spec), str(clocks or 0)],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"ttsim: {(r.stdout + r.stderr).strip().splitlines()[-1:]}")
            return json.loads(r.stdout.strip().splitlines()[-1])

        first = child(None)
        runs = [child(first["clocks"]) for _ in range(repeat)]
    if not all(r["done"] and r["output"] == first["output"] for r in runs):
        raise RuntimeError("ttsim: a timed run did not end done with the first run's output")
    best = min(runs, key=lambda r: r["cpu"])
    return best["cpu"], best["load"], first["clocks"], first["output"]


if __name__ == "__main__":   # the child of kernel_time: LIB SPEC CLOCKS (0: poll to done)
    _lib, _spec, _clocks = sys.argv[1:4]
    print(json.dumps(_run_kernel(Path(_lib), pickle.loads(Path(_spec).read_bytes()), int(_clocks) or None)))
