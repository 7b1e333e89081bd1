#!/usr/bin/env python3
"""tdbg benchmarks: figures and ratios measured in one run, printed (tests never assert times).

    python scripts/bench.py [--quick]

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
                          once against one core; (g) the wall time of ../shared/realfw/datacopy
                          from load to every core parked (when ../shared is there);
                      (h) a loop whose hot path is Zba/Zbb (sh2add, sh1add, minu, maxu, zext.h:
                          bench_zb.c built for the Blackhole ISA) against the same C built for
                          plain RV32IM;
                      (i) start-up: Session() on three kernel ELFs (TDBG_REALFW_EXTRA's first
                          kernel when set, else tests/firmware/llk_kernel.cpp built for T0-T2;
                          its DWARF is read when first needed) and a warm tdbg -q -batch -ex quit.
"""

from __future__ import annotations

import argparse
import struct
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from unicorn import UC_ARCH_RISCV, UC_HOOK_CODE, UC_MODE_RISCV32, Uc, UcError
from unicorn.riscv_const import UC_RISCV_REG_A0, UC_RISCV_REG_A1

from tdbg.session import Session
from tdbg.emu.elf import ElfImage
from tdbg.emu.stops import StopKind
from tdbg.emu.toolchain import build, firmware_dir
from tdbg.tensix.tile import TensixState


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def model() -> None:
    t = TensixState()
    rows16 = np.random.default_rng(1).integers(0, 1 << 16, size=(1024, 16), dtype=np.uint16)
    w = best_of(20, lambda: t.dst.write16(slice(0, 1024), rows16))
    r = best_of(20, lambda: t.dst.read32(slice(0, 512)))
    print(f"model: write all 1024 Dst16b rows       {w * 1e3:8.3f} ms")
    print(f"model: read all 512 Dst32b rows         {r * 1e3:8.3f} ms")


def firmware(name: str, iterations: int | None = None) -> Session:
    s = Session(firmware_dir() / f"{name}.c")
    if iterations is not None:
        s.core.uc.mem_write(s.symbol("iterations").addr, struct.pack("<I", iterations))
    return s


def run_to_end(s: Session) -> float:
    t0 = time.perf_counter()
    stop = s.cont()
    elapsed = time.perf_counter() - t0
    assert stop.kind is StopKind.EXITED, stop.describe()
    return elapsed


REPEAT = 3  # this machine's speed wanders by 2-3x between runs: every figure is a best of 3


def best_run(make: Callable[[], Session]) -> float:
    """Best time of ``REPEAT`` runs to the end, each on a freshly loaded session."""
    return min(run_to_end(make()) for _ in range(REPEAT))


def window(n: int) -> None:
    t_window = best_run(lambda: firmware("bench_window", n))
    t_l1 = best_run(lambda: firmware("bench_l1", n))
    accesses = 2 * n  # one store and one load per iteration
    print(f"(a) Dst window: {accesses / t_window / 1e6:6.2f} M exact accesses/s "
          f"({accesses} accesses in {t_window:.3f} s); same loop on L1 {t_l1:.3f} s; "
          f"window/L1 time ratio {t_window / t_l1:.1f}")


def breakpoints(n: int) -> None:
    def armed() -> Session:
        s = firmware("bench_loop", n)
        for i in range(8):  # armed, never hit: word addresses in L1 no code reaches
            s.break_at(0x100000 + 4 * i)
        return s

    t_plain = best_run(lambda: firmware("bench_loop", n))
    t_armed = best_run(armed)
    print(f"(b) {n:,}-iteration loop: no breakpoints {t_plain:.3f} s, 8 armed {t_armed:.3f} s, "
          f"speed ratio {t_plain / t_armed:.3f}")


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
    t0 = time.perf_counter()
    try:
        uc.emu_start(image.entry, 0)
    except UcError:
        pass  # the final ebreak
    return time.perf_counter() - t0, counter[0]


def instructions_per_second(n: int) -> None:
    def image(iterations: int) -> ElfImage:
        s = firmware("bench_loop", iterations)
        data = bytearray(s.image.segments[-1].data)
        sym = s.symbol("iterations")
        seg = s.image.segments[-1]
        struct.pack_into("<I", data, sym.addr - seg.vaddr, iterations)
        return ElfImage(s.image.path, s.image.entry, [*s.image.segments[:-1], type(seg)(seg.vaddr, bytes(data), seg.memsz, seg.executable)],
                        s.image.symbols, s.image.exec_ranges)

    # instructions(N) = a + b*N, calibrated with a counting hook on small N
    c1 = bare_unicorn(image(1000), count_insns=True)[1]
    c2 = bare_unicorn(image(2000), count_insns=True)[1]
    per_iter = (c2 - c1) / 1000
    total = c1 + per_iter * (n - 1000)
    big = image(n)
    t_bare = min(bare_unicorn(big)[0] for _ in range(REPEAT))
    t_tdbg = best_run(lambda: firmware("bench_loop", n))
    print(f"(c) {total / 1e6:.0f} M instructions: bare Unicorn {total / t_bare / 1e6:6.1f} M insn/s, "
          f"tdbg {total / t_tdbg / 1e6:6.1f} M insn/s, ratio {t_bare / t_tdbg:.3f}")


