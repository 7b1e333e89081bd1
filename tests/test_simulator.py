"""tdbg as tt-metal's simulator: the folder, the messages of tt-umd's simulation protocol, and the
server under a test client that plays tt-umd (``rtl_sim_communicator.cpp``: listen on a pair1
socket, export NNG_SOCKET_ADDR, spawn run.sh, wait for the EXIT ack, then send requests).

Expected bytes come from the schema (``simulation_device.fbs``) laid out by hand as the
FlatBuffers format defines a table (root offset, vtable of 16-bit offsets, fields), the
instruction words from the RISC-V base ISA encodings, and the descriptor's facts from tt-umd's
``tests/soc_descs/blackhole_simulation_1x2.yaml``.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pynng = pytest.importorskip("pynng", reason="pynng is a dependency of tdbg's simulator server")
pytest.importorskip("flatbuffers", reason="flatbuffers is a dependency of tdbg's simulator server")
yaml = pytest.importorskip("yaml", reason="the soc descriptor is read back with PyYAML")

from tdbg.arch.blackhole import BLACKHOLE  # noqa: E402
from tdbg.emu.noc import Transfer  # noqa: E402
from tdbg.session import Session  # noqa: E402
from tdbg.simulator.protocol import BadMessage, Command, Message, decode, encode  # noqa: E402
from tdbg.simulator.server import dial_host  # noqa: E402
from tdbg.errors import SessionError  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
SOFT_RESET_0 = 0xFFB121B0
HELD = 0x47800                       # TileControlDebugStatus.md: every core held
B_RELEASED = HELD & ~(1 << 11)       # BRISC's bit 11 clear

# RV32I words (the base ISA's encodings, worked by hand):
LUI_T0 = 0x123452B7        # lui  t0, 0x12345
ADDI_T0 = 0x67828293       # addi t0, t0, 0x678
SW_T0_100 = 0x10502023     # sw   t0, 0x100(zero)
LW_T1_200 = 0x20002303     # lw   t1, 0x200(zero)
BEQZ_T1_BACK = 0xFE030EE3  # beq  t1, zero, -4
J_SELF = 0x0000006F        # jal  zero, 0
FIRMWARE = struct.pack("<6I", LUI_T0, ADDI_T0, SW_T0_100, LW_T1_200, BEQZ_T1_BACK, J_SELF)


def _table(buf: bytes) -> dict[int, int]:
    """A FlatBuffers table's field offsets by slot, read by hand (root uoffset, soffset to the
    vtable, vtable: its size, the table's size, then one uint16 per field)."""
    root = struct.unpack_from("<I", buf, 0)[0]
    vtable = root - struct.unpack_from("<i", buf, root)[0]
    vsize = struct.unpack_from("<H", buf, vtable)[0]
    offsets = struct.unpack_from(f"<{(vsize - 4) // 2}H", buf, vtable + 4)
    return {slot: root + off for slot, off in enumerate(offsets) if off}


def test_encode_lays_out_the_schema_fields():
    buf = encode(Message(Command.WRITE, np.array([7, 0xFFFFFFFF], np.uint32), (3, 9), 0xFFB121B0, 8))
    at = _table(buf)
    assert struct.unpack_from("<b", buf, at[0])[0] == 0 if 0 in at else True   # command: WRITE (the default)
    buf_read = encode(Message(Command.READ, size=4))
    assert struct.unpack_from("<b", buf_read, _table(buf_read)[0])[0] == 1   # command: READ
    vector = at[1] + struct.unpack_from("<I", buf, at[1])[0]
    assert struct.unpack_from("<3I", buf, vector) == (2, 7, 0xFFFFFFFF)      # [uint32]: length, items
    assert struct.unpack_from("<2Q", buf, at[2]) == (3, 9)                  # tt_vcs_core inline
    assert struct.unpack_from("<Q", buf, at[3])[0] == 0xFFB121B0            # address: uint64
    assert struct.unpack_from("<I", buf, at[4])[0] == 8                     # size: uint32


def _by_hand(command: int, words: list[int], core: tuple[int, int], address: int, size: int) -> bytes:
    """A DeviceRequestResponse built by hand: the root offset, the vtable, padding so that the
    struct's uint64s are 8-aligned, the table (soffset, command, data's uoffset, core, address,
    size), then the vector (length, items)."""
    vtable = struct.pack("<7H", 14, 44, 4, 8, 16, 32, 40)     # vtable size, table size, 5 offsets
    table_at, vector_at = 24, 24 + 44
    table = struct.pack("<ib3xI4x2QQI", table_at - 4, command, vector_at - (table_at + 8), *core, address, size)
    assert len(table) == 44
    return (struct.pack("<I", table_at) + vtable + bytes(table_at - 4 - len(vtable)) + table
            + struct.pack(f"<I{len(words)}I", len(words), *words))


def test_decode_reads_a_message_built_by_hand():
    message = decode(_by_hand(1, [5, 6], (2, 2), 0x1234_5678_9A, 4))
    assert (message.command, message.core, message.address, message.size) == (Command.READ, (2, 2), 0x1234_5678_9A, 4)
    assert list(message.data) == [5, 6]
    assert decode(_by_hand(0, [0x04030201, 0x08070605], (1, 2), 0x100, 6)).payload == bytes(range(1, 7))


