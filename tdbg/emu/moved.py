"""An ELF whose code runs somewhere else than where it was linked, as GDB's ``add-symbol-file
FILE -s .text ADDR`` sees it: its executable sections moved by a bias, everything else where it is.

tt-metal runs a kernel "in place" at ``kernel_config_base + kernel_text_offset``, not at the
address it was linked at (its data stays in the core's local memory), so the debugger needs the
kernel's symbols and DWARF at the run address.  The ELF's bytes are rewritten:

* the executable sections' and segments' addresses, the entry point, and the value of every
  symbol defined in an executable section move by the bias;
* every code address in the DWARF (DWARF 4 and 5, 32-bit) moves by the bias: ``DW_FORM_addr``
  attributes and ``.debug_addr`` entries, the line programs' ``DW_LNE_set_address``,
  ``.debug_aranges``, the CIEs' FDEs in ``.debug_frame``, and the absolute entries of the range
  and location lists (DWARF 5's base/start entries; DWARF 4's base selections, and a list's
  entries where its unit's base address is 0, so they are absolute).  An address is code when it
  lies in the moved sections (their end included); offsets from a base address stay as they are.

(A linker's ``--emit-relocs`` would name the addresses, but ld.lld leaves RISC-V DWARF's
relocations as R_RISCV_NONE, so the DWARF itself is read.)
"""

from __future__ import annotations

import io
import struct

from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

#: attributes whose DWARF 4 ``sec_offset`` value is a location list (DWARF 4 section 7.5.4)
_LOCATION_ATTRIBUTES = {"DW_AT_location", "DW_AT_frame_base", "DW_AT_string_length", "DW_AT_return_addr",
                        "DW_AT_static_link", "DW_AT_use_location", "DW_AT_vtable_elem_location",
                        "DW_AT_data_member_location"}
DW_LNE_set_address, DW_LNS_fixed_advance_pc = 2, 9


def move_code(raw: bytes, bias: int) -> bytes:
    """``raw`` (an RV32 little-endian ELF) with its code moved by ``bias``."""
    elf = ELFFile(io.BytesIO(raw))
    out = bytearray(raw)
    sections = list(elf.iter_sections())
    moved = {i for i, s in enumerate(sections)
             if s["sh_flags"] & SH_FLAGS.SHF_EXECINSTR and s["sh_flags"] & SH_FLAGS.SHF_ALLOC and s["sh_size"]}
    if not moved:
        return raw
    lo = min(sections[i]["sh_addr"] for i in moved)
    hi = max(sections[i]["sh_addr"] + sections[i]["sh_size"] for i in moved)
    shoff, shentsize = elf["e_shoff"], elf["e_shentsize"]
    for i in moved:                                     # Elf32_Shdr.sh_addr at +12
        _add(out, shoff + i * shentsize + 12, 4, bias)
    phoff, phentsize = elf["e_phoff"], elf["e_phentsize"]
    for i, seg in enumerate(elf.iter_segments()):       # Elf32_Phdr p_vaddr +8, p_paddr +12
        if seg["p_type"] == "PT_LOAD" and seg["p_flags"] & 1:
            _add(out, phoff + i * phentsize + 8, 4, bias)
            _add(out, phoff + i * phentsize + 12, 4, bias)
    if lo <= elf["e_entry"] < hi:
        _add(out, 24, 4, bias)                           # e_entry
    symtab = elf.get_section_by_name(".symtab")
    if symtab is not None:
        for index, sym in enumerate(symtab.iter_symbols()):
            if isinstance(sym["st_shndx"], int) and sym["st_shndx"] in moved:
                _add(out, symtab["sh_offset"] + index * symtab["sh_entsize"] + 4, 4, bias)   # st_value
    if elf.has_dwarf_info():
        _Dwarf(elf, out, lo, hi, bias).move()
    return bytes(out)


def _add(buf: bytearray, at: int, size: int, bias: int) -> None:
    fmt = {4: "<I", 8: "<Q", 2: "<H"}[size]
    struct.pack_into(fmt, buf, at, (struct.unpack_from(fmt, buf, at)[0] + bias) % (1 << (8 * size)))


