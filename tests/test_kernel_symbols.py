"""A kernel engineer's symbols on ttnn's own kernels (issue 33): the copy reader, the copy writer and
``transpose_wh.cpp`` (``ttmetal_programs.transpose``), built by ``tdbg.ttmetal.kit`` with the
wheel's clang, on the wheel's firmware.

Expected texts are gdb-multiarch 13.1's on the same ELFs, attached to tdbg's stub serving this
program (``target remote | python3 serve.py``, a script that prepares it and calls
``tdbg.rsp.server.serve_stdio``), with ``set schedule-multiple on``, ``inferior 5``, ``file`` the
wheel's ``ncrisc.elf`` and ``add-symbol-file`` the kernel's ELF ``-o`` the offset the kit loaded
it at; then ``break reader_unary_start_id.cpp:33``, ``continue``, ``info locals``.  Needs the
ttnn wheel and tdbg.ttmetal.kit (skips without them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tdbg.session import Session
from tdbg.ttmetal import boot
from tdbg.ttmetal.boot import TtMetalError
from tdbg.ttmetal.program import prepare
from tdbg.commands import execute
from captured import Shell, run, shell
from ttmetal_programs import operations, transpose

#: gdb-multiarch 13.1's ``info locals`` at reader_unary_start_id.cpp:33 (the first stop).  GDB 13.1
#: fails on dfb_in0's last member (``local_dfb_interface_ = <error reading variable: invalid dwarf2
#: offset 0x...>`` and no closing brace: a reference member of a value whose only piece is its
#: first two bytes); tdbg prints it ``<optimized out>`` as GDB does any member no piece gives.
GDB_LOCALS = """\
src_addr = <optimized out>
num_tiles = 2
start_id = 0
cb_id_in0 = 0
noc = {static INVALID_TXN_ID = 4294967295, noc_id_ = 0 '\\000'}
dfb_in0 = {static L1_UNCACHED_OFFSET = 0, logical_dfb_id_ = 0, local_dfb_interface_ = <optimized out>}
onetile = 1
tile_bytes = 2048
src_args = {static args_config = <optimized out>, static is_sharded = false, static is_dram = true, \
static rank_is_crta = false, static num_banks_is_crta = false, static tensor_shape_is_crta = false, \
static shard_shape_is_crta = false, static bank_coords_is_crta = false, static page_size_is_crta = false, \
static AlignedPageSizeCTAOffset = 1, static AlignedPageSize = 2048, static RankCTAOffset = 2, \
static NumBanksCTAOffset = 3, static RankCT = 0, static NumBanksRawCT = 0, static NumBanksCT = 0, \
static is_shard_contiguous = false, static PhysicalNumBanksCT = <optimized out>, static TensorShapeCTAOffset = 4, \
static ShardShapeCTAOffset = 4, static BankCoordsCTAOffset = 4, static NumArgsCT = <optimized out>, crta_offset_rt_ = 0}
s = {<InterleavedAddrGen<true>> = {static is_dram = <optimized out>, bank_base_address = <optimized out>, \
page_size = 2048, aligned_page_size = 2048}, aligned_page_size = 2048}
end_id = <optimized out>
"""


def firmware() -> Path:
    try:
        return boot.firmware_dir()
    except TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")


def started() -> Shell:
    ops, fw = operations(), firmware()
    s = Session({})
    prepare(s, transpose(ops), fw)
    return shell(s)


@pytest.fixture(scope="module")
def at_reader_line_33() -> Shell:
    sh = started()
    run(sh, "thread NC", "break reader_unary_start_id.cpp:33")
    assert "hit Breakpoint 1, kernel_main () at " in run(sh, "continue")
    return sh


# -- item 2: constants and objects ----------------------------------------------------------------

def test_info_locals_evaluates_constants_pieces_and_static_members(at_reader_line_33: Shell) -> None:
    assert run(at_reader_line_33, "info locals") == GDB_LOCALS


def test_print_a_stack_value_a_composite_and_their_members(at_reader_line_33: Shell) -> None:
    sh = at_reader_line_33
    assert run(sh, "print tile_bytes") == "$1 = 2048\n"               # DW_OP_constu 0x800, DW_OP_stack_value
    assert run(sh, "print/x s") == ("$2 = {<InterleavedAddrGen<true>> = {static is_dram = <optimized out>, "
                                     "bank_base_address = <optimized out>, page_size = 0x800, aligned_page_size = 0x800}, "
                                     "aligned_page_size = 0x800}\n")   # GDB 13.1's, as above
    assert run(sh, "print s.page_size") == "$3 = 2048\n"              # a member of the base class
    assert run(sh, "print noc.INVALID_TXN_ID") == "$4 = 4294967295\n"  # a static member's DW_AT_const_value
    assert run(sh, "print cb_id_in0 + onetile") == "$5 = 1\n"


# -- item 3: kernel lines made of inlined calls take breakpoints -----------------------------------

def _call_sites(elf: Path, line: int, bias: int) -> list[list[int]]:
    """Where the code of each inlined call made on transpose_wh.cpp:``line`` starts (each part,
    the first first), read from the kernel ELF's DWARF with pyelftools (a
    DW_TAG_inlined_subroutine's DW_AT_low_pc or its DW_AT_ranges, plus the offset the kit loaded
    the code at)."""
    from elftools.elf.elffile import ELFFile

    calls = []
    with open(elf, "rb") as fh:
        dwarf = ELFFile(fh).get_dwarf_info(relocate_dwarf_sections=False)
        for cu in dwarf.iter_CUs():
            entries = dwarf.line_program_for_CU(cu)["file_entry"]
            names = {i + (cu.header.version < 5): Path(e.name.decode()).name for i, e in enumerate(entries)}
            for die in cu.iter_DIEs():
                a = die.attributes
                if die.tag != "DW_TAG_inlined_subroutine" or a.get("DW_AT_call_line") is None:
                    continue
                if a["DW_AT_call_line"].value == line and names.get(a["DW_AT_call_file"].value) == "transpose_wh.cpp":
                    if "DW_AT_low_pc" in a:
                        calls.append([a["DW_AT_low_pc"].value + bias])
                    else:
                        ranges = dwarf.range_lists().get_range_list_at_offset(a["DW_AT_ranges"].value, cu=cu)
                        calls.append(sorted(r.begin_offset + bias for r in ranges if hasattr(r, "begin_offset")))
    return calls


def _kernel(sh: Shell, core: str) -> tuple[Path, int]:
    """The kernel ELF a core runs and the offset its code was moved by."""
    from tdbg.emu.elf import ElfImage

    s = sh[0].session
    moved = s.symbol_files[core][0].image
    linked = ElfImage.load(moved.path)
    return moved.path, min(lo for lo, _ in moved.exec_ranges) - min(lo for lo, _ in linked.exec_ranges)


def test_break_on_a_kernel_line_of_inlined_calls_and_until_next_stop_at_them() -> None:
    sh = started()
    elf, bias = _kernel(sh, "T1")
    ((math_site,),) = _call_sites(elf, 29, bias)             # transpose_tile(...) on the math thread
    unpack_elf, unpack_bias = _kernel(sh, "T0")
    ((unpack_site, *_),) = _call_sites(unpack_elf, 29, unpack_bias)
    run(sh, "thread T1")
    assert run(sh, "break transpose_wh.cpp:29") == (
        f"Breakpoint 1 at {math_site:#x}: transpose_wh.cpp:29. (2 locations)\n"
        "Locations on T1, T0; none on T2, B, NC (no code for transpose_wh.cpp:29 there).\n")
    assert {f"{unpack_site:#010x}", f"{math_site:#010x}"} <= set(run(sh, "info breakpoints").split())
    run(sh, "delete", "break transpose_wh.cpp:29 thread 2")
    stop = run(sh, "continue")
    assert "hit Breakpoint 2, kernel_main () at " in stop and stop.endswith(
        "transpose_wh.cpp:29\n29\t        transpose_tile(tt::CBIndex::c_0, 0, 0);\n")
    assert sh[0].session.pc == math_site
    ((first, *later),) = _call_sites(elf, 30, bias)          # tile_regs_commit(): its code in parts
    assert run(sh, "until") == "30\t        tile_regs_commit();\n"
    assert first < math_site and sh[0].session.pc in later   # the part after transpose_tile's code
    run(sh, "continue")                                      # the second tile: line 29 again
    assert run(sh, "next") == "30\t        tile_regs_commit();\n"


# -- item 9: frames below a kernel, firmware sources, thread-specific breakpoints ------------------

#: gdb-multiarch 13.1's ``bt`` at the same stop ({ttnn}: the wheel's unpacked tree).
GDB_BT = """\
#0  kernel_main () at {ttnn}/ttnn/cpp/ttnn/operations/data_movement/copy/device/kernels/reader_unary_start_id.cpp:33
#1  0x0000c2ac in _start () at {ttnn}/tt_metal/hw/firmware/src/tt-1xx/ncrisck.cc:73
#2  0x0000609c in main (argc=<optimized out>, argv=<optimized out>) at /project/tt_metal/hw/firmware/src/tt-1xx/ncrisc.cc:186
"""


def test_bt_from_a_kernel_names_the_firmware_frames_from_the_firmwares_dwarf(at_reader_line_33: Shell) -> None:
    from tdbg.toolchain import ttnn

    tree = ttnn.tree()
    assert run(at_reader_line_33, "bt") == GDB_BT.format(ttnn=tree.root / "ttnn")
    assert run(at_reader_line_33, "show substitute-path") == (      # set by loading the wheel's firmware
        f"List of all source path substitution rules:\n  `/project/tt_metal' -> `{tree.tt_metal}'.\n")
    source = (tree.tt_metal / "hw/firmware/src/tt-1xx/ncrisc.cc").read_text().splitlines()[185]
    assert run(at_reader_line_33, "up 2").endswith(f"ncrisc.cc:186\n186\t{source}\n")
    assert run(at_reader_line_33, "info args") == "argc = <optimized out>\nargv = <optimized out>\n"
    run(at_reader_line_33, "frame 0")


def test_info_breakpoints_says_stop_only_in_thread_as_gdb() -> None:
    # gdb-multiarch 13.1 (attached to tdbg's stub, demo.elf): 'break main thread 1', 'break fill_row
    # thread 1 if row == 2' list as "... demo.c:36 thread 1\n\tstop only in thread 1" and
    # "... demo.c:27 thread 1\n\tstop only if row == 2\n\tstop only in thread 1".
    from tdbg.toolchain.zig import firmware_dir

    sh = shell(firmware_dir() / "demo.c")
    run(sh, "break main thread 1", "break fill_row thread 1 if row == 2")
    listing = run(sh, "info breakpoints").splitlines()
    assert listing[1].endswith("demo.c:36 thread 1") and listing[2] == "\tstop only in thread 1"
    assert listing[3].endswith("demo.c:27 thread 1") and listing[4:] == ["\tstop only if row == 2", "\tstop only in thread 1"]


def test_a_code_label_inside_a_function_names_the_function_as_gdb() -> None:
    # gdb-multiarch 13.1 -batch on the wheel's ncrisc.elf: 'info symbol 0x609c' and 'info symbol
    # 0x6034' (where the zero-size NOTYPE label .NO_CB677 is, inside main's 1124 bytes).
    s = Session({"NC": firmware() / "ncrisc" / "ncrisc.elf"})
    assert execute(s, "info symbol 0x609c") == "main + 900 in section .text\n"
    assert execute(s, "info symbol 0x6034") == "main + 796 in section .text\n"


#: gdb-multiarch 13.1's ``info address`` of tile_bytes, s, num_tiles, src_addr, kernel_main at the
#: same stop.  GDB prints a location list's base address as the file has it, before the move
#: ``add-symbol-file -o`` makes (0x63a8); tdbg's symbol file is the moved code, so its base is
#: that plus the offset.
GDB_INFO_ADDRESS = """\
Symbol "tile_bytes" is multi-location:
  Base address 0x63a8  Range 0xc6f0-0xc7f8: a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value

