"""The stub's packet table with an argument schema per packet (issue 32; as QEMU's gdbstub
``GdbCmdParseEntry``): the table parses each packet's arguments into typed values, and a packet
whose arguments do not fit gets ``E01`` in one place.  Expected values come from GDB's remote
protocol (its manual, "Packets", "Binary Data": ``}`` escapes the next byte XOR 0x20; thread ids
``N``, ``-1``, ``pPID.TID``) and from demo.c's entry (0x6000: tdbg.ld)."""

from __future__ import annotations

import pytest

from tdbg.rsp.packets import PacketError, PacketTable, Schema, packet
from tdbg.session import Session
from tdbg.toolchain.zig import firmware_dir
from rsp_client import served


@pytest.mark.parametrize(("schema", "text", "values"), [
    ("L,L", "6000,4", [0x6000, 4]),
    ("L,L:H", "6000,2:ab0c", [0x6000, 2, b"\xab\x0c"]),
    ("L,L:B", "10,3:a}\x03}]", [0x10, 3, b"a#}"]),          # } 0x03 -> '#', } ']' -> '}'
    ("L=H", "20=00600000", [0x20, bytes.fromhex("00600000")]),
    ("OT", "gp1.1", ["g", "p1.1"]), ("OT", "c-1", ["c", "-1"]), ("OT", "g2", ["g", "2"]),
    ("[L]", "", [None]), ("[L]", "6004", [0x6004]),
    ("L[;L]", "05", [5, None]), ("L[;L]", "05;6000", [5, 0x6000]),
    ("[;L]", ";3", [3]), ("[;L]", "", [None]),
    ("L,L,L[;S]", "0,6000,4", [0, 0x6000, 4, None]), ("L,L,L[;S]", "0,6000,4;X1,0", [0, 0x6000, 4, "X1,0"]),
    ("S:L,L", "target.xml:0,fff", ["target.xml", 0, 0xFFF]), ("S:L,L", ":1000,800", ["", 0x1000, 0x800]),
])
def test_a_schema_gives_typed_values(schema: str, text: str, values: list[object]) -> None:
    assert Schema(schema).parse(text) == values


@pytest.mark.parametrize(("schema", "text"), [
    ("L,L", "6000"), ("L,L", "zz,4"), ("L,L", "6000,4,"), ("L,L:H", "6000,2:abc"), ("L,L:H", "6000,2:zz"),
    ("L", ""), ("OT", "gq"), ("OT", "g"), ("[L]", "60x"), ("L[;L]", "05;"), ("S:L,L", "target.xml:0"),
])
def test_arguments_that_do_not_fit_are_refused(schema: str, text: str) -> None:
    with pytest.raises(PacketError):
        Schema(schema).parse(text)


def test_the_table_finds_exact_then_longest_prefix_then_letter() -> None:
    table = PacketTable([packet("qC", "", lambda: "exact", exact=True), packet("qXfer:", "S", lambda rest: f"short {rest}"),
                         packet("qXfer:features:read:", "S", lambda rest: f"long {rest}"), packet("q", "S", lambda rest: "letter")])
    assert table.dispatch("qC") == "exact"
    assert table.dispatch("qXfer:features:read:x") == "long x" and table.dispatch("qXfer:auxv") == "short auxv"
    assert table.dispatch("qOther") == "letter" and table.dispatch("Y") == ""   # no entry: the empty reply


def test_every_malformed_packet_gets_E01_and_the_stub_goes_on() -> None:
    with served(Session(firmware_dir() / "demo.c")) as c:
        for body in (b"m6000", b"mzz,4", b"M6000,2:abc", b"X6000", b"p", b"pq", b"P20", b"Pzz=00", b"Z0,6000",
                     b"z0", b"Hgq", b"Tzz", b"cq", b"C", b"Dx", b"G0", b"qXfer:features:read:target.xml:0",
                     b"qXfer:memory-map:read::zz,1", b"vFile:pread:3,4000", b"vFile:open:zz,0,0", b"qRcmd,6",
                     b"qThreadExtraInfo,q", b"vKill;zz"):
            assert c.ask(body) == b"E01", body
        # crt0.S's first instruction: lui sp, %hi(0xFFB01000) = 0xFFB01137 (RV32I U-type, rd = x2)
        assert c.ask(b"m6000,4") == b"3711b0ff"
        assert c.ask(b"p20") == (0x6000).to_bytes(4, "little").hex().encode()   # the pc, still at demo's entry
