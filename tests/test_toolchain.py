"""Firmware toolchain: builds, caching, ELF layout, no compressed instructions,
and tensix.h checked against the spec data (encodings.json, bh_cfg_fields.json)."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import struct
import subprocess
import sys
from pathlib import Path

import capstone
import pytest
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

import tdbg
from tdbg.toolchain import zig as toolchain
from tdbg.toolchain.zig import ToolchainError
from examples import all_sources

SPEC = Path(__file__).resolve().parents[2] / "shared" / "spec"  # the spec pack beside the repo
L1_END = 1536 * 1024
RESET_PC = 0x6000


def rotl2(word: int) -> int:
    return ((word << 2) | (word >> 30)) & 0xFFFFFFFF


# Tensix words each firmware is expected to carry as .ttinsn in its code
# (PushTensixInstruction.md: encoding = rotl32(word, 2)). Values worked from
# encodings.json: SETRWC opcode 0x37 with SrcA|SrcB|Dst|Fidelity (bits 0-3);
# MOVD2B opcode 0x0A; MOVD2B DstRow=4 | Move4Rows<<13 | SrcRow=4<<17.
EXPECTED_TTINSN = {
    "demo": {rotl2(0x3700000F), rotl2(0x0A000000)},
    "movd2b": {rotl2(0x3700000F), rotl2(0x0A000000), rotl2(0x0A082004)},
    # bench (d), Blackhole layouts (bh_encodings.json), worked by hand:
    # ZEROACC where=3 0x10000003; INCRWC rwc_a=1<<6, rwc_b=1<<10, rwc_d=4<<14 -> 0x38010440;
    # NOP 0x02000000; SETRWC BitMask=7 0x37000007
    "bench_rwc": {rotl2(0x10000003), rotl2(0x38010440), rotl2(0x02000000), rotl2(0x37000007)},
    # MOVD2B instr_mod=2<<12, src=4<<17 -> 0x0A082000; MOVD2A dst=4, 2<<12, src=8<<17 -> 0x08102004;
    # ZEROACC where=12; INCRWC 0
    "bench_mov": {rotl2(0x0A082000), rotl2(0x08102004), rotl2(0x1000000C), rotl2(0x38000000)},
    # SETDVALID setvalid=3; ELWADD dest_accum_en=1<<21 -> 0x28200000; MVMUL dst=8; ELWADD dst=16
    "bench_fpu": {rotl2(0x57000003), rotl2(0x28200000), rotl2(0x26000008), rotl2(0x28000010), rotl2(0x38000000)},
    # SETDVALID FlipSrcB (bit 1) 0x57000002
    "pipeline_t0": {rotl2(0x57000002)},
    # SEMWAIT wait_sem_cond=1, sem_sel=1<<2 (semaphore 0), stall_res=0x40<<15 -> 0xA6200005;
    # SEMGET sem_sel=1<<2 -> 0xA5000004; SETRWC as in demo
    "pipeline_t1": {rotl2(0xA6200005), rotl2(0xA5000004), rotl2(0x3700000F)},
    # SEMWAIT on semaphore 1: sem_sel=2<<2 -> 0xA6200009; MOVD2B all zero -> 0x0A000000
    "deadlock_t1": {rotl2(0xA6200009), rotl2(0x0A000000)},
    # SFPLOAD 0x70 / SFPLOADI 0x71 / SFPSTORE 0x72: VD 23:20, Mod0 19:16 (FP32 = 3), Imm 15:0;
    # SFPMAD 0x84: VA 19:16, VB 15:12, VC 11:8, VD 7:4, Mod1 3:0; SFPSETCC 0x7B VC 11:8;
    # SFPENCC 0x8A Imm2 13:12, Mod1 3:0
    "bench_sfpu": {rotl2(0x71003F80), rotl2(0x72030000), rotl2(0x8A00300A), rotl2(0x70030000),
                   rotl2(0x8400AA10), rotl2(0x7B000100), rotl2(0x71100000), rotl2(0x72130000)},
    # SETC16 CfgIndex=5 (SRCA_SET_SetOvrdWithAddr) NewValue=4 -> 0xB2050004; SETADCXX CntSetMask=3
    # (<<21), x_end2=255 (<<10) -> 0x5E63FC00; SETADCXY BitMask=0xA -> 0x5160000A; SETADCZW
    # BitMask=0xF -> 0x5460000F; UNPACR Last, FlipSrc (bit 6), MultiContextMode (bit 7), Ch0ZInc=1
    # (bit 15) -> 0x420080C1, with WhichUnpacker (bit 23) -> 0x428080C1
    "eltwise_t0": {rotl2(0xB2050004), rotl2(0x5E63FC00), rotl2(0x5160000A), rotl2(0x5460000F),
                   rotl2(0x420080C1), rotl2(0x428080C1)},
    # SEMINIT sem_sel=4<<2, max_value=1<<20 -> 0xA3100010; SETRWC SrcA|SrcB, SrcAVal=8<<6,
    # SrcBVal=8<<10 -> 0x37002203, zero values -> 0x37000003; SEMPOST sem_sel=4<<2 -> 0xA4000010
    "eltwise_t1": {rotl2(0xA3100010), rotl2(0x37002203), rotl2(0x37000003), rotl2(0xA4000010)},
    # SETC16 37/38/39 = 0x104/0x2820/0x1120 (ADDR_MOD_PACK_SEC0..2); SETADCXX CntSetMask=4, x_end2=15
    # -> 0x5E803C00; SEMWAIT stall_res=1<<15, sem_sel=4<<2, wait_sem_cond=1 -> 0xA6008011; PACR
    # AddrMode 0 / 2 (<<15) / 1 with Last -> 0x41000000, 0x41010000, 0x41008001; SETDMAREG
    # RegIndex16b=120, payload 64<<8 -> 0x45004078; WRCFG CfgReg=180, GprAddress=60<<16 -> 0xB03C00B4;
    # SEMGET sem_sel=4<<2 -> 0xA5000010
    "eltwise_t2": {rotl2(0xB2250104), rotl2(0xB2262820), rotl2(0xB2271120), rotl2(0x5E803C00),
                   rotl2(0xA6008011), rotl2(0x41000000), rotl2(0x41010000), rotl2(0x41008001),
                   rotl2(0x45004078), rotl2(0xB03C00B4), rotl2(0xA5000010)},
    # eltwise_t0's SETC16 / SETADCXX / SETADCXY / SETADCZW; UNPACR Last, MultiContextMode (bit 7),
    # no FlipSrc, no increments -> 0x42000081, with WhichUnpacker (bit 23) -> 0x42800081;
    # eltwise_t2's SETC16 37/38, SETADCXX for the packer and PACR AddrMode 0 / 1 with Last
    "bench_unpack_pack": {rotl2(0xB2050004), rotl2(0x5E63FC00), rotl2(0x5160000A), rotl2(0x5460000F),
                          rotl2(0x42000081), rotl2(0x42800081), rotl2(0xB2250104), rotl2(0xB2262820),
                          rotl2(0x5E803C00), rotl2(0x41000000), rotl2(0x41008001)},
}


@pytest.fixture(scope="module")
def built() -> dict[str, Path]:
    return {src.stem: toolchain.build(src) for src in all_sources()}


def _symbols(elf: ELFFile) -> dict:
    return {s.name: s for s in elf.get_section_by_name(".symtab").iter_symbols() if s.name}


def _read_symbol(path: Path, name: str) -> bytes:
    """Initial bytes of a symbol, read from the ELF file (no emulation)."""
    with open(path, "rb") as f:
        elf = ELFFile(f)
        sym = _symbols(elf)[name]
        sec = elf.get_section(sym["st_shndx"])
        off = sym["st_value"] - sec["sh_addr"]
        return sec.data()[off : off + sym["st_size"]]


def _exec_words(path: Path):
    with open(path, "rb") as f:
        elf = ELFFile(f)
        for sec in elf.iter_sections():
            if sec["sh_flags"] & SH_FLAGS.SHF_EXECINSTR:
                data, base = sec.data(), sec["sh_addr"]
                assert base % 4 == 0 and len(data) % 4 == 0
                for off in range(0, len(data), 4):
                    yield base + off, struct.unpack_from("<I", data, off)[0]


# --------------------------------------------------------------------------
# Builds and caching
# --------------------------------------------------------------------------


def test_all_firmware_builds(built, build_cache):
    expected = {"dst_fill", "dst_formats", "movd2b", "demo", "bench_window", "bench_l1", "bench_loop"}
    assert expected <= set(built)
    for stem, elf in built.items():
        assert elf.parent.parent == build_cache and elf.name == f"{stem}.elf"  # $XDG_CACHE_HOME/tdbg/KEY/
        assert elf.is_file()


def test_second_build_is_cached(built):
    for src in all_sources():
        elf = built[src.stem]
        before = elf.stat().st_mtime_ns
        res = toolchain.ensure_built(src)
        assert res.rebuilt is False
        assert res.elf == elf
        assert elf.stat().st_mtime_ns == before


def test_demo_source_and_firmware_dir():
    kit = toolchain.firmware_dir()
    assert kit == Path(toolchain.__file__).resolve().parents[1] / "firmware"  # package data
    assert toolchain.demo_source() == kit / "demo.c"
    assert toolchain.demo_source().is_file()


def test_cache_dir_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert toolchain.cache_dir() == tmp_path / "tdbg"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # ignored, as the XDG spec says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert toolchain.cache_dir() == tmp_path / "home" / ".cache" / "tdbg"


def test_read_only_source_is_cached_by_content_and_flags(tmp_path, monkeypatch, capfd):
    monkeypatch.setattr(toolchain, "cache_dir", lambda: tmp_path / "cache")
    folder = tmp_path / "src"
    folder.mkdir()
    src = folder / "user.c"
    src.write_text("volatile unsigned results[1];\nint main(void) { results[0] = 7; return 0; }\n")
    folder.chmod(0o555)
    try:
        first = toolchain.ensure_built(src)
        assert first.rebuilt and first.elf.is_relative_to(tmp_path / "cache")
        assert "building the C runtime" in capfd.readouterr().err  # the cold first build says why it is slow
        assert toolchain.ensure_built(src) == dataclasses.replace(first, rebuilt=False)
        assert toolchain.ensure_built(src, ["-DTDBG_TEST_FLAG=1"]).rebuilt  # other flags, other ELF
        assert toolchain.ensure_built(src, ["-DTDBG_TEST_FLAG=1"]).rebuilt is False
        assert sorted(folder.iterdir()) == [src]  # nothing written beside the source
    finally:
        folder.chmod(0o755)
    src.write_text(src.read_text() + "/* changed */\n")
    assert toolchain.ensure_built(src).rebuilt
    assert toolchain.ensure_built(src).rebuilt is False
    assert capfd.readouterr().err == ""  # said once only
    monkeypatch.setattr(toolchain, "CFLAGS", toolchain.CFLAGS + ("-DTDBG_OTHER_FLAG=1",))
    assert toolchain.ensure_built(src).rebuilt  # tdbg's own flags are in the key too


def test_build_command_writes_output_and_passes_flags(tmp_path):
    src = tmp_path / "a.c"
    src.write_text("#ifndef ANSWER\n#error ANSWER undefined\n#endif\nint main(void) { return ANSWER; }\n")
    out = tmp_path / "elsewhere.elf"
    run = [sys.executable, "-m", "tdbg", "build", str(src), "-o", str(out)]
    failed = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1 and "ANSWER undefined" in failed.stderr
    done = subprocess.run([*run, "--", "-DANSWER=42"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and out.read_bytes() == toolchain.build(src, ["-DANSWER=42"]).read_bytes()


def test_build_command_prints_include_dir_and_flags():
    def tdbg_build(option: str) -> str:
        done = subprocess.run([sys.executable, "-m", "tdbg", "build", option], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    kit = toolchain.firmware_dir()
    assert tdbg_build("--print-include-dir") == str(kit)
    flags = shlex.split(tdbg_build("--print-flags"))
    assert flags == [*toolchain.CFLAGS, "-T", str(kit / "tdbg.ld"), "-I", str(kit), str(kit / "crt0.S")]
    assert shlex.split(tdbg_build("--print-cc")) == [sys.executable, "-m", "ziglang", "cc"]


def test_soft_float_links_without_libc(tmp_path):
    src = tmp_path / "flt.c"
    src.write_text(
        "volatile float in = 1.5f; volatile unsigned results[1];\n"
        "int main(void) { results[0] = (unsigned)(in * 3.0f + 0.25f); return 0; }\n"
    )
    elf = toolchain.build(src)
    with open(elf, "rb") as f:
        names = set(_symbols(ELFFile(f)))
    assert {"__mulsf3", "__addsf3"} <= names
    assert "printf" not in names and "malloc" not in names


def test_compile_error_raises_with_stderr(tmp_path):
    src = tmp_path / "bad.c"
    src.write_text("int main(void) { return undeclared_thing; }\n")
    with pytest.raises(ToolchainError) as exc:
        toolchain.build(src)
    assert "undeclared_thing" in str(exc.value)


def test_missing_source_raises(tmp_path):
    with pytest.raises(ToolchainError):
        toolchain.build(tmp_path / "nope.c")


# --------------------------------------------------------------------------
# ELF layout
# --------------------------------------------------------------------------


def test_entry_segments_and_symbols(built):
    for stem, path in built.items():
        with open(path, "rb") as f:
            elf = ELFFile(f)
            assert elf["e_machine"] == "EM_RISCV" and elf.elfclass == 32
            assert elf["e_entry"] == RESET_PC
            syms = _symbols(elf)
            assert syms["_start"]["st_value"] == RESET_PC
            assert syms["__stack_top"]["st_value"] == 0xFFB01000
            for name in ("results", "tdbg_exit_code", "main"):
                assert name in syms, (stem, name)
            res = syms["results"]
            assert res["st_info"]["type"] == "STT_OBJECT" and res["st_size"] > 0
            assert RESET_PC <= res["st_value"] < L1_END
            for seg in elf.iter_segments():
                if seg["p_type"] == "PT_LOAD":
                    assert RESET_PC <= seg["p_vaddr"]
                    assert seg["p_vaddr"] + seg["p_memsz"] <= L1_END
                    # executable code never shares a segment with writable data
                    assert not (seg["p_flags"] & 1 and seg["p_flags"] & 2)


def test_results_layout(built):
    sizes = {
        "dst_fill": {"results": 64 * 16 * 4, "results_bf16": 128 * 16 * 2},
        "dst_formats": {"results": 2 * 27 * 4, "ncases": 4},
        "movd2b": {"results": 8 * 4, "npushed": 4},
        "demo": {"results": 4 * 4},
        "bench_window": {"results": 8, "iterations": 4},
        "bench_l1": {"results": 8, "iterations": 4},
        "bench_loop": {"results": 8, "iterations": 4},
    }
    for stem, want in sizes.items():
        with open(built[stem], "rb") as f:
            syms = _symbols(ELFFile(f))
        for name, size in want.items():
            assert syms[name]["st_size"] == size, (stem, name)
    for stem, n in (("bench_window", 100000), ("bench_l1", 100000), ("bench_loop", 60_000_000)):
        assert struct.unpack("<I", _read_symbol(built[stem], "iterations"))[0] == n
    # crt0's "main has not returned" marker
    assert _read_symbol(built["demo"], "tdbg_exit_code") == struct.pack("<I", 0xDEADC0DE)


# --------------------------------------------------------------------------
# No compressed instructions; .ttinsn words only where intended
# --------------------------------------------------------------------------


def test_no_compressed_instructions_only_intended_ttinsn(built):
    md = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)  # no C extension
    for stem, path in built.items():
        odd = set()
        for addr, word in _exec_words(path):
            if word & 3 != 3:
                odd.add(word)
                continue
            insns = list(md.disasm(struct.pack("<I", word), addr))
            assert len(insns) == 1 and insns[0].size == 4, (stem, hex(addr), hex(word))
        assert odd == EXPECTED_TTINSN.get(stem, set()), (stem, sorted(map(hex, odd)))


# --------------------------------------------------------------------------
# tensix.h against the spec data
# --------------------------------------------------------------------------


def _header_defines() -> dict[str, str]:
    text = (toolchain.firmware_dir() / "tensix.h").read_text()
    return dict(re.findall(r"^#define\s+(\w+)\s+(\S+)", text, flags=re.M))


def _spec(name: str) -> dict:
    path = SPEC / name
    if not path.is_file():
        pytest.skip(f"../shared/spec/{name} not present")
    return json.loads(path.read_text())


def test_cfg_field_defines_match_bh_cfg_fields():
    fields = {f["name"]: f for f in _spec("bh_cfg_fields.json")["fields"]}
    defines = _header_defines()
    names = {m[: -len("_ADDR32")] for m in defines if m.endswith("_ADDR32") and m[: -len("_ADDR32")] in fields}
    required = {
        f"RISC_DEST_ACCESS_CTRL_SEC{i}_{k}" for i in range(3) for k in ("fmt", "no_swizzle", "unsigned_int")
    } | {
        "DEST_ACCESS_CFG_swizzle_32b", "DEST_ACCESS_CFG_remap_addrs", "ALU_FORMAT_SPEC_REG0_SrcA",
        "ALU_ACC_CTRL_Fp32_enabled", "ALU_FORMAT_SPEC_REG_SrcA_val", "ALU_FORMAT_SPEC_REG_SrcA_override",
        "DEST_REGW_BASE_Base", "STATE_RESET_EN",
    }
    assert required <= names
    for name in names:
        f = fields[name]
        assert int(defines[name + "_ADDR32"].rstrip("u"), 0) == f["addr32"], name
        assert int(defines[name + "_SHAMT"].rstrip("u"), 0) == f["shamt"], name
        assert int(defines[name + "_MASK"].rstrip("u"), 0) == f["mask"], name


def _macro_params() -> dict[str, list[str]]:
    """Parameter names of each ``TT_OP_NAME(...)`` macro in tensix.h."""
    text = (toolchain.firmware_dir() / "tensix.h").read_text()
    return {m[1]: [p.strip() for p in m[2].replace("\\", " ").split(",")]
            for m in re.finditer(r"#define TT_OP_(\w+)\(([^)]*)\)", text)}


MACROS = [
    "NOP", "SETRWC", "INCRWC", "MOVD2B", "MOVB2D", "MOVD2A", "MOVA2D", "ZEROACC", "ZEROSRC",
    "SETC16", "WRCFG", "SEMINIT", "SEMPOST", "SEMGET", "STALLWAIT", "ELWADD", "MVMUL", "SETDVALID",
    "SFPLOAD", "SFPLOADI", "SFPSTORE", "SFPMAD", "SFPADD", "SFPMUL", "SFPMOV", "SFPSETCC", "SFPENCC",
    "SFPPUSHC", "SFPPOPC", "SFPCOMPC", "SFPIADD", "SFPSWAP", "SFPCONFIG", "SFPNOP",
]


def test_tt_op_macros_match_encodings(tmp_path):
    """Compile the macros with chosen field values and compare with words built from the
    Blackhole table (tdbg/arch/blackhole/isa.json, generated from bh_encodings.json), field by macro parameter
    name."""
    table = {r["name"]: r for r in json.loads(
        (Path(tdbg.__file__).parent / "arch" / "blackhole" / "isa.json").read_text())["instructions"]}
    params = _macro_params()
    calls, expected = [], []
    for name in MACROS:
        ins = table[name]
        by_name = {f[0]: f for f in ins["fields"]}
        fields = [{"lsb": by_name[p][1], "width": by_name[p][2]} for p in params.get(name, [])]
        patterns = [
            [(1 << f["width"]) - 1 for f in fields],                          # all ones
            [(k + 1) & ((1 << f["width"]) - 1) for k, f in enumerate(fields)],  # distinct
            [((1 << f["width"]) - 1) ^ 1 for f in fields],                      # alternating
        ]
        for values in patterns:
            word = ins["opcode"] << 24
            for f, v in zip(fields, values):
                word |= v << f["lsb"]
            expected.append(word)
            macro = f"TT_OP_{name}" if name.endswith("NOP") else f"TT_OP_{name}({', '.join(map(str, values))})"
            calls.append(macro)
    # Config/ThreadConfig address helpers (Blackhole layout, 224-word banks).
    addr_calls = {
        "TDBG_CFG_ADDR(0, 3)": 0xFFEF000C,
        "TDBG_CFG_ADDR(1, 3)": 0xFFEF038C,
        "TDBG_CFG_ADDR(1, 220)": 0xFFEF0370 + 0x380,
        "TDBG_CFG_DUAL_ADDR(3)": 0xFFEF070C,
        "TDBG_THREAD_CFG_ADDR(0, 0)": 0xFFEF0A80,
        "TDBG_THREAD_CFG_ADDR(2, 1)": 0xFFEF0A80 + 4 * (2 * 68 + 1),
        "ROTL2(0x0A000000)": 0x28000000,
        "ROTL2(0x3700000F)": 0xDC00003C,
    }
    calls += list(addr_calls)
    expected += list(addr_calls.values())
    src = tmp_path / "probe.c"
    src.write_text(
        '#include "tensix.h"\n'
        "volatile uint32_t probe[] = {\n    " + ",\n    ".join(calls) + "\n};\n"
        "int main(void) { return (int)(probe[0] & 0); }\n"
    )
    elf = toolchain.build(src)
    got = struct.unpack(f"<{len(expected)}I", _read_symbol(elf, "probe"))
    mismatches = [(c, hex(g), hex(e)) for c, g, e in zip(calls, got, expected) if g != e]
    assert not mismatches
