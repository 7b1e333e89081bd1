"""tdbg installed like any Python tool: build the wheel, install it into a fresh virtual
environment in a temporary folder, and run the demo and a user's C file from a read-only folder
with that environment's ``tdbg``, from another working directory.

About 20-40 s (the install unpacks zig); deselect with ``-m 'not wheel'``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
KIT = {"demo.c", "release_triscs.c", "tensix.h", "crt0.S", "tdbg.ld"}   # the run-time kit, and only it

pytestmark = pytest.mark.wheel


#: The environment without a PYTHONPATH: a checkout on it (with its tdbg.egg-info from an editable
#: install) would make pip take tdbg as installed already and skip the wheel.
CLEAN_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


def _run(args: list, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess[str]:
    kwargs.setdefault("env", CLEAN_ENV)
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=timeout, **kwargs)


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = (done.stderr or done.stdout).strip().splitlines()
    return lines[-1] if lines else f"exit {done.returncode}"


def _build_wheel(tmp: Path) -> Path:
    """The wheel of a copy of what the build reads (no stale build/ folder, nothing written
    into the checkout); pip's isolated build first, then one with the installed setuptools."""
    src = tmp / "src"
    shutil.copytree(ROOT / "tdbg", src / "tdbg", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src)
    failures = []
    for isolation in ([], ["--no-build-isolation"]):
        done = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, src, "-w", tmp / "dist"])
        wheels = list((tmp / "dist").glob("tdbg-*.whl"))
        if done.returncode == 0 and wheels:
            return wheels[0]
        failures.append(f"pip wheel {' '.join(isolation)}: {_last_line(done)}")
    pytest.skip("cannot build a wheel here: " + "; ".join(failures))


def _install(wheel: Path, env: Path) -> Path:
    """A fresh virtual environment with the wheel and its dependencies from the package index;
    where they cannot be installed, one that sees this Python's packages (said as a warning)."""
    done = _run([sys.executable, "-m", "venv", env])
    if done.returncode != 0:
        pytest.skip(f"cannot create a virtual environment: {_last_line(done)}")
    python = env / "bin" / "python"
    done = _run([python, "-m", "pip", "install", "-q", wheel])
    if done.returncode != 0:
        shutil.rmtree(env)
        warnings.warn(f"installing the dependencies failed ({_last_line(done)}); "
                      "testing in a venv with --system-site-packages")
        _run([sys.executable, "-m", "venv", "--system-site-packages", env]).check_returncode()
        done = _run([python, "-m", "pip", "install", "-q", "--no-deps", wheel])
        assert done.returncode == 0, done.stderr
    return env / "bin"


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """(the venv's bin folder, the environment to run it in, a working directory elsewhere)."""
    tmp = tmp_path_factory.mktemp("wheel")
    wheel = _build_wheel(tmp)
    bin_dir = _install(wheel, tmp / "venv")
    env = dict(CLEAN_ENV)
    env["XDG_CACHE_HOME"] = str(tmp / "cache")  # an empty tdbg cache; zig's stays (conftest.py)
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    return bin_dir, env, elsewhere


def test_wheel_carries_the_firmware_kit(installed) -> None:
    bin_dir, env, cwd = installed
    done = _run([bin_dir / "python", "-c", "import tdbg.toolchain.zig as t; print(t.firmware_dir())"], env=env, cwd=cwd)
    kit = Path(done.stdout.strip())
    assert kit.is_relative_to(bin_dir.parent), done  # the installed package, not the checkout
    assert KIT == {p.name for p in kit.iterdir()}   # the examples (firmware/) stay in the checkout
    assert _run([bin_dir / "tdbg", "--version"], env=env, cwd=cwd).stdout == f"tdbg {VERSION}\n"
    assert _run([bin_dir / "python", "-m", "tdbg", "--version"], env=env, cwd=cwd).stdout == f"tdbg {VERSION}\n"


def test_installed_tdbg_runs_the_demo_then_a_c_file_from_a_read_only_folder(installed) -> None:
    bin_dir, env, cwd = installed
    demo = _run([bin_dir / "tdbg", "-q", "-batch", "-ex", "info registers pc"], env=env, cwd=cwd)
    assert demo.returncode == 0, demo.stderr
    assert demo.stdout.split() == ["pc", "0x6000", "0x6000", "<_start>"]  # tdbg.ld: reset PC 0x6000
    assert demo.stderr.count("building the C runtime") == 1  # the cold first build says so

    folder = cwd.parent / "read-only"
    folder.mkdir()
    (folder / "user.c").write_text("volatile unsigned results[1];\nint main(void) { results[0] = 6 * 7; return 0; }\n")
    folder.chmod(0o555)
    try:
        user = _run([bin_dir / "tdbg", "-q", "-batch", "-ex", "run", "-ex", "print results[0]", folder / "user.c"], env=env, cwd=cwd)
        assert [p.name for p in folder.iterdir()] == ["user.c"]  # nothing written beside it
    finally:
        folder.chmod(0o755)
    assert user.returncode == 0, user.stderr
    assert user.stdout.splitlines()[-1] == "$1 = 42"
    assert user.stderr == ""  # the C runtime is built: nothing to say


def test_installed_tdbg_builds_its_native_datapath(installed) -> None:
    """The C sources travel in the wheel and the installed zig builds them (tdbg.native)."""
    bin_dir, env, cwd = installed
    code = "from tdbg import native; print(native.library() is not None); print(native.build())"
    done = _run([bin_dir / "python", "-c", code], env=env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    loaded, path = done.stdout.splitlines()
    assert loaded == "True" and done.stderr == ""
    assert Path(path).is_relative_to(Path(env["XDG_CACHE_HOME"]) / "tdbg" / "native")  # the user's cache, not the package