def _built(command: int, words: list[int], core: tuple[int, int] | None, address: int, size: int, order: list[int]) -> bytes:
    """A DeviceRequestResponse built with the flatbuffers package's ``Builder`` (an independent
    writer: fields equal to their default left out, as tt-umd's C++ builder leaves them), its
    fields added in ``order`` (slots)."""
    import flatbuffers

    builder = flatbuffers.Builder(64)
    vector = builder.CreateNumpyVector(np.array(words, dtype="<u4"))
    builder.StartObject(5)
    for slot in order:
        if slot == 0:
            builder.PrependInt8Slot(0, command, 0)
        elif slot == 1:
            builder.PrependUOffsetTRelativeSlot(1, vector, 0)
        elif slot == 2 and core is not None:
            builder.Prep(8, 16)
            builder.PrependUint64(core[1])
            builder.PrependUint64(core[0])
            builder.PrependStructSlot(2, builder.Offset(), 0)
        elif slot == 3:
            builder.PrependUint64Slot(3, address, 0)
        elif slot == 4:
            builder.PrependUint32Slot(4, size, 0)
    builder.Finish(builder.EndObject())
    return bytes(builder.Output())


@given(st.integers(0, 13), st.lists(st.integers(0, 2**32 - 1), max_size=40),
       st.one_of(st.none(), st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1))),
       st.integers(0, 2**64 - 1), st.integers(0, 2**32 - 1), st.permutations(range(5)))
@settings(max_examples=200, deadline=None)
def test_decode_reads_what_the_flatbuffers_builder_wrote(command, words, core, address, size, order):
    message = decode(_built(command, words, core, address, size, order))
    assert (message.command, message.core, message.address, message.size) == (command, core or (0, 0), address, size)
    assert message.data.tolist() == words


@given(st.binary(max_size=120), st.data())
@settings(max_examples=300, deadline=None)
def test_decode_of_any_bytes_is_a_message_or_bad_message(junk, data):
    """Random bytes, and a good message cut short or with a byte changed: a message or
    ``BadMessage``, never another exception."""
    good = encode(Message(Command.READ, np.arange(4, dtype=np.uint32), (1, 2), 0x100, 16))
    cut = good[:data.draw(st.integers(0, len(good)))]
    at = data.draw(st.integers(0, len(good) - 1))
    changed = good[:at] + bytes([data.draw(st.integers(0, 255))]) + good[at + 1:]
    for buf in (junk, cut, changed):
        try:
            decode(buf)
        except BadMessage:
            pass


def test_simulator_folder(tmp_path):
    out = subprocess.run([sys.executable, "-m", "tdbg", "simulator", str(tmp_path / "sim")], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, check=True).stdout
    folder = (tmp_path / "sim").resolve()
    assert out.splitlines() == [f"export TT_METAL_SIMULATOR={folder}", "export TT_SIMULATOR_LOCALHOST=1",
                                "export TT_METAL_SLOW_DISPATCH_MODE=1"]
    script = folder / "run.sh"
    assert os.access(script, os.X_OK) and sys.executable in script.read_text()
    soc = yaml.safe_load((folder / "soc_descriptor.yaml").read_text())
    # tt-metal's blackhole_140_arch.yaml, with y_size 2 and two workers
    assert soc["grid"] == {"x_size": 17, "y_size": 2}
    assert soc["functional_workers"] == ["1-2", "2-2"] and soc["arc"] == ["8-0"] and soc["pcie"] == ["2-0", "11-0"]
    assert soc["dram"][0] == ["0-0", "0-1", "0-11"] and soc["dram"][7] == ["9-5", "9-7", "9-6"]
    assert soc["eth"] == [] and soc["arch_name"] == "BLACKHOLE"
    assert [v["worker_endpoint"] for v in soc["dram_views"]] == [[2, 1]] + [[0, 1]] * 3 + [[2, 1]] * 4
    assert soc["dram_view_size"] == 4278190080 and soc["worker_l1_size"] == 1536 * 1024


def test_the_full_chips_folder_shows_no_ethernet_core(tmp_path):
    """The 140 workers of tt-metal's blackhole_140_arch.yaml, and no Ethernet core: tdbg runs no
    Ethernet firmware, and tt-metal 0.81.1 shown the 14 loads its idle firmware on each and polls
    it for RUN_MSG_DONE for ever (measured: ttnn.open_device failed to initialize FW)."""
    subprocess.run([sys.executable, "-m", "tdbg", "simulator", str(tmp_path / "sim"), "--grid", "full"],
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, check=True)
    soc = yaml.safe_load((tmp_path / "sim" / "soc_descriptor.yaml").read_text())
    assert soc["grid"] == {"x_size": 17, "y_size": 12} and len(soc["functional_workers"]) == 140
    assert soc["functional_workers"][0] == "1-2" and soc["functional_workers"][-1] == "16-11"
    assert soc["eth"] == [] and soc["eth_l1_size"] == 0


