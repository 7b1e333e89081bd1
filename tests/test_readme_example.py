"""The README's Python API example, run exactly as written there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_example_passes() -> None:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Python API.*?```python\n(.*?)```", text, re.S)
    assert block, "the README has no Python API example"
    namespace: dict[str, object] = {}
    exec(compile(block.group(1), "README.md", "exec"), namespace)
    tests = [f for name, f in namespace.items() if name.startswith("test_")]
    assert tests
    for test in tests:
        test()  # type: ignore[operator]
