#!/usr/bin/env python3
"""Generate ``tdbg/tensix/data/isa.json``: every Tensix instruction's opcode and bit fields.

Reads ``../shared/spec/encodings.json`` (the pinned ``Bits32.lua`` layouts plus the newer
upstream additions) and, for each instruction, the "Syntax" section of its documentation page
to learn the positional operand order of its ``TT_*`` macro.  The package never reads
``../shared`` at run time.  Rerun after the spec pack changes::

    python scripts/gen_isa_table.py [--spec DIR]

Output: one JSON object per instruction, sorted by opcode then name, with

* ``fields``: ``[name, lsb, width, signed]`` in lsb order;
* ``fixed``: ``[lsb, width, value]`` constant variant-selecting bits;
* ``select``: ``{field: [values]}`` for variants that share an opcode and are told apart by a
  field value rather than fixed bits (taken from the ``#define``s on their pages);
* ``syntax``: field names in the macro's argument order (constants skipped; several fields
  packed into one argument are listed as they appear), or ``null`` when the page has no
  parseable syntax;
* ``arch``: the architectures the entry belongs to.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SPEC = ROOT.parent / "shared" / "spec"
PINNED_DOCS = "tt-isa-documentation"
NEWER_DOCS = "tt-isa-documentation-newer"
PINNED_ARCH = "WormholeB0"
WORD_BITS = 24  # bits below the opcode byte

# Newer-upstream entries that are not Wormhole B0 but are kept: Blackhole variants of Wormhole
# instructions, flagged with their arch so the codec only uses them for that profile.
KEEP_SUFFIX = "_BH"

# Variants sharing an opcode without fixed bits: (field, page, #define names of the values that
# select the variant).  SFPSHFT2.md: SFPSHFT2_MOD1_SHFT_IMM is the mode that reads Imm12;
# SFPSTOCHRND_IntInt.md: the two INT32 modes are the ones that read UseImm5 / Imm5 / VB.
SELECT = {
    "SFPSHFT2b": ("Mod1", "SFPSHFT2.md", ["SFPSHFT2_MOD1_SHFT_IMM"]),
    "SFPSTOCHRNDi": ("Mod1", "SFPSTOCHRND_IntInt.md",
                     ["SFPSTOCHRND_MOD1_INT32_TO_UINT8", "SFPSTOCHRND_MOD1_INT32_TO_INT8"]),
}
SELECT["SFPSTOCHRNDi_BH"] = SELECT["SFPSTOCHRNDi"]  # no Blackhole page; same Lua fields
COPROCESSOR = "WormholeB0/TensixTile/TensixCoprocessor"

CALL = re.compile(r"\b(TTI?_\w+)\s*(\()?")
TYPED_NAME = re.compile(r"/\*\s*\w+\s*\*/\s*\(?\s*([A-Za-z_]\w*)")


def syntax_code(page: str) -> str | None:
    """The code blocks of a page's ``## Syntax`` section, or None."""
    section = re.search(r"^## Syntax\s*$(.*?)(?=^## |\Z)", page, re.M | re.S)
    if section is None:
        return None
    return "\n".join(re.findall(r"```\w*\n(.*?)```", section.group(1), re.S))


def calls(code: str) -> list[list[str]]:
    """For each macro call in ``code``: the typed operand names, in argument order."""
    out = []
    for m in CALL.finditer(code):
        args: list[str] = []
        if m.group(2):
            depth, pos, start = 1, m.end(), m.end()
            while depth:
                ch = code[pos]
                if ch == "(":
                    depth += 1
                elif ch == ")":
                    depth -= 1
                if (ch == "," and depth == 1) or depth == 0:
                    args.append(code[start:pos])
                    start = pos + 1
                pos += 1
        out.append([name for arg in args for name in TYPED_NAME.findall(arg)])
    return out


def parse_syntax(entry: dict, pages: list[Path]) -> list[str] | None:
    """Field names in positional order from the best-fitting call on the entry's pages.

    A call fits when every name it uses is a field of the entry; among fitting calls the one
    naming the most fields wins (pages list one call per variant, e.g. ``ADDDMAREG``).
    """
    fields = {f["name"] for f in entry["fields"]}
    best: list[str] | None = None
    for page in pages:
        if not page.exists():
            continue
        code = syntax_code(page.read_text())
        for names in calls(code or ""):
            if set(names) <= fields and len(set(names)) == len(names):
                if best is None or len(names) > len(best):
                    best = names
    return best


def defines(page: Path) -> dict[str, int]:
    return {m[1]: int(m[2], 0) for m in re.finditer(r"#define\s+(\w+)\s+(0x[0-9a-fA-F]+|\d+)", page.read_text())}