def test_a_hang_names_what_the_host_polls():
    """The host polls an Ethernet endpoint (kept as memory) while tile 1,2's BRISC spins on L1
    0x200: the hang names the endpoint and address polled and says tdbg does not model it."""
    from tdbg.debug.hostport import HANG_READS, Hang

    port = Session.on_chip("full").host_port
    port.write((1, 2), 0, FIRMWARE)
    port.write((1, 1), 0x590, struct.pack("<I", 0x4000_0000))     # an Ethernet core's go message: INIT
    port.write((1, 2), SOFT_RESET_0, struct.pack("<I", B_RELEASED))
    assert port.read((1, 2), 0x100, 4) == struct.pack("<I", 0x12345678)
    with pytest.raises(Hang) as hang:
        for _ in range(HANG_READS):
            assert port.read((1, 1), 0x590, 4) == struct.pack("<I", 0x4000_0000)
    assert hang.value.polled == [((1, 1), 0x590, "Ethernet")]
    assert str(hang.value).startswith("the host waits for the device (it reads 1,1 at 0x590; tdbg does not model "
                                      "Ethernet endpoints: they hold what the host wrote), and no core can run: "
                                      "tile 1,2: B: spins at 0x0000000c reading L1 0x200")


def test_a_hang_folds_the_tiles_that_wait_alike():
    """Two tiles with the same firmware spin alike: one line names both."""
    from tdbg.debug.hostport import HANG_READS, Hang

    port = Session.on_chip("1x2").host_port
    for tile in ((1, 2), (2, 2)):
        port.write(tile, 0, FIRMWARE)
        port.write(tile, SOFT_RESET_0, struct.pack("<I", B_RELEASED))
    with pytest.raises(Hang) as hang:
        for _ in range(HANG_READS + 1):         # the first runs the tiles
            port.read((2, 2), 0x104, 4)
    assert set(hang.value.stops) == {(1, 2), (2, 2)}
    assert "no core can run: tiles 1,2, 2,2: B: spins at 0x0000000c" in str(hang.value)


def test_the_print_servers_polls_are_no_hang():
    """tt-metal 0.81.1's print server (measured with --trace-requests, TT_METAL_DPRINT_CORES=0,0)
    sets up its buffers, 1020 bytes at 0x6d0 on each tile and 20 at 0x40 on DRAM endpoint 0,11,
    each a starting magic word and zeros, then polls them while the host builds its kernels,
    seconds on a cold cache: those polls are no hang, however many; the host's own poll of a go
    message is, and it is all the hang names."""
    from tdbg.debug.hostport import HANG_READS, Hang
    from tdbg.ttmetal import launches

    session = Session.on_chip("1x2")
    launches.attach(session)
    port = session.host_port
    port.write((1, 2), 0, FIRMWARE)
    port.write((1, 2), SOFT_RESET_0, struct.pack("<I", B_RELEASED))
    port.write((1, 2), 0x6D0, struct.pack("<I", 0x98989898) + bytes(1016))   # DEBUG_PRINT_SERVER_STARTING_MAGIC
    port.write((0, 11), 0x40, struct.pack("<I", 0x98989898) + bytes(16))
    port.write((1, 2), 0x4F0, struct.pack("<I", 0x80 << 24))                   # not a print buffer
    for _ in range(2 * HANG_READS):
        port.read((0, 11), 0x40, 20)
        port.read((1, 2), 0x6D0, 8)
    with pytest.raises(Hang) as hang:
        for _ in range(HANG_READS):
            port.read((1, 2), 0x6D0, 8)
            port.read((1, 2), 0x4F0, 4)
    assert hang.value.polled == [((1, 2), 0x4F0, "Tensix")]


def test_refuses_a_host_that_is_not_loopback():
    assert dial_host("tcp://localhost:51234", False) == "localhost"
    assert dial_host("tcp://127.0.0.1:51234", False) == "127.0.0.1"
    with pytest.raises(SessionError, match="not a loopback address"):
        dial_host("tcp://192.0.2.1:51234", False)
    assert dial_host("tcp://192.0.2.1:51234", True) == "192.0.2.1"
    with pytest.raises(SessionError, match="not tcp://HOST:PORT"):
        dial_host("ipc:///tmp/x", False)


def test_grid_tiles_reach_each_other_over_the_noc():
    """A NoC write from one tile lands in the other's L1 (woken or not) and in shared DRAM."""
    session = Session.on_chip("1x2")
    grid = session.grid
    a = grid.wake((1, 2))
    transfer = Transfer(1, 0, "B", 0, "write", "", "", 4)
    a.noc.write((2, 2), 0x40, b"\x11\x22\x33\x44", transfer)      # (2,2) still dormant
    assert (2, 2) not in grid.tiles and grid.read((2, 2), 0x40, 4) == b"\x11\x22\x33\x44"
    b = grid.wake((2, 2))
    assert bytes(b.l1[0x40:0x44]) == b"\x11\x22\x33\x44"            # copied in when it woke
    a.noc.write((2, 2), 0x80, b"\x55" * 8, transfer)
    assert bytes(b.l1[0x80:0x88]) == b"\x55" * 8
    a.noc.write((0, 0), 0x1000, b"dram", transfer)
    assert b.noc.read((0, 0), 0x1000, 4) == b"dram"                  # one DRAM for every tile


