#!/usr/bin/env python3
"""Generate ``tdbg/arch/blackhole/cfg.json`` from the spec pack's Blackhole config table.

Reads ``../shared/spec/bh_cfg_fields.json`` (field name, addr32, shamt, mask, width, section,
global) and keeps only the facts the model needs, so the package never reads ``../shared`` at
run time.  Rerun after the spec pack changes::

    python scripts/gen_cfg_table.py [--spec DIR]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SPEC = ROOT.parent / "shared" / "spec"


def build(spec: Path) -> dict:
    src = json.loads((spec / "bh_cfg_fields.json").read_text())
    fields = [
        [f["name"], f["addr32"], f["shamt"], f["width"], f["section"] == "THREAD", bool(f.get("global"))]
        for f in sorted(src["fields"], key=lambda f: (f["section"] != "THREAD", f["addr32"], f["shamt"], f["name"]))
    ]
    return {
        "source": {"file": "shared/spec/bh_cfg_fields.json", "commit": src["source"]["commit"]},
        "columns": ["name", "addr32", "shamt", "width", "thread", "global"],
        "constants": src["constants"],
        "fields": fields,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    args = parser.parse_args()
    out = ROOT / "tdbg" / "arch" / "blackhole" / "cfg.json"
    out.write_text(json.dumps(build(args.spec), separators=(",", ":")) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
