"""The whole tile: one ELF per core, several cores at once, honest blocking, deadlocks, soft
reset, loading rules, per-core breakpoints, tile-wide watchpoints, files in and out.

Expected values come from the firmware sources in the kit (worked by hand there) and from the
pages: SoftReset.md (a cleared SOFT_RESET_0 bit releases a core), TTSync.md (the load waits while
the thread has instructions in flight), SEMWAIT.md (held while the semaphore is 0),
shared/kernels/README.md (how a host loads and releases tt-llk kernels; ttsim's outputs)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import ttllk_variants as tv

from tdbg.commands import Interpreter
from tdbg.emu.core import CoreState
from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import build, firmware_dir
from tdbg.session import Session, SessionError
from examples import EXAMPLES

FW = firmware_dir()
SHARED_KERNELS = Path(__file__).resolve().parents[2] / "shared" / "kernels"
needs_shared = pytest.mark.skipif(not SHARED_KERNELS.is_dir(), reason="../shared/kernels (ttsim's outputs) is not present")


def trio(stem: str) -> dict[str, Path]:
    return {f"T{i}": EXAMPLES / f"{stem}_t{i}.c" for i in range(3)}


def shell(session: Session) -> tuple[Interpreter, list[str]]:
    out: list[str] = []
    return Interpreter(session, write=out.append), out


def run(interp: Interpreter, out: list[str], line: str) -> str:
    out.clear()
    assert interp.execute(line), "".join(out)
    return "".join(out)


def results(s: Session, core: str, fmt: str = "<I") -> object:
    with s.on_core(core):
        return struct.unpack(fmt, s.read_memory(s.symbol("results").addr, 4))[0]


# -- three cores at once --------------------------------------------------------------------------

def test_pipeline_runs_three_cores_to_their_end() -> None:
    s = Session(trio("pipeline"))
    stop = s.cont()
    assert stop.kind is StopKind.EXITED
    assert s.tile.exit_codes == {"T0": 0, "T1": 0, "T2": 0}
    assert results(s, "T0") == 8 and results(s, "T1") == 8
    assert results(s, "T2", "<f") == 8256.0          # 1 + 2 + ... + 128, through SrcB and back
    assert "T2 exited with code 0" in stop.detail


def test_the_interleaving_is_the_same_every_time() -> None:
    def pushes() -> list[tuple[str, int, int]]:
        s = Session(trio("pipeline"))
        s.cont()
        return [(p.core, p.pc, p.word) for p in s.tile.pushes]

    first = pushes()
    assert first and first == pushes()


def test_deadlock_names_every_wait_and_writes_no_done_word() -> None:
    s = Session(trio("deadlock"))
    stop = s.cont()
    assert stop.kind is StopKind.DEADLOCK
    waits = {w.core: w.reason for w in stop.waits}
    assert set(waits) == {"T0", "T1", "T2"}
    assert "polls" in waits["T0"] and "0xffe80028" in waits["T0"]          # semaphore 2
    assert "polls" in waits["T2"] and "0xffe80020" in waits["T2"]          # semaphore 0
    assert waits["T1"].startswith("TTSync load") and "MOVD2B held by the latched SEMWAIT" in waits["T1"]
    assert all(s.tile.cores[c].state is CoreState.BLOCKED for c in waits)
    assert [results(s, c) for c in ("T0", "T1", "T2")] == [0, 0, 0]


def test_deadlock_in_the_shell_lists_the_waits() -> None:
    interp, out = shell(Session(trio("deadlock")))
    text = run(interp, out, "run")
    assert "Program stopped: deadlock: no core can run." in text
    assert sum(line.startswith(("  T0: ", "  T1: ", "  T2: ")) for line in text.splitlines()) == 3   # one entry per core
    threads = run(interp, out, "info threads")      # GDB's default width, 80: the state in a word
    assert "\n  2    Thread 2 (T1) [blocked]     tdbg_wait_done_at (" in threads
    assert "Thread 4 (B) [no firmware]" in threads and max(map(len, threads.splitlines())) <= 80
    run(interp, out, "set width unlimited")
    threads = run(interp, out, "info threads")   # room for each wait
    assert "Thread 2 (T1) [blocked: TTSync load" in threads


def test_scheduler_locking_on_runs_only_the_current_core() -> None:
    s = Session(trio("pipeline"))
    s.select_core("T2")
    s.scheduler_locking = "on"
    stop = s.cont()
    assert stop.kind is StopKind.BLOCKED and stop.core == "T2" and "polls" in stop.detail
    assert s.tile.cores["T0"].state is CoreState.RUNNABLE and not s.tile.pushes   # T0 never ran


def test_stepping_a_waiting_core_lets_the_others_run() -> None:
    s = Session(trio("pipeline"))
    s.select_core("T2")
    stop = s.cont()          # T0 and T1 finish, T2 finishes
    assert stop.kind is StopKind.EXITED
    s.restart()
    s.select_core("T2")
    s.break_at("main", thread="T2")
    assert s.cont().core == "T2"
    # T2 polls semaphore 1: with scheduler-locking off a step of T2 lets T0 and T1 run until
    # the semaphore is posted; T2 never reads the semaphore as posted before T1 finished.
    for _ in range(40):
        stop = s.stepi()
        assert stop.kind is StopKind.STEP and stop.core == "T2"
    assert s.tile.cores["T1"].state is CoreState.EXITED


def test_breakpoint_per_thread_and_switching() -> None:
    interp, out = shell(Session(trio("pipeline")))
    text = run(interp, out, "break main thread 3")
    assert text.startswith("Breakpoint 1 at 0x10") and "pipeline_t2.c" in text
    text = run(interp, out, "run")
    assert "[Switching to Thread 3 (T2)]" in text and "Thread 3 (T2) hit Breakpoint 1, main ()" in text
    assert interp.session.current == "T2"
    text = run(interp, out, "break main")
    assert "(3 locations)" in text
    listing = run(interp, out, "info breakpoints")
    assert "2.1" in listing and "(T0)" in listing and "(T2)" in listing


def test_watchpoint_set_on_one_core_fires_on_anothers_store() -> None:
    s = Session(trio("pipeline"))
    with s.on_core("T1"):
        addr = s.symbol("results").addr
    s.watch(addr, 4)                       # set while T0 is current: the watch is tile-wide
    stop = s.cont()                        # (T1's crt0 zeroing .bss changes nothing: no stop)
    assert stop.kind is StopKind.WATCHPOINT and stop.core == "T1" and (stop.old, stop.new) == (0, 8)
    s.delete(next(iter(s.watchpoints)))    # and deleting it from another thread works
    assert s.cont().kind is StopKind.EXITED


def test_ttsync_load_waits_for_the_thread() -> None:
    s = Session({"T1": EXAMPLES / "deadlock_t1.c"})
    stop = s.cont()
    assert stop.kind is StopKind.DEADLOCK and stop.core == "T1"
    # unblock it by hand: post semaphore 1 through the RISC-V view; the held MOVD2B runs
    s.write_value(0xFFE80024, 4, 0)
    assert s.cont().kind is StopKind.EXITED and results(s, "T1") == 1


def test_ctrl_c_and_a_limit_stop_three_busy_cores() -> None:
    forever = Path(__file__).parent / "firmware" / "forever.c"
    s = Session({f"T{i}": forever for i in range(3)})
    threading.Timer(0.5, s.interrupt).start()
    stop = s.cont()                      # three cores that never wait: Ctrl-C stops them
    assert stop.kind is StopKind.INTERRUPTED
    counters = []
    for core in ("T0", "T1", "T2"):
        with s.on_core(core):
            counters.append(s.read_u32(s.symbol("counter").addr))
    # T0 computes (its counter changes: it does not spin): it keeps its turn whatever the host's
    # time slices (tdbg.emu.spin; it would yield after spin.PATIENCE slices, 5 s)
    assert counters[0] and counters[1:] == [0, 0], counters
    assert s.cont(limit=1000).kind is StopKind.LIMIT


# -- release by B and soft reset -------------------------------------------------------------------

def test_b_firmware_releases_the_triscs() -> None:
    s = Session({"B": FW / "release_triscs.c", **trio("pipeline")})
    assert [s.tile.cores[c].state for c in ("T0", "T1", "T2", "B")] == [CoreState.RESET] * 3 + [CoreState.RUNNABLE]
    assert s.tile.registers.value("SOFT_RESET_0") == 0x47800 & ~(1 << 11)
    with s.on_core("T0"), pytest.raises(SessionError, match="held in reset"):
        s.stepi()
    stop = s.cont()
    assert stop.kind is StopKind.EXITED and s.tile.exit_codes == {"B": 0, "T0": 0, "T1": 0, "T2": 0}
    assert s.tile.registers.value("SOFT_RESET_0") == 0x47800 & ~(0xF << 11)


# -- loading ----------------------------------------------------------------------------------------

def _patched(tmp_path: Path, offset: int, data: bytes, name: str = "patched.elf") -> Path:
    raw = bytearray(build(FW / "demo.c").read_bytes())
    raw[offset:offset + len(data)] = data
    path = tmp_path / name
    path.write_bytes(bytes(raw))
    return path


def test_non_riscv_and_64_bit_elfs_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SessionError, match="not a RISC-V ELF"):
        Session(_patched(tmp_path, 18, struct.pack("<H", 62)))        # e_machine = EM_X86_64
    with pytest.raises(SessionError, match="64-bit ELF|not a usable ELF"):
        Session(_patched(tmp_path, 4, b"\x02"))                       # EI_CLASS = ELFCLASS64


def test_segment_outside_the_map_is_refused(tmp_path: Path) -> None:
    elf = build(FW / "demo.c").read_bytes()
    phoff, = struct.unpack_from("<I", elf, 28)
    # the first program header's p_vaddr (offset 8): move it past L1
    with pytest.raises(SessionError, match="outside what T0 can be loaded with"):
        Session(_patched(tmp_path, phoff + 8, struct.pack("<I", 0x17FFFC)))


def test_a_wormhole_build_is_refused(tmp_path: Path) -> None:
    raw = tv.build_or_skip(tv.SHARED["datacopy"]())["T1"].read_bytes()
    assert b"zmmul1p0" in raw
    path = tmp_path / "wormhole.elf"
    path.write_bytes(raw.replace(b"zmmul1p0", b"xttwh1p0"))     # Tag_RISCV_arch of a Wormhole build
    with pytest.raises(SessionError, match="built for Wormhole B0"):
        Session({"T1": path})


def test_tt_llk_elf_goes_where_tt_exalens_puts_it() -> None:
    s = Session({"T0": tv.build_or_skip(tv.SHARED["risc_compute"]())["T0"]})
    image = s.tile.image("T0")
    ldm, loader = image.section(".ldm_data"), image.section(".loader_init")
    assert ldm.addr == 0xFFB00000 and loader.addr == 0xA000
    assert s.read_memory(loader.addr, len(ldm.data)) == ldm.data       # in L1, for crt0 to copy
    assert s.pc == image.entry == 0x6000


# -- real kernels ----------------------------------------------------------------------------------

def _batch(kernel: str, tmp_path: Path) -> tuple[subprocess.CompletedProcess, Path, Path]:
    """tt-llk's kernel run from the command line as a host does: restore its inputs (the
    ../shared/kernels manifest's loads), run, dump the output."""
    folder = SHARED_KERNELS / kernel
    variant = tv.SHARED[kernel]()
    elfs = tv.build_or_skip(variant)
    (tmp_path / "params.bin").write_bytes(variant.params())
    manifest = json.loads((folder / "manifest.json").read_text())
    restores = [f"restore {tmp_path / 'params.bin'} binary 0x20000"]
    restores += [f"restore {folder / load['file']} binary {load['addr']}" for load in manifest["loads"][1:]]
    out, output = tmp_path / "out.bin", manifest["output"]
    end = int(output["addr"], 16) + output["len"]
    args = [sys.executable, "-m", "tdbg", "-q", "-batch", *(a for r in restores for a in ("-ex", r)), "-ex", "run",
            "-ex", f"dump binary memory {out} {output['addr']} {end:#x}", "-ex", "x/3wx 0x1FFB8",
            *(f"{core}={elf}" for core, elf in elfs.items())]
    return subprocess.run(args, capture_output=True, text=True, timeout=300), out, folder / "expected.bin"


