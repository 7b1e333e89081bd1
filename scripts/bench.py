#!/usr/bin/env python3
"""tdbg benchmarks: figures measured in one run, printed next to the same figure before the
speed work of issue 23 (tests never assert times).

    python scripts/bench.py [--quick] [--only FIGURE] [--json FILE]

Model (tdbg/tensix):  writing all 1024 Dst16b rows from numpy; reading all 512 Dst32b rows.
Tile (tdbg/emu):   (a) exact Dst-window accesses per second against the same loop on L1;
                      (b) a 60-million-iteration loop with 8 armed, never-hit breakpoints
                          against none; (c) firmware instructions per second against bare
                          Unicorn running the same ELF; (d) Tensix instructions per second
                          that firmware pushes (.ttinsn): an RWC/ZEROACC mix, a MOV mix, an
                          FPU mix, an SFPU mix and an UNPACR/PACR mix, next to the plain RISC-V
                          loop's instructions per second, with the cost of the Unicorn code
                          hook that catches each .ttinsn;
                      (e) stepi per second with reverse-stepi history on and off, and the
                          memory a recorded step keeps; (f) the RISC-V loop on three cores at
                          once against one core; (g) tt-llk's kernels (built from the ttnn wheel,
                          or TDBG_LLK_KERNELS: a folder of KERNEL/unpack.elf, math.elf, pack.elf;
                          their inputs and ttsim's output in TDBG_LLK_INPUTS, default
                          ../shared/kernels) from load to every core
                          parked, next to ttsim's time for the kernel when TTSIM_LIB names a
                          libttsim.so built by hand (a child process per run, load to every
                          TRISC's KERNEL_COMPLETE, clocked to the count a first run found; CPU
                          time, best of 9), the ratios and their geomean;
                      (h) a loop whose hot path is Zba/Zbb (sh2add, sh1add, minu, maxu, zext.h:
                          bench_zb.c built for the Blackhole ISA) against the same C built for
                          plain RV32IM;
                      (i) start-up: ``Session()`` on three kernel ELFs (TDBG_REALFW_EXTRA's
                          first kernel when set, else tests/firmware/llk_kernel.cpp built for
                          T0-T2; its DWARF is read when first needed) and then 'info line main';
                          the kit's three-core eltwise example from load to every core
                          finished; a warm ``tdbg -q -batch -ex quit`` (a child process, byte code
                          cached: its CPU time, with its wall time and ``python3 -c pass``'s CPU
                          time beside) and a warm kernel run
                          from the command line (tt-llk's datacopy from the ttnn wheel: restore its
                          inputs, run, dump the output, checked against ttsim's);
                      (j) the model's cost of one instruction (``Coprocessor.push`` of the word
                          a bench firmware pushes, in the state it leaves, Src and Dst filled
                          with random data): MVMUL, ELWADD, ELWMUL, DOTPV, GAPOOL, GMPOOL,
                          UNPACR (a BF16 face to SrcA), PACR (four Dst16b rows to BF16),
                          SFPLOAD, SFPMAD, SFPSTORE, INCRWC, ZEROACC;
                      (k) a real tt-llk kernel (matmul_test, 2x2x2 tiles, built from the ttnn
                          wheel) built at the Blackhole ISA (Zba/Zbb) and at plain RV32IM: each
                          from load to every core parked, the Zb* instructions in the first, and
                          whether the two write the same output; each beside ttsim's time for
                          the same ELFs when TTSIM_LIB names its library (as in (g));
                      (l) a tt-metal program (ttnn's eltwise add, the ttnn wheel's kernels built by
                          the kit, tdbg booting the firmware and playing the host) over N and 2N
                          tiles: the time per extra tile; next to it ttsim's device clocks per
                          extra tile (go to RUN_MSG_DONE in its host log) when TTSIM_METAL_PROGRAM
                          names the ttsim harness's metal_program folder (run.sh run_add.py, NT=N);
                      (m) tdbg as tt-metal's simulator: the cost of one host request over the
                          socket (READ of 4 bytes, WRITE of 4 bytes and of 4 KiB, from the fake
                          tt-umd client of tests/test_simulator.py; wall time, best of 3 batches)
                          with its parts in the server (decode, answer, reply: in process, best of
                          3 batches; the rest is the socket's and the client's),
                          and, when the ttnn host venv exists (tests/ttnn_host.py), ttnn.add of 1
                          and 64 tiles by scripts/ttnn_add_timing.py (wall time of the add and its
                          read-back, JIT build and first load excluded) on tdbg, and on ttsim when
                          TTSIM_LIB names its library (the 1x2 descriptor tdbg's server presents).
Times are CPU time (the machine is shared: best of several runs); a timed sample that makes a
session starts after a garbage collection (the sessions before it hold cycles: their Unicorn
instances, about 0.3 ms each to free, otherwise fall into whichever sample the collector runs in).  ``BEFORE`` holds the figures
of main at 527530d on this machine, as this script measured them (``--json``; 'Session() on
three kernel ELFs' with the same ELFs, built by this tdbg); each line shows now, before and the
ratio (> 1: better now); (g)'s before figures are the issue's (its table, the lead's kernels).
``BEFORE_34`` holds issue 34's before figures (its table; for the simulator mode this script's first
measurement of it), shown beside them, and ``TTSIM_34`` ttsim's figures from that table where
this script cannot time ttsim itself (the Tensix mixes, the kernel run's host process).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import json
import math
import os
import pstats
import resource
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from unicorn import UC_ARCH_RISCV, UC_HOOK_CODE, UC_MODE_RISCV32, Uc, UcError
from unicorn.riscv_const import UC_RISCV_REG_A0, UC_RISCV_REG_A1

from ttsim_lib import Kernel, kernel_time
from ttsim_lib import library as ttsim_library

from tdbg.arch import profile_for
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.session import Session
from tdbg.commands import execute
from tdbg.emu.elf import ElfImage
from tdbg.emu.loader import placements
from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import build
from tdbg.tensix.state import TensixState

EXAMPLES = Path(__file__).resolve().parents[1] / "firmware"   # the example and benchmark firmware
clock = time.process_time

#: main at 527530d (before issue 23's speed work), this machine (2 shared cores), the best of two
#: ``scripts/bench.py --json`` runs interleaved with runs of the new code; i.session3 and
#: i.first_line on the ELFs this tdbg builds from tests/firmware/llk_kernel.cpp (LLK_KERNEL_ELFS).
BEFORE: dict[str, float] = {
    "model.write16": 0.01533, "model.read32": 0.02012, "a.window": 0.931, "b.breakpoints": 1.009,
    "c.riscv": 1.008, "d.rwc": 360.7, "d.mov": 97.51, "d.fpu": 4.435, "d.sfpu": 26.89,
    "d.unpack_pack": 10.33, "e.stepi_history": 2.96e+04, "e.stepi": 4.191e+04,
    "f.three_cores": 1.013, "i.session3": 35.3, "i.first_line": 43.43, "i.eltwise3": 47.26,
    "i.process": 0.338, "i.kernel_process": 0.488, "j.mvmul": 312.2, "j.elwadd": 213.6, "j.elwmul": 177.3, "j.dotpv": 316.4,
    "j.gapool": 281.2, "j.gmpool": 215.7, "j.unpacr": 48.94, "j.pacr": 110.3, "j.sfpload": 31.92,
    "j.sfpmad": 80.55, "j.sfpstore": 46.65, "j.incrwc": 0.9487, "j.zeroacc": 3.492,
    "g.datacopy": 174, "g.matmul_bf16": 262,  # issue 23's table (527530d cannot run these builds: their CSRs)
}

#: Issue 34's before: its own table (fd21c82, the lead's machine: load to every core parked, the
#: command-line kernel run, the Tensix mixes) and, for the simulator mode (which fd21c82 lacked),
#: this script's first figures of it (88a517f, this kind of machine).
BEFORE_34: dict[str, float] = {
    "g.datacopy": 34, "g.matmul_bf16": 42, "g.risc_compute": 27, "i.kernel_process": 0.58,
    "d.rwc": 488, "d.mov": 152, "d.sfpu": 130, "d.unpack_pack": 43,
    "m.read_4_b": 545, "m.add_1": 47.9, "m.add_64": 346,
}

#: ttsim's figures in issue 34's table, for the figures the ttsim library cannot be timed on here
#: (the Tensix mixes, k insn/s; its host process for a kernel run, the slowest of 6-9 ms).
TTSIM_34: dict[str, float] = {"d.rwc": 8200, "d.mov": 7100, "d.sfpu": 6800, "d.unpack_pack": 1400,
                              "i.kernel_process": 0.009}

#: tt-llk's KERNEL_COMPLETE mailboxes of TRISC0-2 (../shared/kernels/README.md); ttsim's runs per kernel
TTLLK_MAILBOX, TTSIM_REPEAT = 0x1FFB8, 9
#: tdbg / ttsim load-to-parked ratios of the kernels shown since the last geomean
RATIOS: list[float] = []

#: (key, lower is better) of every figure, filled as figures are shown; ``--json`` writes them.
MEASURED: dict[str, float] = {}


def show(key: str, label: str, value: float, unit: str, lower_is_better: bool, detail: str = "") -> None:
    """One figure: now, before (``BEFORE``; issue 34's, ``BEFORE_34``) and the ratios (> 1: better now)."""
    MEASURED[key] = value
    text = f"{label}: {value:10.3f} {unit}"
    for name, table in (("before", BEFORE), ("issue 34's before", BEFORE_34)):
        before = table.get(key)
        if before is not None and before > 0 and value > 0:
            gain = before / value if lower_is_better else value / before
            text += f"   {name} {before:10.3f} {unit}   x{gain:.2f}"
    ttsim = TTSIM_34.get(key)
    if ttsim is not None and value > 0:
        text += f"   ttsim (issue 34's table) {ttsim:.3f} {unit}: tdbg {value / ttsim if lower_is_better else ttsim / value:.1f}x"
    print(text + (f"   ({detail})" if detail else ""))


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times)