def test_a_host_write_over_an_earlier_kernel_is_what_it_wrote():
    """Measured with ttnn's untilize after its tilize: the host writes a kernel's data where
    the last program's kernel text was.  The tile then holds the bytes written (data words
    shaped like ``.ttinsn`` words stay as they are, as in any memory), and a ``j .`` that was
    there parks no core; code written there again is code again."""
    grid = Session.on_chip("1x2").grid
    code = struct.pack("<4I", 0x0000_0013, 0x0000_006F, 0x0000_0013, 0x0000_0013)     # nop; j .; nop; nop
    grid.write_code((1, 2), 0x8000, code, len(code))
    tile = grid.tiles[(1, 2)]
    assert all(0x8004 in core.parks for core in tile.cores.values())
    data = struct.pack("<4I", 0xFFEC_0000, 0xFFE0_0000, 0x1234_5678, 0x0000_0000)     # low bits 00
    grid.write((1, 2), 0x8000, data)
    assert bytes(tile.l1[0x8000:0x8010]) == data and grid.read((1, 2), 0x8000, 16) == data
    assert not any(0x8004 in core.parks for core in tile.cores.values())
    grid.write_code((1, 2), 0x8000, code, len(code))
    assert bytes(tile.l1[0x8000:0x8004]) == code[:4] and all(0x8004 in core.parks for core in tile.cores.values())


def test_the_same_code_written_again_is_still_that_code():
    """ttnn's host writes its kernels again at each launch: the same bytes where they are stay
    code (a ``.ttinsn`` word, low two bits not 0b11 in code, still replaced and still that word),
    and other bytes there are classified anew."""
    grid = Session.on_chip("1x2").grid
    ttinsn, other = 0xFFEC_0000, 0xFFE0_0000          # low bits 00: Tensix words in code
    code = struct.pack("<4I", 0x0000_0013, ttinsn, 0x0000_006F, 0x0000_0013)          # nop; .ttinsn; j .; nop
    for _ in range(2):
        grid.write_code((1, 2), 0x8000, code, len(code))
        tile = grid.tiles[(1, 2)]
        assert tile.code.at[0x8004].word == ttinsn and struct.unpack("<I", bytes(tile.l1[0x8004:0x8008]))[0] != ttinsn
        assert all(0x8008 in core.parks for core in tile.cores.values())
    grid.write_code((1, 2), 0x8000, code[:4] + struct.pack("<I", other) + code[8:], len(code))
    assert tile.code.at[0x8004].word == other


def test_a_noc_read_from_the_other_tiles_l1():
    """A read request from tile 1,2 of tile 2,2's L1 (ttnn.to_memory_config into L1: the
    interleaved banks are both tiles' L1) brings its bytes (NoC/MemoryMap.md: NOC_TARG_ADDR the
    source, NOC_RET_ADDR the destination, NOC_AT_LEN_BE the length)."""
    from tdbg.emu.devices.niu import CommandBuffer

    grid = Session.on_chip("1x2").grid
    a, b = grid.wake((1, 2)), grid.wake((2, 2))
    b.write(0x20000, bytes(range(64)))
    buf = CommandBuffer({"TARG_ADDR_LO": 0x20000, "TARG_ADDR_HI": 2 | 2 << 6, "RET_ADDR_LO": 0x30000,
                         "RET_ADDR_HI": 1 | 2 << 6, "AT_LEN_BE": 64, "CTRL": 0})
    a.noc.nius[0].issue(buf)
    assert bytes(a.l1[0x30000:0x30040]) == bytes(range(64))


def test_a_noc1_read_of_dram_on_the_full_chip_names_noc1s_coordinate():
    """On the full chip as on ``1x2`` the host gives the kernels NoC 1's own coordinates of DRAM
    (no translation: measured with ttnn 0.81.1, its bank table of tile 1,2 names bank 0 by 0,11
    on NoC 0 and by 16,10 on NoC 1): NoC 1's (16, 10) is NoC 0's (0, 1) in a 17 x 12 grid
    (NoC/Coordinates.md: (W - 1 - x, H - 1 - y)), DRAM channel 0's second port, though 16,10 is
    also a Tensix tile's NoC 0 coordinate; a Tensix coordinate whose NoC 1 reading is no DRAM
    port (2,3: 14,8) is that tile's, as the host's worker coordinates are."""
    from tdbg.emu.devices.niu import CommandBuffer

    grid = Session.on_chip("full").grid
    a = grid.wake((1, 2))
    grid.write((0, 0), 0x4000, bytes(range(64)))                   # channel 0, by its first port
    grid.write((2, 3), 0x5000, bytes(range(64, 128)))              # a dormant tile's L1
    for source, address, want in ((16 | 10 << 6, 0x4000, bytes(range(64))),
                                  (2 | 3 << 6, 0x5000, bytes(range(64, 128)))):
        buf = CommandBuffer({"TARG_ADDR_LO": address, "TARG_ADDR_HI": source, "RET_ADDR_LO": 0x30000,
                             "RET_ADDR_HI": 1 | 2 << 6, "AT_LEN_BE": 64, "CTRL": 0})
        a.noc.nius[1].issue(buf)
        assert bytes(a.l1[0x30000:0x30040]) == want