# (d): firmware, Tensix instructions pushed per loop trip, what the mix holds
PUSH_MIXES = (
    ("bench_rwc", 4, "RWC/ZEROACC mix (ZEROACC, INCRWC, NOP, SETRWC)"),
    ("bench_mov", 4, "MOV mix (MOVD2B, MOVD2A, ZEROACC, INCRWC)"),
    ("bench_fpu", 4, "FPU mix (ELWADD, MVMUL, ELWADD, INCRWC)"),
    ("bench_sfpu", 6, "SFPU mix (SFPLOAD, SFPMAD, SFPSETCC, SFPLOADI, SFPENCC, SFPSTORE)"),
    ("bench_unpack_pack", 6, "UNPACR/PACR mix (UNPACR SrcA, UNPACR SrcB, PACR x3, PACR Last)"),
)
# (d): loop trips per mix, each run taking about 0.2-0.5 s here (a quarter with --quick)
PUSH_TRIPS = {"bench_rwc": 20_000, "bench_mov": 5_000, "bench_fpu": 1_000, "bench_sfpu": 5_000,
              "bench_unpack_pack": 700}


def hook_cost(n: int = 200_000) -> float:
    """Seconds per call of a one-address Unicorn code hook that does nothing (the .ttinsn path
    has one per pushed word), from a tight loop with and without the hook."""
    code = bytes.fromhex("13050500" "93851500" "e39ea5fe" "73001000")  # addi a0; addi a1,a1,1; bne a1,a0; ebreak
    def run(hooked: bool) -> float:
        uc = Uc(UC_ARCH_RISCV, UC_MODE_RISCV32)
        uc.mem_map(0, 0x1000)
        uc.mem_write(0, code)
        uc.reg_write(UC_RISCV_REG_A0, n)
        uc.reg_write(UC_RISCV_REG_A1, 0)
        if hooked:
            uc.hook_add(UC_HOOK_CODE, lambda *_: None, begin=4, end=4)
        t0 = time.perf_counter()
        try:
            uc.emu_start(0, 0x10)
        except UcError:
            pass
        return time.perf_counter() - t0
    return (min(run(True) for _ in range(REPEAT)) - min(run(False) for _ in range(REPEAT))) / n


def pushes(quick: bool) -> None:
    loop = best_run(lambda: firmware("bench_loop", 2_000_000))
    per_trip = loop_instructions_per_trip()
    riscv = 2_000_000 * per_trip / loop
    print(f"(d) plain RISC-V loop on this machine: {riscv / 1e6:.1f} M insn/s; "
          f"Unicorn code hook per .ttinsn: {hook_cost() * 1e6:.2f} us")
    for name, per_iter, what in PUSH_MIXES:
        n = PUSH_TRIPS[name] // (4 if quick else 1)
        t = best_run(lambda: firmware(name, n))
        count = n * per_iter
        print(f"    {what}: {count / t / 1e3:8.1f} k Tensix insn/s ({count} in {t:.3f} s), "
              f"{t / count * 1e6:6.1f} us each")


def loop_instructions_per_trip() -> float:
    """RISC-V instructions per trip of bench_loop, counted with a hook on a short run."""
    s = firmware("bench_loop", 1000)
    image = s.image
    c1 = bare_unicorn(_with_iterations(s, image, 1000), count_insns=True)[1]
    c2 = bare_unicorn(_with_iterations(s, image, 2000), count_insns=True)[1]
    return (c2 - c1) / 1000


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


def stepping(n: int) -> None:
    def rate(record: bool) -> tuple[float, float]:
        s = firmware("bench_loop", 1_000_000)
        t0 = time.perf_counter()
        for _ in range(n):
            s.stepi(record=record)
        return n / (time.perf_counter() - t0), s.history.bytes / max(len(s.history), 1)

    on = max((rate(True) for _ in range(REPEAT)), key=lambda r: r[0])
    off = max(rate(False)[0] for _ in range(REPEAT))
    print(f"(e) stepi: {on[0]:8.0f} /s with reverse-stepi history ({on[1]:.0f} bytes a step), "
          f"{off:8.0f} /s without")