def model() -> None:
    t = TensixState()
    rows16 = np.random.default_rng(1).integers(0, 1 << 16, size=(1024, 16), dtype=np.uint16)
    w = best_of(20, lambda: t.dst.write16(slice(0, 1024), rows16))
    r = best_of(20, lambda: t.dst.read32(slice(0, 512)))
    show("model.write16", "model: write all 1024 Dst16b rows", w * 1e3, "ms", True)
    show("model.read32", "model: read all 512 Dst32b rows ", r * 1e3, "ms", True)


def firmware(name: str, iterations: int | None = None) -> Session:
    s = Session(EXAMPLES / f"{name}.c")
    if iterations is not None:
        s.write_memory(s.symbol("iterations").addr, struct.pack("<I", iterations))
    return s


def run_to_end(s: Session) -> float:
    gc.collect()
    t0 = clock()
    stop = s.cont()
    elapsed = clock() - t0
    assert stop.kind is StopKind.EXITED, stop.describe()
    return elapsed


REPEAT = 5  # this machine is shared and its speed wanders by 2-3x between runs: best of 5


def best_run(make: Callable[[], Session]) -> float:
    """Best time of ``REPEAT`` runs to the end, each on a freshly loaded session."""
    return min(run_to_end(make()) for _ in range(REPEAT))


def window(n: int) -> None:
    t_window = best_run(lambda: firmware("bench_window", n))
    t_l1 = best_run(lambda: firmware("bench_l1", n))
    accesses = 2 * n  # one store and one load per iteration
    show("a.window", "(a) Dst window", accesses / t_window / 1e6, "M exact accesses/s", False,
         f"{accesses} accesses in {t_window:.3f} s; same loop on L1 {t_l1:.3f} s")


def breakpoints(n: int) -> None:
    def armed() -> Session:
        s = firmware("bench_loop", n)
        for i in range(8):  # armed, never hit: word addresses in L1 no code reaches
            s.break_at(0x100000 + 4 * i)
        return s

    t_plain = best_run(lambda: firmware("bench_loop", n))
    t_armed = best_run(armed)
    show("b.breakpoints", f"(b) {n:,}-iteration loop, speed with 8 armed breakpoints / none", t_plain / t_armed, "", False,
         f"none {t_plain:.3f} s, 8 armed {t_armed:.3f} s")


