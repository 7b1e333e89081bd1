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

The ``dst`` commands (``dst tile`` / ``stats`` / ``heatmap`` / ``diff``, ``dump dst``, ``pack``)
read Dst as the math configuration says it holds its data, as tt-exalens does (its
``TensixDebug.read_regfile`` decodes Dst in ``ALU_FORMAT_SPEC_REG2_Dstacc``'s format;
tt-exalens ``ttexalens/debug_tensix.py``), not in the window's ``fmt``, which tt-llk never sets
(``math_dst``).  tt-llk programs both fields: ``_llk_math_hw_configure_`` sets
``ALU_ACC_CTRL_Fp32_enabled`` (and ``INT8_math_enabled`` for Int8 / Int32 operands),
``configure_pack`` sets ``ALU_FORMAT_SPEC_REG2_Dstacc`` to the packer's source format
(tt-llk ``llk_math_common.h``, ``cpack_common.h``).  The Matrix Unit writes ``Dst32b`` when
either of the two ``ALU_ACC_CTRL`` bits is set (``UseDst32b``, ``tdbg.tensix.matrix_unit``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tdbg.arch import data_formats
from tdbg.tensix import formats
from tdbg.tensix.state import TensixState


def window_view(state: TensixState, thread: int) -> str:
    """The view the thread's window ``fmt`` converts to (the profile's window table; "" for a
    reserved value or no window)."""
    return state.window.ctrl(thread).view if state.window is not None else ""


def dst_view(state: TensixState, thread: int, storage: str) -> formats.View:
    """The view of ``Dst16b`` (``storage`` ``"dst16"``) or ``Dst32b`` (``"dst32"``) data."""
    view = window_view(state, thread)
    if storage == "dst32":
        return formats.get_view("dst32", "int32" if view == "int32" else "fp32")
    return formats.get_view("dst16", view if view in ("fp16", "int16", "int8") else "bf16")


def src_format(state: TensixState, thread: int, which: str) -> int:
    """The data format code of ``SrcA`` (``which`` ``"srca"``) or ``SrcB``."""
    get = state.config.get
    unit = "SrcA" if which == "srca" else "SrcB"
    if get(f"ALU_FORMAT_SPEC_REG_{unit}_override", thread=thread):
        return get(f"ALU_FORMAT_SPEC_REG_{unit}_val", thread=thread)
    return get("ALU_FORMAT_SPEC_REG0_SrcA" if unit == "SrcA" else "ALU_FORMAT_SPEC_REG1_SrcB", thread=thread)


def src_view(state: TensixState, thread: int, which: str) -> formats.View:
    """The view of ``SrcA`` / ``SrcB`` data (raw for a format that is no Src type)."""
    facts = data_formats.facts(src_format(state, thread, which))
    return formats.get_view("src", facts.src_type if facts and facts.src_type else "raw")


@dataclass(frozen=True)
class MathDst:
    """What the math configuration of a thread says ``Dst`` holds: ``view`` (None when the
    fields name no ``Dst`` type: ``Dstacc`` FP32, TF32 or INT32 with both 32-bit bits clear, as
    at power-on) and the fields it was read from."""

    view: formats.View | None
    fp32_enabled: int
    int8_math_enabled: int
    dstacc: int
    field: str   # the Dstacc field in force (``ALU_FORMAT_SPEC_REG_Dstacc_val`` when overridden)

    def fields(self) -> str:
        """The fields, short (tt-exalens' names: ``Fp32_enabled``, ``Dstacc``)."""
        int8 = f", INT8_math_enabled {self.int8_math_enabled}" if self.int8_math_enabled else ""
        facts = data_formats.facts(self.dstacc)
        name = facts.format.name if facts else f"code {self.dstacc}"
        dstacc = "Dstacc_val" if self.field.endswith("_val") else "Dstacc"
        return f"Fp32_enabled {self.fp32_enabled}{int8}, {dstacc} {name}"

    def differs(self, view: formats.View) -> bool:
        """True when ``view`` reads other data than the configuration says Dst holds: another
        storage, or another type of the same storage (raw bits claim no type)."""
        if self.view is None:
            return False
        return view.storage != self.view.storage or (view.name != "raw" and view.name != self.view.name)


def dst_format(state: TensixState, thread: int) -> tuple[str, int]:
    """The ``Dstacc`` field in force and its data format code: ``ALU_FORMAT_SPEC_REG_Dstacc_val``
    while ``..._override`` is set, else ``ALU_FORMAT_SPEC_REG2_Dstacc`` (as the packer reads it,
    ``tdbg.tensix.pack_conversion.PackerConfig.from_config``)."""
    get = state.config.get
    if get("ALU_FORMAT_SPEC_REG_Dstacc_override", thread=thread):
        return "ALU_FORMAT_SPEC_REG_Dstacc_val", get("ALU_FORMAT_SPEC_REG_Dstacc_val", thread=thread)
    return "ALU_FORMAT_SPEC_REG2_Dstacc", get("ALU_FORMAT_SPEC_REG2_Dstacc", thread=thread)


def math_dst(state: TensixState, thread: int) -> MathDst:
    """The view of ``Dst`` data the math configuration of ``thread``'s config bank names:
    ``Dst32b`` (Integer "32" for an integer ``Dstacc``, else FP32) when
    ``ALU_ACC_CTRL_Fp32_enabled`` or ``ALU_ACC_CTRL_INT8_math_enabled`` is set, else the
    ``Dst16b`` type of ``Dstacc`` (the data-format table's ``dst16_type``: Dst.md "Data types";
    integer formats hold Integer "32" in ``Dst32b``)."""
    get = state.config.get
    fp32 = get("ALU_ACC_CTRL_Fp32_enabled", thread=thread)
    int8 = get("ALU_ACC_CTRL_INT8_math_enabled", thread=thread)
    field, code = dst_format(state, thread)
    facts = data_formats.facts(code)
    if fp32 or int8:
        view: formats.View | None = formats.get_view("dst32", "int32" if int8 or (facts and facts.integer) else "fp32")
    else:
        view = formats.get_view("dst16", facts.dst16_type) if facts and facts.dst16_type else None
    return MathDst(view, fp32, int8, code, field)


def dst_view_in_force(state: TensixState, thread: int) -> formats.View:
    """The default view of the ``dst`` commands: the math configuration's (``math_dst``), else,
    where it names no ``Dst`` type, the thread's window view (``window_view``)."""
    view = math_dst(state, thread).view
    if view is not None:
        return view
    name = window_view(state, thread) or "fp32"
    return formats.get_view("dst32" if name in ("fp32", "int32") else "dst16", name)
