"""The native (C) datapaths against the numpy model they mirror (``tdbg/native``): the same
instruction on the same random state, once each way, must leave identical bits.  The numpy model
is itself checked against the pages and ttsim (test_fpu_datapath.py, test_insn_fpu.py,
test_sfpu_ttsim.py ...); those modules run through whichever path is in force, so these tests
are what ties the two together.  Also: the library is built once per source digest and a build
that fails falls back to numpy, saying so in one line."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
import pytest

from tdbg import native
from tdbg.tensix.coprocessor import Coprocessor
from tdbg.tensix import pack_conversion as packer
from tdbg.tensix.adcs import PACKERS
from tdbg.tensix.events import TensixEvent, UndefinedBehavior
from tdbg.tensix.pack_conversion import Fmt, PackerConfig
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.tensix.sfpu import numerics
from tdbg.tensix.src import SrcClient
from tdbg.tensix.state import TensixState
from tdbg.tensix.isa import isa_of

encode = isa_of(BLACKHOLE).encode

pytestmark = pytest.mark.skipif(native.library() is None, reason="the native library cannot be built here")

# Src formats by style (Packers/FormatConversion.md codes): BF16, TF32, FP16
FORMATS = (5, 4, 1)


def src_values(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """19-bit Src data: random fields, with exponents crowded near 127 / 15 and at 0 and 255."""
    sign = rng.integers(0, 2, size=shape) << 18
    man = rng.integers(0, 1 << 10, size=shape) << 8
    exp = np.where(rng.random(shape) < 0.6, rng.integers(100, 150, size=shape), rng.integers(0, 256, size=shape))
    exp = np.where(rng.random(shape) < 0.15, rng.choice([0, 1, 15, 16, 30, 31, 254, 255], size=shape), exp)
    return (sign | man | exp).astype(np.uint32)


def random_state(seed: int) -> tuple[Coprocessor, dict[str, int]]:
    """A coprocessor with random Src, Dst (some rows undefined), config and RWCs."""
    rng = np.random.default_rng(seed)
    cop = Coprocessor(TensixState())
    st = cop.state
    st.srca.data[:] = src_values(rng, (2, 64, 16))
    st.srcb.data[:] = src_values(rng, (2, 64, 16))
    st.srca.allowed_client[:] = [SrcClient.MatrixUnit] * 2
    st.srcb.allowed_client[:] = [SrcClient.MatrixUnit] * 2
    st.src_banks.matrix_unit_srca, st.src_banks.matrix_unit_srcb = (int(x) for x in rng.integers(0, 2, 2))
    st.dst.bits[:] = rng.integers(0, 1 << 16, size=(1024, 16))
    st.dst.ever_written[:] = rng.random(1024) < 0.8
    cfg = st.config
    choice = {
        "DISABLE_IMPLIED_SRCA_FMT_Base": int(rng.integers(0, 2)),
        "ALU_FORMAT_SPEC_REG0_SrcA": int(rng.choice(FORMATS)),
        "ALU_ACC_CTRL_Fp32_enabled": int(rng.integers(0, 2)),
        "FP16A_FORCE_Enable": int(rng.random() < 0.2),
        "FIDELITY_BASE_Phase": int(rng.integers(0, 4)),
        "DEST_TARGET_REG_CFG_MATH_Offset": int(rng.integers(0, 1024)),
        "ALU_ACC_CTRL_Zero_Flag_disabled_src": int(rng.random() < 0.2),
    }
    for name, value in choice.items():
        cfg.set(name, value, thread=0)
    if rng.random() < 0.3:
        cfg.set("DEST_ACCESS_CFG_remap_addrs", 1)
        cfg.set("DEST_ACCESS_CFG_swizzle_32b", int(rng.integers(0, 2)))
    st.srca.fmt[:] = [int(x) for x in rng.choice(FORMATS, 2)]
    rwc = cop.rwc(0)
    rwc.SrcA, rwc.SrcB, rwc.Dst = (int(x) for x in rng.integers(0, 64, 3))
    rwc.FidelityPhase = int(rng.integers(0, 4))
    fields = {"DstRow": int(rng.integers(0, 1024))}
    return cop, fields


def outcome(cop: Coprocessor, word: int) -> tuple[object, ...]:
    """Run ``word``; everything it could have changed (or the event it raised)."""
    try:
        cop.push(0, word)
    except TensixEvent as event:
        return (type(event).__name__, str(event))
    d = cop.state.dst
    return (d.bits.tobytes(), d.ever_written.tobytes(), cop.rwc(0).as_dict())


def both_ways(seed: int, mnemonic: str, extra: dict[str, int]) -> tuple[tuple[object, ...], tuple[object, ...]]:
    runs = []
    for _ in range(2):
        cop, fields = random_state(seed)
        if mnemonic in ("ELWADD", "ELWSUB"):  # fidelity phase 0: the datapath (other phases: the page's float)
            cop.state.config.set("FIDELITY_BASE_Phase", 0, thread=0)
            cop.rwc(0).FidelityPhase = 0
        runs.append((cop, encode(mnemonic, **fields, **extra)))
    with native.disabled():
        reference = outcome(*runs[1])
    return outcome(*runs[0]), reference


CASES = [
    ("MVMUL", {}), ("MVMUL", {"BroadcastSrcBRow": 1}), ("DOTPV", {}), ("GAPOOL", {"instr_mod19": 1}),
    ("ELWADD", {}), ("ELWADD", {"AddDst": 1}), ("ELWSUB", {"AddDst": 1, "BroadcastSrcBRow": 1}),
    ("ELWSUB", {"BroadcastSrcBCol0": 1}), ("ELWMUL", {}), ("ELWMUL", {"BroadcastSrcBCol0": 1, "BroadcastSrcBRow": 1}),
    ("GMPOOL", {"instr_mod19": 1}), ("GMPOOL", {"instr_mod19": 1, "ArgMax": 1}),
]


SEEDS = 16


@pytest.mark.parametrize("seed", range(SEEDS))
@pytest.mark.parametrize("mnemonic, extra", CASES, ids=[f"{m}-{'-'.join(e) or 'plain'}" for m, e in CASES])
def test_matrix_unit_native_equals_numpy(seed: int, mnemonic: str, extra: dict[str, int]) -> None:
    got, reference = both_ways(seed * 7919 + len(mnemonic), mnemonic, extra)
    assert got == reference


@pytest.mark.parametrize("mnemonic, extra", CASES[::2], ids=[m for m, _ in CASES[::2]])
def test_the_random_states_reach_the_datapath(mnemonic: str, extra: dict[str, int]) -> None:
    """The differential above means something only if most random states run the arithmetic
    rather than stopping on an event: count them."""
    ran = sum(len(both_ways(seed * 7919 + len(mnemonic), mnemonic, extra)[1]) == 3 for seed in range(SEEDS))
    assert ran >= SEEDS // 2


SPECIAL = np.array([0, 0x80000000, 0x00000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF,
                    0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x33800000, 0x4B000000,
                    0x0D800000, 0x72800000], dtype=np.uint32)


def test_fma_native_equals_numpy() -> None:
    rng = np.random.default_rng(5)
    n = 20000
    x, y, z = (rng.integers(0, 1 << 32, size=n, dtype=np.uint64).astype(np.uint32) for _ in range(3))
    near = rng.random(n) < 0.5  # products and addends of comparable size, so they cancel and round
    z = np.where(near, (x & 0x807FFFFF) | ((((x >> 23) & 0xFF) + ((y >> 23) & 0xFF) - 127) & 0xFF) << 23, z).astype(np.uint32)
    grid = np.array(np.meshgrid(SPECIAL, SPECIAL, SPECIAL)).reshape(3, -1)
    x, y, z = (np.concatenate([v, g]).astype(np.uint32) for v, g in zip((x, y, z), grid))
    got = np.empty_like(x)
    native.library().tdbg_fma(x.ctypes.data, y.ctypes.data, z.ctypes.data, got.ctypes.data, len(x))
    assert np.array_equal(got, numerics.fma_model(x, y, z))
    lanes = x[:32], y[:32], z[:32]
    with native.disabled():
        assert np.array_equal(numerics.fma(*lanes), numerics.fma_model(*lanes))


def test_the_library_is_built_once_per_source(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = native.build()
    stamp = first.stat().st_mtime_ns
    assert native.build() == first and first.stat().st_mtime_ns == stamp
    assert first.is_relative_to(tmp_path / "tdbg" / "native")


def test_a_failed_build_falls_back_to_numpy_in_one_line(monkeypatch, capsys) -> None:
    def fail() -> None:
        raise native.NativeError("building the native datapath failed: no zig")

    monkeypatch.setattr(native, "build", fail)
    monkeypatch.setattr(native, "_tried", False)
    monkeypatch.setattr(native, "_lib", None)
    assert native.library() is None and native.library() is None
    err = capsys.readouterr().err
    assert err == "tdbg: building the native datapath failed: no zig; running the numpy model (slower)\n"
    cop, fields = random_state(1)
    cop.push(0, encode("MVMUL", **fields))  # the instruction still runs, on numpy


# -- the packer's conversion (tdbg/native/pack.c against tdbg.tensix.pack_conversion.pack) --------------

def _pack_configs() -> list[PackerConfig]:
    """Every configuration whose cells ``tdbg_pack`` runs (the rest raise or are integer cells)."""
    found = []
    codes = [int(f) for f in Fmt]
    for wide, raw, unsigned, round10, inter, late_from, late_to in itertools.product(
            (False, True), (False, True), (False, True), (False, True), codes, codes, codes):
        cfg = PackerConfig(wide, raw, unsigned, round10, inter, late_from, late_to)
        try:
            if packer._native_plan(cfg) is not None:
                found.append(cfg)
        except TensixEvent:
            pass
    return found


PACK_CONFIGS = _pack_configs()


def dst_words(rng: np.random.Generator, wide: bool, n: int) -> np.ndarray:
    """Dst words with every exponent class: zero, the FP16 / rebias edges, the top, random."""
    if wide:  # Dst32b: exponent 23:16
        w = rng.integers(0, 1 << 32, size=n, dtype=np.uint64)
        exp = rng.choice([0, 1, 111, 112, 113, 126, 127, 128, 142, 143, 254, 255], size=n)
        w = np.where(rng.random(n) < 0.5, (w & ~np.uint64(0xFF0000)) | (exp.astype(np.uint64) << 16), w)
        return w.astype(np.uint32)
    w = rng.integers(0, 1 << 16, size=n).astype(np.int64)
    exp = rng.choice([0, 1, 30, 31, 111, 112, 113, 127, 254, 255], size=n)
    return np.where(rng.random(n) < 0.5, (w & ~0xFF) | exp, w).astype(np.uint16)


def test_there_are_native_pack_configurations() -> None:
    assert len(PACK_CONFIGS) >= 40
    assert {c.late_to_format for c in PACK_CONFIGS} >= {Fmt.FP32, Fmt.TF32, Fmt.BF16, Fmt.FP16, Fmt.BFP8, Fmt.BFP4,
                                                         Fmt.BFP2, Fmt.BFP8A, Fmt.BFP4A, Fmt.BFP2A, Fmt.FP8}


@pytest.mark.parametrize("seed", range(4))
def test_pack_native_equals_numpy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    compared = refused = 0
    for cfg in PACK_CONFIGS:
        words = dst_words(rng, cfg.read_32b_data, 64)
        got = packer.pack_plain(words, len(words), cfg)
        try:
            expected = packer.pack(words, cfg)
        except UndefinedBehavior:
            assert got is None, cfg  # the native path hands data the page leaves undefined back
            refused += 1
            continue
        assert got is not None, cfg
        early, _ = packer._steps(cfg)
        top = int(early.run(packer._dst_input(words, cfg.read_32b_data)).exp.max())
        assert got == (expected, top), cfg
        compared += 1
    assert compared > refused > 0  # both: data converted, data handed back


# -- SFPLOAD / SFPSTORE (tdbg/native/sfpu.c against tdbg.tensix.sfpu.loadstore) ----------------

def sfpu_state(seed: int) -> Coprocessor:
    """Random LRegs (some lanes or halves never written), lane flags, Dst (some rows undefined,
    a few cells unpredictable), config; LaneConfig zero but now and then."""
    rng = np.random.default_rng(seed)
    cop = Coprocessor(TensixState())
    vu, dst = cop.vector, cop.state.dst
    vu.lreg[:8] = rng.integers(0, 1 << 32, size=(8, 32), dtype=np.uint64).astype(np.uint32)
    vu.defined[:8] = np.where(rng.random((8, 32)) < 0.97, 3, rng.integers(0, 3, size=(8, 32)))
    vu.full[:8] = [bool((vu.defined[r] == 3).all()) for r in range(8)]
    vu.lane_flags[:] = rng.random(32) < 0.7
    vu.use_lane_flags[:] = rng.random(32) < 0.5
    if rng.random() < 0.2:
        vu.lane_config[rng.integers(0, 32)] = 1 << int(rng.integers(0, 12))
    dst.bits[:] = rng.integers(0, 1 << 16, size=(1024, 16))
    dst.ever_written[:] = rng.random(1024) < 0.97
    if rng.random() < 0.3:
        dst.unpredictable[rng.integers(0, 1024, 8), rng.integers(0, 16, 8)] = True
        dst._any_unpredictable = True
    if rng.random() < 0.3:
        cop.state.config.set("DEST_ACCESS_CFG_remap_addrs", 1)
        cop.state.config.set("DEST_ACCESS_CFG_swizzle_32b", int(rng.integers(0, 2)))
    cop.state.config.set("ALU_ACC_CTRL_SFPU_Fp32_enabled", int(rng.integers(0, 2)), thread=0)
    cop.rwc(0).Dst = int(rng.integers(0, 1024))
    return cop


def sfpu_outcome(cop: Coprocessor, word: int) -> tuple[object, ...]:
    try:
        cop.push(0, word)
    except TensixEvent as event:
        return (type(event).__name__, str(event))
    vu, d = cop.vector, cop.state.dst
    return (d.bits.tobytes(), d.ever_written.tobytes(), d.unpredictable.tobytes(), d._any_unpredictable,
            vu.lreg.tobytes(), vu.defined.tobytes(), tuple(vu.full), cop.rwc(0).as_dict())


class Counting:
    """The native library, counting the calls of one function that did the work (``ok`` of its
    result: by default, not -1)."""

    def __init__(self, lib: object, name: str, ok: Callable[[int], bool] = lambda result: result >= 0) -> None:
        self.lib, self.name, self.ok, self.done = lib, name, ok, 0

    def __getattr__(self, name: str) -> object:
        fn = getattr(self.lib, name)
        if name != self.name:
            return fn

        def call(*args: object) -> int:
            result = fn(*args)
            self.done += self.ok(result)
            return result
        return call


@pytest.mark.parametrize("mnemonic", ["SFPLOAD", "SFPSTORE"])
def test_sfpu_load_store_native_equals_numpy(mnemonic: str, monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(native.library(), f"tdbg_{mnemonic.lower()}")
    monkeypatch.setattr(native, "_lib", counting)
    ran = 0
    for seed in range(240):
        rng = np.random.default_rng(10_000 + seed)
        fields = {"VD": int(rng.choice([0, 1, 3, 4, 7, 9, 12])), "Mod0": int(rng.integers(0, 16)),
                  "Imm10": int(rng.integers(0, 1024))}
        word = encode(mnemonic, **fields)
        got = sfpu_outcome(sfpu_state(seed), word)
        with native.disabled():
            expected = sfpu_outcome(sfpu_state(seed), word)
        assert got == expected, (seed, fields)
        ran += len(expected) > 2
    assert ran > 100 and counting.done > 60  # many runs move data, most of those in C


def pacr_state(seed: int) -> tuple[Coprocessor, PackerConfig]:
    """A packer configured for one of ``PACK_CONFIGS`` (edge masks all 0xFFFF: nothing staged, or
    not), random Dst with some rows undefined, random ADC positions."""
    rng = np.random.default_rng(seed)
    conv = PACK_CONFIGS[int(rng.integers(len(PACK_CONFIGS)))]
    cop = Coprocessor(TensixState())
    cfg = cop.state.config
    fields = {"PCK_DEST_RD_CTRL_Read_32b_data": int(conv.read_32b_data), "PCK_DEST_RD_CTRL_Read_int8": int(conv.read_raw),
              "PCK_DEST_RD_CTRL_Read_unsigned": int(conv.read_unsigned), "PCK_DEST_RD_CTRL_Round_10b_mant": int(conv.round_10b_mant),
              "ALU_FORMAT_SPEC_REG2_Dstacc": int(conv.intermediate_format), "THCON_SEC0_REG1_In_data_format": int(conv.late_from_format),
              "THCON_SEC0_REG1_Out_data_format": int(conv.late_to_format), "THCON_SEC0_REG1_Disable_zero_compress": 1,
              "THCON_SEC0_REG1_L1_Dest_addr": 0x2000, "PCK0_ADDR_CTRL_XY_REG_0_Ystride": 32 * (1 + int(conv.read_32b_data)),
              "PACK_COUNTERS_SEC0_pack_reads_per_xy_plane": 16, "THCON_SEC0_REG1_Exp_section_size": 4}
    for i in range(4):
        fields[f"PCK_EDGE_OFFSET_SEC{i}_mask"] = 0xFFFF if rng.random() < 0.8 else int(rng.integers(0, 1 << 16))
    for name, value in fields.items():
        cfg.set(name, value, thread=0)
    dst = cop.state.dst
    dst.bits[:] = rng.integers(0, 1 << 16, size=(1024, 16))
    dst.ever_written[:] = rng.random(1024) < 0.9
    adcs = cop.state.adcs
    x0 = int(rng.integers(0, 16))
    adcs.set(0, PACKERS, 0, 0, x0)
    adcs.set(0, PACKERS, 1, 0, x0 + (15 if rng.random() < 0.7 else int(rng.integers(0, 16 - x0))))
    adcs.set(0, PACKERS, 0, 1, int(rng.integers(0, 16)))
    return cop, conv


def pacr_outcome(cop: Coprocessor, word: int) -> tuple[object, ...]:
    try:
        cop.push(0, word)
    except TensixEvent as event:
        return (type(event).__name__, str(event))
    ps = cop.state.packer
    return (cop.state.l1[0x20000:0x21000].tobytes(), ps.data_address, ps.exp_address, tuple(ps.tpg),
            ps.histogram.max_exponent, ps.histogram.bins.tobytes(), cop.state.adcs.value.tobytes())


def test_pacr_native_equals_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = Counting(native.library(), "tdbg_pack", lambda result: result == 0)
    monkeypatch.setattr(native, "_lib", counting)
    ran = 0
    for seed in range(150):
        word = encode("PACR", Last=int(seed % 3 == 0), ReadIntfSel=int(np.random.default_rng(seed).choice([0, 1, 5, 15])))
        cop, _ = pacr_state(seed)
        got = pacr_outcome(cop, word)
        cop, _ = pacr_state(seed)
        with native.disabled():
            expected = pacr_outcome(cop, word)
        assert got == expected, seed
        ran += len(expected) > 2
    assert ran > 75 and counting.done > 50
