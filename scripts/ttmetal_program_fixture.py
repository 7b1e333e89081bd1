#!/usr/bin/env python3
"""Write the fixture ``tests/test_ttmetal_program.py`` checks tdbg's tt-metal host against
(``tests/data/ttmetal_programs_ttsim.json``), from programs tt-metal 0.81.1 itself ran on
Tenstorrent's simulator (the ttsim harness's ``oracle/program_<name>``, TTMETAL_PROGRAM.md): for
each, the buffers' DRAM addresses, the launch message tt-metal wrote (``launch[0]``, 144 bytes),
the kernel configuration layout, and the sha256 of the result buffer's bytes as ttsim computed
them (the inputs are regenerated from the programs' seeds, so no tensor is stored).

    python scripts/ttmetal_program_fixture.py ORACLE_DIR tests/data/ttmetal_programs_ttsim.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

#: the programs' inputs, as the capture scripts (run_add.py, run_matmul.py) made them
PROGRAMS = {
    "add": {"seed": 22, "low": -4, "high": 4, "a": [32, 384], "b": [32, 384], "c": [32, 384]},
    "matmul": {"seed": 23, "low": -1, "high": 1, "a": [64, 96], "b": [96, 64], "c": [64, 64]},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("oracle", type=Path)
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    fixture: dict[str, object] = {
        "what": "tt-metal 0.81.1 programs on one Tensix core of Tenstorrent's simulator (ttsim v1.10.0, slow dispatch, "
                "the ttnn wheel's kernels built with zig by the capture's compiler stand-in): buffers, launch message, "
                "kernel configuration layout, and the sha256 of the output buffer"}
    for name, inputs in PROGRAMS.items():
        folder = args.oracle / f"program_{name}"
        launch = json.loads((folder / "launch.json").read_text())
        message = launch["launch[0] at 0x70"]
        dram = json.loads((folder / "dram.json").read_text())
        out = next(v for k, v in dram.items() if k.startswith("out_"))
        result = (folder / out["file"]).read_bytes()
        fixture[name] = {
            "inputs": inputs,
            "buffers": [v["addr"] for k, v in dram.items()],
            "launch": launch["raw"],
            "kernel_text_offset": message["kernel_text_offset"],
            "kernel_text_size": message["kernel_text_size"],
            "local_cb_offset": message["local_cb_offset"],
            "remote_cb_offset": message["remote_cb_offset"],
            "cb_addresses": {i: cb["fifo_addr"] for i, cb in launch["local_cbs"].items()},
            "output_sha256": hashlib.sha256(result).hexdigest(),
        }
    args.out.write_text(json.dumps(fixture, indent=1) + "\n")


if __name__ == "__main__":
    main()
