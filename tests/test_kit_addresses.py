"""The C kit's addresses (``tensix.h``, ``tdbg.ld``, ``release_triscs.c``, shipped in the package)
are the profile's: each fact has its home in ``tdbg.arch``, and the kit must spell the same number.
"""

from __future__ import annotations

import re

import pytest

from tdbg.arch import profile_for
from tdbg.toolchain.zig import firmware_dir

PROFILE = profile_for()


def _defines(name: str) -> dict[str, int]:
    """``#define NAME 0x...u`` lines of a kit file, as numbers."""
    text = (firmware_dir() / name).read_text()
    return {m[1]: int(m[2], 0) for m in re.finditer(r"^#define\s+(\w+)\s+\(?(0x[0-9A-Fa-f]+|\d+)u?\b", text, re.M)}


def _device(name: str) -> int:
    return PROFILE.device(name).base


def _tile_register(name: str) -> int:
    return _device("debug registers") + PROFILE.register(name).offset


@pytest.mark.parametrize(("define", "expected"), [
    ("TDBG_L1_BASE", 0),
    ("TDBG_LOCAL_MEM_BASE", PROFILE.local_ram_base),
    ("TDBG_DST_BASE", PROFILE.dst_window_base),
    ("INSTRN_BUF_BASE", _device("Tensix instruction push")),
    ("PC_BUF_BASE", _device("PCBuf / TTSync / semaphores")),
    ("TENSIX_CFG_BASE", _device("Tensix backend configuration")),
    ("RISCV_DEBUG_REG_DBG_FEATURE_DISABLE", _tile_register("DBG_FEATURE_DISABLE")),
])
def test_tensix_h_addresses_are_the_profiles(define: str, expected: int) -> None:
    assert _defines("tensix.h")[define] == expected


def test_tensix_h_noc_registers_are_the_profiles() -> None:
    text = (firmware_dir() / "tensix.h").read_text()
    base, stride = (int(v, 0) for v in re.search(
        r"#define TDBG_NOC_REGS\(noc\)\s+\((0x[0-9A-Fa-f]+)u \+ (0x[0-9A-Fa-f]+)u \* \(noc\)\)", text).groups())
    assert [base + stride * n for n in (0, 1)] == [_device("NoC 0 registers"), _device("NoC 1 registers")]


def test_linker_script_memory_is_the_profiles() -> None:
    text = (firmware_dir() / "tdbg.ld").read_text()
    l1 = re.search(r"L1\s+\(rwx\)\s*:\s*ORIGIN = __tdbg_code_base, LENGTH = (\d+)K - __tdbg_code_base", text)
    local = re.search(r"LOCAL\s+\(rw\)\s*:\s*ORIGIN = (0x[0-9A-Fa-f]+), LENGTH = (\d+)K", text)
    assert l1 is not None and local is not None
    assert int(l1[1]) * 1024 == PROFILE.l1_size
    assert int(local[1], 16) == PROFILE.local_ram_base
    # the kit links for the T cores: their local data RAM
    assert {int(local[2]) * 1024} == {PROFILE.core(t).local_ram_size for t in ("T0", "T1", "T2")}


def test_release_triscs_soft_reset_is_the_profiles() -> None:
    text = (firmware_dir() / "release_triscs.c").read_text()
    defines = _defines("release_triscs.c")
    assert defines["RISCV_DEBUG_REG_SOFT_RESET_0"] == _tile_register("SOFT_RESET_0")
    shift = int(re.search(r"#define SOFT_RESET_TRISCS\s+\(7u << (\d+)\)", text)[1])
    assert {shift, shift + 1, shift + 2} == {PROFILE.core(t).soft_reset_bit for t in ("T0", "T1", "T2")}