def bare_unicorn(image: ElfImage, count_insns: bool = False) -> tuple[float, int]:
    """Run the ELF on a bare Unicorn core to its ebreak: (seconds, instructions if counted)."""
    uc = Uc(UC_ARCH_RISCV, UC_MODE_RISCV32)
    uc.mem_map(0, 1536 * 1024)
    uc.mem_map(0xFFB00000, 0x1000)
    for seg in image.segments:
        uc.mem_write(seg.vaddr, seg.data)
    counter = [0]
    if count_insns:
        uc.hook_add(UC_HOOK_CODE, lambda *_: counter.__setitem__(0, counter[0] + 1))
    t0 = clock()
    try:
        uc.emu_start(image.entry, 0)
    except UcError:
        pass  # the final ebreak
    return clock() - t0, counter[0]


def _with_iterations(s: Session, image: ElfImage, iterations: int) -> ElfImage:
    sym = s.symbol("iterations")
    segs = []
    for seg in image.segments:
        if seg.vaddr <= sym.addr < seg.vaddr + len(seg.data):
            data = bytearray(seg.data)
            struct.pack_into("<I", data, sym.addr - seg.vaddr, iterations)
            seg = type(seg)(seg.vaddr, bytes(data), seg.memsz, seg.executable)
        segs.append(seg)
    return ElfImage(image.path, image.entry, segs, image.symbols, image.exec_ranges)


def loop_instructions(iterations: int) -> float:
    """RISC-V instructions bench_loop runs for ``iterations`` trips (a + b * N, counted with a
    hook on two short runs)."""
    s = firmware("bench_loop", 1000)
    c1 = bare_unicorn(_with_iterations(s, s.image, 1000), count_insns=True)[1]
    c2 = bare_unicorn(_with_iterations(s, s.image, 2000), count_insns=True)[1]
    per_trip = (c2 - c1) / 1000
    return c1 + per_trip * (iterations - 1000)


def instructions_per_second(n: int) -> None:
    total = loop_instructions(n)
    s = firmware("bench_loop", n)
    big = _with_iterations(s, s.image, n)
    t_bare = min(bare_unicorn(big)[0] for _ in range(REPEAT))
    t_tdbg = best_run(lambda: firmware("bench_loop", n))
    show("c.riscv", f"(c) {total / 1e6:.0f} M RISC-V instructions, tdbg's speed / bare Unicorn's", t_bare / t_tdbg, "", False,
         f"bare {total / t_bare / 1e6:.1f} M insn/s, tdbg {total / t_tdbg / 1e6:.1f} M insn/s")


# (d): firmware, Tensix instructions pushed per loop trip, what the mix holds
PUSH_MIXES = (
    ("bench_rwc", 4, "rwc", "RWC/ZEROACC mix (ZEROACC, INCRWC, NOP, SETRWC)"),
    ("bench_mov", 4, "mov", "MOV mix (MOVD2B, MOVD2A, ZEROACC, INCRWC)"),
    ("bench_fpu", 4, "fpu", "FPU mix (ELWADD, MVMUL, ELWADD, INCRWC)"),
    ("bench_sfpu", 6, "sfpu", "SFPU mix (SFPLOAD, SFPMAD, SFPSETCC, SFPLOADI, SFPENCC, SFPSTORE)"),
    ("bench_unpack_pack", 6, "unpack_pack", "UNPACR/PACR mix (UNPACR SrcA, UNPACR SrcB, PACR x3, PACR Last)"),
)
# (d): loop trips per mix, each run taking about 0.2-0.5 s here (a quarter with --quick)
PUSH_TRIPS = {"bench_rwc": 40_000, "bench_mov": 10_000, "bench_fpu": 4_000, "bench_sfpu": 8_000,
              "bench_unpack_pack": 3_000}


def hook_cost(n: int = 200_000) -> float:
    """Seconds per call of a one-address Unicorn code hook (through the Python binding) that
    does nothing, from a tight loop with and without the hook."""
    code = bytes.fromhex("13050500" "93851500" "e39ea5fe" "73001000")  # addi a0; addi a1,a1,1; bne a1,a0; ebreak
    def run(hooked: bool) -> float:
        uc = Uc(UC_ARCH_RISCV, UC_MODE_RISCV32)
        uc.mem_map(0, 0x1000)
        uc.mem_write(0, code)
        uc.reg_write(UC_RISCV_REG_A0, n)
        uc.reg_write(UC_RISCV_REG_A1, 0)
        if hooked:
            uc.hook_add(UC_HOOK_CODE, lambda *_: None, begin=4, end=4)
        t0 = clock()
        try:
            uc.emu_start(0, 0x10)
        except UcError:
            pass
        return clock() - t0
    return (min(run(True) for _ in range(REPEAT)) - min(run(False) for _ in range(REPEAT))) / n


def pushes(quick: bool) -> None:
    n = 2_000_000
    loop = best_run(lambda: firmware("bench_loop", n))
    print(f"(d) plain RISC-V loop on this machine: {loop_instructions(n) / loop / 1e6:.1f} M insn/s; "
          f"a no-op Unicorn code hook through the Python binding: {hook_cost() * 1e6:.2f} us")
    for name, per_iter, key, what in PUSH_MIXES:
        trips = PUSH_TRIPS[name] // (4 if quick else 1)
        t = best_run(lambda: firmware(name, trips))
        count = trips * per_iter
        show(f"d.{key}", f"    {what}", count / t / 1e3, "k Tensix insn/s", False, f"{t / count * 1e6:.2f} us each")


def stepping(n: int) -> None:
    def rate(record: bool) -> tuple[float, float]:
        s = firmware("bench_loop", 1_000_000)
        gc.collect()
        t0 = clock()
        for _ in range(n):
            s.stepi(record=record)
        return n / (clock() - t0), s.history.bytes / max(len(s.history), 1)

    on = max((rate(True) for _ in range(REPEAT)), key=lambda r: r[0])
    off = max(rate(False)[0] for _ in range(REPEAT))
    show("e.stepi_history", "(e) stepi with reverse-stepi history", on[0], "/s", False, f"{on[1]:.0f} bytes a step")
    show("e.stepi", "    stepi without history          ", off, "/s", False)


def three_cores(n: int) -> None:
    def session(cores: tuple[str, ...]) -> Session:
        s = Session({c: EXAMPLES / "bench_loop.c" for c in cores})
        for c in cores:
            with s.on_core(c):
                s.write_memory(s.symbol("iterations").addr, struct.pack("<I", n))
        return s

    one = best_run(lambda: session(("T0",)))
    three = best_run(lambda: session(("T0", "T1", "T2")))
    show("f.three_cores", f"(f) {n:,}-iteration loop on T0, T1, T2 at once: instruction rate three / one", 3 * one / three, "",
         False, f"one core {one:.3f} s, three {three:.3f} s")