def check(entry: dict) -> None:
    """Fields and fixed bits lie below the opcode and do not overlap."""
    used = 0
    spans = [(f["lsb"], f["width"], f["name"]) for f in entry["fields"]]
    spans += [(x["lsb"], x["width"], "fixed") for x in entry.get("fixed", [])]
    for lsb, width, what in spans:
        mask = ((1 << width) - 1) << lsb
        assert lsb + width <= WORD_BITS and not used & mask, (entry["name"], what)
        used |= mask
    lower = [f["name"].lower() for f in entry["fields"]]
    assert len(set(lower)) == len(lower), entry["name"]


def collect(spec: Path) -> list[tuple[dict, str, list[str]]]:
    """(entry, docs root, arch list) for every instruction kept, duplicates merged."""
    src = json.loads((spec / "encodings.json").read_text())
    kept: list[tuple[dict, str, list[str]]] = [(e, PINNED_DOCS, [PINNED_ARCH]) for e in src["instructions"]]
    for e in src["newer_upstream"]["added_instructions"]:
        arch = e["arch"].split("+")
        if PINNED_ARCH in arch or e["name"].endswith(KEEP_SUFFIX):
            kept.append((e, NEWER_DOCS, arch))
    by_name: dict[str, tuple[dict, str, list[str]]] = {}
    for item in kept:
        name = item[0]["name"]
        if name in by_name:  # Bits32.lua defines SEMINIT twice; identical bodies are one entry
            old = by_name[name][0]
            assert (old["opcode"], old["fields"], old.get("fixed")) == (
                item[0]["opcode"], item[0]["fields"], item[0].get("fixed")), f"conflicting {name}"
            continue
        by_name[name] = item
    return list(by_name.values())


def build(spec: Path) -> dict:
    src = json.loads((spec / "encodings.json").read_text())
    rows = []
    for entry, docs, arch in collect(spec):
        check(entry)
        pages = [spec / docs / p for p in entry["doc_pages"]]
        syntax = parse_syntax(entry, pages)
        # RMWCIB: opcode 0xB3 + Index1; the page spells the four opcodes TT_RMWCIB0..3.
        opcodes = entry.get("opcodes", [entry["opcode"]])
        names = [entry["name"] + str(i) for i in range(len(opcodes))] if "opcodes" in entry else [entry["name"]]
        for name, opcode in zip(names, opcodes):
            row = {
                "name": name,
                "opcode": opcode,
                "arch": arch,
                "fields": [[f["name"], f["lsb"], f["width"], bool(f.get("signed"))] for f in entry["fields"]],
                "fixed": [[x["lsb"], x["width"], x["value"]] for x in entry.get("fixed", [])],
                "syntax": syntax,
                "doc": [f"{docs}/{p}" for p in entry["doc_pages"]],
            }
            if name in SELECT:
                field, page, macros = SELECT[name]
                values = defines(spec / PINNED_DOCS / COPROCESSOR / page)
                row["select"] = {field: sorted(values[m] for m in macros)}
            rows.append(row)
    rows.sort(key=lambda r: (r["opcode"], r["name"]))
    lower = [r["name"].lower() for r in rows]
    assert len(set(lower)) == len(lower), "mnemonics must differ ignoring case"
    return {
        "source": {
            "file": "shared/spec/encodings.json",
            "pinned": src["source"]["commit"],
            "newer": src["newer_upstream"]["commit"],
        },
        "instructions": rows,
    }


def dump(table: dict) -> str:
    """Deterministic compact JSON, one instruction per line."""
    def enc(obj: object) -> str:
        return json.dumps(obj, separators=(",", ":"), sort_keys=True)
    lines = ",\n".join(enc(r) for r in table["instructions"])
    return f'{{"source":{enc(table["source"])},\n"instructions":[\n{lines}\n]}}\n'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", type=Path, default=DEFAULT_SPEC)
    args = parser.parse_args()
    table = build(args.spec)
    out = ROOT / "tdbg" / "tensix" / "data" / "isa.json"
    out.write_text(dump(table))
    rows = table["instructions"]
    full = sum(r["syntax"] is not None and len(r["syntax"]) == len(r["fields"]) for r in rows)
    part = [r["name"] for r in rows if r["syntax"] is not None and len(r["syntax"]) < len(r["fields"])]
    none = [r["name"] for r in rows if r["syntax"] is None]
    print(f"wrote {out.relative_to(ROOT)}: {len(rows)} instructions; syntax for all fields: {full}; "
          f"partial ({len(part)}): {' '.join(part)}; none ({len(none)}): {' '.join(none)}")


if __name__ == "__main__":
    main()
