"""Tensix words with random fields, under random config (issue 26): every encoding of the
profile's table with random operand bits, and raw words, pushed from the API
(``Session.tensix``), the shell (``tensix 0xWORD``), the GDB stub (``monitor tensix``, and GDB's
``M`` to ``INSTRN_BUF_BASE``) and firmware (stores to ``INSTRN_BUF_BASE`` of words it reads from
L1).  Before each push, random values go into config fields that instruction reads: the fields
each encoding reads are recorded (``Config.get``) while the fuzz runs, so a field read only under
another field's value joins the set once seen.

Each example asserts: an instruction either runs or raises a ``TensixEvent`` (one line naming
its category), a debugger write either completes or fails with one line; never an internal
error, a Python exception or a Traceback; and the session still answers afterwards."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import bounded, fuzz_settings
from rsp_client import packet, served
from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session, SessionError
from tdbg.tensix.config import TensixConfig
from tdbg.tensix.events import TensixEvent
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.commands import execute
from tdbg.tensix.isa import isa_of

ISA = isa_of(BLACKHOLE)
ENCODINGS = sorted(ISA.encodings.values(), key=lambda e: e.name)
INSTRN_BUF_BASE = BLACKHOLE.instrn_buf_base
BAD = ("internal error", "Traceback", "KeyError", "IndexError")

#: Config field names each encoding was seen to read (grows while the fuzz runs).
READS: dict[str, set[str]] = defaultdict(set)

PUSHER = """#include "tensix.h"
volatile uint32_t words[16];
volatile uint32_t count;
int main(void)
{
    for (uint32_t i = 0; i < count; i++)
        TT_PUSH(words[i]);
    return 0;
}
"""


@pytest.fixture(scope="module")
def demo() -> Session:
    """The demo's session, after every encoding was pushed once (all fields 0, then all 1s) to
    seed ``READS``."""
    s = Session(firmware_dir() / "demo.c")
    for encoding in ENCODINGS:
        for bits in (0, 0xFFFFFF):
            s.restart()

            def push(word: int = word_of(encoding, bits)) -> None:
                try:
                    s.tensix(word)
                except (TensixEvent, SessionError):
                    pass

            _recorded(s, encoding.name, push)
    return s


@pytest.fixture(scope="module")
def pusher(tmp_path_factory: pytest.TempPathFactory) -> Session:
    src = tmp_path_factory.mktemp("pusher") / "pusher.c"
    src.write_text(PUSHER)
    return Session(src)


def word_of(encoding, bits: int) -> int:
    """``encoding``'s opcode and fixed bits over random operand bits."""
    word = (encoding.opcode << 24) | (bits & 0xFFFFFF)
    for lsb, width, value in encoding.fixed:
        word = (word & ~(((1 << width) - 1) << lsb)) | (value << lsb)
    return word


@st.composite
def pushes(draw: st.DrawFn) -> tuple[str, int, list[tuple[str, int]]]:
    """(the encoding's name, a word, config writes (field, value) to make first)."""
    if draw(st.integers(0, 9)) == 0:
        word = draw(st.integers(0, 2**32 - 1))
        name = "raw"
    else:
        encoding = draw(st.sampled_from(ENCODINGS))
        word, name = word_of(encoding, draw(st.integers(0, 2**24 - 1))), encoding.name
    values = st.one_of(st.sampled_from([0, 1, 2, 3, 0xF, 0xFF, 0xFFFF, 0xFFFFFFFF]), st.integers(0, 2**32 - 1))
    picks = draw(st.lists(st.tuples(st.integers(0, 1023), values), max_size=6))
    read = sorted(READS.get(name, ()))   # grows while the fuzz runs: drawn as indices into it
    return name, word, [(read[i % len(read)], v) for i, v in picks] if read else []


def _configure(s: Session, writes: list[tuple[str, int]]) -> None:
    for name, value in writes:
        field = s.tile.tensix.config.table.field(name)
        s.set_cfg(name, value & ((1 << min(field.width, 32)) - 1))


def _recorded(s: Session, name: str, action) -> None:  # type: ignore[no-untyped-def]
    """Run ``action`` recording the config fields the model reads under ``name``."""
    config = s.tile.tensix.config
    real = TensixConfig.get

    def get(self: TensixConfig, field: str, **kwargs: object) -> int:
        READS[name].add(field)
        return real(self, field, **kwargs)

    config.get = get.__get__(config)   # type: ignore[method-assign]
    try:
        action()
    finally:
        del config.get


def _sane(s: Session) -> None:
    assert execute(s, "p 1 + 2").strip().endswith("= 3")
    assert len(s.read_memory(0x6000, 4)) == 4


def _reset(s: Session) -> None:
    s.restart()
    s.clear_interrupt()


@fuzz_settings(short=60, long=6000)
@given(case=pushes())
def test_api_and_shell(demo: Session, case: tuple[str, int, list[tuple[str, int]]]) -> None:
    name, word, writes = case
    s = demo
    _reset(s)
    with bounded(60):
        _configure(s, writes)

        def push() -> None:
            try:
                s.tensix(word)
            except (TensixEvent, SessionError):
                pass

        _recorded(s, name, push)
        _reset(s)
        _configure(s, writes)
        out = execute(s, f"tensix {word:#010x}", check=False)
        assert not any(b in out for b in BAD), out
        _sane(s)


@fuzz_settings(short=15, long=1500)
@given(cases=st.lists(pushes(), min_size=1, max_size=16))
def test_firmware(pusher: Session, cases: list[tuple[str, int, list[tuple[str, int]]]]) -> None:
    s = pusher
    _reset(s)
    with bounded(60):
        for _, _, writes in cases:
            _configure(s, writes)
        words = s.symbol("words").addr
        for i, (_, word, _) in enumerate(cases):
            s.write_value(words + 4 * i, 4, word)
        s.write_value(s.symbol("count").addr, 4, len(cases))
        stop = s.cont()
        text = stop.describe()
        assert stop.kind is not StopKind.FAULT and not any(b in text for b in BAD), text
        _sane(s)


@fuzz_settings(short=6, long=500)
@given(cases=st.lists(pushes(), min_size=1, max_size=8))
def test_stub(cases: list[tuple[str, int, list[tuple[str, int]]]], capfd: pytest.CaptureFixture[str]) -> None:
    s = Session(firmware_dir() / "demo.c")
    with bounded(120), served(s) as c:
        for _, word, writes in cases:
            _configure(s, writes)
            out: list[bytes] = []
            c.raw(packet(b"qRcmd," + f"tensix {word:#010x}".encode().hex().encode()))
            reply = c.reply(30, keep_output=out)
            console = b"".join(out).decode(errors="replace")
            assert reply == b"OK" or reply.startswith(b"E"), reply
            assert not any(b in console for b in BAD), console
            assert c.ask(b"M%x,4:%s" % (INSTRN_BUF_BASE, word.to_bytes(4, "little").hex().encode())) in (b"OK", b"E14")
        assert len(c.ask(b"m6000,4")) == 8
    assert "internal error" not in capfd.readouterr().err
