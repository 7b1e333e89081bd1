"""GDB 13 parity on C++ firmware in tt-llk's shapes (issue 25 items 2, 3 and 5):
``tests/firmware/llk_kernel.cpp`` built at -O2 three times (-DTRISC=0|1|2, for T0, T1, T2, as
tt-llk builds one source per TRISC): inline templates in namespaces, a class, a class template,
an enum class, a ``RuntimeParams`` read through a const reference, an entry value.

Every expected text is gdb-multiarch 13.1's on the same ELF: the static ones (names, listings,
breakpoint locations, ptype) with ``gdb-multiarch -batch -ex CMD llk_kernel.elf``, the running
ones with gdb-multiarch attached to tdbg's stub (``target remote | tdbg --rsp-stdio``), where GDB
reads the DWARF itself and the stub only gives registers and memory.  The ELF's source path is
the absolute path of the file (the toolchain compiles it so); ``{src}`` stands for it.  Where a
tile of three programs differs from one GDB program (a FILE:LINE that some cores lack), the text
is GDB's with several inferiors (issue 25 item 3) and tdbg's extra line says which cores got
none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tdbg.toolchain.zig import build
from tdbg.session import Session
from captured import run, shell

SOURCE = Path(__file__).parent / "firmware" / "llk_kernel.cpp"
SRC = str(SOURCE.resolve())


def elf(trisc: int) -> Path:
    return build(SOURCE, ("-O2", f"-DTRISC={trisc}"), core=f"T{trisc}")


@pytest.fixture(scope="module")
def elfs() -> dict[str, Path]:
    return {f"T{t}": elf(t) for t in range(3)}


def text(template: str) -> str:
    return template.replace("{src}", SRC)


# -- item 2: C++ names as GDB takes them -------------------------------------------------------

def test_break_on_cxx_names_as_gdb_takes_them(elfs: dict[str, Path]) -> None:
    sh = shell(Session({"T0": elfs["T0"]}))
    assert run(sh, "break _llk_math_matmul_") == text("Breakpoint 1 at 0x6110: file {src}, line 57.\n")
    assert run(sh, "break ckernel::math::set_dst_write_addr") == "Breakpoint 2 at 0x613c: ckernel::math::set_dst_write_addr. (2 locations)\n"
    assert run(sh, "break 'run_kernel(RuntimeParams const&)'") == text("Breakpoint 3 at 0x60e8: file {src}, line 78.\n")
    assert run(sh, "break '_llk_math_matmul_<(MathFidelity)4, 0>'") == text("Breakpoint 4 at 0x6110: file {src}, line 57.\n")
    assert run(sh, "break 'ckernel::_llk_math_matmul_<(MathFidelity)4, 0>(unsigned int, unsigned int)'") == \
        text("Breakpoint 5 at 0x6110: file {src}, line 57.\n")
    assert run(sh, "break set_dst_write_addr") == "Breakpoint 6 at 0x613c: set_dst_write_addr. (2 locations)\n"
    assert run(sh, "break Counter::bump") == text("Breakpoint 7 at 0x6140: file {src}, line 48.\n")
    assert run(sh, "break 'run_kernel(const RuntimeParams &)'") == text("Breakpoint 8 at 0x60e8: file {src}, line 78.\n")
    assert run(sh, "break matmul_") == 'Function "matmul_" not defined.\n'


def test_info_breakpoints_names_each_location_by_its_function(elfs: dict[str, Path]) -> None:
    sh = shell(Session({"T0": elfs["T0"]}))
    run(sh, "break _llk_math_matmul_", "break ckernel::math::set_dst_write_addr", "break 'run_kernel(RuntimeParams const&)'")
    assert run(sh, "info breakpoints") == text(
        "Num     Type           Disp Enb Address    What\n"
        "1       breakpoint     keep y   0x00006110 in ckernel::_llk_math_matmul_<(MathFidelity)4, 0>(unsigned int, unsigned int) at {src}:57\n"
        "2       breakpoint     keep y   <MULTIPLE> \n"
        "2.1                         y   0x0000613c in ckernel::math::set_dst_write_addr(unsigned int) at {src}:33\n"
        "2.2                         y   0x00006174 in ckernel::math::set_dst_write_addr(unsigned int) at {src}:33\n"
        "3       breakpoint     keep y   0x000060e8 in run_kernel(RuntimeParams const&) at {src}:78\n")


def test_symbol_listings_and_rbreak(elfs: dict[str, Path]) -> None:
    sh = shell(Session({"T0": elfs["T0"]}))
    assert run(sh, "info functions") == text(
        "All defined functions:\n\nFile {src}:\n"
        "69:\tuint32_t combine(unsigned int, unsigned int);\n"
        "89:\tint main();\n"
        "64:\tvoid record(unsigned int);\n"
        "76:\tvoid run_kernel(RuntimeParams const&);\n"
        "\nNon-debugging symbols:\n0x000061fc  __text_end\n")
    assert run(sh, "info functions comb|rec") == 'All functions matching regular expression "comb|rec":\n'   # BRE: | is literal
    assert run(sh, "info functions ^ckernel") == 'All functions matching regular expression "^ckernel":\n'  # inline only
    assert run(sh, "info variables ckernel") == text(
        'All variables matching regular expression "ckernel":\n\nFile {src}:\n'
        "52:\tckernel::Counter ckernel::counter;\n"
        "27:\tvolatile uint32_t ckernel::dst_write_addr;\n"
        "51:\tckernel::Buffer<unsigned int, 4> ckernel::faces;\n"
        "28:\tvolatile uint32_t ckernel::trace[16];\n")
    assert run(sh, "info variables") .endswith(
        "24:\tRuntimeParams params;\n\nNon-debugging symbols:\n0x00006304  __data_start\n0x00006304  tdbg_exit_code\n"
        "0x0000631c  __bss_start\n0x0000631c  __data_end\n0x00006374  __bss_end\n0x00006374  __l1_end\n")
    # GDB sorts the files by name: where zig's stdint.h sorts depends on where zig is installed
    types = run(sh, "info types").split("\n\n")
    assert text("File {src}:\n15:\tMathFidelity;\n17:\tRuntimeParams;\n\tckernel\n38:\tckernel::Buffer<unsigned int, 4>;\n"
                "44:\tckernel::Counter;\n\tckernel::math\n\t__ARRAY_SIZE_TYPE__\n\tint\n\tunsigned char\n"
                "\tunsigned int").rstrip("\n") in [block.rstrip("\n") for block in types]
    assert run(sh, "info types Counter") == text('All types matching regular expression "Counter":\n\nFile {src}:\n44:\tckernel::Counter;\n')
    assert run(sh, "rbreak ^comb") == text("Breakpoint 1 at 0x609c: file {src}, line 71.\nuint32_t combine(unsigned int, unsigned int);\n")


def test_demangled_names_where_gdb_shows_them(elfs: dict[str, Path]) -> None:
    sh = shell(Session({"T0": elfs["T0"]}))
    assert run(sh, "info symbol 0x6084") == "combine(unsigned int, unsigned int) in section .text\n"
    assert run(sh, "info symbol 0x6118") == "run_kernel(RuntimeParams const&) + 72 in section .text\n"
    assert run(sh, "p combine") == "$1 = {uint32_t (uint32_t, uint32_t)} 0x6084 <combine(unsigned int, unsigned int)>\n"
    assert run(sh, "p &ckernel::counter") == "$2 = (ckernel::Counter *) 0x6314 <ckernel::counter>\n"
    # print asm-demangle is off by default in GDB 13: disassembly keeps the linkage name
    assert run(sh, "x/2i 0x6084") == "   0x6084 <_Z7combinejj>:\tadd\tsp,sp,-16\n   0x6088 <_Z7combinejj+4>:\tsw\tra,12(sp)\n"
    assert run(sh, "set print asm-demangle on", "x/1i 0x6088") == \
        "   0x6088 <combine(unsigned int, unsigned int)+4>:\tsw\tra,12(sp)\n"


# -- item 3: breakpoints on lines, per core -----------------------------------------------------

def test_file_line_on_a_tile_takes_the_cores_that_have_the_line(elfs: dict[str, Path]) -> None:
    sh = shell(Session(elfs))
    name = SOURCE.name
    # line 93 has code in T0 only (GDB with three inferiors: one location; no core moves on)
    assert run(sh, f"break {name}:93") == text(
        f"Breakpoint 1 at 0x61bc: file {{src}}, line 93.\nLocations on T0; none on T1, T2 (no code for {name}:93 there).\n")
    # line 92 has code in no core: every core's code for the next line that has some (93: T0)
    assert run(sh, f"break {name}:92") == text(
        f"Breakpoint 2 at 0x61bc: file {{src}}, line 93.\nLocations on T0; none on T1, T2 (no code for {name}:93 there).\n")
    assert run(sh, f"break {name}:96") == \
        f"Breakpoint 3 at 0x61cc: {name}:96. (2 locations)\nLocations on T0, T1; none on T2 (no code for {name}:96 there).\n"
    assert run(sh, f"break {name}:94") == \
        f"Breakpoint 4 at 0x61cc: {name}:96. (2 locations)\nLocations on T0, T1; none on T2 (no code for {name}:96 there).\n"
    assert run(sh, f"break {name}:98") == f"Breakpoint 5 at 0x61d0: {name}:98. (3 locations)\n"
    assert run(sh, "info breakpoints 3") == text(
        "Num     Type           Disp Enb Address    What\n3       breakpoint     keep y   <MULTIPLE> \n"
        "3.1                         y   0x000061cc in main() at {src}:96 (T0)\n"
        "3.2                         y   0x0000b1bc in main() at {src}:96 (T1)\n")


def test_file_line_in_an_inline_function_has_a_location_per_inlined_call(elfs: dict[str, Path]) -> None:
    sh = shell(Session({"T0": elfs["T0"]}))
    assert run(sh, f"break {SOURCE.name}:33") == f"Breakpoint 1 at 0x613c: {SOURCE.name}:33. (2 locations)\n"
    assert [loc.address for loc in sh[0].session.breakpoints[1].locations] == [0x613C, 0x6174]


# -- item 5: C++ values -------------------------------------------------------------------------

def test_references_entry_values_and_frames_as_gdb_shows_them(elfs: dict[str, Path]) -> None:
    sh = shell(Session({"T0": elfs["T0"]}))
    run(sh, "set var params.KT_DIM = 2", "set var params.CT_DIM = 1", "set var params.num_faces = 4", "break record", "continue")
    assert run(sh, "continue") == text(
        "\nBreakpoint 1, record (value=value@entry=2) at {src}:66\n66\t    ckernel::trace[value & 15] = value;\n")
    assert run(sh, "bt") == text(
        "#0  record (value=value@entry=2) at {src}:66\n"
        "#1  0x000060b4 in combine (a=2, b=b@entry=5) at {src}:72\n"
        "#2  0x00006160 in run_kernel (p=...) at {src}:84\n"
        "#3  0x000061e0 in main () at {src}:98\n")
    assert run(sh, "up", "p b", "p a") == text(
        "#1  0x000060b4 in combine (a=2, b=b@entry=5) at {src}:72\n72\t    record(a);\n$1 = 5\n$2 = 2\n")
    assert run(sh, "up", "p p", "p p.KT_DIM", "p *&p") == text(
        "#2  0x00006160 in run_kernel (p=...) at {src}:84\n84\t    uint32_t sum = combine(p.KT_DIM, 5);\n"
        "$3 = (const RuntimeParams &) @0x6308: {KT_DIM = 2, CT_DIM = 1, num_faces = 4}\n$4 = 2\n"
        "$5 = {KT_DIM = 2, CT_DIM = 1, num_faces = 4}\n")
    assert run(sh, "whatis p", "info args") == "type = const RuntimeParams &\np = @0x6308: {KT_DIM = 2, CT_DIM = 1, num_faces = 4}\n"
    assert run(sh, "ptype p") == "type = const struct RuntimeParams {\n    uint32_t KT_DIM;\n    uint32_t CT_DIM;\n    uint32_t num_faces;\n} &\n"


def test_ptype_of_classes_templates_and_enums(elfs: dict[str, Path]) -> None:
    sh = shell(Session({"T0": elfs["T0"]}))
    assert run(sh, "ptype ckernel::counter") == (
        "type = class ckernel::Counter {\n  public:\n    uint32_t count;\n    uint32_t step;\n\n    void bump(void);\n}\n")
    assert run(sh, "ptype ckernel::faces") == (
        "type = struct ckernel::Buffer<unsigned int, 4> [with T = unsigned int] {\n    T data[4];\n    int used;\n"
        "  public:\n    void push(T);\n}\n")
    assert run(sh, "whatis ckernel::faces") == "type = ckernel::Buffer<unsigned int, 4>\n"
    assert run(sh, "ptype MathFidelity") == ("type = enum class MathFidelity : unsigned char {MathFidelity::LoFi, "
                                            "MathFidelity::HiFi2 = 2, MathFidelity::HiFi3, MathFidelity::HiFi4}\n")
    assert run(sh, "ptype run_kernel") == "type = void (const RuntimeParams &)\n"


def test_print_pretty_elements_repeats_and_listsize(elfs: dict[str, Path]) -> None:
    sh = shell(Session({"T0": elfs["T0"]}))
    assert run(sh, "p ckernel::counter") == "$1 = {count = 0, step = 3}\n"
    assert run(sh, "set print pretty on", "p ckernel::counter", "show print pretty") == \
        "$2 = {\n  count = 0,\n  step = 3\n}\nPretty formatting of structures is on.\n"
    assert run(sh, "p ckernel::faces") == "$3 = {\n  data = {0, 0, 0, 0},\n  used = 0\n}\n"
    assert run(sh, "p ckernel::trace") == "$4 = {0 <repeats 16 times>}\n"
    assert run(sh, "set print repeats unlimited", "set print elements 4", "p ckernel::trace") == "$5 = {0, 0, 0, 0...}\n"
    assert run(sh, "set listsize 3", "list combine") == "69\t__attribute__((noinline)) uint32_t combine(uint32_t a, uint32_t b)\n70\t{\n71\t    record(a + b);\n"
    assert run(sh, "show listsize") == "Number of source lines gdb will list by default is 3.\n"


def test_completion_offers_the_names_gdb_completes(elfs: dict[str, Path]) -> None:
    """gdb-multiarch's ``complete b comb`` etc. on the same ELF."""
    from prompt_toolkit.document import Document

    from tdbg.cli.completion import TdbgCompleter

    sh = shell(Session({"T0": elfs["T0"]}))
    completer = TdbgCompleter(sh[0])

    def complete(line: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(line), None)]   # type: ignore[arg-type]

    assert complete("b comb") == ["combine(unsigned int, unsigned int)"]
    assert complete("b rec") == ["record(unsigned int)"]
    assert complete("p ckernel::") == ["ckernel::Buffer<unsigned int, 4>", "ckernel::Counter", "ckernel::counter",
                                       "ckernel::dst_write_addr", "ckernel::faces", "ckernel::math", "ckernel::trace"]
    assert complete("b ma") == ["main", "main()"]
    assert complete("p para") == ["params"]


def test_a_breakpoint_on_an_inlined_function_stops_in_its_inline_frame(elfs: dict[str, Path]) -> None:
    """gdb-multiarch attached to the stub: ``Breakpoint 1.1`` (a location of several), the inline
    frame of the function the breakpoint names shown (GDB's stopped_by_user_bp_inline_frame),
    its namespaces kept, and the parameters the inlined copy lost (``tile``) from its origin."""
    sh = shell(Session({"T0": elfs["T0"]}))
    run(sh, "set var params.KT_DIM = 2", "set var params.CT_DIM = 1", "set var params.num_faces = 4",
        "break ckernel::math::set_dst_write_addr")
    assert run(sh, "continue") == text(
        "\nBreakpoint 1.1, ckernel::math::set_dst_write_addr (addr=64) at {src}:33\n33\t    dst_write_addr = addr;\n")
    assert run(sh, "bt") == text(
        "#0  ckernel::math::set_dst_write_addr (addr=64) at {src}:33\n"
        "#1  ckernel::_llk_math_matmul_<(MathFidelity)4, 0> (kt=2, tile=<optimized out>) at {src}:58\n"
        "#2  run_kernel (p=...) at {src}:80\n"
        "#3  0x000061e0 in main () at {src}:98\n")
