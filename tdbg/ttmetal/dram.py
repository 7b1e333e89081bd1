"""DRAM buffers as tt-metal 0.81.1 lays them out: interleaved over the eight banks.

Page ``p`` of a buffer at bank address ``A`` is in bank ``p % 8`` at ``A + (p // 8) * page_size``
(page size rounded up to the DRAM alignment; ``InterleavedAddrGen``), and bank ``b`` is reached at
``dram_bank_to_noc_xy[0][b]`` (``device.dram_bank_xy``).  Buffers are allocated bottom-up in every
bank at once from the first address tt-metal hands out on this device, each taking its pages per
bank.  The bytes move through the session's NoC endpoints (``Session.write_noc``/``read_noc``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.ttmetal.device import NUM_DRAM_BANKS, dram_bank_xy

if TYPE_CHECKING:
    from tdbg.session import Session

DRAM_ALIGNMENT = 64                  # Blackhole's DRAM alignment (tt-metal's HAL)
#: The first bank address tt-metal 0.81.1 allocates on this device (measured: its first tensor).
DRAM_UNRESERVED_BASE = 0x100080
#: TensorAccessorArgs' ArgConfig::IsDram (hostdevcommon/tensor_accessor/arg_config.hpp): an
#: interleaved DRAM buffer's compile-time args are [IsDram, page size] (measured).
ARG_CONFIG_IS_DRAM = 1 << 1


def aligned(n: int, to: int = DRAM_ALIGNMENT) -> int:
    return -(-n // to) * to


@dataclass(frozen=True)
class Interleaved:
    """Where a buffer's pages are: its bank address, page size and page count."""

    address: int
    page_size: int
    pages: int

    @property
    def pages_per_bank(self) -> int:
        return -(-self.pages // NUM_DRAM_BANKS)

    @property
    def bank_bytes(self) -> int:
        """Bytes the buffer takes in each bank."""
        return self.pages_per_bank * aligned(self.page_size)

    def page(self, p: int) -> tuple[int, int]:
        """(bank, bank address) of page ``p``."""
        return p % NUM_DRAM_BANKS, self.address + (p // NUM_DRAM_BANKS) * aligned(self.page_size)

    def write(self, session: Session, data: bytes) -> None:
        """The buffer's bytes (``pages * page_size`` at most) into DRAM, page by page."""
        if len(data) > self.pages * self.page_size:
            raise ValueError(f"{len(data)} bytes do not fit {self.pages} pages of {self.page_size}")
        banks = dram_bank_xy(0)
        for p in range(-(-len(data) // self.page_size)):
            bank, at = self.page(p)
            session.write_noc(*banks[bank], at, data[p * self.page_size:(p + 1) * self.page_size])

    def read(self, session: Session) -> bytes:
        banks = dram_bank_xy(0)
        return b"".join(session.read_noc(*banks[bank], at, self.page_size)
                        for bank, at in (self.page(p) for p in range(self.pages)))


def namer(session: Session, buffers: Mapping[str, Interleaved]) -> Callable[[tuple[int, int], int, int], str | None]:
    """What names DRAM for ``Session.name_noc``: the buffer a range of a bank falls in (every
    buffer takes the same addresses in each bank), or "no buffer there"."""
    banks = {session.noc_endpoint(*xy) for xy in dram_bank_xy(0)}

    def name(where: tuple[int, int], address: int, n: int) -> str | None:
        if where not in banks:
            return None
        hit = next((b for b, at in buffers.items() if at.address < address + n and address < at.address + at.bank_bytes),
                   None)
        return f"buffer {hit}" if hit else "no buffer there"
    return name


def allocate(sizes: list[tuple[int, int]], base: int = DRAM_UNRESERVED_BASE) -> list[Interleaved]:
    """Buffers of (page size, pages), allocated in order from ``base`` as tt-metal does."""
    out = []
    for page_size, pages in sizes:
        buffer = Interleaved(base, page_size, pages)
        out.append(buffer)
        base = aligned(base + buffer.bank_bytes)
    return out