.
Symbol "s" is multi-location:
  Base address 0x63a8  Range 0xc6f0-0xc6fc: an empty 4-byte piece, and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece], and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece], and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece]
  Range 0xc6fc-0xc7e8: a variable in $a2 [4-byte piece], and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece], and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece], and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece]
  Range 0xc7e8-0xc7f8: an empty 4-byte piece, and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece], and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece], and a complex DWARF expression:
     0: DW_OP_constu 2048
     3: DW_OP_stack_value
    [4-byte piece]
.
Symbol "num_tiles" is multi-location:
  Base address 0x63a8  Range 0xc6ec-0xc6f4: a variable in $a1
.
Symbol "src_addr" is multi-location:
  Base address 0x63a8  Range 0xc6fc-0xc7e8: a variable in $a2
.
Symbol "kernel_main()" is a function at address 0xc6d0.
"""


def test_info_address_of_constants_pieces_and_location_lists(at_reader_line_33: Shell) -> None:
    sh = at_reader_line_33
    _, bias = _kernel(sh, "NC")
    names = ("tile_bytes", "s", "num_tiles", "src_addr", "kernel_main")
    expected = GDB_INFO_ADDRESS.replace("Base address 0x63a8", f"Base address {0x63a8 + bias:#x}")
    assert run(sh, *(f"info address {name}" for name in names)) == expected


def test_info_line_finds_a_kernel_line_from_the_firmware() -> None:
    # gdb-multiarch 13.1 looks FILE:LINE up in every objfile: its text at the stop above, the same
    # before NC has left its firmware
    from tdbg.toolchain import ttnn

    sh = started()
    reader = ttnn.tree().operations / "data_movement/copy/device/kernels/reader_unary_start_id.cpp"
    assert run(sh, "thread NC", "info line reader_unary_start_id.cpp:33").splitlines()[-1] == (
        f'Line 33 of "{reader}" starts at address 0xc6f0 <_Z11kernel_mainv+32> and ends at 0xc6f4 <_Z11kernel_mainv+36>.')


def test_optimized_out_values_print_so_and_refuse_arithmetic(at_reader_line_33: Shell) -> None:
    # gdb-multiarch 13.1 at the same stop: p end_id, p s.bank_base_address, p s.page_size * 2, up 2,
    # p argc, p index, down 2, x/x src_addr
    sh = at_reader_line_33
    assert run(sh, "output end_id") == "<optimized out>"
    assert run(sh, "output s.bank_base_address") == "<optimized out>"
    assert run(sh, "output s.page_size * 2") == "4096"
    run(sh, "up 2")
    assert run(sh, "output argc") == "<optimized out>"
    assert run(sh, "output index") == "1"                   # a firmware local, from the firmware's DWARF
    run(sh, "down 2")
    assert run(sh, "x/x src_addr") == "value has been optimized out\n"
    assert run(sh, "output src_addr + 1") == "value has been optimized out\n"


def test_completion_offers_kernel_names_files_and_locals() -> None:
    from tdbg.commands.registry import ROOT

    sh = started()
    interp = sh[0]
    run(sh, "thread NC")                                    # still in its firmware: the kernel's names too
    complete_break = ROOT.lookup("break").complete
    assert complete_break is not None
    assert "reader_unary_start_id.cpp:" in complete_break(interp, "reader_un")   # GDB completes FILE:
    assert "kernel_main()" in complete_break(interp, "kernel_m")
    run(sh, "break reader_unary_start_id.cpp:33", "continue")
    complete_print = ROOT.lookup("print").complete
    assert complete_print is not None and "tile_bytes" in complete_print(interp, "tile_b")   # a local


#: gdb-multiarch 13.1's ``ptype dfb_in0`` at the same stop: a static member, a reference member,
#: constructors (no return type), member functions, the class's own typedef after a blank line.
GDB_PTYPE_DFB = """\
type = class DataflowBuffer {
  private:
    static const uint32_t L1_UNCACHED_OFFSET;
    uint16_t logical_dfb_id_;
    DFBInterface &local_dfb_interface_;

  public:
    DataflowBuffer(RelayDFBBindingToken);
    DataflowBuffer(uint16_t);
    uint16_t get_id(void) const;
    uint32_t get_entry_size(void) const;
    uint32_t get_stride_size(void) const;
    uint32_t get_total_num_entries(void) const;
    uint32_t get_total_size_bytes(void) const;
    uint32_t get_local_num_entries(void) const;
    uint32_t get_local_size_bytes(void) const;
    uint32_t get_ring_span_bytes(void) const;
    uint32_t get_ring_span_num_entries(void) const;
    uint16_t get_producer_share(void) const;
    uint16_t get_consumer_share(void) const;
    uint16_t get_producer_stride_tiles(void) const;
    uint16_t get_consumer_stride_tiles(void) const;
    void reserve_back(uint16_t);
    void push_back(uint16_t);
    void wait_front(uint16_t);
    void pop_front(uint16_t);
    bool pages_reservable_at_back(int32_t) const;
    bool pages_available_at_front(int32_t) const;
    uint32_t get_tile_size(void) const;
    uint32_t get_tile_r_dim(void) const;
    uint32_t get_tile_c_dim(void) const;
    uint32_t get_tile_hw(void) const;
    uint32_t get_tile_num_faces(void) const;
    uint32_t get_face_r_dim(void) const;
    uint32_t get_partial_face(void) const;
    uint32_t get_narrow_tile(void) const;
    uint32_t get_num_faces_r_dim(void) const;
    uint32_t get_num_faces_c_dim(void) const;
    DataFormat get_dataformat(void) const;
    DataFormat get_unpack_dst_format(void) const;
    DataFormat get_pack_src_format(void) const;
    DataFormat get_pack_dst_format(void) const;
    void finish(void);
    void write_barrier(const Noc &) const;
    uint32_t get_write_ptr(void) const;
    uint32_t get_read_ptr(void) const;
    void evil_set_write_ptr(uint32_t);
    void evil_set_read_ptr(uint32_t);
  private:
    void reserve_back_impl(uint16_t);
    void push_back_impl(uint16_t);
    void wait_front_impl(uint16_t);
    void pop_front_impl(uint16_t);
    uint32_t get_write_ptr_impl(void) const;
    uint32_t get_read_ptr_impl(void) const;
    uint32_t get_noc_write_addr(void) const;
    uint32_t get_noc_read_addr(void) const;
    void write_barrier_impl(const Noc &) const;
    uint32_t address_units_to_bytes(uint32_t) const;

  public:
    typedef LocalCBInterface DFBInterface;
}
"""


def test_ptype_of_a_class_with_statics_constructors_and_typedefs(at_reader_line_33: Shell) -> None:
    assert run(at_reader_line_33, "ptype dfb_in0") == GDB_PTYPE_DFB
    text = run(at_reader_line_33, "ptype noc")      # GDB 13.1: a static member function says so
    assert "\n    static uint32_t l1_cached_view(uint32_t);\n" in text and "\n    Noc(uint8_t);\n" in text
