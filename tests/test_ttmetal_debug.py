"""tt-metal's own debug channels in the debugger (issue 22 item 5): the watcher's waypoints (per core
in ``info waypoints`` and in hang reports) and a device ``ASSERT`` as a named stop with its file and
line.

The kernel: ``tests/firmware/ttmetal/reader_two.cpp`` (no watcher code of its own) in a program built
with the watcher (``Program(watcher=True)``, ``watcher = true`` in a file: the kit passes what
tt-metal's JIT passes and defines ``rta_count``/``crta_count`` as watcher firmware does).  Expected values come from the
sources: the waypoint ``cb_reserve_back`` writes while it waits (``WAYPOINT("CRBW")`` in the wheel's
``api/dataflow/dataflow_api.h``), the one ``ncrisck.cc`` writes when its kernel is done
(``WAYPOINT("NKFD")``), 'X' where the host's boot left it (the watcher's reset value), and the line
of reader_two.cpp's ``ASSERT``.  Needs the ttnn wheel and tdbg.ttmetal.kit (skips without them)."""

from __future__ import annotations

import re
import struct
from pathlib import Path

import numpy as np
import pytest

from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.ttmetal import boot
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import from_spec, prepare
from tdbg.commands import execute
from ttmetal_programs import READER_TWO, operations, printing_program, reader_two_add


def firmware() -> Path:
    try:
        return boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")


def started(**defines: str) -> Session:
    ops, fw = operations(), firmware()
    s = Session({})
    prepare(s, reader_two_add(ops, watcher=True, **defines), fw)
    return s


def waypoint_source(header: str, function: str) -> list[str]:
    """The WAYPOINTs ``function`` of the wheel's ``header`` writes, in order."""
    from tdbg.toolchain import ttnn

    text = (ttnn.tree().tt_metal / "hw/inc" / header).read_text()
    body = text[text.index(f"void {function}("):]
    body = body[:body.index("\n}\n")]
    return re.findall(r'WAYPOINT\("([^"]+)"\)', body)


def test_waypoints_in_a_hang_report_and_in_info_waypoints() -> None:
    s = started(PAGES_PER_PUSH="4")            # CBs of 2 pages: NC waits in cb_reserve_back forever
    waiting = waypoint_source("api/dataflow/dataflow_api.h", "cb_reserve_back")[0]
    assert waiting == "CRBW"
    # every kernel is built with the watcher: the writer waits in cb_wait_front, the math thread has
    # its Dst, unpack and pack are in their kernels (trisck.cc's waypoint before run_kernel)
    writer = waypoint_source("api/dataflow/dataflow_api.h", "cb_wait_front")[0]
    math = waypoint_source("../ckernels/blackhole/metal/llk_api/llk_math_common_api.h",
                           "llk_math_wait_for_dest_available")[-1]
    from tdbg.toolchain import ttnn

    trisck = re.findall(r'WAYPOINT\("([^"]+)"\)', (ttnn.tree().tt_metal / "hw/firmware/src/tt-1xx/trisck.cc").read_text())
    kernel = trisck[trisck.index("KD") - 1]
    assert (writer, math, kernel) == ("CWFW", "MWDD", "K")
    stop = s.cont()
    assert stop.kind is StopKind.DEADLOCK
    assert stop.report[-1] == f"  waypoints: B '{writer}', NC '{waiting}', T0 '{kernel}', T1 '{math}', T2 '{kernel}'"
    lines = {line.split()[0]: line for line in execute(s, "info waypoints").splitlines()}
    assert re.match(rf"NC\s+'{waiting}'\s+blocked: polls NoC overlay", lines["NC"])
    assert "reader_two.cpp:" in lines["NC"]
    assert re.match(rf"T1\s+'{math}'\s", lines["T1"])


def test_a_kernel_that_returned_left_ncriscks_last_waypoint() -> None:
    s = started()
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.detail.startswith("tt-metal program done")
    from tdbg.toolchain import ttnn

    ncrisck = ttnn.tree().tt_metal / "hw/firmware/src/tt-1xx/ncrisck.cc"
    assert re.findall(r'WAYPOINT\("([^"]+)"\)', ncrisck.read_text())[-1] == "NKFD"
    assert re.match(r"NC\s+'NKFD'\s", execute(s, "info waypoints").splitlines()[1])


