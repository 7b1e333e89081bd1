"""UNPACR and PACR read their configuration once per configuration change (``TensixConfig.derived``,
``unpackers.read_config``, ``packers.read_config``; UNPACR's conversion table, PACR's native
cells): a write by every path between two instructions must reach the second, and a unit whose
cache is warm from earlier configurations must give what a fresh one gives.

Expected values: worked by hand from the pages in the comments (BF16 to Src and Dst16b to
BF16 as in test_unpack / test_pack), or from ``unpack_reference`` (the scalar transliteration of
UNPACR_Regular.md).  The PACR comparison on random configurations takes a fresh coprocessor
with the same state as its reference: that is the path, configuration read from nothing, which
every other packer test (tests/test_pack.py against the pages and ttsim's bytes, test_native.py
numpy against C) exercises.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import unpack_reference as ref
from test_unpack import DST_PAIRS, SRC_PAIRS, check_against_reference, configure, random_l1
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix import config, packers, state_description, unpackers
from tdbg.tensix.adcs import PACKERS, UNPACKER0, X, Y
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix.events import TensixEvent, UnimplementedFunctionality
from tdbg.tensix.isa import isa_of
from tdbg.tensix.state import TensixState

encode = isa_of(BLACKHOLE).encode
A, B = 0x1000, 0x2000          # two BF16 rows for UNPACR: 1.0 and 2.0
C, D = 0x3000, 0x4000          # two places for PACR's output
BF16 = 5


def field_word(cop: Coprocessor, name: str) -> int:
    return cop.state.config.table.field(name).addr32


# -- the write paths: each sets config field ``name`` (within one word) of the thread's bank --------

def word_with(cop: Coprocessor, name: str, value: int) -> tuple[int, int]:
    """(the field's word, the word with the field set to ``value``)."""
    cfg = cop.state.config
    f = cfg.table.field(name)
    old = int(cfg.config[cfg.state_id(0), f.addr32])
    return f.addr32, (old & ~f.mask) | (value << f.shamt)


def by_wrcfg(cop: Coprocessor, name: str, value: int) -> None:
    addr32, cop.state.gprs[0, 5] = word_with(cop, name, value)
    cop.push(0, encode("WRCFG", InputReg=5, CfgIndex=addr32))


def by_rmwcib(cop: Coprocessor, name: str, value: int) -> None:
    addr32, word = word_with(cop, name, value)
    for byte in range(4):
        cop.push(0, encode(f"RMWCIB{byte}", Index4=addr32, Mask=0xFF, NewValue=(word >> 8 * byte) & 0xFF))


def by_reg2flop(cop: Coprocessor, name: str, value: int) -> None:
    thcon = cop.state.config.table.constants["THCON_CFGREG_BASE_ADDR32"]
    addr32, cop.state.gprs[0, 7] = word_with(cop, name, value)
    cop.push(0, encode("REG2FLOP", SizeSel=1, TargetSel=0, FlopIndex=addr32 - thcon, RegIndex=7))


def by_debugger(cop: Coprocessor, name: str, value: int) -> None:
    cop.state.config.set(name, value, thread=0)   # what ``set cfg NAME = V`` calls (TensixAccess.set_cfg)


def by_riscv_store(cop: Coprocessor, name: str, value: int) -> None:
    addr32, word = word_with(cop, name, value)
    cop.state.config.riscv_store(addr32 * 4, 4, word)   # sw to Config[0] at TENSIX_CFG_BASE + 4 * addr32


WRITES: dict[str, Callable[[Coprocessor, str, int], None]] = {
    "WRCFG": by_wrcfg, "RMWCIB": by_rmwcib, "REG2FLOP": by_reg2flop, "debugger": by_debugger, "RISC-V sw": by_riscv_store}


# -- UNPACR ------------------------------------------------------------------------------------------

def unpack_setup(cop: Coprocessor, base: int = A, bank: int | None = None) -> None:
    """One UNPACR of unpacker 0 moves the 16 BF16 datums at ``base`` to SrcA row 0."""
    cfg = cop.state.config
    fields = {"THCON_SEC0_REG0_TileDescriptor": BF16 | 1 << 4 | 16 << 16 | 1 << 32 | 1 << 48 | 1 << 64,
              "THCON_SEC0_REG2_Out_data_format": BF16, "THCON_SEC0_REG3_Base_address": base // 16 - 1,
              "UNP0_ADDR_BASE_REG_1_Base": 128}   # OutAddr 128 >> 1 = 64: SrcA row 64 / 16 - 4 = 0
    for name, value in fields.items():
        cfg.set(name, value, thread=0, bank=bank)
    cop.state.adcs.set(0, UNPACKER0, 1, X, 15)


def srca_row0(cop: Coprocessor) -> int:
    cop.push(0, encode("UNPACR", WhichUnpacker=0, Last=1))
    row = cop.state.srca.data[0, 0]
    assert (row == row[0]).all()
    return int(row[0])


# WriteSrcBF16 (UNPACR_Regular.md): BF16 1.0 = 0x3F80 -> exponent 0x7F in Src bits 7:0, mantissa 0;
# 2.0 = 0x4000 -> exponent 0x80.
ONE, TWO = 0x0007F, 0x00080


@pytest.fixture
def unpack_cop() -> Coprocessor:
    cop = Coprocessor(TensixState())
    cop.state.l1[A:A + 32] = np.frombuffer(np.full(16, 0x3F80, dtype="<u2").tobytes(), dtype=np.uint8)
    cop.state.l1[B:B + 32] = np.frombuffer(np.full(16, 0x4000, dtype="<u2").tobytes(), dtype=np.uint8)
    unpack_setup(cop)
    return cop


@pytest.mark.parametrize("path", WRITES)
def test_unpacr_sees_a_base_address_written_between_two(unpack_cop: Coprocessor, path: str) -> None:
    cop = unpack_cop
    assert srca_row0(cop) == ONE
    WRITES[path](cop, "THCON_SEC0_REG3_Base_address", B // 16 - 1)
    assert srca_row0(cop) == TWO


@pytest.mark.parametrize("path", WRITES)
def test_unpacr_sees_a_format_written_between_two(unpack_cop: Coprocessor, path: str) -> None:
    # Out_data_format FP16 with InDataFormat BF16: "the formats must be equal" (FormatConversion).
    cop = unpack_cop
    assert srca_row0(cop) == ONE
    WRITES[path](cop, "THCON_SEC0_REG2_Out_data_format", 1)
    with pytest.raises(TensixEvent, match="the formats must be equal"):
        srca_row0(cop)


def test_unpacr_follows_setc16_of_the_bank_and_of_the_context_offset(unpack_cop: Coprocessor) -> None:
    cop = unpack_cop
    unpack_setup(cop, base=B, bank=1)
    assert srca_row0(cop) == ONE
    cop.push(0, encode("SETC16", CfgIndex=field_word(cop, "CFG_STATE_ID_StateID"), NewValue=1))  # bank 1
    assert srca_row0(cop) == TWO
    cop.push(0, encode("SETC16", CfgIndex=0, NewValue=0))
    assert srca_row0(cop) == ONE
    # MultiContextMode, ContextNumber 0: WhichContext = 0 + CfgContextOffset_0 (ThreadConfig);
    # context 1 reads THCON_SEC0_REG3_Base_cntx1_address, context 0 REG3_Base_address.
    cfg = cop.state.config
    for ctx in (0, 1):
        cfg.set(f"THCON_SEC0_REG2_Disable_zero_compress_cntx{ctx}", 1)
        cfg.set(f"THCON_SEC0_REG5_Tile_x_dim_cntx{ctx}", 16)
        cfg.set(f"THCON_SEC0_REG5_Dest_cntx{ctx}_address", 64)   # OutAddr 64: SrcA row 0
    cfg.set("THCON_SEC0_REG3_Base_cntx1_address", B // 16 - 1)
    multi = encode("UNPACR", WhichUnpacker=0, MultiContextMode=1, Last=1)
    cop.push(0, multi)
    assert int(cop.state.srca.data[0, 0, 0]) == ONE
    cop.push(0, encode("SETC16", CfgIndex=field_word(cop, "UNPACK_MISC_CFG_CfgContextOffset_0"), NewValue=1))
    cop.push(0, multi)
    assert int(cop.state.srca.data[0, 0, 0]) == TWO


def test_unpacr_after_restore_and_reset(unpack_cop: Coprocessor) -> None:
    cop = unpack_cop
    snap = state_description.save(cop.state)
    assert srca_row0(cop) == ONE
    cop.state.config.set("THCON_SEC0_REG3_Base_address", B // 16 - 1)
    assert srca_row0(cop) == TWO
    state_description.load(cop.state, snap)
    assert srca_row0(cop) == ONE
    state_description.reset(cop.state)   # TileDescriptor 0: IsUncompressed false
    with pytest.raises(UnimplementedFunctionality, match="decompression"):
        srca_row0(cop)


@pytest.mark.parametrize("tables", [False, True])
def test_unpacr_with_a_warm_cache_matches_the_page(tables: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """One coprocessor unpacks one random configuration after another (each written over the
    last by field), every result against the scalar reference of the page; converting by
    ``convert`` (the first ``TABLE_AFTER`` uses of a conversion) or by its table (from the first)."""
    monkeypatch.setattr(unpackers, "TABLE_AFTER", 1 if tables else 10**9)
    monkeypatch.setattr(unpackers, "_TABLES", {})
    monkeypatch.setattr(unpackers, "_USES", {})
    cop = Coprocessor(TensixState())
    pairs = SRC_PAIRS + [p + ("dst",) for p in DST_PAIRS]
    base = 0x10000
    for seed in range(80):
        rng = np.random.default_rng(seed)
        in_fmt, out_fmt, *dst = pairs[int(rng.integers(len(pairs)))]
        to_dst = bool(dst)
        which = 0 if to_dst else int(rng.integers(2))
        faces = int(rng.integers(1, 5))
        l1 = cop.state.l1
        l1[base:base + 8192] = random_l1(rng, in_fmt, 8192)
        if in_fmt in (ref.BFP8A, ref.BFP4A, ref.BFP2A):
            l1[base:base + 64] = rng.integers(7, 32, 64)  # exponents that stay 5-bit (else undefined)
        out_bytes = 4 if out_fmt in (ref.FP32, ref.TF32, ref.INT32) else 2
        s = ref.Setup(which=which, in_fmt=in_fmt, out_fmt=out_fmt, x_dim=256, z_dim=faces, base=base // 16 - 1,
                      to_dst=to_dst, set_ovrd=not to_dst and which == 0,
                      out_base=64 * out_bytes if which == 0 else 0, adc={"ch0_z": int(rng.integers(faces)), "ch1_x": 255})
        configure(cop, s)
        cop.push(0, encode("UNPACR", WhichUnpacker=which, Last=1))
        assert len(check_against_reference(cop, bytes(l1), s)) == 256, seed
    assert (len([t for t in unpackers._TABLES.values() if t is not None]) >= 8) == tables


# -- PACR --------------------------------------------------------------------------------------------

def pack_setup(cop: Coprocessor) -> None:
    """A Last PACR packs Dst16b rows 0..3 (BF16 1.0: Dst16b 0x007F, sign 15, mantissa 14:8,
    exponent 7:0) as BF16 to ``C``: 64 times 0x3F80."""
    cfg = cop.state.config
    fields = {"ALU_FORMAT_SPEC_REG2_Dstacc": BF16, "PCK_EDGE_OFFSET_SEC0_mask": 0xFFFF,
              "PACK_COUNTERS_SEC0_pack_reads_per_xy_plane": 16, "PCK0_ADDR_CTRL_XY_REG_0_Ystride": 32,
              "THCON_SEC0_REG1_L1_Dest_addr": C // 16 - 1, "THCON_SEC0_REG1_Disable_zero_compress": 1,
              "THCON_SEC0_REG1_Out_data_format": BF16, "THCON_SEC0_REG1_In_data_format": BF16}
    for name, value in fields.items():
        cfg.set(name, value, thread=0)
    cop.state.dst.bits[0:4] = 0x007F
    cop.state.dst.ever_written[0:4] = True
    cop.state.adcs.set(0, PACKERS, 1, X, 15)


LAST = encode("PACR", Last=1)
PACKED = bytes.fromhex("803f") * 64


def packed_at(cop: Coprocessor, at: int) -> bool:
    """A Last PACR wrote its 128 bytes at ``at`` and nothing else near ``C`` and ``D``."""
    l1 = cop.state.l1
    l1[C - 256:D + 256] = 0
    cop.push(0, LAST)
    written = l1[at:at + 128].tobytes()
    l1[at:at + 128] = 0
    return written == PACKED and not l1[C - 256:D + 256].any()


@pytest.fixture
def pack_cop() -> Coprocessor:
    cop = Coprocessor(TensixState())
    pack_setup(cop)
    return cop


@pytest.mark.parametrize("path", WRITES)
def test_pacr_sees_l1_dest_addr_written_between_two(pack_cop: Coprocessor, path: str) -> None:
    cop = pack_cop
    assert packed_at(cop, C)
    WRITES[path](cop, "THCON_SEC0_REG1_L1_Dest_addr", D // 16 - 1)
    assert packed_at(cop, D)


@pytest.mark.parametrize("path", WRITES)
def test_pacr_sees_the_tile_header_flag_written_between_two(pack_cop: Coprocessor, path: str) -> None:
    # OutputAddressGenerator.md: the stream starts at L1_Dest_addr + 1 (16-byte units), or at
    # L1_Dest_addr with Sub_l1_tile_header_size.
    cop = pack_cop
    assert packed_at(cop, C)
    WRITES[path](cop, "THCON_SEC0_REG1_Sub_l1_tile_header_size", 1)
    assert packed_at(cop, C - 16)


@pytest.mark.parametrize("path", [p for p in WRITES if p != "REG2FLOP"])  # it reaches THCON_ words only
def test_pacr_sees_an_edge_mask_written_between_two(pack_cop: Coprocessor, path: str) -> None:
    # EdgeMasking.md: mask 0 drops every datum to zero (edge mode 0).
    cop = pack_cop
    assert packed_at(cop, C)
    WRITES[path](cop, "PCK_EDGE_OFFSET_SEC0_mask", 0)
    cop.push(0, LAST)
    assert cop.state.l1[C:C + 128].tobytes() == bytes(128)


def test_pacr_follows_setc16_of_addr_mod_and_bank(pack_cop: Coprocessor) -> None:
    cop = pack_cop
    cop.push(0, LAST)
    assert cop.state.adcs.get(0, PACKERS, 0, Y) == 0
    # ADDR_MOD_PACK_SEC0: YsrcIncr bits 3:0 (ThreadConfig word 37): Channel[0].Y += 4
    cop.push(0, encode("SETC16", CfgIndex=field_word(cop, "ADDR_MOD_PACK_SEC0_YsrcIncr"), NewValue=4))
    cop.push(0, LAST)
    assert cop.state.adcs.get(0, PACKERS, 0, Y) == 4
    # bank 1 holds zeros: Disable_zero_compress 0 there, compression is not modelled
    cop.push(0, encode("SETC16", CfgIndex=field_word(cop, "CFG_STATE_ID_StateID"), NewValue=1))
    with pytest.raises(UnimplementedFunctionality, match="compression"):
        cop.push(0, LAST)


def test_pacr_after_restore_and_reset(pack_cop: Coprocessor) -> None:
    cop = pack_cop
    snap = state_description.save(cop.state)
    assert packed_at(cop, C)
    cop.state.config.set("THCON_SEC0_REG1_L1_Dest_addr", D // 16 - 1)
    assert packed_at(cop, D)
    state_description.load(cop.state, snap)
    assert packed_at(cop, C)
    state_description.reset(cop.state)
    with pytest.raises(UnimplementedFunctionality, match="compression"):
        cop.push(0, LAST)


PACK_FIELDS = {  # field: values a random configuration picks from
    "PCK_DEST_RD_CTRL_Read_32b_data": (0, 1), "ALU_FORMAT_SPEC_REG2_Dstacc": (0, 1, 5),
    "THCON_SEC0_REG1_In_data_format": (0, 1, 5), "THCON_SEC0_REG1_Out_data_format": (0, 1, 5, 6, 7, 15, 2, 10),
    "THCON_SEC0_REG1_L1_Dest_addr": (0x1FF, 0x2FF), "THCON_SEC0_REG1_Exp_section_size": (0, 4),
    "THCON_SEC0_REG1_Sub_l1_tile_header_size": (0, 1), "PCK0_ADDR_CTRL_XY_REG_0_Ystride": (32, 64),
    "PCK0_ADDR_BASE_REG_0_Base": (0, 64), "PACK_COUNTERS_SEC0_pack_reads_per_xy_plane": (4, 16),
    "PCK_EDGE_OFFSET_SEC0_mask": (0xFFFF, 0xFFFF, 0x0F0F), "STACC_RELU_ApplyRelu": (0, 0, 1),
    "ADDR_MOD_PACK_SEC0_YsrcIncr": (0, 4), "DEST_TARGET_REG_CFG_PACK_SEC0_Offset": (0, 16),
}


def pacr_outcome(cop: Coprocessor, word: int) -> tuple[object, ...]:
    try:
        cop.push(0, word)
    except TensixEvent as event:
        return (type(event).__name__, str(event))
    ps = cop.state.packer
    return (cop.state.l1[0x1000:0x5000].tobytes(), ps.data_address, ps.exp_address, tuple(ps.tpg),
            ps.histogram.max_exponent, cop.state.adcs.value.tobytes())


def test_pacr_with_a_warm_cache_matches_a_fresh_unit() -> None:
    """One coprocessor packs after one random configuration change after another; a fresh
    coprocessor given the same state (nothing cached) must write the same bytes, addresses and
    counters, or stop the same way."""
    warm = Coprocessor(TensixState())
    pack_setup(warm)
    rng = np.random.default_rng(34)
    warm.state.dst.bits[:] = rng.integers(0, 1 << 16, size=warm.state.dst.bits.shape)
    warm.state.dst.ever_written[:] = True
    packed = 0
    for step in range(200):
        for _ in range(int(rng.integers(1, 4))):
            name = list(PACK_FIELDS)[int(rng.integers(len(PACK_FIELDS)))]
            warm.state.config.set(name, int(rng.choice(PACK_FIELDS[name])), thread=0)
        word = encode("PACR", Last=int(rng.random() < 0.5), ReadIntfSel=int(rng.choice([0, 1, 5, 15])))
        fresh = Coprocessor(TensixState())
        state_description.load(fresh.state, state_description.save(warm.state))
        fresh.state.l1[:] = warm.state.l1
        got = pacr_outcome(warm, word)
        config._SHARED.clear()     # nothing another config decoded either
        expected = pacr_outcome(fresh, word)
        assert got == expected, step
        packed += len(got) > 2
    assert packed > 60


def test_a_decode_is_shared_by_configs_whose_words_agree() -> None:
    """A second coprocessor whose config words hold what the first's held takes the first's
    decode (TensixConfig.derived shared); one word apart, it decodes its own, and each packs
    where its L1_Dest_addr says."""
    config._SHARED.clear()
    first, second, third = (Coprocessor(TensixState()) for _ in range(3))
    for cop in (first, second, third):
        pack_setup(cop)
    third.state.config.set("THCON_SEC0_REG1_L1_Dest_addr", D // 16 - 1)
    assert packed_at(first, C) and packed_at(second, C) and packed_at(third, D)
    assert packers.read_config(second, 0) is packers.read_config(first, 0)
    assert packers.read_config(third, 0) is not packers.read_config(first, 0)
    second.state.config.set("THCON_SEC0_REG1_L1_Dest_addr", D // 16 - 1)
    assert packed_at(second, D)
    assert packers.read_config(second, 0) is packers.read_config(third, 0)
    unpack = [Coprocessor(TensixState()) for _ in range(2)]
    for cop in unpack:
        unpack_setup(cop)
    assert unpackers.read_config(unpack[1], 0, 0, False, 0) is unpackers.read_config(unpack[0], 0, 0, False, 0)


def test_an_addr_mod_pack_entry_is_each_configs_own() -> None:
    """``packers.addr_mod_pack`` (shared too) is another config's only where the words it reads
    agree: each config gets the ``ADDR_MOD_PACK_SEC1`` fields ``get`` reads in it."""
    config._SHARED.clear()
    for incr, clear in [(3, 0), (5, 0), (3, 0), (3, 1), (5, 1), (3, 0)]:
        cop = Coprocessor(TensixState())
        cfg = cop.state.config
        cfg.set("ADDR_MOD_PACK_SEC1_YsrcIncr", incr)
        cfg.set("ADDR_MOD_PACK_SEC1_ZdstClear", clear)
        assert [cfg.get(f"ADDR_MOD_PACK_SEC1_{n}") for n in ("YsrcIncr", "ZdstClear")] == [incr, clear]
        src, dst = packers.addr_mod_pack(cop, 0, 1)   # (Y clear, Y CR, Y incr, Z clear, Z incr) per side
        assert (src[2], dst[3]) == (incr, clear)
        cfg.set("ADDR_MOD_PACK_SEC1_YsrcIncr", incr + 1)
        assert packers.addr_mod_pack(cop, 0, 1)[0][2] == incr + 1