def _uleb(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


class _Dwarf:
    """The code addresses of one ELF's DWARF, moved in ``out``."""

    def __init__(self, elf: ELFFile, out: bytearray, lo: int, hi: int, bias: int) -> None:
        self.elf, self.out, self.lo, self.hi, self.bias = elf, out, lo, hi, bias
        self.dwarf = elf.get_dwarf_info(relocate_dwarf_sections=False)

    def section(self, name: str) -> tuple[int, bytes] | None:
        found = self.elf.get_section_by_name(name)
        return (found["sh_offset"], found.data()) if found is not None else None

    def patch(self, at: int, size: int = 4) -> None:
        """The address at file offset ``at``, if it is code."""
        value = int.from_bytes(self.out[at:at + size], "little")
        if self.lo <= value <= self.hi:
            _add(self.out, at, size, self.bias)

    def move(self) -> None:
        info = self.section(".debug_info")
        ranges4: dict[int, int] = {}     # DWARF 4 list offset -> its unit's base address
        locs4: dict[int, int] = {}
        programs: set[tuple[int, int, int, tuple[int, ...]]] = set()
        for cu in self.dwarf.iter_CUs():
            top = cu.get_top_DIE()
            base = top.attributes["DW_AT_low_pc"].value if "DW_AT_low_pc" in top.attributes else 0
            v4 = cu["version"] < 5
            for die in cu.iter_DIEs():
                for attr in die.attributes.values():
                    if attr.form == "DW_FORM_addr" and info is not None:
                        self.patch(info[0] + attr.offset, cu["address_size"])
                    elif v4 and attr.form in ("DW_FORM_sec_offset", "DW_FORM_data4"):
                        if attr.name == "DW_AT_ranges":
                            ranges4[attr.value] = base
                        elif attr.name in _LOCATION_ATTRIBUTES and attr.form == "DW_FORM_sec_offset":
                            locs4[attr.value] = base
            program = self.dwarf.line_program_for_CU(cu)
            if program is not None:
                programs.add((program.program_start_offset, program.program_end_offset,
                              program.header["opcode_base"], tuple(program.header["standard_opcode_lengths"])))
        for program in programs:
            self.line_program(*program)
        self.lists4(".debug_ranges", ranges4, False)
        self.lists4(".debug_loc", locs4, True)
        self.lists5(".debug_rnglists", False)
        self.lists5(".debug_loclists", True)
        self.addresses()
        self.aranges()
        self.frames()

    def line_program(self, start: int, end: int, opcode_base: int, lengths: tuple[int, ...]) -> None:
        found = self.section(".debug_line")
        if found is None:
            return
        offset, data = found
        pos = start
        while pos < end:
            op = data[pos]
            pos += 1
            if op >= opcode_base:
                continue
            if op == 0:
                length, pos = _uleb(data, pos)
                if data[pos] == DW_LNE_set_address:
                    self.patch(offset + pos + 1, length - 1)
                pos += length
            elif op == DW_LNS_fixed_advance_pc:
                pos += 2
            else:
                for _ in range(lengths[op - 1]):
                    _, pos = _uleb(data, pos)

    def lists4(self, name: str, lists: dict[int, int], locations: bool) -> None:
        """DWARF 4 range or location lists: a (0xffffffff, base) entry's base moves, and the
        entries of a list whose base is 0 (absolute addresses)."""
        found = self.section(name)
        if found is None:
            return
        offset, data = found
        for pos, base in lists.items():
            while pos + 8 <= len(data):
                begin, end = struct.unpack_from("<II", data, pos)
                if begin == end == 0:
                    break
                if begin == 0xFFFF_FFFF:
                    self.patch(offset + pos + 4)
                    base = end
                elif base == 0:
                    self.patch(offset + pos)
                    self.patch(offset + pos + 4)
                pos += 8
                if locations and begin != 0xFFFF_FFFF:
                    pos += 2 + struct.unpack_from("<H", data, pos)[0]

    def lists5(self, name: str, locations: bool) -> None:
        """DWARF 5 range or location lists, unit by unit: the address operands of base_address,
        start_end and start_length entries (DWARF 5 sections 7.25, 7.29)."""
        found = self.section(name)
        if found is None:
            return
        offset, data = found
        unit = 0
        while unit + 12 <= len(data):
            length, _, address_size, _, count = struct.unpack_from("<IHBBI", data, unit)
            pos, end = unit + 12 + 4 * count, unit + 4 + length
            base_address, start_end, start_length = (6, 7, 8) if locations else (5, 6, 7)
            while pos < end:
                kind = data[pos]
                pos += 1
                if kind == 0:                                   # end_of_list
                    continue
                if kind == base_address:
                    self.patch(offset + pos, address_size)
                    pos += address_size
                    continue
                if kind == start_end:
                    self.patch(offset + pos, address_size)
                    self.patch(offset + pos + address_size, address_size)
                    pos += 2 * address_size
                elif kind == start_length:
                    self.patch(offset + pos, address_size)
                    pos += address_size
                    _, pos = _uleb(data, pos)
                elif kind == 1:                                  # base_addressx
                    _, pos = _uleb(data, pos)
                    continue
                elif locations and kind == 5:                    # default_location
                    pass
                else:                                            # startx_endx, startx_length, offset_pair
                    _, pos = _uleb(data, pos)
                    _, pos = _uleb(data, pos)
                if locations:
                    size, pos = _uleb(data, pos)
                    pos += size
            unit = end

    def addresses(self) -> None:
        found = self.section(".debug_addr")
        if found is None:
            return
        offset, data = found
        unit = 0
        while unit + 8 <= len(data):
            length, _, address_size, _ = struct.unpack_from("<IHBB", data, unit)
            for pos in range(unit + 8, unit + 4 + length, address_size):
                self.patch(offset + pos, address_size)
            unit += 4 + length

    def aranges(self) -> None:
        found = self.section(".debug_aranges")
        if found is None:
            return
        offset, data = found
        unit = 0
        while unit + 12 <= len(data):
            length, _, _, address_size, _ = struct.unpack_from("<IHIBB", data, unit)
            pos = unit + -(-12 // (2 * address_size)) * 2 * address_size
            while pos + 2 * address_size <= unit + 4 + length:
                self.patch(offset + pos, address_size)
                pos += 2 * address_size
            unit += 4 + length

    def frames(self) -> None:
        found = self.section(".debug_frame")
        if found is None or not self.dwarf.has_CFI():
            return
        for entry in self.dwarf.CFI_entries():
            if "initial_location" in entry.header:       # an FDE: length, CIE pointer, then the address
                self.patch(found[0] + entry.offset + 8)