def test_a_device_assert_is_a_named_stop_with_its_file_and_line() -> None:
    line = next(i for i, text in enumerate(READER_TWO.read_text().splitlines(), 1) if "ASSERT(num_tiles < MAX_TILES)" in text)
    s = started(MAX_TILES="3")                 # 4 tiles: the ASSERT trips
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.core == "NC"
    assert stop.detail == f"tt-metal device assert: NC tripped ASSERT at reader_two.cpp:{line} (DebugAssertTripped)"
    shown = execute(s, "info waypoints")
    assert re.match(r"NC\s+'K'\s", shown.splitlines()[1])      # ncrisck's waypoint before kernel_main
    assert stop.report == (f"  NC hangs in assert_and_hang, at {s.describe_pc('NC', stop.pc)}",)


def test_a_kernel_reading_past_its_runtime_arguments_trips_the_watchers_bounds_assert() -> None:
    """reader_two.cpp reads three runtime arguments; given two, get_arg_val<uint32_t>(2)'s ASSERT
    (the wheel's dataflow_api.h, get_arg_addr: arg_idx < rta_count, DebugAssertRtaOutOfBounds) trips,
    with rta_count the kit's: the kernel's argument count, as watcher firmware sets it."""
    from tdbg.toolchain import ttnn
    from tdbg.ttmetal.program import from_spec

    ops, fw = operations(), firmware()
    assert from_spec({"watcher": True}, Path(".")).watcher
    api = (ttnn.tree().tt_metal / "hw/inc/api/dataflow/dataflow_api.h").read_text().splitlines()
    line = next(i for i, text in enumerate(api, 1) if "arg_idx < rta_count, DebugAssertRtaOutOfBounds" in text)
    program = reader_two_add(ops, watcher=True)
    program.kernels[0].args = list(program.kernels[0].args)[:2]
    s = Session({})
    prepare(s, program, fw)
    stop = s.cont()
    assert stop.kind is StopKind.HOST and stop.core == "NC"
    assert stop.detail == f"tt-metal device assert: NC tripped ASSERT at dataflow_api.h:{line} (DebugAssertRtaOutOfBounds)"


def test_dprint_lines_show_as_the_print_server_shows_them_and_a_full_buffer_is_drained() -> None:
    """reader_two.cpp prints a line with its arguments, 8 lines of five types a page (64 lines of
    20 bytes: more than the 1000-byte buffer, so the kernel waits for the host to drain it), and
    a last line; they come out in order, formatted as {fmt} formats them (here by Python's
    format, whose rules match for these types: computed independently below)."""
    ops, fw = operations(), firmware()
    assert from_spec({"dprint": True}, Path(".")).dprint
    program = reader_two_add(ops, tiles=8, PRINT_EACH="8")
    program.dprint = True
    s = Session({})
    host = prepare(s, program, fw)
    a, b = (program.buffers[n].address for n in "ab")
    expected = [f"reader: 8 tiles from {a:#x} and {b:#x}"]
    expected += [f"page {t} line {i}: {'true' if i % 2 == 0 else 'false'} {t * 256 + i:#06x} {-i:>4}"
                 for t in range(8) for i in range(8)]
    expected.append("reader: done")
    assert 64 * 20 > host.mailboxes.field("dprint_buf.buffer.data").size
    out = execute(s, "run")
    assert "tt-metal program done" in out
    assert [line for line in out.splitlines() if line.startswith("0:0-0:")] == \
        [f"0:0-0:NC: {line}" for line in expected]
    # in time order, as tt-metal's print server prints them: all before the stop that came after them
    assert out.index(f"0:0-0:NC: {expected[-1]}") < out.index("tt-metal program done")
    assert [(p.core, p.text) for p in host.drain_prints(s)] == [("NC", line) for line in expected]


