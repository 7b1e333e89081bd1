"""DebugInfo on the demo firmware: lines, functions, prologues, variables, backtraces.

Expected values come from the source text (line numbers found by marker strings), the ELF
symbol table and capstone's disassembly, never from the code under test.
"""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

import capstone
import pytest

from tdbg.commands import Interpreter
from tdbg.symbols.debuginfo import DebugInfo
from tdbg.expr import Kind, type_name
from tdbg.session import Session
from tdbg.toolchain.zig import compile_command, firmware_dir
from tdbg.commands import execute

DEMO = firmware_dir() / "demo.c"
SOURCE = DEMO.read_text().splitlines()
CS = capstone.Cs(capstone.CS_ARCH_RISCV, capstone.CS_MODE_RISCV32)


def line_of(marker: str, after: int = 0) -> int:
    """1-based number of the first source line after line ``after`` containing ``marker``."""
    return next(i + 1 for i, text in enumerate(SOURCE) if i + 1 > after and marker in text)


def insns(s: Session, addr: int, count: int) -> list[str]:
    return [f"{i.mnemonic} {i.op_str}".strip() for i in CS.disasm(s.read_memory(addr, 4 * count), addr)]


@pytest.fixture(scope="module")
def demo() -> tuple[Session, DebugInfo]:
    s = Session(DEMO)
    info = DebugInfo.load(s.image.path)
    assert info is not None
    return s, info


def test_line_of_main_entry_is_its_opening_brace(demo) -> None:
    s, info = demo
    main = s.symbol("main")
    row = info.line_for(main.addr)
    assert row is not None and row.file.name == "demo.c" and row.addr == main.addr
    assert row.line == line_of("{", after=line_of("int main(void)"))


def test_addresses_for_a_line_with_code(demo) -> None:
    s, info = demo
    main = s.symbol("main")
    (addr,) = info.addresses_for("demo.c", line_of("rows++;"))
    assert main.addr < addr < main.addr + main.size
    # rows++ on a stack local: load, add one, store back
    load, add, store = insns(s, addr, 3)
    assert load.startswith("lw a0") and add == "addi a0, a0, 1" and store.startswith("sw a0")
    assert info.line_for(addr).line == line_of("rows++;")
    assert info.addresses_for("firmware/demo.c", line_of("rows++;")) == [addr]
    assert info.addresses_for(str(DEMO), line_of("rows++;")) == [addr]


def test_a_line_without_code_uses_the_next_line(demo) -> None:
    _, info = demo
    comment = line_of("A small loop to")
    assert SOURCE[comment].strip() == "int total = 0;"
    assert info.addresses_for("demo.c", comment) == info.addresses_for("demo.c", comment + 1)


def test_line_errors(demo) -> None:
    _, info = demo
    with pytest.raises(KeyError) as exc:
        info.addresses_for("demo.c", 999)
    assert exc.value.args[0] == 'No line 999 in file "demo.c".'
    with pytest.raises(KeyError) as exc:
        info.addresses_for("foo.c", 1)
    assert exc.value.args[0] == "No source file named foo.c."
    with pytest.raises(KeyError) as exc:
        info.function("nosuch")
    assert exc.value.args[0] == 'Function "nosuch" not defined.'
    with pytest.raises(FileNotFoundError):
        info.source_lines("nosuch.c")