def llk_kernels() -> None:
    """(g): tt-llk's kernels (tests/sources/* built for Blackhole, one ELF per TRISC: the suite's
    builds from the ttnn wheel, or TDBG_LLK_KERNELS' folders) from load to every core parked, their
    output checked against the bytes ttsim wrote; next to ttsim's own time for the same kernel
    when its harness is there."""
    inputs_root = Path(os.environ.get("TDBG_LLK_INPUTS", Path(__file__).resolve().parents[2] / "shared" / "kernels"))
    root = os.environ.get("TDBG_LLK_KERNELS")
    if root:
        kernels = [(unpack.parent.name, unpack.parent) for unpack in sorted(Path(root).glob("*/unpack.elf"))]
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        import ttllk_variants                              # the suite's variants of ../shared/kernels
        from tdbg.toolchain import ttllk, ttnn
        try:
            built = {name: ttllk.build(make()) for name, make in ttllk_variants.SHARED.items()}
        except (ttnn.TtnnUnavailable, ttllk.KernelBuildError) as exc:
            print(f"(g) tt-llk kernels: skipped: {exc}")
            return
        kernels = [(name, elfs["T0"].parent) for name, elfs in built.items()]
    for name, folder in kernels:
        inputs = inputs_root / name
        if not (inputs / "manifest.json").is_file():
            print(f"(g) tt-llk {name}: no {inputs / 'manifest.json'} (its inputs and ttsim's output); skipped")
            continue
        manifest = json.loads((inputs / "manifest.json").read_text())
        elfs = {core: folder / f"{elf}.elf" for core, elf in manifest["cores"].items()}

        def once() -> tuple[float, float, bool]:
            gc.collect()
            t0 = clock()
            s = Session(elfs)
            loaded = clock()
            for load in manifest["loads"]:
                s.write_memory(int(load["addr"], 16), (inputs / load["file"]).read_bytes())
            s.cont()
            done = clock()
            out = manifest["output"]
            ok = s.read_memory(int(out["addr"], 16), out["len"]) == (inputs / out["file"]).read_bytes()
            return done - t0, loaded - t0, ok

        def calls() -> int:
            """Python calls of one run (a session after another; deterministic where times are noisy)."""
            s = Session(elfs)
            for ld in manifest["loads"]:
                s.write_memory(int(ld["addr"], 16), (inputs / ld["file"]).read_bytes())
            profile = cProfile.Profile()
            profile.runcall(s.cont)
            return pstats.Stats(profile).total_calls  # type: ignore[attr-defined, no-any-return]

        total, load, ok = min(once() for _ in range(REPEAT))
        detail = (f"Session() {load * 1e3:.1f} ms, run {(total - load) * 1e3:.1f} ms ({calls():,} Python calls); "
                  f"output {'= ttsim' if ok else 'DIFFERS from ttsim'}")
        out = manifest["output"]
        loads = [(int(ld["addr"], 16), (inputs / ld["file"]).read_bytes()) for ld in manifest["loads"]]
        detail += _ttsim_column(total, total - load, _ttsim_kernel(elfs, loads, (int(out["addr"], 16), out["len"])),
                                (inputs / out["file"]).read_bytes(), "expected.bin")
        show(f"g.{name}", f"(g) tt-llk {name}, load to every core parked", total * 1e3, "ms", True, detail)
    ttsim_geomean("(g)")


def _ttsim_kernel(elfs: dict[str, Path], loads: list[tuple[int, bytes]], output: tuple[int, int]) -> Kernel:
    """The kernel as a host runs it on ttsim: the ELFs placed as tdbg places them (tt-exalens'
    rule, tdbg.emu.loader), then the inputs; each TRISC at its ELF's entry, done at KERNEL_COMPLETE
    in every TRISC's mailbox (../shared/kernels/README.md)."""
    writes, pcs = [], {}
    for core, elf in elfs.items():
        image = ElfImage.load(elf)
        writes += [(seg.vaddr, seg.data) for seg in placements(image, BLACKHOLE, BLACKHOLE.core(core)) if seg.data]
        pcs[int(core[1:])] = image.entry
    mailboxes = [TTLLK_MAILBOX + 4 * n for n in sorted(pcs)]
    return Kernel(writes + loads + [(a, bytes(4)) for a in mailboxes], pcs, mailboxes, output)


def _ttsim_column(tdbg_total: float, tdbg_run: float | None, kernel: Kernel, output: bytes, whose: str) -> str:
    """ttsim's time for ``kernel`` when TTSIM_LIB names a library (else nothing), the ratios (of
    the run phases too when ``tdbg_run`` is known), and whether its output is ``output``
    (``whose``); ``RATIOS`` keeps the load-to-parked ratio."""
    lib = ttsim_library()
    if lib is None:
        return ""
    try:
        t, load, clocks, digest = kernel_time(lib, kernel, TTSIM_REPEAT)
    except RuntimeError as exc:
        return f"; {str(exc)[:120]}"
    RATIOS.append(tdbg_total / t)
    same = "=" if hashlib.sha256(output).hexdigest() == digest else "DIFFERS from"
    run = "" if tdbg_run is None else f", its run alone {tdbg_run / (t - load):.0f}x ttsim's"
    return (f"; ttsim {t * 1e3:.2f} ms (load {load * 1e3:.2f} ms, {clocks:,} clocks; output {same} {whose}): "
            f"tdbg {tdbg_total / t:.0f}x{run}")


def ttsim_geomean(what: str) -> None:
    """The geomean of the tdbg / ttsim ratios shown since the last call."""
    if RATIOS:
        print(f"    {what}: tdbg / ttsim geomean {math.exp(sum(map(math.log, RATIOS)) / len(RATIOS)):.1f}x "
              f"over {len(RATIOS)} kernel(s) (ttsim: load to done, CPU time, best of {TTSIM_REPEAT})")
        RATIOS.clear()


BH_ISA = [f"-mcpu={profile_for().llvm_cpu}"]