def test_dprint_from_every_trisc_and_ncrisc() -> None:
    """compute_print.cpp prints on each TRISC (DPRINT_UNPACK/_MATH/_PACK) and on all three; each
    core's lines come out with its RISC name, in its order."""
    ops, fw = operations(), firmware()
    s = Session({})
    program = printing_program(ops, tiles=2)
    prepare(s, program, fw)
    out = execute(s, "run")
    assert "tt-metal program done" in out
    shown = [line for line in out.splitlines() if line.startswith("0:0-0:")]
    by_core: dict[str, list[str]] = {}
    for line in shown:
        risc, _, text = line.removeprefix("0:0-0:").partition(": ")
        by_core.setdefault(risc, []).append(text)
    a, b = (program.buffers[n].address for n in "ab")
    assert by_core == {"NC": [f"reader: 2 tiles from {a:#x} and {b:#x}", "reader: done"],
                       "TR0": ["unpack: 2 tiles", "all: false"], "TR1": [f"math: {2 + 250:x} tiles", "all: false"],
                       "TR2": [f"pack: {-2:>5}", "all: false"]}


# -- DPRINT from firmware that scribbles its buffer (issue 30 P1, P2) ----------------------------------
# The buffer as device_print_common.h lays it out (aux.wpos, aux.rpos at its start, then the data),
# over a bytearray: the print server reads and writes it as it would the tile's L1.

DATA_AT, BUF_SIZE, STRINGS_AT = 0x100, 1000, 0x9000
#: format strings as the compiler rewrites them ({N,T}: argument N of type T): one I, one I then H, none
FORMATS = ("value {0,I}\n", "pair {0,I} {1,H}\n", "plain\n")


class _Memory:
    """The print buffer's memory and what PrintServer asks of the session and the mailboxes."""

    def __init__(self) -> None:
        self.mem = bytearray(DATA_AT + BUF_SIZE)

    # mailboxes
    def field(self, path: str):
        from types import SimpleNamespace

        at = {"dprint_buf.buffer.aux.wpos": 0, "dprint_buf.buffer.aux.rpos": 4, "dprint_buf.buffer.data": DATA_AT}[path]
        return SimpleNamespace(address=at, size=BUF_SIZE if at == DATA_AT else 4)

    # session
    from contextlib import nullcontext as _null

    def on_core(self, core: str):
        return self._null()

    def read_value(self, address: int, size: int) -> int:
        return int.from_bytes(self.mem[address:address + size], "little")

    def read_memory(self, address: int, size: int) -> bytes:
        if not 0 <= address <= len(self.mem) - size:
            from tdbg.session import SessionError

            raise SessionError(f"Cannot access memory at address {address:#x}")
        return bytes(self.mem[address:address + size])

    def write_memory(self, address: int, data: bytes) -> None:
        self.mem[address:address + len(data)] = data

    def positions(self, wpos: int, rpos: int) -> None:
        self.mem[0:8] = wpos.to_bytes(4, "little") + rpos.to_bytes(4, "little")


def _server(memory: _Memory):
    from types import SimpleNamespace

    from tdbg.ttmetal.dprint import PrintServer

    strings = b"".join(f.encode() + b"\0" for f in FORMATS)
    starts = [STRINGS_AT + sum(len(f) + 1 for f in FORMATS[:i]) for i in range(len(FORMATS))]
    info = b"".join(struct.pack("<4I", at, 0, 1, 0) for at in starts)
    sections = {".device_print_strings": SimpleNamespace(addr=STRINGS_AT, data=strings),
                ".device_print_strings_info": SimpleNamespace(addr=0, data=info)}
    elf = SimpleNamespace(section=sections.get)
    return PrintServer(memory, {core: elf for core in ("B", "NC", "T0", "T1", "T2")})


def _header(risc: int, payload: int, info: int, is_kernel: int = 1) -> bytes:
    """A DevicePrintHeader (device_print_structures.h): is_kernel bit 0, risc_id 5:1, payload 15:6, info 31:16."""
    return (is_kernel | risc << 1 | payload << 6 | info << 16).to_bytes(4, "little")


