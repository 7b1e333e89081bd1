"""Debugger writes and Tensix words from the shell, the API and the stub (issue 26 items 3, 4, 5,
10): each gets the one clear line or the value the spec gives, never an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tdbg.toolchain.zig import firmware_dir
from tdbg.session import Session, SessionError
from tdbg.commands import execute
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
    out = execute(s, f"restore {words} binary {INSTRN_BUF_BASE:#x}", check=False)
    assert "internal error" not in out and "Traceback" not in out
    assert "Cannot write memory at address" in out and "Wait Gate" in out
    with pytest.raises(SessionError, match="Wait Gate"):
        s.write_memory(INSTRN_BUF_BASE, ELWADD.to_bytes(4, "little"))
    assert execute(s, "p 1 + 2").strip() == "$1 = 3"


def test_the_stub_answers_a_write_into_a_full_queue_with_an_error(capfd: pytest.CaptureFixture[str]) -> None:
    s = Session(DEMO)
    with served(s) as c:
        replies = {c.ask(b"M%x,4:%s" % (INSTRN_BUF_BASE, ELWADD.to_bytes(4, "little").hex().encode())) for _ in range(80)}
        assert replies == {b"OK", b"E14"}
        assert len(c.ask(b"m6000,4")) == 8
    assert "internal error" not in capfd.readouterr().err


# -- Tensix words whose fields the pages do not cover (items 4 and 5) ----------------------------

LOADIND_OFFSET_200 = 0x49320000          # LOADIND OffsetIndex=200 (Blackhole's field is 8 bits)
PACR = 0x41000000
OVRD = "THCON_SEC0_REG1_All_pack_disable_zero_compress_ovrd"     # bh_cfg_fields.json: addr32 70, bit 21


def _firmware(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "k.c"
    path.write_text('#include "tensix.h"\nint main(void)\n{\n' + body + "\n    return 0;\n}\n")
    return path


def test_loadind_past_the_gpr_halves_is_missing_specification(tmp_path: Path) -> None:
    # LOADIND.md: OffsetHalfReg is u7 (128 halves of 64 GPRs); no page says what 128..255 pick.
    s = Session(DEMO)
    out = execute(s, f"tensix {LOADIND_OFFSET_200:#x}", check=False)
    assert "MissingSpecification" in out and "OffsetIndex 200" in out and "internal error" not in out
    from tdbg.tensix.events import MissingSpecification
    with pytest.raises(MissingSpecification):
        s.tensix(LOADIND_OFFSET_200)
    fw = Session(_firmware(tmp_path, f"    TTI({LOADIND_OFFSET_200:#x}u);"))
    stop = fw.cont()
    assert stop.kind.name == "EVENT" and stop.category.name == "MissingSpecification", stop.describe()


def test_pacr_with_the_zero_compress_override_is_missing_specification(tmp_path: Path) -> None:
    # Blackhole's table has the override bit but not the value it selects (Wormhole's
    # All_pack_disable_zero_compress): before, a KeyError from every path.
    s = Session(DEMO)
    s.set_cfg(OVRD, 1)
    out = execute(s, "tensix PACR", check=False)
    assert "MissingSpecification" in out and "no config field named" not in out and "internal error" not in out
    from tdbg.tensix.events import MissingSpecification
    with pytest.raises(MissingSpecification):
        s.tensix(PACR)
    fw = Session(_firmware(tmp_path, f"    TDBG_CFG_WORD(0, 70) = 1u << 21;\n    TTI({PACR:#x}u);"))
    stop = fw.cont()
    assert stop.kind.name == "EVENT" and stop.category.name == "MissingSpecification", stop.describe()


def test_a_signalling_nan_in_l1_prints_nan_without_a_numpy_warning() -> None:
    # Item 10: widening an FP32 signalling NaN made numpy warn on stderr with tdbg's path.
    import warnings

    s = Session(DEMO)
    execute(s, "set {int}0x30000 = 0x7f817f81")     # two BF16 sNaNs (exponent 255, mantissa 1, quiet bit 0)
    execute(s, "set {int}0x30004 = 0x7f800001")     # an FP32 sNaN
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert execute(s, "x/2h 0x30000 as bf16").split()[1:] == ["nan", "nan"]
        assert execute(s, "x/1w 0x30004 as fp32").split()[1:] == ["nan"]
        assert "nan" in execute(s, "tile 0x30000 as bf16")