def bitmanip(n: int) -> None:
    """(h): Zba/Zbb instructions run as RV32IM trampolines (tdbg.emu.translation)."""
    if not (EXAMPLES / "bench_zb.c").is_file():  # a tdbg before the Blackhole ISA on the cores
        print("(h) Zba/Zbb loop: this tdbg has no bench_zb.c; skipped")
        return
    def session(flags: list[str]) -> Session:
        s = Session(build(EXAMPLES / "bench_zb.c", flags))
        s.write_memory(s.symbol("iterations").addr, struct.pack("<I", n))
        return s

    t_plain, t_zb = best_run(lambda: session([])), best_run(lambda: session(BH_ISA))
    s = session(BH_ISA)
    s.cont()
    zb = sum(1 for p in s.tile.code.at.values() if p.kind.value == "bitmanip")
    show("h.zb", f"(h) {n:,}-trip Zba/Zbb loop ({zb} translated instructions), speed Blackhole ISA / plain RV32IM",
         t_plain / t_zb, "", False, f"plain {t_plain:.3f} s, Blackhole ISA {t_zb:.3f} s; target >= 0.25")


# -- (i) start-up -------------------------------------------------------------------------------

def startup(quick: bool) -> None:
    extra = os.environ.get("TDBG_REALFW_EXTRA")
    kernels = sorted(Path(extra).glob("*/unpack.elf")) if extra else []
    if kernels:
        folder, what = kernels[0].parent, f"{kernels[0].parent.name} (TDBG_REALFW_EXTRA)"
        elfs = {c: folder / f"{e}.elf" for c, e in (("T0", "unpack"), ("T1", "math"), ("T2", "pack"))}
    else:
        what = "tests/firmware/llk_kernel.cpp -O2, T0-T2"
        elfs = {f"T{t}": llk_kernel_elf(t) for t in range(3)}
    show("i.session3", f"(i) Session() on {what}", best_of(REPEAT, lambda: Session(elfs)) * 1e3, "ms", True)
    show("i.first_line", "    then 'info line main'", best_of(REPEAT, lambda: execute(Session(elfs), "info line main")) * 1e3,
         "ms", True)
    kit = {f"T{i}": EXAMPLES / f"eltwise_t{i}.c" for i in range(3)}

    def run() -> None:
        rng = np.random.default_rng(3)
        s = Session(kit)
        a = (rng.integers(120, 135, 1024) << 7) | rng.integers(0, 128, 1024)
        s.write_memory(0x30000, a.astype("<u2").tobytes())
        s.write_memory(0x40000, bytes([127] * 64) + bytes([0x40] * 1024))
        stop = s.cont()
        assert stop.kind in (StopKind.EXITED, StopKind.PARKED), stop.describe()

    show("i.eltwise3", "    the kit's three-core eltwise example, load and run to the end", best_of(REPEAT, run) * 1e3, "ms", True)
    with tempfile.TemporaryDirectory() as pycache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache  # byte code cached, as an installed tdbg has it
        bare, _ = process_time([sys.executable, "-c", "pass"], env, 4 if quick else 8)
        cpu, wall = process_time([sys.executable, "-m", "tdbg", "-q", "-batch", "-ex", "quit"], env, 4 if quick else 8)
        show("i.process", "    warm `tdbg -q -batch -ex quit` (CPU time)", cpu, "s", True,
             f"wall {wall:.3f} s; of it `python3 -c pass`, the interpreter and its site-packages' .pth files: {bare:.3f} s")
        kernel_process(env, 4 if quick else 8)


def process_time(cmd: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """The least CPU time of ``cmd`` as a child process over ``runs`` runs after a first one (which
    compiles the byte code), with that run's wall time."""
    times = []
    for _ in range(runs + 1):
        before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - t0
        times.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall))
    return min(times[1:])


def kernel_process(env: dict[str, str], runs: int) -> None:
    """(i): tt-llk's datacopy (the suite's build from the ttnn wheel) as the README runs a kernel:
    ``tdbg -q -batch -ex 'restore ...' -ex run -ex 'dump ...' T0=unpack.elf ...``, its output
    compared with ttsim's (../shared/kernels/datacopy)."""
    inputs = Path(os.environ.get("TDBG_LLK_INPUTS", Path(__file__).resolve().parents[2] / "shared" / "kernels")) / "datacopy"
    if not (inputs / "manifest.json").is_file():
        print(f"    kernel run from the command line: skipped: no {inputs / 'manifest.json'}")
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import ttllk_variants
    from tdbg.toolchain import ttllk, ttnn
    try:
        elfs = ttllk.build(ttllk_variants.SHARED["datacopy"]())
    except (ttnn.TtnnUnavailable, ttllk.KernelBuildError) as exc:
        print(f"    kernel run from the command line: skipped: {exc}")
        return
    manifest = json.loads((inputs / "manifest.json").read_text())
    out = manifest["output"]
    with tempfile.TemporaryDirectory() as folder:
        result = Path(folder) / "out.bin"
        cmd = [sys.executable, "-m", "tdbg", "-q", "-batch"]
        for load in manifest["loads"]:
            cmd += ["-ex", f"restore {inputs / load['file']} binary {load['addr']}"]
        end = int(out["addr"], 16) + out["len"]
        cmd += ["-ex", "run", "-ex", f"dump binary memory {result} {out['addr']} {end:#x}"]
        cmd += [f"{core}={elfs[core]}" for core in manifest["cores"]]
        cpu, wall = process_time(cmd, env, runs)
        same = result.read_bytes() == (inputs / out["file"]).read_bytes()
    show("i.kernel_process", "    warm datacopy from the command line: restore, run, dump (CPU time)", cpu, "s", True,
         f"wall {wall:.3f} s; output {'= ttsim' if same else 'DIFFERS from ttsim'}; target <= 0.3 s")


def llk_kernel_elf(trisc: int) -> Path:
    """tests/firmware/llk_kernel.cpp built for TRISC ``trisc`` (``LLK_KERNEL_ELFS``, a folder of
    ``T0.elf`` ..., stands in for a tdbg that cannot build C++)."""
    given = os.environ.get("LLK_KERNEL_ELFS")
    if given:
        return Path(given) / f"T{trisc}.elf"
    source = Path(__file__).resolve().parents[1] / "tests" / "firmware" / "llk_kernel.cpp"
    return build(source, ("-O2", f"-DTRISC={trisc}"), core=f"T{trisc}")