class _Writer:
    """A kernel's DEVICE_PRINT as device_print.h writes: at wpos, wrapping to 0 (a wrap header when
    one fits) once the reader has read to the end, never over unread bytes."""

    def __init__(self, memory: _Memory) -> None:
        self.m = memory

    def write(self, message: bytes) -> bool:
        """False when there is no room now (the kernel would wait for the reader)."""
        wpos, rpos = self.m.read_value(0, 4), self.m.read_value(4, 4)
        if wpos + len(message) > BUF_SIZE:
            if rpos == 0 or rpos > wpos:
                return False
            if wpos + 4 <= BUF_SIZE:
                self.m.write_memory(DATA_AT + wpos, _header(0, 0, 0xFFFF, 0))
            if rpos == wpos:
                self.m.write_memory(4, (0).to_bytes(4, "little"))
            wpos = 0
        elif rpos > wpos and wpos + len(message) >= rpos:
            return False
        if wpos < rpos <= wpos + len(message):
            return False
        self.m.write_memory(DATA_AT + wpos, message)
        self.m.write_memory(0, (wpos + len(message)).to_bytes(4, "little"))
        return True


@pytest.mark.parametrize("seed", range(8))
def test_dprint_drain_reads_what_a_model_writer_wrote_across_wraps(seed: int) -> None:
    """The expected lines are the model writer's (independent of the drain): every value in order."""
    import random

    rng = random.Random(seed)
    memory = _Memory()
    server, writer = _server(memory), _Writer(memory)
    expected, shown = [], []
    for n in range(400):
        core = rng.randrange(5)
        kind = rng.randrange(3)
        value, half = rng.getrandbits(32), rng.getrandbits(16)
        payload = (struct.pack("<I", value), struct.pack("<IH", value, half) + b"\0\0", b"")[kind]
        message = _header(core, len(payload), kind) + payload
        while not writer.write(message):
            server.drain(memory)
        expected.append((("B", "NC", "T0", "T1", "T2")[core],
                         (f"value {value}", f"pair {value} {half}", "plain")[kind]))
        if rng.random() < 0.1:
            server.drain(memory)
    server.drain(memory)
    shown = [(p.core, p.text) for p in server.prints]
    assert not any(p.note for p in server.prints) and shown == expected


def test_a_write_position_off_a_message_boundary_is_named_and_the_drain_ends() -> None:
    """Issue 30 P1: the host's drain looped for ever (+16 MB/s, Ctrl-C ignored)."""
    memory = _Memory()
    server = _server(memory)
    memory.write_memory(DATA_AT, _header(1, 4, 0) + struct.pack("<I", 7) + _header(1, 4, 0) + struct.pack("<I", 8))
    memory.positions(wpos=10, rpos=0)                  # 2 bytes into the second message's header
    from fuzzing import bounded

    with bounded(30):
        assert server.drain(memory)
    assert [p.shown() for p in server.prints] == [
        "0:0-0:NC: value 7",
        "warning: DPRINT: the write position 0xa is 2 bytes into a header at 0x8; "
        "read position moved to the write position 0xa"]
    assert memory.read_value(4, 4) == 10 and not server.drain(memory)
    memory.positions(wpos=14, rpos=8)                  # 2 bytes into its arguments
    server.drain(memory)
    assert server.prints[-1].text == ("header 0x00000103 at 0x8 says 4 bytes follow: past the write position 0xe; "
                                      "read position moved to the write position 0xe")
    memory.positions(wpos=5000, rpos=0)
    server.drain(memory)
    assert server.prints[-1].text.startswith("the write position 0x1388 is past the buffer's 1000 bytes")


