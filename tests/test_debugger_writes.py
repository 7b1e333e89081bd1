"""Debugger writes and Tensix words from the shell, the API and the stub (issue 26 items 3, 4, 5,
10): each gets the one clear line or the value the spec gives, never an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tdbg.emu.toolchain import firmware_dir
from tdbg.session import Session, SessionError
from rsp_client import served

DEMO = firmware_dir() / "demo.c"
INSTRN_BUF_BASE = 0xFFE40000
ELWADD = 0x28000000     # opcode 0x28 (bh_encodings.json), every field 0: waits for SrcA/SrcB data


def test_a_restore_into_a_full_wait_gate_queue_is_one_line(tmp_path: Path) -> None:
    # Item 3: 200 ELWADDs, each held at the Wait Gate (no unpacker has given SrcA), fill the
    # thread's queue; the write that finds it full cannot complete (before: QueueFull, internal).
    s = Session(DEMO)
    words = tmp_path / "words.bin"
    words.write_bytes(ELWADD.to_bytes(4, "little") * 200)
    out = s.execute(f"restore {words} binary {INSTRN_BUF_BASE:#x}", check=False)
    assert "internal error" not in out and "Traceback" not in out
    assert "Cannot write memory at address" in out and "Wait Gate" in out
    with pytest.raises(SessionError, match="Wait Gate"):
        s.write_memory(INSTRN_BUF_BASE, ELWADD.to_bytes(4, "little"))
    assert s.execute("p 1 + 2").strip() == "$1 = 3"


def test_the_stub_answers_a_write_into_a_full_queue_with_an_error(capfd: pytest.CaptureFixture[str]) -> None:
    s = Session(DEMO)
    with served(s) as c:
        replies = {c.ask(b"M%x,4:%s" % (INSTRN_BUF_BASE, ELWADD.to_bytes(4, "little").hex().encode())) for _ in range(80)}
        assert replies == {b"OK", b"E14"}
        assert len(c.ask(b"m6000,4")) == 8
    assert "internal error" not in capfd.readouterr().err