def three_cores(n: int) -> None:
    def session(cores: tuple[str, ...]) -> Session:
        s = Session({c: firmware_dir() / "bench_loop.c" for c in cores})
        for c in cores:
            with s.on_core(c):
                s.write_memory(s.symbol("iterations").addr, struct.pack("<I", n))
        return s

    one = best_run(lambda: session(("T0",)))
    three = best_run(lambda: session(("T0", "T1", "T2")))
    print(f"(f) {n:,}-iteration loop: one core {one:.3f} s, the same loop on T0, T1, T2 at once "
          f"{three:.3f} s; instruction rate three/one {3 * one / three:.3f}")


def datacopy() -> None:
    kernel = Path(__file__).resolve().parents[2] / "shared" / "realfw" / "datacopy"
    if not kernel.is_dir():
        print("(g) datacopy: ../shared/realfw is not here; skipped")
        return

    def once() -> tuple[float, str]:
        t0 = time.perf_counter()
        s = Session({c: kernel / f"{e}.elf" for c, e in (("T0", "unpack"), ("T1", "math"), ("T2", "pack"))})
        for name, address in (("params.bin", 0x20000), ("A.bin", 0x30000), ("B.bin", 0x40000)):
            s.load_binary(kernel / name, address)
        stop = s.cont()
        ok = s.read_memory(0x50000, 2048) == (kernel / "expected.bin").read_bytes()
        return time.perf_counter() - t0, "output = expected.bin" if ok else f"stopped: {stop.describe()}"

    runs = [once() for _ in range(REPEAT)]
    t, what = min(runs)
    print(f"(g) datacopy, load to every core parked: {t:.3f} s ({what})")


BH_ISA = ["-mcpu=generic_rv32+m+zaamo+zba+zbb"]


def bitmanip(n: int) -> None:
    """(h): Zba/Zbb instructions run as RV32IM trampolines (tdbg.emu.translation)."""
    def session(flags: list[str]) -> Session:
        s = Session(build(firmware_dir() / "bench_zb.c", flags))
        s.core.uc.mem_write(s.symbol("iterations").addr, struct.pack("<I", n))
        return s

    t_plain, t_zb = best_run(lambda: session([])), best_run(lambda: session(BH_ISA))
    s = session(BH_ISA)
    s.cont()
    zb = sum(1 for p in s.tile.code.at.values() if p.kind.value == "bitmanip")
    print(f"(h) {n:,}-trip Zba/Zbb loop ({zb} translated instructions): plain RV32IM {t_plain:.3f} s, "
          f"Blackhole ISA {t_zb:.3f} s, speed ratio {t_plain / t_zb:.3f} (target >= 0.25)")


def startup() -> None:
    import os
    import subprocess
    import sys

    extra = os.environ.get("TDBG_REALFW_EXTRA")
    kernels = sorted(Path(extra).glob("*/unpack.elf")) if extra else []
    if kernels:
        folder, what = kernels[0].parent, f"{kernels[0].parent.name} (TDBG_REALFW_EXTRA)"
        elfs = {c: folder / f"{e}.elf" for c, e in (("T0", "unpack"), ("T1", "math"), ("T2", "pack"))}
    else:
        source = Path(__file__).resolve().parents[1] / "tests" / "firmware" / "llk_kernel.cpp"
        what = "tests/firmware/llk_kernel.cpp -O2, T0-T2"
        elfs = {f"T{t}": build(source, ("-O2", f"-DTRISC={t}"), core=f"T{t}") for t in range(3)}
    session = best_of(REPEAT, lambda: Session(elfs))
    first = best_of(REPEAT, lambda: Session(elfs).execute("info line main"))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    command = [sys.executable, "-m", "tdbg", "-q", "-batch", "-ex", "quit"]
    subprocess.run(command, env=env, capture_output=True, check=True)      # warm the caches

    def once() -> None:
        subprocess.run(command, env=env, capture_output=True, check=True)

    print(f"(i) Session() on {what}: {1000 * session:.1f} ms (then 'info line main': {1000 * first:.1f} ms); "
          f"warm tdbg -q -batch -ex quit: {best_of(REPEAT, once):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller loops (a rough look)")
    parser.add_argument("--only", choices=["d", "e", "f", "g", "h", "i"], help="run one figure only")
    args = parser.parse_args()
    for src in ("bench_window", "bench_l1", "bench_loop", *(m[0] for m in PUSH_MIXES)):
        build(firmware_dir() / f"{src}.c")
    figures = {
        "d": lambda: pushes(args.quick),
        "e": lambda: stepping(500 if args.quick else 3000),
        "f": lambda: three_cores(10_000_000 if args.quick else 100_000_000),
        "g": datacopy,
        "h": lambda: bitmanip(200_000 if args.quick else 2_000_000),
        "i": startup,
    }
    if args.only:
        figures[args.only]()
        return
    model()
    window(20_000 if args.quick else 200_000)
    loop = 6_000_000 if args.quick else 60_000_000
    breakpoints(loop)
    instructions_per_second(loop)
    for figure in figures.values():
        figure()


if __name__ == "__main__":
    main()