def test_a_kernel_that_scribbles_its_print_buffer_gets_a_warning_and_the_run_goes_on() -> None:
    """Issue 30 P1 on the tile: after reader_two.cpp's first DPRINT, a header claiming 1000 bytes
    (the whole buffer) is written where the next message goes and wpos put 8 bytes on (set
    {uint32_t}, as a user would): the drain names the header, skips to wpos, the kernel's later
    prints still show (those written before that drain are lost with it), the program ends."""
    from fuzzing import bounded

    ops, fw = operations(), firmware()
    program = reader_two_add(ops, tiles=8, PRINT_EACH="8")
    program.dprint = True
    s = Session({})
    host = prepare(s, program, fw)
    execute(s, "break kernel_main thread NC")
    execute(s, "run")
    assert "0:0-0:NC: reader: 8 tiles from" in execute(s, "next 4")
    wpos = s.read_value(host.prints.address("aux.wpos"), 4)
    assert wpos == s.read_value(host.prints.address("aux.rpos"), 4) and wpos % 4 == 0
    header = 1 | 1 << 1 | 1000 << 6                                   # NC, is_kernel, 1000 bytes, info 0
    execute(s, f"set {{uint32_t}}{host.prints.address('data') + wpos:#x} = {header:#x}")
    execute(s, f"set {{uint32_t}}{host.prints.address('aux.wpos'):#x} = {wpos + 8:#x}")
    execute(s, "delete")
    with bounded(600):
        out = execute(s, "continue").splitlines()
    warned = [i for i, line in enumerate(out)
              if re.fullmatch(rf"warning: DPRINT: header {header:#010x} at {wpos:#x} says 1000 bytes follow: past the "
                              r"(write position|buffer end) 0x[0-9a-f]+; read position moved to the write position "
                              r"0x[0-9a-f]+", line)]
    assert len(warned) == 1, out
    assert out.index("0:0-0:NC: reader: done") > warned[0]
    assert any(line.startswith("tt-metal program done") for line in out)


def test_a_message_shorter_than_its_formats_arguments_is_a_note() -> None:
    """Issue 30 P2: "internal error: error('unpack_from requires a buffer of at least 4 bytes')"."""
    memory = _Memory()
    server = _server(memory)
    memory.write_memory(DATA_AT, _header(3, 4, 1) + struct.pack("<I", 5) + _header(9, 0, 2))
    memory.positions(wpos=12, rpos=0)
    server.drain(memory)
    assert [p.shown() for p in server.prints] == [
        "warning: DPRINT: header 0x00010107 at 0x0 (TR1): 4 bytes of arguments where its format "
        "('pair {0,I} {1,H}') takes 6; the missing ones are shown as <missing>",
        "0:0-0:TR1: pair 5 <missing>",
        "warning: DPRINT: header 0x00020013 at 0x8 names RISC 9; the tile has 5 (0..4): message skipped"]


def test_random_print_buffers_drain_in_bounded_time_and_memory() -> None:
    """Random bytes and positions (headers biased to plausible ones), more with TDBG_FUZZ_LONG=1:
    every drain ends, at most one line or note a 4 bytes read, the read position at the write one."""
    import random

    from fuzzing import LONG, bounded

    rng = random.Random(30)
    with bounded(1800 if LONG else 60):
        for _ in range(50000 if LONG else 1500):
            memory = _Memory()
            server = _server(memory)
            at = 0
            while at < BUF_SIZE - 4 and rng.random() < 0.9:
                payload = rng.choice((0, 4, 8, 6, 1023, rng.randrange(1024)))
                header = _header(rng.randrange(32), payload, rng.choice((0, 1, 2, 3, 0xFFFF, rng.randrange(65536))),
                                 rng.randrange(2))
                body = rng.randbytes(min(payload, BUF_SIZE - at - 4) if payload != 1023 else 0)
                memory.write_memory(DATA_AT + at, header + body)
                at += 4 + len(body)
            wpos = rng.choice((at, rng.randrange(BUF_SIZE + 8), rng.randrange(1 << 32)))
            rpos = rng.choice((0, rng.randrange(BUF_SIZE + 8)))
            memory.positions(wpos, rpos)
            server.drain(memory)
            assert len(server.prints) <= BUF_SIZE // 4 + 2
            if (wpos & 0x7FFF_FFFF) != rpos and wpos not in (0x98989898, 0xF8F8F8F8):
                assert memory.read_value(4, 4) == wpos & 0x7FFF_FFFF


