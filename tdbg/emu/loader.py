"""Where a host puts one core's ELF in the tile, and which ELFs a tile refuses.

Two kinds of ELF are loaded:

* tt-llk / tt-metal firmware, recognised by its loader section (``.loader_init``): only the
  profile's sections are written; one that lies in the core's private data RAM is written to
  the loader section's address in L1 instead, and the firmware's start-up code copies it from
  there (tt-exalens' rule, ``shared/kernels/README.md``).
* Anything else (tdbg's own firmware): every ``PT_LOAD`` segment at its address, in L1 or in the
  core's private data RAM; or, when the host says where its private data goes (``local_init``,
  as tt-metal puts its firmware's ``.data`` at ``MEM_*_INIT_LOCAL_L1_BASE_SCRATCH``, tt_elffile's
  loader), a segment in private memory at ``local_init + (address - MEM_LOCAL_BASE)`` in L1, its
  file bytes only (the firmware clears its ``.bss`` itself).

Refused with one line: an ELF whose ``Tag_RISCV_arch`` names another architecture's Tenstorrent
extension (a Wormhole ``xttwh`` build on a Blackhole tile), and bytes outside the places the
core can be loaded (L1 and its private RAM).  Replaced code words (``tdbg.emu.code_patches``) and
``j .`` parks count only where the core can fetch them: in executable bytes placed in L1 (BabyRISCV/README.md "Frontend":
instructions are fetched from L1 only).
"""

from __future__ import annotations

from tdbg.emu.elf import ElfImage, ElfLoadError, Segment
from tdbg.arch.profile import CoreSpec, Profile


def placements(image: ElfImage, profile: Profile, spec: CoreSpec, local_init: int | None = None) -> list[Segment]:
    """The bytes to write for ``image`` on core ``spec``, checked against the core's map;
    ``local_init``: the L1 address a host gives the private-memory bytes of an ELF without a
    loader section."""
    _check_arch(image, profile)
    rule = profile.load_rule
    private = (profile.local_ram_base, profile.local_ram_base + spec.local_ram_size)
    loader = image.section(rule.loader_section)
    relocated = loader is not None or local_init is not None
    if loader is None and local_init is None:
        placed = list(image.segments)
    elif loader is None:
        placed = [Segment(local_init + (s.vaddr - private[0]), s.data, len(s.data), s.executable)
                  if private[0] <= s.vaddr < private[1] else s
                  for s in image.segments if s.data or not private[0] <= s.vaddr < private[1]]
    else:
        wanted = [s for s in image.sections if s.name in rule.sections and s.data]
        private_starts = [s.addr for s in wanted if private[0] <= s.addr < private[1]]
        base = min(private_starts, default=private[0])
        placed = [
            Segment(loader.addr + (s.addr - base) if private[0] <= s.addr < private[1] else s.addr,
                    s.data, len(s.data), s.executable)
            for s in wanted if s.data is not None
        ]
    allowed = [(0, profile.l1_size)] if relocated else [(0, profile.l1_size), private]
    for seg in placed:
        end = seg.vaddr + max(seg.memsz, len(seg.data))
        if not any(lo <= seg.vaddr and end <= hi for lo, hi in allowed):
            where = " or ".join(f"{lo:#x}..{hi:#x}" for lo, hi in allowed)
            raise ElfLoadError(f"{image.path}: {max(seg.memsz, len(seg.data))} bytes at {seg.vaddr:#x} are outside "
                               f"what {spec.name} can be loaded with ({where})")
    return placed


def code_words(image: ElfImage, segments: list[Segment], profile: Profile) -> tuple[dict[int, int], set[int]]:
    """The replaced code words and ``j .`` addresses of ``image`` that lie in executable bytes
    placed in L1 (a word elsewhere can never be fetched, and the tile writes nothing there)."""
    code = [(s.vaddr, s.vaddr + len(s.data)) for s in segments
            if s.executable and s.vaddr + len(s.data) <= profile.l1_size]

    def fetchable(address: int) -> bool:
        return any(lo <= address and address + 4 <= hi for lo, hi in code)

    return ({a: w for a, w in image.replaced.items() if fetchable(a)},
            {a for a in image.parks if fetchable(a)})


def _check_arch(image: ElfImage, profile: Profile) -> None:
    if image.arch is None:
        return
    extensions = image.arch.lower().split("_")
    for ext, arch in profile.load_rule.refused_arch.items():
        if any(e.startswith(ext) for e in extensions):
            raise ElfLoadError(f"{image.path}: built for {arch} (Tag_RISCV_arch {image.arch}); "
                               f"this is a {profile.name.capitalize()} tile")


def overlap(a: list[Segment], b: list[Segment]) -> tuple[int, int] | None:
    """The first L1 range where two cores' images would write different bytes, if any."""
    for x in a:
        for y in b:
            lo, hi = max(x.vaddr, y.vaddr), min(x.vaddr + x.memsz, y.vaddr + y.memsz)
            if lo < hi and _bytes(x, lo, hi) != _bytes(y, lo, hi):
                return lo, hi
    return None


def _bytes(seg: Segment, lo: int, hi: int) -> bytes:
    data = seg.data.ljust(seg.memsz, b"\0")
    return data[lo - seg.vaddr: hi - seg.vaddr]
