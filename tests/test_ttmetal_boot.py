"""tt-metal's host preset: Tenstorrent's Blackhole firmware (the ttnn wheel's pre-compiled set)
booted as tt-metal 0.81.1's host boots it, compared with Tenstorrent's simulator.

Expected values: ``tests/data/ttmetal_boot_ttsim.json`` (the same host writes replayed on ttsim
v1.10.0 until idle: the mailbox area's non-zero bytes, each core's idle loop;
``scripts/ttmetal_boot_fixture.py``); tt-metal's own numbers as measured with tt-metal 0.81.1 on
ttsim (the firmware bases, the boot ``jal`` word, the bank table); SoftReset.md's reset
PCs.  The firmware tests skip, saying so, without the wheel."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tdbg.emu.elf import ElfImage, ElfLoadError, Segment
from tdbg.emu.loader import placements
from tdbg.emu.stops import StopKind
from tdbg.toolchain.zig import firmware_dir as kit_dir
from tdbg.session import Session
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.ttmetal import boot, device, memmap
from tdbg.ttmetal.mailboxes import Mailboxes
from examples import EXAMPLES

TTSIM = json.loads((Path(__file__).parent / "data" / "ttmetal_boot_ttsim.json").read_text())


def firmware() -> Path:
    try:
        return boot.firmware_dir()
    except boot.TtMetalError as exc:
        pytest.skip(f"the ttnn wheel's firmware is not available: {exc}")


@pytest.fixture(scope="module")
def booted() -> tuple[Session, list[boot.CoreWait]]:
    s = Session({})
    return s, boot.boot(s, firmware())


# -- tt-metal's numbers, without the wheel ---------------------------------------------------------

def test_dev_mem_map_as_tt_metal_placed_it_on_ttsim() -> None:
    assert memmap.FIRMWARE_BASE == {"B": 0x3AE0, "NC": 0x5CE0, "T0": 0x66E0, "T1": 0x70E0, "T2": 0x7AE0}
    assert memmap.INIT_LOCAL_L1_BASE_SCRATCH == {"B": 0xA080, "NC": 0xC080, "T0": 0xE080, "T1": 0xF080, "T2": 0x10080}
    assert (memmap.MAILBOX_END, memmap.BANK_TO_NOC_SCRATCH, memmap.LOGICAL_TO_VIRTUAL_SCRATCH) == (0x34E0, 0x13080, 0x13880)
    assert (memmap.KERNEL_CONFIG_BASE, memmap.L1_UNRESERVED_START) == (0xA080, 0x1B480)


def test_boot_jump_is_tt_metals_word() -> None:
    assert boot.jal(0x3AE0) == 0x2E10306F          # what tt-metal wrote at L1 0


def test_dram_banks_as_tt_metal_numbers_them() -> None:
    assert device.dram_bank_xy(0) == [(17, 14), (17, 15), (17, 18), (17, 21), (18, 14), (18, 17), (18, 20), (18, 23)]
    assert device.dram_bank_xy(1) == [(17, 13), (17, 16), (17, 19), (17, 22), (18, 13), (18, 16), (18, 19), (18, 22)]
    banks = device.l1_banks()
    assert len(banks) == 130 and (16, 2) not in banks and (1, 2) in banks    # the dispatch column is not storage
    assert device.logical(BLACKHOLE.noc.tile) == (0, 0)


def test_local_init_places_private_bytes_in_l1() -> None:
    spec = BLACKHOLE.core("B")
    image = ElfImage(Path("fw.elf"), 0x3AE0, [Segment(0x3AE0, b"\x13\0\0\0", 4, True),
                                            Segment(0xFFB0_0000, b"\x68\0\0\0", 0xCD4, False)], {}, [])
    placed = placements(image, BLACKHOLE, spec, local_init=0xA080)
    assert placed == [Segment(0x3AE0, b"\x13\0\0\0", 4, True), Segment(0xA080, b"\x68\0\0\0", 4, False)]
    assert placements(image, BLACKHOLE, spec)[1].vaddr == 0xFFB0_0000        # without it: at its address
    with pytest.raises(ElfLoadError, match="outside"):
        placements(image, BLACKHOLE, spec, local_init=BLACKHOLE.l1_size - 2)


def test_released_without_override_a_core_starts_at_the_pages_reset_pc() -> None:
    # SoftReset.md: B always starts at 0; T1 at 0x0A000 unless its override bit is set.
    s = Session({"B": kit_dir() / "release_triscs.c", "T1": EXAMPLES / "pipeline_t1.c"})
    reset, override = 0xFFB1_21B0, 0xFFB1_2234
    with s.on_core("B"):
        s.write_memory(reset, struct.pack("<I", 0x47800))
        s.write_memory(override, struct.pack("<I", 0))
        s.write_memory(reset, struct.pack("<I", 0x47800 & ~(1 << 11 | 1 << 13)))
    for core, pc in (("B", 0), ("T1", 0xA000)):
        with s.on_core(core):
            assert s.register("pc") == pc


def test_device_writes_stay_in_the_set_up_in_order() -> None:
    s = Session({"B": kit_dir() / "release_triscs.c"})
    reset = 0xFFB1_21B0
    with s.on_core("B"):
        for value in (0x47800, 0x47000):
            s.write_memory(reset, struct.pack("<I", value))
        s.write_memory(0x20000, b"\1" * 8)
        s.write_memory(0x20000, b"\2" * 16)          # memory: the covering write replaces the first
    assert [(w.address, w.data) for w in s.setup] == [(reset, struct.pack("<I", 0x47800)),
                                                       (reset, struct.pack("<I", 0x47000)), (0x20000, b"\2" * 16)]


# -- the firmware -----------------------------------------------------------------------------------

def test_mailboxes_after_boot_equal_ttsims(booted) -> None:
    s, _ = booted
    data = s.read_memory(memmap.MAILBOX_BASE, TTSIM["mailbox_size"])
    expected = bytearray(len(data))
    for address, hexbytes in TTSIM["mailbox_nonzero"].items():
        at = int(address, 16) - memmap.MAILBOX_BASE
        expected[at:at + len(hexbytes) // 2] = bytes.fromhex(hexbytes)
    assert data == bytes(expected)


def test_every_core_idles_in_ttsims_loop(booted) -> None:
    _, waits = booted
    assert {w.core: sorted(w.loop) for w in waits} == \
        {core: sorted(int(pc, 16) for pc in pcs) for core, pcs in TTSIM["idle_loops"].items()}


def test_go_message_reads_done_and_waits_name_mailbox_fields(booted) -> None:
    s, waits = booted
    mailboxes = Mailboxes(s)
    assert s.read_memory(mailboxes.address("go_messages[0].signal"), 1)[0] == TTSIM["go_messages[0].signal"] == 0
    reasons = {w.core: w.reason for w in waits}
    assert "<mailboxes.go_messages[0].signal>" in reasons["B"] and "<main+" in reasons["B"]
    assert "<mailboxes.subordinate_sync.map[0]>" in reasons["NC"]
    assert all(f"<mailboxes.subordinate_sync.map[{i + 1}]>" in reasons[f"T{i}"] for i in range(3))


def test_run_boots_again_from_the_set_up(booted) -> None:
    s, _ = booted
    stop = s.cont()                          # nothing left to do: the host says so again
    assert stop.kind is StopKind.HOST and "RUN_MSG_DONE" in stop.detail
    s.start_over()
    stop = s.cont()
    assert stop.kind is StopKind.HOST
    assert stop.detail == "tt-metal firmware booted: go_messages[0].signal = RUN_MSG_DONE; every core waits for the host:"
    assert [line.split(":")[0] for line in stop.report] == ["  T0", "  T1", "  T2", "  B", "  NC"]


def test_command_line_preset() -> None:
    folder = firmware()
    out = subprocess.run([sys.executable, "-m", "tdbg", "-q", "-batch", "--tt-metal-boot", str(folder), "-ex", "run",
                          "-ex", "p/x ((mailboxes_t *)0x60)->go_messages[0].all", "-ex", "info setup"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "tt-metal firmware booted: go_messages[0].signal = RUN_MSG_DONE" in out.stdout
    assert "$1 = 0x0" in out.stdout
    assert "22: 4 bytes at 0xffb121b0 (B)" in out.stdout      # the last set-up write: BRISC released