# -- (j) one instruction, in the model ----------------------------------------------------------

#: (firmware, pushes per trip, [(figure, label, positions in the trip timed together)])
MODEL_CASES = (
    ("bench_fpu", 4, [("mvmul", "MVMUL (BF16, 16-bit Dst)", (1,)), ("elwadd", "ELWADD (BF16, 16-bit Dst)", (0,))]),
    ("bench_unpack_pack", 6, [("unpacr", "UNPACR (a BF16 face to SrcA)", (0,)),
                              ("pacr", "PACR (four Dst16b rows to BF16; 3 + Last)", (2, 3, 4, 5))]),
    ("bench_sfpu", 6, [("sfpload", "SFPLOAD (FP32)", (0,)), ("sfpmad", "SFPMAD", (1,)), ("sfpstore", "SFPSTORE (FP32)", (5,))]),
    ("bench_rwc", 4, [("incrwc", "INCRWC", (1,)), ("zeroacc", "ZEROACC (one row)", (0,))]),
)
#: More Matrix Unit instructions, pushed in bench_fpu's state.
MORE_FPU = (("elwmul", "ELWMUL", "ELWMUL", {}), ("dotpv", "DOTPV", "DOTPV", {}),
            ("gapool", "GAPOOL", "GAPOOL", {"instr_mod19": 1}), ("gmpool", "GMPOOL", "GMPOOL", {"instr_mod19": 1}))


def _one_trip(name: str, per_trip: int) -> tuple[object, list[int]]:
    """The coprocessor after one trip of the firmware's loop, and that trip's words."""
    s = firmware(name, 1)
    assert s.cont().kind is StopKind.EXITED
    cop = s.tile.coprocessor
    words = [r.word for r in s.tile.pushes.last(per_trip)]
    rng = np.random.default_rng(7)
    if name == "bench_fpu":  # operands worth computing: random signs and mantissas, exponents near 1.0
        fields = lambda: (rng.integers(0, 2, (2, 64, 16)) << 18) | (rng.integers(0, 1024, (2, 64, 16)) << 8) | rng.integers(120, 135, (2, 64, 16))
        cop.state.srca.data[:] = fields()
        cop.state.srcb.data[:] = fields()
        cop.state.dst.write16(slice(0, 1024), (rng.integers(0, 1 << 16, (1024, 16)) & 0x7F7F | 0x0078).astype(np.uint16))
    if name == "bench_sfpu":  # Dst rows the loads read defined, as a kernel's are
        cop.state.dst.write32(slice(0, 512), rng.integers(0, 1 << 32, (512, 16), dtype=np.uint64).astype(np.uint32))
        cop.state.dst.clear_unpredictable()
    return cop, words


def _push_rate(cop, words: list[int], n: int) -> float:  # type: ignore[no-untyped-def]
    """Seconds per push of ``words`` in turn (after one warm-up pass), best of ``REPEAT``."""
    push = cop.push
    for w in words:
        push(0, w)

    def run() -> None:
        for _ in range(n):
            for w in words:
                push(0, w)
    return best_of(REPEAT, run) / (n * len(words))


def per_instruction(quick: bool) -> None:
    print("(j) one instruction in the model (Coprocessor.push):")
    n = 100 if quick else 400
    for name, per_trip, cases in MODEL_CASES:
        cop, words = _one_trip(name, per_trip)
        for key, label, positions in cases:
            show(f"j.{key}", f"    {label:44s}", _push_rate(cop, [words[i] for i in positions], n) * 1e6, "us", True)
        if name == "bench_fpu":
            for key, label, mnemonic, fields in MORE_FPU:
                word = cop.isa.encode(mnemonic, **fields)
                show(f"j.{key}", f"    {label:44s}", _push_rate(cop, [word], n) * 1e6, "us", True)