class Umd:
    """The test's tt-umd: a pair1 listener on loopback, run.sh spawned, the ack awaited."""

    def __init__(self, folder: Path, env: dict[str, str] | None = None) -> None:
        self.sock = pynng.Pair1(recv_timeout=60_000)
        port = 50000 + os.getpid() % 9000
        for attempt in range(20):
            try:
                self.address = f"tcp://127.0.0.1:{port + attempt}"
                self.sock.listen(self.address)
                break
            except pynng.exceptions.AddressInUse:
                continue
        self.proc = subprocess.Popen([str(folder / "run.sh")], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, "NNG_SOCKET_ADDR": self.address, **(env or {})})
        ack = decode(self.sock.recv())
        assert ack.command == Command.EXIT

    def send(self, command: Command, core: tuple[int, int], address: int = 0, data: bytes = b"", size: int = 0) -> None:
        words = np.frombuffer(data + bytes(-len(data) % 4), dtype="<u4") if data else np.zeros(1, np.uint32)
        self.sock.send(encode(Message(command, words, core, address, size or len(data))))

    def read(self, core: tuple[int, int], address: int, size: int) -> bytes:
        self.send(Command.READ, core, address, size=size)
        reply = decode(self.sock.recv())
        return reply.data.astype("<u4").tobytes()[:size] if len(reply.data) * 4 >= size else b""

    def close(self) -> tuple[int, str]:
        self.send(Command.EXIT, (0, 0))
        try:
            _, err = self.proc.communicate(timeout=60)
        finally:
            self.proc.kill()
            self.sock.close()
        return self.proc.returncode, err


@pytest.fixture
def folder(tmp_path):
    from tdbg.arch.chips import chip
    from tdbg.simulator import folder as sim_folder

    sim_folder.write(tmp_path / "sim", chip("1x2", BLACKHOLE), BLACKHOLE)
    return tmp_path / "sim"


def test_server_under_a_umd_client(folder):
    umd = Umd(folder)
    try:
        for tile in ((1, 2), (2, 2)):
            umd.send(Command.ALL_TENSIX_RESET_ASSERT, tile)
        umd.send(Command.WRITE, (2, 2), 0x3000, b"\x01\x02\x03\x04\x05\x06\x07\x08")
        assert umd.read((2, 2), 0x3000, 8) == bytes(range(1, 9))
        umd.send(Command.WRITE, (0, 0), 0x2_0000, b"\xAA" * 64)                      # DRAM channel 0
        assert umd.read((0, 1), 0x2_0010, 4) == b"\xAA" * 4                          # ... its other port
        umd.send(Command.WRITE, (2, 0), 0x10, b"kept")                               # PCIe: kept
        assert umd.read((2, 0), 0x10, 4) == b"kept"
        assert umd.read((5, 5), 0, 4) == b""                           # a Tensix tile the chip lacks
        # firmware for BRISC of tile 1,2 (it starts at 0): store a marker, spin on 0x200, park
        umd.send(Command.WRITE, (1, 2), 0, FIRMWARE)
        umd.send(Command.WRITE, (1, 2), SOFT_RESET_0, struct.pack("<I", B_RELEASED))
        umd.send(Command.START, (1, 2))
        assert umd.read((1, 2), 0x100, 4) == struct.pack("<I", 0x12345678)          # the core ran
        assert umd.read((1, 2), SOFT_RESET_0, 4) == struct.pack("<I", B_RELEASED)
        started = time.monotonic()
        for _ in range(5000):                     # poll for something no core makes: a hang
            got = umd.read((1, 2), 0x104, 4)
            if got == b"":
                break
        assert got == b"", "the server never gave up on a poll no core can satisfy"
        assert time.monotonic() - started < 30
        assert umd.read((2, 2), 0x3000, 4) == b""         # reported once: the device answers no more reads
    finally:
        code, err = umd.close()
    assert code == 0, err
    assert "no endpoint at NoC coordinate 5,5" in err or "no Tensix tile at 5,5" in err
    print(err)
    assert "no core can run" in err and "tile 1,2" in err, err
    # each command's requests in parts, as many as were sent (a WRITE has no reply to encode)
    parts = re.search(r"per request: (.*)", err)
    assert parts is not None, err
    counts = dict(re.findall(r"(\w+) (\d+): decode \d+, answer \d+, reply \d+ us", parts[1]))
    assert counts["WRITE"] == "5" and counts["ALL_TENSIX_RESET_ASSERT"] == "2" and counts["START"] == "1", parts[1]
    assert int(counts["READ"]) > 2000, parts[1]


