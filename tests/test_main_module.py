"""``python -m tdbg`` from the folder above a clone named ``tdbg`` (issue 33 item 9): the clone's
top folder, first on ``sys.path``, became a namespace package ``tdbg`` ahead of an editable
install (whose finder comes after the path finder), and package data was looked up in it
(``FileNotFoundError: .../tdbg/data/riscv_csr_names.json``).  The child here has such a finder,
for this checkout's package, and a folder ``tdbg`` without ``__init__.py`` in its working
directory."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PACKAGE_PARENT = Path(__file__).resolve().parent.parent

CHILD = """
import runpy, sys
from importlib import machinery, util
from pathlib import Path

class Editable:   # as setuptools' _EditableFinder: tdbg.* from one folder, after the path finder
    def find_spec(self, name, path=None, target=None):
        if name != "tdbg" and not name.startswith("tdbg."):
            return None
        base = Path(ROOT, *name.split("."))
        if base.is_dir():
            return util.spec_from_file_location(name, base / "__init__.py", submodule_search_locations=[str(base)])
        return util.spec_from_file_location(name, f"{base}.py") if Path(f"{base}.py").exists() else None

sys.meta_path.insert(sys.meta_path.index(machinery.PathFinder) + 1, Editable())
sys.argv = ["tdbg", "-q", "-batch", "-ex", "echo ok\\\\n"]
runpy.run_module("tdbg", run_name="__main__", alter_sys=True)
"""


def test_python_m_tdbg_beside_a_clone_named_tdbg(tmp_path: Path) -> None:
    (tmp_path / "tdbg" / "tdbg").mkdir(parents=True)        # a clone: its package one level down
    (tmp_path / "tdbg" / "README.md").write_text("a clone\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = f"ROOT = {str(PACKAGE_PARENT)!r}\n{CHILD}"
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == "ok\n"
