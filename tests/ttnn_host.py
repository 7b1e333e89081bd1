"""The user's side of issue 31: a ``ttnn`` host in a cached virtual environment.

The ``ttnn`` 0.81.1 wheels are cp310 and cp312 only, so the host runs in pyenv's Python 3.10
(``~/.pyenv/versions/3.10.13``, else 3.12.1; ``TDBG_HOST_PYTHON`` names another), never in the
Python that runs tdbg.  The venv is made once, at ``<tdbg's cache>/ttnn-host/py3.X`` (``TDBG_HOST_CACHE`` moves it), with the wheel
of ``tdbg.toolchain.ttnn`` (3.10; 3.12's comes from PyPI) and its dependencies from the package
index; ``.complete`` in it marks a venv whose ``import ttnn`` worked.  ``venv()`` raises
``HostUnavailable`` (one line) where it cannot be had; ``require()`` turns that into a visible skip.

    python tests/ttnn_host.py           # make the venv (what .ci/run does), print its python
    from tests.ttnn_host import run     # run(script_text, env={...}) -> CompletedProcess
"""

from __future__ import annotations

import fcntl
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script by .ci/run
    sys.path.insert(0, str(ROOT))

from tdbg.toolchain import ttnn  # noqa: E402
from tdbg.toolchain.zig import cache_dir  # noqa: E402

#: pyenv's interpreters the wheel has a build for, first found wins.
PYENV_PYTHONS = (Path.home() / ".pyenv/versions/3.10.13/bin/python",
                 Path.home() / ".pyenv/versions/3.12.1/bin/python")
INSTALL_TIMEOUT = 1800
_COMPLETE = ".complete"
#: Variables of tdbg's own process the host must not inherit (a checkout on PYTHONPATH would put
#: tdbg's Python-3.11 packages before the venv's).
_DROPPED = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")


class HostUnavailable(Exception):
    """No ttnn host can be had here; the message says why, in one line."""


def base_python() -> Path:
    """The interpreter the venv is made from (3.10 or 3.12, the wheel's only builds)."""
    given = os.environ.get("TDBG_HOST_PYTHON")
    candidates = (Path(given),) if given else PYENV_PYTHONS
    for python in candidates:
        if python.is_file() and os.access(python, os.X_OK):
            return python
    raise HostUnavailable("no Python 3.10 or 3.12 for the ttnn wheel (looked for "
                          + ", ".join(str(p) for p in candidates) + ")")


def _minor(python: Path) -> str:
    done = subprocess.run([python, "-c", "import sys; print(f'{sys.version_info[0]}.{sys.version_info[1]}')"],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise HostUnavailable(f"{python} does not run: {_last_line(done)}")
    return done.stdout.strip()


def cache_root() -> Path:
    """Where the host venvs live: ``TDBG_HOST_CACHE``, else ``ttnn-host`` in tdbg's cache (the
    test run's conftest keeps it there while it moves tdbg's build cache to a temporary one)."""
    given = os.environ.get("TDBG_HOST_CACHE", "")
    return Path(given) if os.path.isabs(given) else cache_dir() / "ttnn-host"


def venv_dir(minor: str) -> Path:
    """Where the host venv for Python ``minor`` ("3.10") lives."""
    return cache_root() / f"py{minor}"


def venv() -> Path:
    """The venv's python, made (once; other processes wait on a lock) if it is not there yet."""
    base = base_python()
    minor = _minor(base)
    home = venv_dir(minor)
    python = home / "bin" / "python"
    if (home / _COMPLETE).is_file():
        return python
    home.parent.mkdir(parents=True, exist_ok=True)
    with open(home.parent / f".lock-py{minor}", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (home / _COMPLETE).is_file():
            _make(base, minor, home)
    return python


def _make(base: Path, minor: str, home: Path) -> None:
    """Install ttnn into ``home`` (a venv already there, e.g. made by hand, is kept when it imports)."""
    python = home / "bin" / "python"
    if not _imports(python):
        if not python.is_file():
            _check(subprocess.run([base, "-m", "venv", home], capture_output=True, text=True,
                                  timeout=INSTALL_TIMEOUT, env=clean_env()), f"python{minor} -m venv")
        try:
            wheel = str(ttnn.wheel()) if minor == "3.10" else f"ttnn=={ttnn.VERSION}"
        except ttnn.TtnnUnavailable as exc:
            raise HostUnavailable(str(exc)) from exc
        print(f"tdbg: installing {Path(wheel).name} and its dependencies into {home}, once",
              file=sys.stderr, flush=True)
        _check(subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", wheel],
                              capture_output=True, text=True, timeout=INSTALL_TIMEOUT, env=clean_env()),
               f"pip install {Path(wheel).name}")
        if not _imports(python):
            raise HostUnavailable(f"ttnn installed into {home} but does not import")
    (home / _COMPLETE).write_text(f"ttnn=={ttnn.VERSION}\n")


def _imports(python: Path) -> bool:
    if not python.is_file():
        return False
    done = subprocess.run([python, "-c", "import ttnn"], capture_output=True, text=True, timeout=300,
                          env=clean_env())
    return done.returncode == 0


def _check(done: subprocess.CompletedProcess[str], what: str) -> None:
    if done.returncode != 0:
        raise HostUnavailable(f"{what} failed: {_last_line(done)}")


def _last_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("ERROR")]
    return (errors or lines or [f"exit {done.returncode}"])[-1].strip()


def clean_env(**extra: str) -> dict[str, str]:
    """tdbg's environment without what would leak into the host's Python, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in _DROPPED}
    env.update(extra)
    return env


def require() -> Path:
    """The venv's python, or a visible skip of the calling test with the reason."""
    import pytest

    try:
        return venv()
    except HostUnavailable as exc:
        pytest.skip(f"no ttnn host: {exc}")


def package() -> Path:
    """The ttnn package folder installed in the venv (holds ``tt_metal/`` and ``runtime/``)."""
    found = sorted((venv().parent.parent / "lib").glob("python3*/site-packages/ttnn"))
    if not found:
        raise HostUnavailable(f"no ttnn package in {venv().parent.parent}")
    return found[0]


def soc_descriptor(workers: str | None = None) -> str:
    """The wheel's Blackhole descriptor (140 Tensix tiles), or, with ``workers`` ("1-2, 2-2"), the
    same chip presenting only those: ``y_size: 2``, which makes tt-metal 0.81.1 take its
    ``blackhole_simulation_1x2_arch.yaml`` core descriptor (two compute cores, measured)."""
    text = (package() / "tt_metal" / "soc_descriptors" / "blackhole_140_arch.yaml").read_text()
    if workers is None:
        return text
    text = re.sub(r"(grid:\s*\n\s*x_size: \d+\s*\n\s*)y_size: \d+", r"\1y_size: 2", text)
    return re.sub(r"functional_workers:\s*\n\s*\[[^\]]*\]", f"functional_workers:\n  [ {workers} ]", text)


def run(script: str, env: dict[str, str] | None = None, timeout: float = 600,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the Python ``script`` (its text) in the host venv, with ``env`` added to a clean
    environment; output captured as text."""
    return subprocess.run([str(venv()), "-c", script], capture_output=True, text=True, timeout=timeout,
                          env=clean_env(**(env or {})), cwd=cwd)


if __name__ == "__main__":
    try:
        print(venv())
    except HostUnavailable as exc:
        print(f"tdbg: no ttnn host: {exc}", file=sys.stderr)
