#!/usr/bin/env python3
"""Write the fixture ``tests/test_ttmetal_boot.py`` checks tdbg's tt-metal boot against
(``tests/data/ttmetal_boot_ttsim.json``), from the boot oracle measured on Tenstorrent's
simulator: tt-metal 0.81.1's host writes replayed on ttsim v1.10.0 (``ttsim-run --recipe
host_writes.json --release none --no-reset-pc --run-until idle``), whose L1 [0, 0x14000) is
byte-identical to the real tt-metal run's.  Kept: the non-zero bytes of the mailbox area
(``mailboxes_t`` at 0x60, 13440 bytes) and each core's idle loop (the PCs it visits once idle).

    python scripts/ttmetal_boot_fixture.py ORACLE_DIR tests/data/ttmetal_boot_ttsim.json

ORACLE_DIR holds ``replay_mailbox.bin`` and ``results.json`` (the ttsim harness's ``oracle/boot``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

MAILBOX_BASE = 0x60


def runs(data: bytes, base: int) -> dict[str, str]:
    """The non-zero bytes of ``data`` as {address: hex} runs."""
    out, start = {}, None
    for i, byte in enumerate(data + b"\0"):
        if byte and start is None:
            start = i
        elif not byte and start is not None:
            out[f"{base + start:#x}"] = data[start:i].hex()
            start = None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("oracle", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    results = json.loads((args.oracle / "results.json").read_text())
    fixture = {
        "what": "tt-metal 0.81.1's boot of the ttnn wheel's Blackhole firmware (pre-compiled/"
                f"{results['firmware'].rsplit('/', 1)[-1]}) on Tenstorrent's simulator (ttsim v1.10.0, the host's "
                "writes as tt-metal made them, replayed by the ttsim-run harness until idle): the non-zero bytes of "
                "the mailbox area and the PCs of each core's idle loop",
        "mailbox_nonzero": runs((args.oracle / "replay_mailbox.bin").read_bytes(), MAILBOX_BASE),
        "mailbox_size": len((args.oracle / "replay_mailbox.bin").read_bytes()),
        "go_messages[0].signal": results["go_messages[0]"]["signal"],
        "idle_loops": {core: [pc for pc, _ in info["loop"]] for core, info in results["idle"].items()},
    }
    args.out.write_text(json.dumps(fixture, indent=1) + "\n")


if __name__ == "__main__":
    main()