# -- -batch's exit status (issue 33 item 9: CI wrappers had to grep) ------------------------------------

def _batch(*args: str, cwd: Path | None = None):
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    return subprocess.run([sys.executable, "-m", "tdbg", "-q", "-nx", "-batch", *args], capture_output=True, text=True,
                          timeout=900, cwd=cwd, env=env)


def test_batch_exits_3_on_a_deadlock_and_1_on_a_failed_command() -> None:
    stall = Path(__file__).parent / "firmware" / "stall_two.c"
    done = _batch("-ex", "run", str(stall))
    assert "deadlock: no core can run" in done.stdout and done.returncode == 3, done.stdout + done.stderr
    assert _batch("-ex", "nosuchcommand").returncode == 1          # GDB's
    assert _batch("-ex", "run", "-ex", "nosuchcommand", str(stall)).returncode == 3    # the highest
    assert _batch("-ex", "run", "-ex", "quit", str(stall)).returncode == 3             # quit as the end
    assert _batch("-ex", "run", "-ex", "quit 5", str(stall)).returncode == 5           # quit's own code
    assert _batch("-ex", "echo ok\\n").returncode == 0


def test_batch_exits_4_on_a_device_assert(tmp_path: Path) -> None:
    """The README's kind of program file, with the watcher and reader_two.cpp's ASSERT set to trip."""
    from ttmetal_programs import exact_inputs

    ops, _ = operations(), firmware()
    a, b = exact_inputs(4)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    eltwise = ops / "eltwise"
    (tmp_path / "p.toml").write_text(f"""watcher = true
[buffers.a]
file = "a.npy"
[buffers.b]
file = "b.npy"
[buffers.c]
pages = 4
[cbs]
0 = {{ pages = 2, page_size = 2048 }}
1 = {{ pages = 2, page_size = 2048 }}
2 = {{ pages = 2, page_size = 2048 }}
[[kernels]]
processor = "ncrisc"
source = "{READER_TWO}"
compile_args = ["a.accessor", "b.accessor"]
args = ["a", "b", 4]
defines = {{ MAX_TILES = "3" }}
[[kernels]]
processor = "brisc"
source = "{eltwise}/unary/device/kernels/dataflow/writer_unary_interleaved_start_id.cpp"
compile_args = [2, "c.accessor"]
args = ["c", 4, 0]
[[kernels]]
processor = "compute"
source = "{eltwise}/binary/device/kernels/compute/eltwise_binary_kernel.cpp"
defines = {{ ELTWISE_OP = "add_tiles", ELTWISE_OP_TYPE = "EltwiseBinaryType::ELWADD" }}
args = [4, 1]
""")
    done = _batch("-ex", "tt-metal program p.toml", "-ex", "run", cwd=tmp_path)
    assert "tt-metal device assert: NC tripped ASSERT at reader_two.cpp:" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 4


def test_dprint_lines_reach_gdbs_console_through_the_stub_before_the_stop_reply() -> None:
    """Through the GDB stub the kernels' prints come as console output (O packets) before the
    reply to 'c', in time order, as the shell shows them."""
    from rsp_client import served

    ops, fw = operations(), firmware()
    s = Session({})
    program = printing_program(ops, tiles=2)
    prepare(s, program, fw)
    out: list[bytes] = []
    with served(s) as gdb:
        gdb.raw(b"$c#63")
        reply = gdb.reply(timeout=600, keep_output=out)
        while b"library:" in reply:   # the kernels announced as they load: GDB reads them and goes on
            gdb.raw(b"$c#63")
            reply = gdb.reply(timeout=600, keep_output=out)
    console = b"".join(out).decode()
    assert reply.startswith(b"T") and "tt-metal program done" in console
    a, b = (program.buffers[n].address for n in "ab")
    assert f"0:0-0:NC: reader: 2 tiles from {a:#x} and {b:#x}\n" in console
    assert console.index("0:0-0:NC: reader: done") < console.index("tt-metal program done")
