"""The folder ``TT_METAL_SIMULATOR`` names: what tt-umd reads there (tt-umd's
``SimulationChip::get_soc_descriptor_path_from_simulator_path``: ``soc_descriptor.yaml``; the
RTL-simulation device: it spawns ``run.sh``) and the environment the user's script needs.

``soc_descriptor.yaml`` describes the chip (``tdbg.arch.chips``) in the keys of tt-umd's
``docs/yaml_schemas/soc_descriptor.yaml`` and tt-metal's Blackhole descriptors (``grid``, ``arc``,
``pcie``, ``dram`` ports per channel, ``dram_views`` with two-element endpoint lists as tt-umd
0.9.14 wants them, ``eth``, ``functional_workers``, ``router_only``, the L1 and DRAM sizes,
``features`` as tt-metal's ``blackhole_140_arch.yaml`` gives them).  It lists no Ethernet core: tdbg
runs no Ethernet firmware (the NoC keeps their endpoints as memory), and tt-metal loads its idle
Ethernet firmware on every one it is shown and waits for each to say it is done (measured with
ttnn 0.81.1 on the full chip: 12 of them polled at 0x590 until the hang judgement).  ``run.sh`` starts this tdbg
with the interpreter that runs it now (tdbg needs Python 3.11 or later; the host's may be 3.10).
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import tdbg
from tdbg.arch.chips import Chip
from tdbg.arch.profile import Coord, Profile

#: What the user's script needs in its environment beside ``TT_METAL_SIMULATOR`` (tt-umd's
#: ``simulation_host.cpp``: without TT_SIMULATOR_LOCALHOST it listens on the host's name; tt-metal
#: drives a simulator only in slow-dispatch mode).
EXPORTS = {"TT_SIMULATOR_LOCALHOST": "1", "TT_METAL_SLOW_DISPATCH_MODE": "1"}


def _coords(coords: list[Coord]) -> str:
    return "[" + ", ".join(f"{x}-{y}" for x, y in coords) + "]"


def soc_descriptor(chip: Chip, profile: Profile) -> str:
    """The chip's soc descriptor."""
    noc = chip.noc
    of = lambda kind: [c for c in sorted(noc.others, key=lambda c: (c[1], c[0])) if noc.others[c] == kind]
    views = ",\n".join(f"    {{channel: {ch}, eth_endpoint: [{a}, {b}], worker_endpoint: [{a}, {b}], address_offset: 0}}"
                       for ch, (a, b) in enumerate(chip.dram_endpoint))
    dram = ",\n".join(f"    {_coords(list(ports))}" for ports in chip.dram_ports)
    return f"""# Written by tdbg {tdbg.__version__} (tdbg simulator): the {chip.name} Blackhole chip tdbg serves.
grid:
  x_size: {chip.described_grid[0]}
  y_size: {chip.described_grid[1]}
arc: {_coords(of("ARC"))}
pcie: {_coords(of("PCIe"))}
dram:
  [
{dram}
  ]
dram_views:
  [
{views}
  ]
dram_view_size: {noc.dram_channel_size}
eth: []
functional_workers: {_coords(list(chip.workers))}
harvested_workers: []
router_only: {_coords(of("router"))}
worker_l1_size: {profile.l1_size}
dram_bank_size: {noc.dram_channel_size}
eth_l1_size: 0
arch_name: BLACKHOLE
features:
  noc:
    translation_id_enabled: True
  unpacker:
    version: 2
    inline_srca_trans_without_srca_trans_instr: True
  math:
    dst_size_alignment: 32768
  packer:
    version: 2
  overlay:
    version: 2
"""


def run_script(folder: Path, chip: Chip) -> str:
    """``run.sh``: this interpreter running this tdbg's server (``TDBG_SIMULATOR_ARGS`` is read
    by the server itself, so its quoting survives)."""
    package_root = Path(tdbg.__file__).resolve().parent.parent
    return (f"#!/bin/sh\n# Written by tdbg simulator: tt-umd runs this with NNG_SOCKET_ADDR set.\n"
            f"PYTHONPATH={shlex.quote(str(package_root))}${{PYTHONPATH:+:$PYTHONPATH}}\nexport PYTHONPATH\n"
            f"exec {shlex.quote(sys.executable)} -m tdbg simulator --serve --grid {chip.name} {shlex.quote(str(folder))}\n")


def write(folder: Path, chip: Chip, profile: Profile) -> list[str]:
    """Write the folder for ``chip``; the ``export`` lines for the user's shell."""
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "soc_descriptor.yaml").write_text(soc_descriptor(chip, profile))
    script = folder / "run.sh"
    script.write_text(run_script(folder, chip))
    script.chmod(script.stat().st_mode | 0o111)
    env = {"TT_METAL_SIMULATOR": str(folder), **EXPORTS}
    return [f"export {name}={shlex.quote(value)}" for name, value in env.items()]


def options() -> list[str]:
    """The tdbg options ``TDBG_SIMULATOR_ARGS`` carries (split as a shell would)."""
    return shlex.split(os.environ.get("TDBG_SIMULATOR_ARGS", ""))
