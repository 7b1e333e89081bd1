"""Which number view the data in ``Dst`` and ``SrcA`` / ``SrcB`` is read in when the user names
none (``print dst32[0][1]``, ``x/16wf dst[0]``, ``dst tile 0``): the format the configuration
of the current thread says the data has.

* ``Dst``: the thread's window format, ``RISC_DEST_ACCESS_CTRL_SEC[thread].fmt`` (BlackholeA0
  ``TensixCoprocessor/Dst.md``, "RISCV access to Dst"), as firmware on that core would read
  the data.  ``Dst32b`` elements read as Integer "32" when ``fmt`` is 1 (int32), else as FP32
  (``Dst32b`` holds no other type).  ``Dst16b`` elements read as FP16 (``fmt`` 2), Integer
  "16" (4), Integer "8" (5), else BF16: the 16-bit formats have no window of their own under
  ``fmt`` 0 / 1 / 3, and the high half of a ``Dst32b`` FP32 element is its BF16 (Dst.md's
  layouts put sign, 7 mantissa bits and the exponent there).
* ``SrcA`` / ``SrcB``: the Unpacker's data format code for that register
  (``ALU_FORMAT_SPEC_REG0_SrcA`` / ``ALU_FORMAT_SPEC_REG1_SrcB``, or ``..._val`` while
  ``..._override`` is set, as ``matrix_unit`` reads them), mapped to the Src type it lands as
  (WormholeB0 ``TensixCoprocessor/SrcASrcB.md``, "Data types"): FP32 and TF32 as TF32, BF16
  and the BFP formats as BF16, FP16 and the BFPa formats as FP16, FP8, Integer "8",
  Integer "16"; Integer "32" is no Src type, so its data shows as raw bits.
"""

from __future__ import annotations

from tdbg.tensix import formats
from tdbg.tensix.packer import Fmt
from tdbg.tensix.tile import TensixState

#: ``RISC_DEST_ACCESS_CTRL_SEC[].fmt`` -> the view the window converts to (Dst.md).
WINDOW_VIEW = {0: "fp32", 1: "int32", 2: "fp16", 3: "bf16", 4: "int16", 5: "int8"}
_DST16_VIEW = {2: "fp16", 4: "int16", 5: "int8"}
_SRC_VIEW = {
    Fmt.FP32: "tf32", Fmt.TF32: "tf32",
    Fmt.BF16: "bf16", Fmt.BFP8: "bf16", Fmt.BFP4: "bf16", Fmt.BFP2: "bf16",
    Fmt.FP16: "fp16", Fmt.BFP8A: "fp16", Fmt.BFP4A: "fp16", Fmt.BFP2A: "fp16",
    Fmt.FP8: "fp8", Fmt.INT8: "int8", Fmt.INT16: "int16",
}


def window_fmt(state: TensixState, thread: int) -> int:
    """The thread's ``RISC_DEST_ACCESS_CTRL_SEC[thread].fmt``."""
    return state.window.ctrl(thread).fmt


def dst_view(state: TensixState, thread: int, storage: str) -> formats.View:
    """The view of ``Dst16b`` (``storage`` ``"dst16"``) or ``Dst32b`` (``"dst32"``) data."""
    fmt = window_fmt(state, thread)
    if storage == "dst32":
        return formats.get_view("dst32", "int32" if fmt == 1 else "fp32")
    return formats.get_view("dst16", _DST16_VIEW.get(fmt, "bf16"))


def src_format(state: TensixState, thread: int, which: str) -> int:
    """The data format code of ``SrcA`` (``which`` ``"srca"``) or ``SrcB``."""
    get = state.config.get
    unit = "SrcA" if which == "srca" else "SrcB"
    if get(f"ALU_FORMAT_SPEC_REG_{unit}_override", thread=thread):
        return get(f"ALU_FORMAT_SPEC_REG_{unit}_val", thread=thread)
    return get("ALU_FORMAT_SPEC_REG0_SrcA" if unit == "SrcA" else "ALU_FORMAT_SPEC_REG1_SrcB", thread=thread)


def src_view(state: TensixState, thread: int, which: str) -> formats.View:
    """The view of ``SrcA`` / ``SrcB`` data (raw for a format that is no Src type)."""
    return formats.get_view("src", _SRC_VIEW.get(src_format(state, thread, which), "raw"))
