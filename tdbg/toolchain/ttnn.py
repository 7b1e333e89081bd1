"""The ``ttnn`` wheel from PyPI: where tdbg gets Tenstorrent's code.

Tenstorrent publishes ``ttnn`` on PyPI; its wheel (about 100 MB) carries, as plain files, tt-llk
complete (``ttnn/tt_metal/tt-llk``: the LLK headers, ``tests/sources``, ``tests/helpers``, the
test harness), tt-metal's hardware headers (``ttnn/tt_metal/hw``), the pre-compiled firmware
(``ttnn/tt_metal/pre-compiled/<hash>/{brisc,ncrisc,trisc0,...}/*.elf``) and the op kernels
(``ttnn/ttnn/cpp/ttnn/operations``).  tdbg downloads it once, with pip, into its cache and
unpacks only those folders (``PARTS``); every later call finds them there.

Where it comes from, first match wins:

- ``TDBG_TTNN_DIR``: a folder that already holds the unpacked tree (``ttnn/tt_metal/tt-llk`` ...);
  used as it is, never written.
- ``TDBG_TTNN_WHEEL``: a ttnn wheel already on disk; unpacked into the cache, no download.
- else ``pip download --no-deps --only-binary=:all: --python-version 3.10 --platform
  manylinux_2_34_x86_64 ttnn==0.81.1`` into the cache, once.

The cache is ``TDBG_TTNN_CACHE``, else ``ttnn`` under tdbg's cache (``$XDG_CACHE_HOME/tdbg``, else
``~/.cache/tdbg``).  When the wheel cannot be had (no network, no pip), ``TtnnUnavailable`` says
why in one line.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tdbg.toolchain.zig import cache_dir

__all__ = ["PARTS", "VERSION", "Tree", "TtnnUnavailable", "cache_root", "tree", "wheel"]

VERSION = "0.81.1"
WHEEL = f"ttnn-{VERSION}-cp310-cp310-manylinux_2_34_x86_64.whl"
PIP_DOWNLOAD = ("download", "--no-deps", "--only-binary=:all:", "--python-version", "3.10",
                "--platform", "manylinux_2_34_x86_64", f"ttnn=={VERSION}")
#: The folders of the wheel tdbg unpacks (its other 250 MB are host libraries and Python).
PARTS = ("ttnn/tt_metal/tt-llk/", "ttnn/tt_metal/hw/", "ttnn/tt_metal/hostdevcommon/",
         "ttnn/tt_metal/pre-compiled/", "ttnn/ttnn/cpp/ttnn/operations/",
         # tt-metal kernels (tdbg.ttmetal.kit): the rest of the kernel headers, the kernel linker scripts
         "ttnn/tt_metal/api/", "ttnn/ttnn/cpp/", "ttnn/runtime/hw/toolchain/")
DOWNLOAD_TIMEOUT = 1800
_COMPLETE = ".complete"


class TtnnUnavailable(Exception):
    """The ttnn wheel cannot be had; the message says why, in one line."""


@dataclass(frozen=True)
class Tree:
    """An unpacked ttnn wheel (``root`` holds its ``ttnn/`` folder)."""

    root: Path

    @property
    def tt_metal(self) -> Path:
        return self.root / "ttnn" / "tt_metal"

    @property
    def tt_llk(self) -> Path:
        return self.tt_metal / "tt-llk"

    @property
    def precompiled(self) -> Path:
        return self.tt_metal / "pre-compiled"

    @property
    def operations(self) -> Path:
        return self.root / "ttnn" / "ttnn" / "cpp" / "ttnn" / "operations"


def cache_root() -> Path:
    """Where the wheel, its unpacked folders and the tt-llk builds are kept."""
    override = os.environ.get("TDBG_TTNN_CACHE", "")
    return Path(override) if os.path.isabs(override) else cache_dir() / "ttnn"


def tree() -> Tree:
    """The unpacked wheel, obtained (once) if it is not there yet."""
    given = os.environ.get("TDBG_TTNN_DIR")
    if given:
        found = Tree(Path(given))
        if not (found.tt_llk / "tests" / "sources").is_dir():
            raise TtnnUnavailable(f"TDBG_TTNN_DIR={given} holds no unpacked ttnn wheel (no ttnn/tt_metal/tt-llk/tests/sources)")
        return found
    root = cache_root()
    unpacked = Tree(root / VERSION)
    if _complete(unpacked):
        return unpacked
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TtnnUnavailable(f"cannot create the ttnn cache {root}: {exc.strerror}") from exc
    with _locked(root):
        if not _complete(unpacked):
            _unpack(_wheel(root), unpacked.root)
    return unpacked


def wheel() -> Path:
    """The wheel file itself (cp310), obtained (once) if it is not there yet: what a host venv
    installs (``tests/ttnn_host.py``)."""
    root = cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TtnnUnavailable(f"cannot create the ttnn cache {root}: {exc.strerror}") from exc
    with _locked(root):
        return _wheel(root)


def _complete(unpacked: Tree) -> bool:
    """The cache holds every folder of ``PARTS`` (an unpack made for fewer parts is redone)."""
    marker = unpacked.root / _COMPLETE
    return marker.is_file() and set(PARTS) <= set(marker.read_text().splitlines())


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    """One process at a time obtains the wheel (a test run and a shell may start together)."""
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _wheel(root: Path) -> Path:
    """The wheel file: ``TDBG_TTNN_WHEEL``, the cached download, or a new download."""
    given = os.environ.get("TDBG_TTNN_WHEEL")
    if given:
        if not Path(given).is_file():
            raise TtnnUnavailable(f"TDBG_TTNN_WHEEL={given} is not a file")
        return Path(given)
    wheel = root / WHEEL
    if wheel.is_file():
        return wheel
    print(f"tdbg: downloading ttnn=={VERSION} (about 100 MB) from PyPI into {root}, once",
          file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=root) as tmp:
        try:
            done = subprocess.run([sys.executable, "-m", "pip", *PIP_DOWNLOAD, "--quiet", "-d", tmp],
                                  capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise TtnnUnavailable(f"cannot download ttnn=={VERSION} from PyPI: {exc}") from exc
        got = Path(tmp) / WHEEL
        if done.returncode != 0 or not got.is_file():
            lines = [line.strip() for line in (done.stderr + done.stdout).splitlines() if line.strip()]
            errors = [line.removeprefix("ERROR: ") for line in lines if line.startswith("ERROR:")]
            reason = (errors or lines or [f"pip exited with {done.returncode}"])[0]
            raise TtnnUnavailable(f"cannot download ttnn=={VERSION} from PyPI (no network?): {reason}")
        os.replace(got, wheel)
    return wheel


def _unpack(wheel: Path, dest: Path) -> None:
    """Extract ``PARTS`` of ``wheel`` into ``dest`` (built aside, then renamed into place)."""
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=dest.parent))
    try:
        with zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.namelist() if m.startswith(PARTS) and not m.endswith("/")]
            if not any(m.startswith(PARTS[0]) for m in members):
                raise TtnnUnavailable(f"{wheel} holds no {PARTS[0]}: not a ttnn {VERSION} wheel")
            archive.extractall(staging, members)
        (staging / _COMPLETE).write_text("\n".join((wheel.name, *PARTS)) + "\n")
        shutil.rmtree(dest, ignore_errors=True)
        os.replace(staging, dest)
    except zipfile.BadZipFile as exc:
        raise TtnnUnavailable(f"{wheel} is not a wheel (zip): {exc}") from exc
    except OSError as exc:
        raise TtnnUnavailable(f"cannot unpack {wheel.name} into {dest}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