def _zb_words(elf: Path) -> int:
    """Zba/Zbb instructions in an ELF's code (RISC-V unprivileged spec, "B" chapter encodings)."""
    count = 0
    for sec in ElfImage.load(elf).sections:
        if not sec.executable or sec.data is None:
            continue
        for (word,) in struct.iter_unpack("<I", sec.data[:len(sec.data) // 4 * 4]):
            op, f3, f7 = word & 0x7F, (word >> 12) & 7, word >> 25
            count += (op == 0x33 and ((f7 == 0x10 and f3 in (2, 4, 6)) or (f7 == 0x20 and f3 in (4, 6, 7))
                                      or (f7 == 0x05 and f3 >= 4) or (f7 == 0x30 and f3 in (1, 5))
                                      or (f7 == 0x04 and f3 == 4 and not (word >> 20) & 31))) \
                or (op == 0x13 and ((f3 == 1 and f7 == 0x30) or (f3 == 5 and (f7 == 0x30 or word >> 20 in (0x287, 0x698)))))
    return count


def zb_kernel() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import ttllk_variants                                  # the suite's tt-llk variants and goldens
    from tdbg.toolchain import ttllk, ttnn
    case = ttllk_variants.matmul(2, 2, 2)
    try:
        builds = {isa: ttllk.build(case.variant, isa) for isa in (ttllk.BLACKHOLE_ISA, ttllk.RV32IM)}
    except (ttnn.TtnnUnavailable, ttllk.KernelBuildError) as exc:
        print(f"(k) tt-llk kernel with and without Zb*: skipped: {exc}")
        return

    def once(elfs: dict[str, Path]) -> tuple[float, bytes, str]:
        gc.collect()
        t0 = clock()
        s = Session(elfs)
        s.write_memory(ttllk.RUNTIME_PARAMS, case.variant.params())
        for name, data in case.inputs.items():
            s.write_memory(case.variant.buffers[name].address, data)
        stop = s.cont()
        res = case.variant.buffers["Res"]
        out = s.read_memory(res.address, case.out_bytes)
        return clock() - t0, out, "" if stop.kind is StopKind.EXITED else f" (stopped: {stop.describe()})"

    runs = {isa: min((once(elfs) for _ in range(REPEAT)), key=lambda r: r[0]) for isa, elfs in builds.items()}
    (t_zb, out_zb, stop_zb), (t_im, out_im, stop_im) = runs[ttllk.BLACKHOLE_ISA], runs[ttllk.RV32IM]
    zb = sum(_zb_words(elf) for elf in builds[ttllk.BLACKHOLE_ISA].values())
    print(f"(k) tt-llk {case.name}, load to every core parked: Blackhole ISA ({zb} Zb* instructions) "
          f"{t_zb:.3f} s{stop_zb}, RV32IM {t_im:.3f} s{stop_im}; ratio {t_zb / t_im:.2f}; "
          f"outputs {'identical' if out_zb == out_im else 'DIFFER'}")
    loads = [(ttllk.RUNTIME_PARAMS, case.variant.params())]
    loads += [(case.variant.buffers[name].address, data) for name, data in case.inputs.items()]
    output = (case.variant.buffers["Res"].address, case.out_bytes)
    for isa, (t, out, _) in runs.items():
        column = _ttsim_column(t, None, _ttsim_kernel(builds[isa], loads, output), out, "tdbg's")
        if column:
            print(f"    {'Blackhole ISA' if isa == ttllk.BLACKHOLE_ISA else 'RV32IM'} build: tdbg {t * 1e3:.1f} ms{column}")
    ttsim_geomean("(k)")


# -- (l) a tt-metal program: time per extra tile ---------------------------------------------------

def _eltwise_add(tiles: int):  # type: ignore[no-untyped-def]
    """ttnn's eltwise add over ``tiles`` tiles of ones (the suite's program: tests/ttmetal_programs.py)."""
    from tdbg.toolchain import ttnn

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from ttmetal_programs import eltwise_add

    return eltwise_add(ttnn.tree().operations, tiles)


def _program_seconds(tiles: int) -> float:
    """The best of three runs (boot and program) of the eltwise add, each in a fresh session."""
    from tdbg.ttmetal.program import prepare

    def once() -> float:
        s = Session({})
        host = prepare(s, _eltwise_add(tiles))
        gc.collect()
        t0 = clock()
        stop = s.cont()
        elapsed = clock() - t0
        assert stop.kind is StopKind.HOST and host.result is not None, stop.describe()
        assert np.all(host.result.tensor("c", (32, 32 * tiles)) == 2.0), "the sum is not 2"
        return elapsed
    return min(once() for _ in range(3))


def _ttsim_clocks(harness: Path, tiles: int) -> int:
    """ttsim's device clocks from the go message to RUN_MSG_DONE for the eltwise add over ``tiles``
    tiles (its host log: the write of RUN_MSG_GO to go_messages[0] at 0x4f0, the first read of
    it after that returning 0)."""
    out = f"out_bench_add_{tiles}"
    subprocess.run(["./run.sh", "run_add.py", out], cwd=harness, env={**os.environ, "NT": str(tiles), "OUT": out},
                   check=True, capture_output=True, timeout=1800)
    go = done = None
    for line in (harness / out / "hostlog.jsonl").read_text().splitlines():
        e = json.loads(line)
        if e.get("addr") != "0x4f0" or e.get("x") != 1 or e.get("y") != 2:
            continue
        if e["op"] == "wr" and e.get("bytes") == "00000080":
            go = e["clock"]
        elif e["op"] == "rd" and go is not None and e.get("bytes") == "00000000":
            done = e["clock"]
            break
    assert go is not None and done is not None, f"no go/DONE in ttsim's host log for {tiles} tiles"
    return done - go


def ttmetal_tiles(n: int) -> None:
    t1, t2 = _program_seconds(n), _program_seconds(2 * n)
    show("l.per_tile", f"(l) tt-metal eltwise add, {n} tiles {t1:.2f} s and {2 * n} tiles {t2:.2f} s: per extra tile",
         (t2 - t1) / n * 1e3, "ms", True)
    harness = os.environ.get("TTSIM_METAL_PROGRAM")
    if harness and (Path(harness) / "run.sh").is_file():
        c1, c2 = _ttsim_clocks(Path(harness), n), _ttsim_clocks(Path(harness), 2 * n)
        print(f"    ttsim (tt-metal 0.81.1 on it): go to DONE {c1} and {c2} device clocks: "
              f"{(c2 - c1) / n:.0f} clocks per extra tile (simulated time, seen at the host's polls of "
              "go_messages[0]; its wall time is not logged)")
    else:
        print("    ttsim: not measured (TTSIM_METAL_PROGRAM names no metal_program harness)")


# -- (m) tdbg as tt-metal's simulator -----------------------------------------------------------

def _sim_folder(root: Path) -> Path:
    from tdbg.arch.chips import chip
    from tdbg.simulator import folder as sim_folder

    sim_folder.write(root / "sim", chip("1x2", BLACKHOLE), BLACKHOLE)
    return root / "sim"


def _request_parts(messages: dict[str, bytes], n: int) -> dict[str, tuple[float, float, float]]:
    """Each request's parts in the server, in process (seconds, best of 3 batches of ``n``):
    decoding it, answering it (a Server over a 1x2 chip, its tiles held) and encoding the reply."""
    from tdbg.session import Session
    from tdbg.simulator.protocol import Command, Message, decode, encode
    from tdbg.simulator.server import Server

    server = Server(Session.on_chip("1x2"))
    for where in ((1, 2), (2, 2)):
        server.answer(Message(Command.ALL_TENSIX_RESET_ASSERT, core=where))

    def each(fn: Callable[[], object]) -> float:
        return best_of(3, lambda: [fn() for _ in range(n)]) / n

    parts = {}
    for name, raw in messages.items():
        message = decode(raw)
        reply = server.answer(message)
        parts[name] = (each(lambda: decode(raw)), each(lambda: server.answer(message)),
                       each(lambda: encode(reply)) if reply is not None else 0.0)
    return parts


def _requests(n: int) -> None:
    """Wall time per request of the fake tt-umd client against ``tdbg simulator --serve``, and
    its parts: the server's decode, answer and reply (in process), the rest the socket's and the
    client's."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_simulator import Command, Umd  # noqa: E402  (the suite's client)
    from tdbg.simulator.protocol import Message, encode

    tile, page = (1, 2), bytes(range(256)) * 16
    words = lambda data: np.frombuffer(data, dtype="<u4")
    parts = _request_parts({"READ 4 B": encode(Message(Command.READ, words(bytes(4)), tile, 0x3000, 4)),
                            "WRITE 4 B": encode(Message(Command.WRITE, words(b"\x02" * 4), tile, 0x3000, 4)),
                            "WRITE 4 KiB": encode(Message(Command.WRITE, words(page), tile, 0x10000, len(page)))}, n)
    with tempfile.TemporaryDirectory() as root:
        umd = Umd(_sim_folder(Path(root)))
        try:
            for where in ((1, 2), (2, 2)):
                umd.send(Command.ALL_TENSIX_RESET_ASSERT, where)
            umd.read(tile, 0x3000, 4)
            kinds = {"READ 4 B": lambda: umd.read(tile, 0x3000, 4),
                     "WRITE 4 B": lambda: umd.send(Command.WRITE, tile, 0x3000, b"\x02" * 4),
                     "WRITE 4 KiB": lambda: umd.send(Command.WRITE, tile, 0x10000, page)}
            for name, request in kinds.items():
                def batch() -> float:
                    t0 = time.perf_counter()
                    for _ in range(n):
                        request()
                    umd.read(tile, 0x3000, 4)   # the writes answered: every one of them was taken
                    return (time.perf_counter() - t0) / n
                wall = min(batch() for _ in range(3))
                decoding, answering, replying = parts[name]
                show(f"m.{name.lower().replace(' ', '_')}", f"(m) one host request over the socket: {name}",
                     wall * 1e6, "us", True, f"{n} requests a batch, wall time; in the server: decode "
                     f"{decoding * 1e6:.1f}, answer {answering * 1e6:.1f}, reply {replying * 1e6:.1f} us, the rest "
                     f"{(wall - decoding - answering - replying) * 1e6:.0f} us the socket's and the client's")
        finally:
            umd.close()


def _ttnn_add(simulator: str, extra: dict[str, str]) -> dict:
    """scripts/ttnn_add_timing.py run by the ttnn host on ``simulator`` (TT_METAL_SIMULATOR)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import ttnn_host

    env = ttnn_host.clean_env(TT_METAL_SIMULATOR=simulator, TT_METAL_SLOW_DISPATCH_MODE="1", **extra)
    done = subprocess.run([str(ttnn_host.venv()), str(Path(__file__).with_name("ttnn_add_timing.py")), "1", "64"],
                          capture_output=True, text=True, env=env, timeout=1800)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0 and lines, (done.stderr.strip().splitlines() or ["no output"])[-1]
    out = json.loads(lines[-1])
    said = [line.split(": ", 1)[1] for line in done.stderr.splitlines() if line.startswith("tdbg simulator: ")]
    out["server"] = next((line for line in said if "ran the tiles" in line), None)
    out["parts"] = next((line.split(": ", 1)[1] for line in said if line.startswith("per request: ")), None)
    return out


def simulator_mode(quick: bool) -> None:
    _requests(50 if quick else 200)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    import ttnn_host

    home = ttnn_host.venv_dir("3.10")
    if not (home / "bin" / "python").is_file():
        print(f"(m) ttnn.add: skipped (no ttnn host venv at {home}: python3 tests/ttnn_host.py makes it)")
        return
    from tdbg.toolchain import sfpi_standin

    sfpi_standin.install(ttnn_host.package())
    with tempfile.TemporaryDirectory() as root:
        trace = str(Path(root) / "requests.trace")
        tdbg_run = _ttnn_add(str(_sim_folder(Path(root))), {"TT_SIMULATOR_LOCALHOST": "1", "TDBG_TRACE": trace,
                                                            "TDBG_SIMULATOR_ARGS": f"--trace-requests {trace}"})
        lib = ttsim_library()
        ttsim_run = None
        if lib is not None:
            folder = Path(root) / "ttsim"
            folder.mkdir()
            (folder / "libttsim.so").symlink_to(lib)
            (folder / "soc_descriptor.yaml").write_text(ttnn_host.soc_descriptor("1-2, 2-2"))
            ttsim_run = _ttnn_add(str(folder / "libttsim.so"), {})
    for tiles in ("1", "64"):
        t = tdbg_run["tiles"][tiles]
        detail = f"{tdbg_run['mismatches']} mismatches against numpy"
        if ttsim_run is not None:
            detail += f"; ttsim {ttsim_run['tiles'][tiles] * 1e3:.1f} ms: tdbg {t / ttsim_run['tiles'][tiles]:.0f}x"
        reads = tdbg_run.get("reads", {}).get(tiles)
        if reads:
            detail += f"; {reads} READs an add"
        show(f"m.add_{tiles}", f"(m) ttnn.add of {tiles} tile(s) on tdbg's simulator (wall)", t * 1e3, "ms", True, detail)
    if tdbg_run.get("server"):
        print(f"(m) the server over the whole script (device open, JIT loads, 8 adds): {tdbg_run['server']}")
    if tdbg_run.get("parts"):
        print(f"(m) ... each request's parts in the server, over the whole script: {tdbg_run['parts']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller loops (a rough look)")
    parser.add_argument("--only", choices=["model", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"],
                        help="one figure only")
    parser.add_argument("--json", type=Path, help="also write the figures to this file (the form of BEFORE)")
    args = parser.parse_args()
    for src in ("bench_window", "bench_l1", "bench_loop", *(m[0] for m in PUSH_MIXES)):
        build(EXAMPLES / f"{src}.c")
    loop = 6_000_000 if args.quick else 60_000_000
    figures = {
        "model": model,
        "a": lambda: window(20_000 if args.quick else 200_000),
        "b": lambda: breakpoints(loop),
        "c": lambda: instructions_per_second(loop),
        "d": lambda: pushes(args.quick),
        "e": lambda: stepping(500 if args.quick else 3000),
        "f": lambda: three_cores(10_000_000 if args.quick else 100_000_000),
        "g": llk_kernels,
        "h": lambda: bitmanip(200_000 if args.quick else 2_000_000),
        "i": lambda: startup(args.quick),
        "j": lambda: per_instruction(args.quick),
        "k": zb_kernel,
        "l": lambda: ttmetal_tiles(32 if args.quick else 64),
        "m": lambda: simulator_mode(args.quick),
    }
    for key, figure in figures.items():
        if args.only in (None, key):
            try:
                figure()
            except AssertionError as exc:  # a run that did not end as the figure needs: say so, go on
                print(f"({key}) not measured: {str(exc).splitlines()[0][:200]}")
    if args.json:
        args.json.write_text(json.dumps(MEASURED, indent=1) + "\n")


if __name__ == "__main__":
    main()