@needs_shared
@pytest.mark.parametrize("kernel", ["risc_compute", "datacopy"])
def test_tt_llk_kernel_from_the_command_line(kernel: str, tmp_path: Path) -> None:
    done, out, expected = _batch(kernel, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[All cores finished: T0 parked" in done.stdout
    assert "0x000000ff\t0x000000ff\t0x000000ff" in done.stdout           # KERNEL_COMPLETE mailboxes
    assert out.read_bytes() == expected.read_bytes()


# -- files and the device path ---------------------------------------------------------------------

def test_restore_and_dump_binary_round_trip(tmp_path: Path) -> None:
    interp, out = shell(Session(FW / "demo.c"))
    src = tmp_path / "in.bin"
    src.write_bytes(bytes(range(64)))
    assert run(interp, out, f"restore {src} binary 0x40000") == f"Restoring binary file {src} into memory (0x40000 to 0x40040)\n"
    run(interp, out, f"dump binary memory {tmp_path / 'out.bin'} 0x40010 0x40020")
    assert (tmp_path / "out.bin").read_bytes() == bytes(range(16, 32))
    run(interp, out, f"append binary memory {tmp_path / 'out.bin'} 0x40000 0x40002")
    assert (tmp_path / "out.bin").read_bytes() == bytes(range(16, 32)) + b"\x00\x01"
    run(interp, out, f"restore {src} binary 0x50000 8 12")          # GDB: file offsets 8..12
    assert interp.session.read_memory(0x50008, 4) == bytes(range(8, 12))
    assert interp.session.read_memory(0x50000, 8) == bytes(8)


def test_memory_writes_go_through_the_device_model() -> None:
    s = Session(FW / "demo.c")
    # Dst.md Store32 (fmt 0 = FP32 at reset): 1.0 lands in Dst32b row 0, column 0
    s.write_memory(0xFFBD8000, struct.pack("<f", 1.0))
    assert s.dst(0, "fp32")[0] == 1.0
    with pytest.raises(SessionError, match="MOP expander configuration is write-only"):
        s.read_memory(0xFFB80000, 4)


def test_file_command_loads_and_replaces_a_core(tmp_path: Path) -> None:
    interp, out = shell(Session(FW / "demo.c"))
    assert run(interp, out, f"file T1 {EXAMPLES / 'pipeline_t1.c'}").startswith("Reading symbols from")
    assert set(interp.session.tile.programs) == {"T0", "T1"}
    text = run(interp, out, "thread 2")
    assert text.startswith("[Current thread is 2 (T1)]")
    assert "main" not in interp.session.image.path.name and interp.session.image.entry == 0xB000
    run(interp, out, "file T1")
    assert set(interp.session.tile.programs) == {"T0"}
    assert not interp.execute("file T1 /nonexistent.elf")
    assert set(interp.session.tile.programs) == {"T0"}


def test_cli_takes_one_elf_per_core() -> None:
    args = [sys.executable, "-m", "tdbg", "-q", "-batch", "-ex", "run", "-ex", "info threads",
            f"T0={EXAMPLES / 'pipeline_t0.c'}", f"T1={EXAMPLES / 'pipeline_t1.c'}", f"T2={EXAMPLES / 'pipeline_t2.c'}"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "[All cores finished: T0 exited with code 0, T1 exited with code 0, T2 exited with code 0]" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "tdbg", "-q", "-batch", "X9=demo.elf"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "unknown core 'X9'" in bad.stderr


# -- the GDB stub sees the tile --------------------------------------------------------------------

GDB = shutil.which("gdb-multiarch")


@pytest.mark.skipif(GDB is None, reason="gdb-multiarch is not installed (Debian package gdb-multiarch)")
def test_gdb_sees_each_core_as_a_thread() -> None:
    programs = " ".join(f"T{i}={EXAMPLES / f'pipeline_t{i}.c'}" for i in range(3))
    for i in range(3):
        build(EXAMPLES / f"pipeline_t{i}.c", core=f"T{i}")
    args = [GDB, "-q", "-batch", "-nx", "-ex", "set pagination off", "-ex", "set remotetimeout 60",
            "-ex", f"target remote | {sys.executable} -m tdbg --rsp-stdio {programs}",
            "-ex", "info threads", "-ex", "thread 2.1", "-ex", "stepi", "-ex", "p/x $pc",
            "-ex", "thread 3.1", "-ex", "break *0x10060", "-ex", "set schedule-multiple on",
            "-ex", "continue", "-ex", "p/x $pc"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    # each core a process (GDB's multiprocess extensions), its thread N.1 (gdb-multiarch 13.1)
    assert "Thread 2.1 (T1 stopped)" in out and "Thread 3.1 (T2 stopped)" in out
    assert "[Switching to thread 2.1 (Thread 2.1)]" in out
    assert "$1 = 0xb004" in out                   # one instruction of T1 from its entry 0xB000
    assert "Thread 3.1 hit Breakpoint 1, 0x00010060 in main () at " in out and "$2 = 0x10060" in out


def test_a_reset_leaves_l1_zero_whatever_wrote_it() -> None:
    """Power-on L1 is zeros (tdbg's power-on); a reset puts it back whoever wrote it since: the
    debugger, a Tensix unit, a restore of a checkpoint, a run of the firmware (its bytes gone
    once no core has firmware).  A fresh tile's L1 is never zeroed again, so this checks the
    writes that make a reset zero it."""
    from tdbg.emu.tile import TENSIX, Tile

    def zero(tile: Tile) -> bool:
        return not any(bytes(tile.l1)) and not any(tile.l1_written.saved())

    tile = Tile()
    tile.reset()
    assert zero(tile)
    tile.write(0x1000, b"\x01\x02")
    tile.reset()
    assert zero(tile)
    tile.write(0x2000, b"\x03" * 64, by=TENSIX)
    saved = tile.checkpoint()
    tile.reset()
    assert zero(tile)
    tile.restore(saved)
    assert tile.l1[0x2000] == b"\x03"
    tile.reset()
    assert zero(tile)
    s = Session(EXAMPLES / "bench_loop.c")
    s.write_memory(s.symbol("iterations").addr, struct.pack("<I", 10))
    assert s.cont().kind is StopKind.EXITED
    s.tile.load("T0", None)
    assert zero(s.tile)


def test_overlay_stream_registers_read_what_was_written_and_an_unmodelled_one_raises_each_time():
    """NoC/Overlay/README.md with tt-metal's noc_overlay_parameters.h indices (stream ``s`` at
    ``s * 0x1000``, register ``i`` at ``4 * i``): ``STREAM_REMOTE_DEST_BUF_SIZE`` (10) keeps its
    17 bits and sets ``..._SPACE_AVAILABLE`` (297); ``..._SPACE_AVAILABLE_UPDATE`` (270) adds its
    bits 22:6 to it.  A register tdbg does not model, and an offset inside a register, raise at
    every access, the second as the first."""
    from tdbg.tensix.events import UndefinedBehavior, UnimplementedFunctionality

    overlay = Session.on_chip("1x2").grid.wake((1, 2)).overlay
    stream = 5 * 0x1000
    overlay.write(stream + 4 * 10, 0x2_1234)                          # 18 bits: the 17 kept
    assert overlay.read(stream + 4 * 10) == 0x1234 and overlay.read(stream + 4 * 297) == 0x1234
    overlay.write(stream + 4 * 270, 3 << 6)
    assert overlay.read(stream + 4 * 297) == 0x1237 and overlay.read(6 * 0x1000 + 4 * 10) == 0
    for _ in range(2):
        with pytest.raises(UnimplementedFunctionality):
            overlay.read(stream + 4 * 11)
        with pytest.raises(UndefinedBehavior):
            overlay.read(stream + 4 * 10 + 2)