@pytest.mark.parametrize("name", ["main", "fill_row"])
def test_breakpoint_address_is_past_the_prologue(demo, name: str) -> None:
    s, info = demo
    sym = s.symbol(name)
    bp = info.breakpoint_address(name)
    assert sym.addr < bp < sym.addr + sym.size
    prologue = insns(s, sym.addr, (bp - sym.addr) // 4)
    assert prologue[0].startswith("addi sp, sp, -")
    frame_size = prologue[0].removeprefix("addi sp, sp, -")
    assert f"addi s0, sp, {frame_size}" in prologue          # the frame pointer is set up
    opening = line_of("{", after=line_of(f"{name}("))
    assert info.line_for(bp).line == opening + 1                # the first line of the body


def test_functions_match_the_symbol_table(demo) -> None:
    s, info = demo
    for name in ("main", "fill_row"):
        sym = s.symbol(name)
        function = info.function_at(sym.addr + sym.size - 4)
        assert (function.name, function.low, function.high) == (name, sym.addr, sym.addr + sym.size)
        assert function.file == DEMO and function.line == line_of(f"{name}(")
    assert info.function_at(s.symbol("_start").addr) is None          # assembly: no DWARF function
    assert info.symbol_function_at(s.symbol("_start").addr).name == "_start"
    assert info.function_at(s.symbol("__addsf3").addr) is None        # compiler-rt: left out
    assert info.line_for(s.symbol("__addsf3").addr) is None


def test_source_lines(demo) -> None:
    _, info = demo
    assert info.source_lines("demo.c") == SOURCE
    assert info.source_lines(DEMO) is info.source_lines("demo.c")


def test_global_variable_and_types(demo) -> None:
    s, info = demo
    results = info.global_variable("results")                       # volatile uint32_t results[4]
    assert results.addr == s.symbol("results").addr
    assert results.type.kind is Kind.ARRAY and results.type.count == 4 and results.type.size == 16
    assert type_name(results.type) == "volatile uint32_t [4]"  # demo.c: volatile uint32_t results[4], as GDB spells it
    element = results.type.target
    assert (element.name, element.kind, element.size, element.signed) == ("uint32_t", Kind.INT, 4, False)
    assert type_name(info.return_type(info.function("main"))) == "int"
    assert info.return_type(info.function("fill_row")) is None
    with pytest.raises(KeyError):
        info.global_variable("nosuch")


def stop_in_fill_row(s: Session, info: DebugInfo) -> None:
    s.restart()
    bp = s.break_at(info.breakpoint_address("fill_row"))
    s.cont()
    s.delete(bp.number)


def test_backtrace_from_fill_row(demo) -> None:
    s, info = demo
    stop_in_fill_row(s, info)
    frames = info.frames(s.pc, s.registers(), s.read_u32, s.stack_ranges())
    assert [f.function for f in frames] == ["fill_row", "main", "_start"]
    assert frames[0].line == line_of("float value = start;")
    assert frames[1].line == line_of("fill_row(r,")
    assert frames[1].file == DEMO and frames[2].file.name == "crt0.S"
    main, start = s.symbol("main"), s.symbol("_start")
    assert main.addr <= frames[1].pc < main.addr + main.size
    assert start.addr <= frames[2].pc < start.addr + start.size
    assert insns(s, frames[1].pc - 4, 1)[0].startswith("jalr ra")  # returns right after the call
    assert frames[0].sp < frames[0].cfa == frames[1].sp < frames[1].cfa
    assert frames[0].fp == frames[0].cfa                          # s0 = sp at entry


def test_backtrace_inside_the_prologue(demo) -> None:
    """At the entry (ra not yet saved, s0 still the caller's) and through the prologue."""
    s, info = demo
    s.restart()
    bp = s.break_at("fill_row")
    s.cont()
    s.delete(bp.number)
    expected = ["fill_row", "main", "_start"]
    for _ in range((info.breakpoint_address("fill_row") - s.symbol("fill_row").addr) // 4 + 1):
        frames = info.frames(s.pc, s.registers(), s.read_u32, s.stack_ranges())
        assert [f.function for f in frames] == expected
        assert frames[1].line == line_of("fill_row(r,")
        s.stepi()


def test_frame_pointer_chain_without_cfi(demo, monkeypatch) -> None:
    s, info = demo
    stop_in_fill_row(s, info)
    with_cfi = info.frames(s.pc, s.registers(), s.read_u32, s.stack_ranges())
    monkeypatch.setattr(info, "_fdes", [])
    monkeypatch.setattr(info, "_fde_starts", [])
    without = info.frames(s.pc, s.registers(), s.read_u32, s.stack_ranges())
    assert [(f.function, f.line, f.pc) for f in without[:2]] == [(f.function, f.line, f.pc) for f in with_cfi[:2]]
    s.restart()
    bp = s.break_at(s.symbol("fill_row").addr)                   # entry: ra still in its register
    s.cont()
    s.delete(bp.number)
    frames = info.frames(s.pc, s.registers(), s.read_u32, s.stack_ranges())
    assert [(f.function, f.pc) for f in frames[:2]] == [("fill_row", s.symbol("fill_row").addr), ("main", with_cfi[1].pc)]


def test_arguments_and_locals(demo) -> None:
    s, info = demo
    stop_in_fill_row(s, info)                    # first call: fill_row(0, (float)0, 0.25f)
    frames = info.frames(s.pc, s.registers(), s.read_u32, s.stack_ranges())
    values = {v.name: (v.param, s.read_u32(v.addr)) for v in info.locals_at(frames[0])}
    assert values["row"] == (True, 0)
    assert values["start"] == (True, struct.unpack("<I", struct.pack("<f", 0.0))[0])
    assert values["step"] == (True, struct.unpack("<I", struct.pack("<f", 0.25))[0])
    assert "value" in values and not values["value"][0]
    outer = {v.name: s.read_u32(v.addr) for v in info.locals_at(frames[1])}
    assert outer["r"] == 0 and outer["rows"] == 0


def test_no_dwarf_gives_none(tmp_path: Path) -> None:
    source = tmp_path / "plain.c"
    source.write_text("int main(void) { return 0; }\n")
    elf = tmp_path / "plain.elf"
    command = ["-g0" if arg == "-g" else arg for arg in compile_command(source, elf)] + ["-nostdlib"]
    subprocess.run(command, check=True, capture_output=True, timeout=120)
    assert DebugInfo.load(elf) is None


@pytest.fixture(scope="module")
def typed() -> tuple[Interpreter, list[str]]:
    out: list[str] = []
    return Interpreter(Session(Path(__file__).parent / "firmware" / "types.c"), write=out.append), out


def run(interp: Interpreter, out: list[str], line: str) -> str:
    out.clear()
    assert interp.execute(line), "".join(out)
    return "".join(out).strip()


def test_named_types_and_self_referencing_structs(typed) -> None:
    interp, out = typed
    info = interp.session.debug
    assert type_name(info.global_variable("nodes").type) == "node_t [3]"
    assert type_name(info.global_variable("vec").type) == "vec_t"
    node = info.lookup_type("struct node")
    assert node is not None and [(f.name, f.offset, type_name(f.ctype)) for f in node.fields] == \
        [("v", 0, "int"), ("next", 4, "node_t *")]
    assert info.lookup_type("node_t").fields == node.fields
    assert info.lookup_type("enum mode").kind is Kind.INT and info.lookup_type("nosuch") is None
    nodes = interp.session.symbol("nodes").addr
    for line, expected in [
        ("print *head->next", f"$1 = {{v = 2, next = {nodes + 16:#x} <nodes+16>}}"),
        ("print head->next->next->v", "$2 = 3"),
        ("print *nodes[1].next", "$3 = {v = 3, next = 0x0}"),
        ("print (node_t *)head", f"$4 = (node_t *) {nodes:#x} <nodes>"),
        ("print sizeof(node_t)", "$5 = 8"),
        ("print pair", "$6 = {a = -2, c = 65 'A'}"),
        ("print m", "$7 = 5"),
        ("print w", "$8 = {u = 1065353216, f = 1}"),
        ("print vec", "$9 = {7, 8, 9}"),
        ("print flag", "$10 = true"),
        ("whatis head", "type = struct node *"),
        ("whatis m", "type = enum mode"),
        ("whatis pair", "type = pair_t"),
    ]:
        assert run(interp, out, line) == expected


def test_arguments_print_as_gdb_shows_them(typed) -> None:
    interp, out = typed
    run(interp, out, "break walk")
    run(interp, out, "run")
    nodes, pair = (interp.session.symbol(name).addr for name in ("nodes", "pair"))
    assert run(interp, out, "info args") == f"n = {nodes:#x} <nodes>\np = {pair:#x} <pair>\nscale = 1.5"
    assert run(interp, out, "info locals") == "total = 0"


def test_untyped_code_labels_are_symbols_as_gdb_minimal_symbols(tmp_path: Path) -> None:
    # crt0 files often leave _start STT_NOTYPE (tt-llk's crt_sp.S does): GDB still names it
    # in frames and `info symbol`, up to the next symbol.  Before: "?? ()", "No symbol matches".
    source = tmp_path / "label.c"
    source.write_text(
        '__asm__(".text\\n.globl plain_label\\nplain_label:\\n nop\\n nop\\n ret\\n");\n'
        "extern void plain_label(void);\n"
        "int main(void) { plain_label(); return 0; }\n")
    s = Session(source)
    addr = s.image.symbols["plain_label"].addr
    assert s.image.symbols["plain_label"].kind == "notype"
    assert execute(s, f"info symbol {addr + 4:#x}") == "plain_label + 4 in section .text\n"
    execute(s, f"break *{addr + 4:#x}")
    execute(s, "run")
    assert execute(s, "bt").startswith(f"#0  {addr + 4:#010x} in plain_label ()")


def test_members_of_anonymous_unions_and_structs(tmp_path: Path) -> None:
    # C11 6.7.2.1p13; texts from gdb-multiarch 13.1 on the same ELF (tt-metal's go_msg_t has this shape)
    source = tmp_path / "anon.c"
    source.write_text("struct msg { union { unsigned int all; struct { unsigned char a, b, c, signal; }; }; };\n"
                      "struct msg m = {{0x40000000u}};\nint main(void) { return m.signal; }\n")
    s = Session(source)
    assert execute(s, "p m.signal") == "$1 = 64 '@'\n"
    assert execute(s, "p m.all") == "$2 = 1073741824\n"
    assert execute(s, "p (char*)&m.signal - (char*)&m") == "$3 = 3\n"
    assert execute(s, "p m.nosuch", check=False).strip() == "There is no member named nosuch."
    assert execute(s, "p m") == "$4 = {{all = 1073741824, {a = 0 '\\000', b = 0 '\\000', c = 0 '\\000', signal = 64 '@'}}}\n"
    execute(s, "set print pretty on")
    assert execute(s, "p m") == ("$5 = {\n  {\n    all = 1073741824,\n    {\n      a = 0 '\\000',\n      b = 0 '\\000',\n"
                                "      c = 0 '\\000',\n      signal = 64 '@'\n    }\n  }\n}\n")


# -- composite and implicit locations (issue 33 item 2) -------------------------------------------
# Expressions assembled by hand from DWARF 5's opcode table (section 7.7.1); the bytes each piece
# gives worked by hand from section 2.6.1.2 (pieces laid end to end from the object's first bit).

def _composite(s: Session, info: DebugInfo, expr: bytes, ctype) -> str:
    from tdbg.symbols.debuginfo import Variable
    from tdbg.expr import format_value

    ctx = s.expression_context()
    frame = ctx.frames.selected()
    pieces = info._locate(info._expr.parse_expr(list(expr)), frame.regs, frame.cfa, None)
    assert pieces is not None
    v = Variable("v", None, ctype, pieces=pieces)
    return format_value(ctx.variable_value(v, frame), None, ctx, typed=False)


def test_composite_locations_in_registers_memory_values_and_bits(demo: tuple[Session, DebugInfo]) -> None:
    from tdbg.expr import UINT8, UINT16, UINT32, array_of

    s, info = demo
    s.set_register("a0", 0xABCD5678)
    results = s.image.symbols["results"].addr
    s.write_memory(results, (0x11223344).to_bytes(4, "little"))
    reg_empty_value = bytes([0x5A, 0x93, 2, 0x93, 2, 0x10, 0xB4, 0x24, 0x9F, 0x93, 2])   # reg10; empty; constu 0x1234 stack_value
    assert _composite(s, info, reg_empty_value, array_of(UINT16, 3)) == "{22136, <optimized out>, 4660}"
    memory_implicit = bytes([0x03, *results.to_bytes(4, "little"), 0x93, 4, 0x9E, 2, 0xEF, 0xBE, 0x93, 2])
    assert _composite(s, info, memory_implicit, array_of(UINT16, 3)) == "{13124, 4386, 48879}"
    bits = bytes([0x35, 0x9F, 0x9D, 3, 0, 0x5A, 0x9D, 5, 4])   # lit5 stack_value bit_piece(3, 0); reg10 bit_piece(5, 4)
    assert 5 | ((0x5678 >> 4) & 31) << 3 == 61
    assert _composite(s, info, bits, UINT8) == "61 '='"
    assert _composite(s, info, bytes([0x93, 4]), UINT32) == "<optimized out>"   # one empty piece