def test_the_jit_output_is_read_again_once_a_binary_is_whole(tmp_path):
    """tt-metal rewrites a kernel's ``.xip.elf`` at each run (measured: the same bytes, a new
    mtime), so a host may be writing one while tdbg reads it: a binary read half-written is
    read again once it is whole, even where the clock gave both the same mtime."""
    from tdbg.emu.elf import ElfImage
    from tdbg.toolchain.zig import build, firmware_dir
    from tdbg.ttmetal.jit_output import JitOutput

    elf = build(firmware_dir() / "demo.c")
    raw = elf.read_bytes()
    text = next(s.data for s in ElfImage.load(elf).segments if s.executable and s.data)
    path = tmp_path / "key" / "firmware" / "brisc" / "brisc.elf"
    path.parent.mkdir(parents=True)
    path.write_bytes(raw[:len(raw) // 2])
    stamp = path.stat().st_mtime_ns
    jit = JitOutput(BLACKHOLE, tmp_path)
    assert jit.match(text) is None
    path.write_bytes(raw)
    os.utime(path, ns=(stamp, stamp))
    found = jit.match(text)
    assert found is not None and (found.name, found.core) == ("firmware", "B")


@pytest.mark.parametrize("chosen", [False, True])
def test_the_jit_output_is_where_tt_metal_builds(tmp_path, monkeypatch, chosen):
    """tt-metal 0.81.1's build folder (measured): ``~/.cache/tt-metal-cache/<key>/``, and with
    ``TT_METAL_CACHE=DIR`` ``DIR/tt-metal-cache<key>/`` (no separator before the key)."""
    from tdbg.emu.elf import ElfImage
    from tdbg.toolchain.zig import build, firmware_dir
    from tdbg.ttmetal.jit_output import JitOutput

    elf = build(firmware_dir() / "demo.c")
    text = next(s.data for s in ElfImage.load(elf).segments if s.executable and s.data)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if chosen:
        monkeypatch.setenv("TT_METAL_CACHE", str(tmp_path / "chosen"))
        folder = tmp_path / "chosen" / "tt-metal-cache12485934800285792687"
    else:
        monkeypatch.delenv("TT_METAL_CACHE", raising=False)
        folder = tmp_path / "home" / ".cache" / "tt-metal-cache" / "12485934800285792687"
    path = folder / "firmware" / "brisc" / "brisc.elf"
    path.parent.mkdir(parents=True)
    path.write_bytes(elf.read_bytes())
    found = JitOutput(BLACKHOLE).match(text)
    assert found is not None and (found.name, found.core, found.elf) == ("firmware", "B", path)


def test_a_kernel_launched_that_is_no_build_found_is_warned_of(tmp_path):
    """A go message whose launch names a kernel no build in the host's folder is (builds made on
    another machine, or read from the wrong folder): one warning per tile and core, naming the
    folder tdbg read.  The launch message's layout here is made up (``Launches.fields``)."""
    from tdbg.ttmetal import launches
    from tdbg.ttmetal.jit_output import JitOutput

    session = Session.on_chip("1x2")
    watched = launches.attach(session)
    port = session.host_port
    port.jit = JitOutput(BLACKHOLE, tmp_path)
    cfg = "launch[0].kernel_config"
    fields = {"go_messages[0]": (0x4F0, 4), "launch_msg_rd_ptr": (0x60, 4), "launch stride": (0x200, 0),
              f"{cfg}.kernel_config_base[0]": (0x100, 4), f"{cfg}.local_cb_offset": (0x104, 2),
              f"{cfg}.local_cb_mask": (0x108, 4), f"{cfg}.enables": (0x10C, 4), f"{cfg}.host_assigned_id": (0x110, 4)}
    for p in range(5):
        fields |= {f"{cfg}.rta_offset[{p}].rta_offset": (0x120 + 8 * p, 2), f"{cfg}.rta_offset[{p}].crta_offset": (0x122 + 8 * p, 2),
                   f"{cfg}.kernel_text_offset[{p}]": (0x160 + 4 * p, 4), f"{cfg}.kernel_text_size[{p}]": (0x180 + 4 * p, 4),
                   f"{cfg}.watcher_kernel_ids[{p}]": (0x1A0 + 2 * p, 2)}
    watched.fields = fields
    for p in range(5):
        port.write((1, 2), 0x120 + 8 * p, struct.pack("<HH", 0xFFFF, 0xFFFF))    # no runtime arguments
        port.write((1, 2), 0x160 + 4 * p, struct.pack("<I", 0x100))
        port.write((1, 2), 0x180 + 4 * p, struct.pack("<I", 64))
    port.write((1, 2), 0x100, struct.pack("<I", 0x8000))
    port.write((1, 2), 0x10C, struct.pack("<I", 1 << 1))                          # NC (DM1) runs a kernel
    port.write((1, 2), 0x8100, bytes(range(64)))                                 # no build's text
    warned = session.target.load_warnings
    for _ in range(2):
        port.write((1, 2), 0x4F0, struct.pack("<I", 0x80 << 24))                 # go: RUN_MSG_GO
    assert len(watched.log) == 2 and watched.log[0].kernel("NC").text_at == 0x8100
    unknown = [w for w in warned if "no build tdbg found" in w]
    assert unknown == [f"tile 1,2: the host launched NC's kernel at 0x8100, which is no build tdbg found in "
                       f"{tmp_path}/*: tdbg does not know its code, which may not run as on the device, nor its "
                       "symbols (tdbg reads the builds where the host makes them: TT_METAL_CACHE, on this machine)"]


def test_a_tile_released_with_no_firmware_build_found_is_warned_of(tmp_path):
    """The host releases a tile whose firmware is no build in the folder tdbg reads: one warning
    a tile, naming the folder; none without builds to read (a session that plays no host's)."""
    from tdbg.ttmetal.jit_output import JitOutput

    session = Session.on_chip("1x2")
    port = session.host_port
    port.write((1, 2), 0, FIRMWARE)
    port.hold((1, 2), False)
    assert session.target.load_warnings == []
    port.jit = JitOutput(BLACKHOLE, tmp_path)
    for held in (True, False, True, False):
        port.hold((1, 2), held)
    assert session.target.load_warnings == [
        f"tile 1,2: the host released it with no firmware build tdbg found in {tmp_path}/*: tdbg does not know the "
        "code it runs, which may not run as on the device, nor its symbols (tdbg reads the builds where the host "
        "makes them, on this machine)"]


def _jit_folder(root: Path, kind: str) -> bytes:
    """A tt-metal JIT folder under ``root`` with the demo firmware as a BRISC ``firmware`` or
    ``kernel`` build; the text the host writes."""
    from tdbg.emu.elf import ElfImage
    from tdbg.toolchain.zig import build, firmware_dir

    elf = build(firmware_dir() / "demo.c")
    folder = root / "key" / ("firmware" if kind == "firmware" else "kernels/k/1") / "brisc"
    folder.mkdir(parents=True)
    (folder / "brisc.elf").write_bytes(elf.read_bytes())
    if kind == "kernel":
        (folder / "brisc.elf.xip.elf").write_bytes(elf.read_bytes())
    return next(s.data for s in ElfImage.load(elf).segments if s.executable and s.data)


def test_host_writes_read_the_jit_folder_once_before_the_tiles_run(tmp_path, monkeypatch):
    """Reading the JIT folder took 10-18 ms a time on a tt-metal cache: 50 writes of 4 KiB that
    are no binary read it no more than once, when the host next reads; a binary among them is
    still loaded as its code."""
    from tdbg.ttmetal.jit_output import JitOutput

    text = _jit_folder(tmp_path, "firmware")
    globs = []
    original = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pattern: globs.append(pattern) or original(self, pattern))
    session = Session.on_chip("1x2")
    port = session.host_port
    port.jit = JitOutput(BLACKHOLE, tmp_path)
    port.write((1, 2), 0x0, text)
    for n in range(50):
        port.write((1, 2), 0x40000 + n * 0x1000, bytes([n]) * 4096)
    assert globs == []
    port.read((1, 2), 0x0, 4)
    assert len(globs) <= 2           # one read of the folder: its firmware and kernels patterns
    assert [(b.name, b.core) for b in port.loaded[((1, 2), "B")].values()] == [("firmware", "B")]


def test_writes_found_to_be_no_build_do_not_read_the_folder_again(tmp_path, monkeypatch):
    """A host writes its runtime arguments and CB configurations again at each launch: the
    same bytes, no build at the last read of the folder, do not read it again; other bytes do."""
    from tdbg.ttmetal.jit_output import JitOutput

    _jit_folder(tmp_path, "firmware")
    globs = []
    original = Path.glob
    monkeypatch.setattr(Path, "glob", lambda self, pattern: globs.append(pattern) or original(self, pattern))
    port = Session.on_chip("1x2").host_port
    port.jit = JitOutput(BLACKHOLE, tmp_path)
    args = bytes(range(92))
    port.write((1, 2), 0xA0AC, args)
    port.read((1, 2), 0x0, 4)
    read = len(globs)
    assert read
    port.write((1, 2), 0xA0AC, args)
    port.read((1, 2), 0x0, 4)
    assert len(globs) == read
    port.write((1, 2), 0xA0AC, args[::-1])
    port.read((1, 2), 0x0, 4)
    assert len(globs) > read


def test_kernel_symbols_are_moved_when_first_asked_for(tmp_path, monkeypatch):
    """Moving a kernel's DWARF to its load address costs more than the kernel's run: 20 loads
    of a kernel, each over the last, move none; the tile's symbol files, once asked for, are
    the last one, moved once."""
    import tdbg.emu.moved
    from tdbg.ttmetal.jit_output import JitOutput

    text = _jit_folder(tmp_path, "kernel")
    session = Session.on_chip("1x2")
    port = session.host_port
    port.jit = JitOutput(BLACKHOLE, tmp_path)
    assert port.jit.match(text) is not None
    moves = []
    move = tdbg.emu.moved.move_code
    monkeypatch.setattr(tdbg.emu.moved, "move_code", lambda raw, bias: moves.append(bias) or move(raw, bias))
    for n in range(20):
        port.write((1, 2), 0x10000 + n * 0x10, text)
    assert moves == []
    session.select_tile((1, 2))
    files = session.symbol_files["B"]
    assert len(moves) == 1 and [f.image.exec_ranges[0][0] for f in files] == [0x10000 + 19 * 0x10]


def test_a_breakpoint_without_a_tile_is_set_on_every_tile():
    """GDB's rule over inferiors: a breakpoint naming no tile has a location on every tile
    (``thread T1``: that core of each), armed on each; disable, enable and delete act on all of
    them; a tile whose code loads later gets its location then; ``thread 2,2:T1`` is one tile."""
    session = Session.on_chip("1x2")
    grid = session.grid
    session.select_tile((1, 2))
    bp = session.break_at(0x8000, thread="T1")
    assert [(loc.tile, loc.core) for loc in bp.locations] == [((1, 2), "T1")]
    session.select_tile((2, 2))                    # woken later: its code loads (the host's hook)
    for listener in session.target.code_listeners:
        listener((2, 2))
    assert [(loc.tile, loc.core) for loc in bp.locations] == [((1, 2), "T1"), ((2, 2), "T1")]
    armed = lambda: [0x8000 in grid.tiles[w].cores["T1"].breakpoints for w in ((1, 2), (2, 2))]
    assert armed() == [True, True]
    assert not any(0x8000 in grid.tiles[(2, 2)].cores[c].breakpoints for c in ("B", "NC", "T0", "T2"))
    session.enable(bp.number, False)
    assert armed() == [False, False]
    session.enable(bp.number, True)
    assert armed() == [True, True]
    session.select_tile((1, 2))
    assert session.breakpoints[bp.number] is bp     # one numbering, seen from every tile
    session.delete(bp.number)
    assert armed() == [False, False] and not session.breakpoints
    one = session.break_at(0x8000, thread="T1", all_tiles=False)
    assert [loc.tile for loc in one.locations] == [(1, 2)] and armed() == [True, False]


def test_save_breakpoints_keeps_the_tile_a_breakpoint_is_on(tmp_path: Path) -> None:
    """``save breakpoints`` on a chip writes ``thread X,Y:CORE`` for a breakpoint on one tile and
    GDB's thread number for one on every tile; sourced again, each is where it was."""
    from captured import run, shell
    sh = shell(Session.on_chip("1x2"))
    run(sh, "break *0x8000 thread 2,2:T1", "break *0x8100 thread 2")   # thread 2: T1
    saved = tmp_path / "bps.gdb"
    run(sh, f"save breakpoints {saved}")
    assert saved.read_text() == "break *0x8000 thread 2,2:T1\nbreak *0x8100 thread 2\n"
    run(sh, "delete", f"source {saved}")
    placed = [[(loc.tile, loc.core) for loc in bp.locations] for bp in sh[0].session.breakpoints.values()]
    assert placed == [[((2, 2), "T1")], [((1, 2), "T1"), ((2, 2), "T1")]]


def _rotl2(word: int) -> int:
    """A Tensix instruction as a ``.ttinsn`` word in code: rotated left by 2 (DESIGN.md)."""
    return ((word << 2) | (word >> 30)) & 0xFFFF_FFFF


TENSIX_NOP = 0x02 << 24              # opcode 0x02, no fields


def test_a_hosted_cores_hooks_cover_its_own_binary_and_anothers_still_runs():
    """A host's binary is for one core (tt-metal's firmware and kernels, ``Binary.core``): that
    core hooks its ``.ttinsn`` words one by one, every other core hooks the stretch with one
    span; a core that does reach another's code (T0 stepped through T1's four words) still
    pushes each word to its own thread (PushTensixInstruction.md: a ``.ttinsn`` is a ``sw`` to
    INSTRN_BUF_BASE wherever it is fetched) and runs the plain words as they are."""
    session = Session.on_chip("1x2")
    code = struct.pack("<6I", *(_rotl2(TENSIX_NOP) for _ in range(4)), ADDI_T0, J_SELF)
    session.grid.write_code((1, 2), 0x8000, code, len(code), "T1")
    tile = session.grid.tiles[(1, 2)]
    t0, t1 = tile.cores["T0"], tile.cores["T1"]
    t0.build()
    words = [0x8000 + 4 * i for i in range(4)]
    assert all(t0._span_at(a) == 0x8000 for a in words)          # one hook over T1's stretch
    assert not any(t1._span_at(a) is not None for a in words)     # T1's own words, hooked each
    session.grid.write((1, 2), SOFT_RESET_0, struct.pack("<I", HELD & ~(1 << 12)))   # T0 released (bit 12)
    session.select_tile((1, 2))
    with session.on_core("T0"):
        session.set_register("t0", 5)
        session.set_register("pc", 0x8000)
        for _ in range(5):
            session.stepi()
    mine = [r for r in tile.pushes if r.core == "T0"]
    assert [r.pc for r in mine] == words and {r.thread for r in mine} == {0} and {r.word for r in mine} == {TENSIX_NOP}
    assert t0.pc == 0x8014 and t0.reg(5) == (5 + 0x678) & 0xFFFF_FFFF


def test_a_host_binary_overwritten_in_part_keeps_its_core():
    """The host's write over part of a binary leaves the rest that core's code (the other cores
    span what is left of it, and nothing of what is data now)."""
    session = Session.on_chip("1x2")
    code = struct.pack("<8I", *(_rotl2(TENSIX_NOP) for _ in range(7)), J_SELF)
    session.grid.write_code((1, 2), 0x8000, code, len(code), "T2")
    session.grid.write((1, 2), 0x8000, bytes(8))
    tile = session.grid.tiles[(1, 2)]
    assert tile.others_code("T0") == [(0x8008, 0x801C)] and tile.others_code("T2") == []


def test_a_host_written_jump_to_self_parks_only_where_it_is_a_word():
    """A host's write into a hosted tile's L1 (firmware arrives so): an aligned ``j .`` (jal
    zero, 0: 0x0000006F) in it parks the core that reaches it; the same four bytes across two
    words do not, and a write with none parks nothing new."""
    session = Session.on_chip("1x2")
    grid = session.grid
    grid.write((1, 2), 0x9000, struct.pack("<3I", ADDI_T0, J_SELF, ADDI_T0))
    grid.write((1, 2), 0x9100, b"\x00\x00" + struct.pack("<I", J_SELF) + b"\x00\x00")
    grid.write((1, 2), 0x9200, struct.pack("<2I", ADDI_T0, LUI_T0))
    parks = grid.tiles[(1, 2)].cores["B"].parks
    assert 0x9004 in parks and not any(0x9100 <= a < 0x9300 for a in parks)
