"""UNPACR and PACR on the native push path (``tdbg.emu.native_units``, ``tdbg/native/unpack_pack.c``)
against the Python path (the reference, ``tdbg.native.disabled()``): firmware that configures the
unpackers and the packer with random formats (those the C side mirrors and some it leaves to
Python: BFP input, ``Tileize_mode``, L1 accumulation, an edge mask), places their streams on
random data, on L1 nothing wrote and over loaded code, and pushes random UNPACR and PACR words
(with fields it leaves to Python: FlipSrc, ZeroWrite, Flush), must stop at the same events and
leave identical Src, L1, ADCs, packer state, L1-written map, L1 log and push log; and the native
path must have run some of each.  So for the same words queued behind a latched SEMWAIT and
released by another thread's SEMPOST (C runs them off Python's queue: ``tdbg_run_queued``), and
for tt-llk's kernels, whose UNPACRs and PACRs all wait at the Wait Gate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tdbg import native
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.emu import native_matrix
from tdbg.emu.native_units import K_PACR, K_UNPACR
from tdbg.emu.stops import StopKind
from tdbg.session import Session
from tdbg.tensix.coprocessor import Bound, Coprocessor
from tdbg.tensix.isa import isa_of
from tdbg.tensix.state import TensixState
from tdbg.tensix.unpackers import F

ISA = isa_of(BLACKHOLE)
TABLE = TensixState().config.table
pytestmark = pytest.mark.skipif(native.library() is None, reason="the native library cannot be built here")

INPUTS = (0x30000, 0x34000)     # random data (written by the debugger)
UNWRITTEN = 0x40000             # nothing writes it
OUTPUT = 0x38000
#: (InDataFormat, OutDataFormat) of the unpackers: mirrored (the first five), then left to Python
UNPACK_FORMATS = [(F.BF16, F.BF16), (F.FP16, F.FP16), (F.FP32, F.TF32), (F.FP32, F.BF16), (F.FP32, F.FP16),
                  (F.BFP8, F.BFP8), (F.BF16, F.FP16)]
#: (In_data_format = Dst's, Out_data_format, Read_32b_data) of the packer
PACK_FORMATS = [(F.BF16, F.BF16, 0), (F.FP16, F.FP16, 0), (F.FP32, F.FP32, 1), (F.FP32, F.BF16, 1),
                (F.BF16, F.BFP8, 0), (F.BF16, F.FP32, 0), (F.FP16, F.BF16, 0)]


class Firmware:
    """C statements of a T0 program, built up."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.thread_words: dict[int, int] = {}

    def tti(self, mnemonic: str, **fields: int) -> None:
        self.lines.append(f"TTI({ISA.encode(mnemonic, **fields):#010x}u);")

    def cfg(self, name: str, value: int) -> None:
        f = TABLE.field(name)
        if f.thread:   # a ThreadConfig word: SETC16 of the whole word
            mask = ((1 << f.width) - 1) << f.shamt
            word = (self.thread_words.get(f.addr32, 0) & ~mask) | ((value << f.shamt) & mask)
            self.thread_words[f.addr32] = word
            self.tti("SETC16", CfgIndex=f.addr32, NewValue=word)
            return
        if f.width > 32:
            raise ValueError(name)
        mask = ((1 << f.width) - 1) << f.shamt if f.width < 32 else 0xFFFFFFFF
        self.lines.append(f"tdbg_cfg_set_field(0, {f.addr32}, {f.shamt}, {mask:#x}u, {value:#x}u);")

    def source(self, tmp_path: Path) -> Path:
        body = "\n    ".join(self.lines)
        path = tmp_path / "units.c"
        path.write_text('#include "tensix.h"\n'
                        "__attribute__((noinline, used, aligned(16))) void victim(void)\n"
                        '{\n    __asm__ volatile(".rept 2048\\n nop\\n .endr");\n}\n'
                        f"int main(void)\n{{\n    {body}\n    tdbg_wait_coprocessor_done();\n    return 0;\n}}\n")
        return path


def _unpacker_phase(fw: Firmware, rng: np.random.Generator, victim: bool) -> None:
    r = lambda bits: int(rng.integers(0, 1 << bits))  # noqa: E731
    for u in (0, 1):
        in_fmt, out_fmt = UNPACK_FORMATS[int(rng.integers(0, len(UNPACK_FORMATS) if rng.integers(0, 4) == 0 else 5))]
        sec = 64 if u == 0 else 112
        x_dim = int(rng.choice([256, 64, 16]))
        fw.lines.append(f"tdbg_cfg_write(0, {sec}, {in_fmt | 1 << 4 | x_dim << 16:#x}u);")   # TileDescriptor
        fw.lines.append(f"tdbg_cfg_write(0, {sec + 1}, {1 | int(rng.choice([1, 4])) << 16:#x}u);")   # YDim 1, ZDim
        fw.cfg(f"THCON_SEC{u}_REG2_Out_data_format", out_fmt)
        for ctx in range(4 if u == 0 else 2):
            fw.cfg(f"THCON_SEC{u}_REG2_Disable_zero_compress_cntx{ctx}", 1)
        fw.cfg(f"THCON_SEC{u}_REG2_Tileize_mode", int(rng.integers(0, 8) == 0))
        where = UNWRITTEN if rng.integers(0, 10) == 0 else INPUTS[u] + 0x400 * r(2)
        fw.cfg(f"THCON_SEC{u}_REG3_Base_address", where // 16 - 1)
        fw.cfg(f"UNP{u}_ADDR_BASE_REG_1_Base", int(rng.choice([128, 256, 128, 256, 64, 0, 6])))
    fw.cfg("THCON_SEC0_REG5_Dest_cntx0_address", int(rng.choice([64, 64, 128, 66])))
    fw.cfg("THCON_SEC0_REG5_Dest_cntx1_address", 64)
    fw.cfg("THCON_SEC0_REG5_Tile_x_dim_cntx0", 256)
    fw.cfg("THCON_SEC0_REG5_Tile_x_dim_cntx1", 256)
    fw.cfg("SRCA_SET_SetOvrdWithAddr", r(1))
    fw.cfg("UNPACK_MISC_CFG_CfgContextOffset_0", int(rng.integers(0, 4) == 0))
    fw.tti("SETADCXX", CntSetMask=3, X0Val=0, X1Val=int(rng.choice([255, 255, 127, 15, 7])))
    fw.tti("SETADCXY", CntSetMask=3, X0Val=0, Y0Val=0, X1Val=0, Y1Val=0, BitMask=0xA)   # Y0, Y1
    fw.tti("SETADCZW", CntSetMask=3, Z0Val=0, W0Val=0, Z1Val=0, W1Val=0, BitMask=0xF)


def _packer_phase(fw: Firmware, rng: np.random.Generator, victim: bool) -> None:
    in_fmt, out_fmt, wide = PACK_FORMATS[int(rng.integers(0, len(PACK_FORMATS)))]
    fw.cfg("ALU_FORMAT_SPEC_REG2_Dstacc", in_fmt)
    fw.cfg("THCON_SEC0_REG1_In_data_format", in_fmt)
    fw.cfg("THCON_SEC0_REG1_Out_data_format", out_fmt)
    fw.cfg("THCON_SEC0_REG1_Disable_zero_compress", 1)
    fw.cfg("PCK_DEST_RD_CTRL_Read_32b_data", wide)
    fw.cfg("THCON_SEC0_REG1_Exp_section_size", 4)
    fw.cfg("THCON_SEC0_REG1_Pack_L1_Acc", int(rng.integers(0, 10) == 0))
    fw.cfg("PCK_EDGE_OFFSET_SEC0_mask", 0xFFFF if rng.integers(0, 8) else 0x00FF)
    fw.cfg("PACK_COUNTERS_SEC0_pack_reads_per_xy_plane", int(rng.choice([16, 0, 3])))
    fw.cfg("PCK0_ADDR_CTRL_XY_REG_0_Ystride", 64 if wide else 32)
    fw.lines.append("tdbg_cfg_set_field(0, 69, 0, 0xffffffffu, "
                    + ("(uint32_t)victim / 16u - 1u);" if victim else f"{OUTPUT // 16 - 1 + 8 * int(rng.integers(0, 4))}u);"))
    for m in range(4):
        fw.cfg(f"ADDR_MOD_PACK_SEC{m}_YsrcIncr", int(rng.integers(0, 8)))
        fw.cfg(f"ADDR_MOD_PACK_SEC{m}_YsrcCR", int(rng.integers(0, 3) == 0))
        fw.cfg(f"ADDR_MOD_PACK_SEC{m}_YdstIncr", int(rng.integers(0, 4)))
        fw.cfg(f"ADDR_MOD_PACK_SEC{m}_ZsrcIncr", int(rng.integers(0, 4) == 0))
        fw.cfg(f"ADDR_MOD_PACK_SEC{m}_YsrcClear", int(rng.integers(0, 4) == 0))
    fw.tti("SETADCXX", CntSetMask=4, X0Val=0, X1Val=15 if out_fmt == F.BFP8 or rng.integers(0, 3) else int(rng.choice([7, 3])))
    fw.tti("SETADCXY", CntSetMask=4, X0Val=0, Y0Val=0, X1Val=0, Y1Val=0, BitMask=0xA)   # Y0, Y1


#: The L1 words of the handshake of ``released``: T0's trip number, T1's acknowledgement
FLAG, ACK = 0x100000, 0x100004


def random_program(rng: np.random.Generator, phases: int, words: int, trips: int = 3, release: bool = False) -> Firmware:
    """``release``: each trip's words queued behind a latched SEMWAIT (T1 releases them: ``released``)."""
    fw = Firmware()
    r = lambda bits: int(rng.integers(0, 1 << bits))  # noqa: E731
    if release:
        fw.lines.append("unsigned trip = 0;")
        fw.tti("SEMINIT", SemaphoreMask=1, NewValue=0, NewMax=1)
    for phase in range(phases):
        _unpacker_phase(fw, rng, False)
        _packer_phase(fw, rng, phase == phases - 1)
        fw.lines.append(f"for (volatile int i = 0; i < {trips}; i++) {{")   # again, learnt (volatile: not unrolled)
        if release:   # semaphore 0 is 0: every word after it waits at the Wait Gate
            fw.tti("SEMWAIT", ConditionMask=1, SemaphoreMask=1, BlockMask=0x1FF)
        for _ in range(words):
            if rng.integers(0, 2):
                inc = lambda: r(2) if rng.integers(0, 6) == 0 else 0  # noqa: E731
                which, flip = r(1), int(rng.integers(0, 16) == 0)
                fw.tti("UNPACR", WhichUnpacker=which, MultiContextMode=r(1), ContextNumber=r(1),
                       ContextADC=int(rng.choice([0] * 6 + [1, 3])), AllDatumsAreZero=int(rng.integers(0, 8) == 0),
                       Ch0YInc=inc(), Ch0ZInc=inc(), Ch1YInc=inc(), Ch1ZInc=inc(), FlipSrc=flip, Last=1)
                if flip:   # the Matrix Unit gives the bank back, or the next UNPACR of it would wait forever
                    fw.tti("SETRWC", FlipSrcA=int(which == 0), FlipSrcB=int(which == 1))
            else:
                fw.tti("PACR", Last=int(rng.integers(0, 3) == 0), OvrdThreadId=int(rng.integers(0, 8) == 0),
                       AddrCntContext=r(2), ReadIntfSel=r(4), AddrMode=r(2),
                       ZeroWrite=int(rng.integers(0, 16) == 0), Flush=int(rng.integers(0, 16) == 0))
        if release:   # (SEMGET: 0 again for the next trip) T1 is told, and releases them
            fw.tti("SEMGET", SemaphoreMask=1)
            fw.lines.append(f"trip++; *(volatile unsigned *){FLAG:#x}u = trip; "
                            f"while (*(volatile unsigned *){ACK:#x}u != trip) {{}}")
        fw.lines.append("}")
    if release:
        fw.lines.append(f"*(volatile unsigned *){FLAG:#x}u = 0xFFFFFFFFu;")
    return fw


def released(tmp_path: Path, fw: Firmware) -> dict[str, Path]:
    """T0 runs ``fw`` (``random_program(release=True)``); T1 releases each trip's queued words with a
    SEMPOST, which Python's Coprocessor._run passes to ``native_execute`` one by one."""
    t1 = tmp_path / "release.c"
    t1.write_text('#include "tensix.h"\nint main(void)\n{\n    for (unsigned i = 1;; i++) {\n'
                  f"        unsigned f;\n        while ((f = *(volatile unsigned *){FLAG:#x}u) != i)\n"
                  "            if (f == 0xFFFFFFFFu)\n                return 0;\n"
                  f"        TTI({ISA.encode('SEMPOST', SemaphoreMask=1):#010x}u);\n"
                  f"        *(volatile unsigned *){ACK:#x}u = i;\n    }}\n}}\n")
    return {"T0": fw.source(tmp_path), "T1": t1}


def outcome(source: Path | dict[str, Path], seed: int) -> tuple[object, tuple[int, int]]:
    s = Session(source)
    rng = np.random.default_rng(seed)
    for at in INPUTS:
        s.write_memory(at, rng.integers(0, 256, 0x2000, dtype=np.uint8).tobytes())
    s.write_memory(FLAG, bytes(8))   # (the cores' stores are seen only on the native path)
    dst = s.tile.coprocessor.state.dst
    dst.write16(slice(0, 1024), rng.integers(0, 1 << 16, (1024, 16), dtype=np.uint16))
    stops = []
    for _ in range(500):   # an event (an L1 read nothing wrote, an undefined address) stops the core: go on
        stop = s.cont()
        stops.append((stop.kind, stop.pc, stop.describe()))
        if stop.kind is StopKind.EXITED:
            break
    tile = s.tile
    path, cop = tile.push_path, tile.coprocessor
    state = cop.state
    ps = state.packer
    l1 = state.l1
    victim = s.symbol("victim").addr
    l1_log = list(tile.l1_log)
    seqs = sorted({a.seq for a in l1_log})
    writers = [tile.l1_log.writer(a) for a in range(OUTPUT, OUTPUT + 0x800, 24)]
    tile.l1_log.truncate(path.seq // 2)   # (a checkpoint's restore)
    kept = list(tile.l1_log)
    ran = (0, 0)
    if path.native is not None:
        counts = {K_UNPACR: 0, K_PACR: 0}
        kinds = {e.word: e.kind for k in (c._native for c in tile.cores.values() if c._native is not None)
                 for e in k.entries.values()}
        for rec in path.native.records():
            if kinds.get(rec[4]) in counts:
                counts[kinds[rec[4]]] += 1
        ran = (counts[K_UNPACR], counts[K_PACR])
    return ((stops, state.srca.data.tolist(), state.srcb.data.tolist(), state.srca.allowed_client, state.srcb.allowed_client,
             state.src_banks.unpacker, cop.unpacker_src_row, state.adcs.value.tolist(), state.adcs.cr.tolist(),
             ps.regs.tolist(), ps.histogram.max_exponent, l1[OUTPUT:OUTPUT + 0x4000].tobytes(),
             l1[victim:victim + 0x2000].tobytes(), tile.l1_written.saved(), l1_log,
             [tile.l1_log.of_push(q) for q in seqs[::7]], writers, kept, list(path.log), path.log.total, path.seq,
             cop.rwc_bits.tolist(), state.dst.bits.tolist(), state.srca.fmt, state.srcb.fmt,
             [cop.pending(t) for t in range(cop.threads)]), ran)


@pytest.mark.parametrize("seed", range(4))
def test_random_unpacr_pacr_native_equal_python(tmp_path: Path, seed: int) -> None:
    source = random_program(np.random.default_rng(seed), phases=6, words=40).source(tmp_path)
    got, ran = outcome(source, seed)
    with native.disabled():
        want, _ = outcome(source, seed)
    assert got == want
    assert ran[0] > 0 and ran[1] > 0   # the native path pushed some of each


def plain_program(unpack: tuple[int, int], pack: tuple[int, int, int], trips: int) -> Firmware:
    """A tt-llk style loop in one configuration the C side mirrors: an UNPACR to SrcA (one context
    and MultiContextMode in turn) and one to SrcB, with Z increments, then a face packed by three
    PACRs and a Last one."""
    fw = Firmware()
    in_fmt, out_fmt = unpack
    for u in (0, 1):
        sec = 64 if u == 0 else 112
        fw.lines.append(f"tdbg_cfg_write(0, {sec}, {in_fmt | 1 << 4 | 256 << 16:#x}u);")
        fw.lines.append(f"tdbg_cfg_write(0, {sec + 1}, {1 | 4 << 16:#x}u);")
        fw.cfg(f"THCON_SEC{u}_REG2_Out_data_format", out_fmt)
        fw.cfg(f"THCON_SEC{u}_REG2_Disable_zero_compress_cntx0", 1)
        fw.cfg(f"THCON_SEC{u}_REG3_Base_address", INPUTS[u] // 16 - 1)
        fw.cfg(f"UNP{u}_ADDR_BASE_REG_1_Base", 256 if out_fmt == F.TF32 else 128)
    fw.cfg("THCON_SEC0_REG5_Dest_cntx0_address", 64)
    fw.cfg("THCON_SEC0_REG5_Tile_x_dim_cntx0", 256)
    fw.cfg("SRCA_SET_SetOvrdWithAddr", 1)
    fw.tti("SETADCXX", CntSetMask=3, X0Val=0, X1Val=255)
    dst_fmt, pack_fmt, wide = pack
    fw.cfg("ALU_FORMAT_SPEC_REG2_Dstacc", dst_fmt)
    fw.cfg("THCON_SEC0_REG1_In_data_format", dst_fmt)
    fw.cfg("THCON_SEC0_REG1_Out_data_format", pack_fmt)
    fw.cfg("THCON_SEC0_REG1_Disable_zero_compress", 1)
    fw.cfg("PCK_DEST_RD_CTRL_Read_32b_data", wide)
    fw.cfg("THCON_SEC0_REG1_Exp_section_size", 4)
    fw.cfg("PCK_EDGE_OFFSET_SEC0_mask", 0xFFFF)
    fw.cfg("PACK_COUNTERS_SEC0_pack_reads_per_xy_plane", 16)
    fw.cfg("PCK0_ADDR_CTRL_XY_REG_0_Ystride", 64 if wide else 32)
    fw.cfg("THCON_SEC0_REG1_L1_Dest_addr", OUTPUT // 16 - 1)
    fw.cfg("ADDR_MOD_PACK_SEC0_YsrcIncr", 4)
    fw.cfg("ADDR_MOD_PACK_SEC0_YdstIncr", 4)
    fw.cfg("ADDR_MOD_PACK_SEC1_YsrcClear", 1)
    fw.cfg("ADDR_MOD_PACK_SEC1_YdstClear", 1)
    fw.tti("SETADCXX", CntSetMask=4, X0Val=0, X1Val=15)
    fw.lines.append(f"for (volatile int i = 0; i < {trips}; i++) {{")   # (volatile: not unrolled)
    fw.lines.append("if ((i & 3) == 0) {")   # the inputs again from their starts, the histogram cleared
    fw.tti("SETADCZW", CntSetMask=3, Z0Val=0, W0Val=0, Z1Val=0, W1Val=0, BitMask=0xF)
    fw.tti("CLREXPHIST")
    fw.lines.append("}")
    fw.tti("UNPACR", WhichUnpacker=0, Ch0ZInc=1, Last=1)
    fw.tti("UNPACR", WhichUnpacker=0, MultiContextMode=1, Ch1YInc=1, Last=1)
    fw.tti("UNPACR", WhichUnpacker=1, Ch0ZInc=1, Last=1)
    for _ in range(3):
        fw.tti("PACR", ReadIntfSel=0xF, AddrMode=0)
    fw.tti("PACR", ReadIntfSel=0xF, AddrMode=1, Last=1)
    fw.lines.append("}")
    return fw


@pytest.mark.parametrize("case", range(7))
def test_each_mirrored_format_native_equals_python(tmp_path: Path, case: int) -> None:
    """Every conversion the C side mirrors, each way, run natively from the second trip on."""
    trips = 6
    source = plain_program(UNPACK_FORMATS[case % 5], PACK_FORMATS[case], trips).source(tmp_path)
    got, ran = outcome(source, case)
    with native.disabled():
        want, _ = outcome(source, case)
    assert got == want
    assert got[0] == [got[0][-1]] and got[0][-1][0] is StopKind.EXITED   # no event
    assert ran[0] >= 3 * (trips - 2) and ran[1] >= 4 * (trips - 2)


class Queued:
    """The UNPACRs and PACRs C ran off Python's Wait Gate queue (``NativeMatrix.run_queued``), and
    those Python's ``_execute`` ran."""

    OPS = (0x42, 0x41)   # UNPACR, PACR (bh_encodings.json)

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.queued, self.python = [0, 0], [0, 0]
        run_queued, execute = native_matrix.NativeMatrix.run_queued, Coprocessor._execute

        def counted(matrix: native_matrix.NativeMatrix, thread: int, word: int) -> bool:
            done = run_queued(matrix, thread, word)
            if done and word >> 24 in self.OPS:
                self.queued[self.OPS.index(word >> 24)] += 1
            return done

        def executed(cop: Coprocessor, thread: int, word: int, b: Bound) -> None:
            if word >> 24 in self.OPS:
                self.python[self.OPS.index(word >> 24)] += 1
            execute(cop, thread, word, b)
        monkeypatch.setattr(native_matrix.NativeMatrix, "run_queued", counted)
        monkeypatch.setattr(Coprocessor, "_execute", executed)


@pytest.mark.parametrize("seed", range(4))
def test_random_unpacr_pacr_released_from_the_queue(tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each trip's UNPACRs and PACRs (FlipSrc among them, and the modes C leaves to Python) queued
    behind T0's latched SEMWAIT, released by T1's SEMPOST: C runs those it mirrors (all but the
    flip) as Python would, the L1 log keeping every access in the order made (C's and Python's
    alternate within the one push that released them)."""
    cores = released(tmp_path, random_program(np.random.default_rng(seed), phases=5, words=30, release=True))
    with monkeypatch.context() as m:
        counts = Queued(m)
        got, _ = outcome(cores, seed)
    with native.disabled():
        want, _ = outcome(cores, seed)
    assert got == want
    assert counts.queued[0] > 20 and counts.queued[1] > 20
    assert counts.python[0] + counts.python[1] > 0   # (the modes C leaves to Python among them)


@pytest.mark.parametrize("name", ["datacopy_bf16", "eltwise_add", "eltwise_mul_fp32_2blocks",
                                  "eltwise_add_bf16_fp32dest_2blocks", "matmul_2x2x2"])
def test_ttllk_kernels_run_their_queued_unpacr_pacr_in_c(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """tt-llk's kernels, whose unpack thread's UNPACRs (each with FlipSrc) and pack thread's PACRs
    wait at the Wait Gate behind a latched wait: the same output, Src, ADCs, push log and L1 log
    on both paths, equal to tt-llk's golden; C ran them off the queue, and (but for matmul's
    first UNPACRs, pushed with nothing queued: a FlipSrc pushed is Python's, unless its word is
    described already, by a session before in this process, when C runs it as the queue's) none
    is left to Python's ``_execute``."""
    import ttllk_variants as tv
    from test_ttllk_kernels import run

    case = tv.case_or_skip(name)

    def state() -> tuple[object, ...]:
        s = run(case.variant, case.inputs)
        tile = s.tile
        path, state = tile.push_path, tile.coprocessor.state
        return (s.read_memory(case.variant.buffers["Res"].address, case.out_bytes), list(path.log), path.seq,
                list(tile.l1_log), state.srca.data.tolist(), state.srcb.data.tolist(), state.adcs.value.tolist(),
                state.packer.regs.tolist(), tile.coprocessor.unpacker_src_row)

    with monkeypatch.context() as m:
        counts = Queued(m)
        got = state()
    with native.disabled():
        want = state()
    assert got == want
    out = tv.decode(got[0], case.out_format)   # type: ignore[arg-type]
    if case.tolerance is None:
        assert (out == case.golden).all()
    else:
        assert np.isclose(out, case.golden, atol=case.tolerance[0], rtol=case.tolerance[1]).all()
    assert counts.queued[0] >= 8
    assert counts.python[0] <= (2 if name == "matmul_2x2x2" else 0) and counts.python[1] == 0
    if "2blocks" in name:
        assert counts.queued[1] >= 32
