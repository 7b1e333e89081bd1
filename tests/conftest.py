"""Shared fixtures."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tdbg import native
from tdbg.tensix.state import TensixState
from tdbg.toolchain import ttnn

import ttnn_host

_BUILD_CACHE = pytest.StashKey[Path]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fuzz-long", action="store_true",
                     help="run the fuzz tests (test_fuzz_*.py) with many more examples; same as TDBG_FUZZ_LONG=1")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--fuzz-long"):
        os.environ["TDBG_FUZZ_LONG"] = "1"   # read by tests/fuzzing.py when the fuzz modules import
    _build_cache(config)


def _build_cache(config: pytest.Config) -> None:
    """Every firmware build of the run, in this process (from collection on: some modules open
    a session at import) and in ``python -m tdbg`` children, goes to a temporary tdbg cache
    instead of the user's: the tests build throwaway sources under new paths each run.  zig
    keeps its own cache where it was: like tdbg's it lives under ``$XDG_CACHE_HOME`` (else
    ``~/.cache``), and it holds the C runtime, seconds to rebuild.  So does the ttnn cache (the
    100 MB wheel, downloaded at most once, and the tt-llk kernels built from it, keyed by
    content), and the ttnn host's venvs (tests/ttnn_host.py: a pip install of ttnn, a minute or two).
    """
    os.environ.setdefault("TDBG_TTNN_CACHE", str(ttnn.cache_root()))
    os.environ.setdefault("TDBG_HOST_CACHE", str(ttnn_host.cache_root()))      # the ttnn host venvs
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    zig_cache = (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache") / "zig"
    os.environ.setdefault("ZIG_GLOBAL_CACHE_DIR", str(zig_cache))
    cache_home = Path(tempfile.mkdtemp(prefix="tdbg-test-cache-"))
    os.environ["XDG_CACHE_HOME"] = str(cache_home)
    config.stash[_BUILD_CACHE] = cache_home


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(config.stash[_BUILD_CACHE], ignore_errors=True)


@pytest.fixture(scope="session")
def build_cache(pytestconfig: pytest.Config) -> Path:
    """The tdbg cache every build of this run goes to."""
    return pytestconfig.stash[_BUILD_CACHE] / "tdbg"


@pytest.fixture
def tensix() -> TensixState:
    return TensixState()


@pytest.fixture(params=["native", "numpy"])
def datapath(request: pytest.FixtureRequest) -> object:
    """Run the test once on the native datapath (``tdbg.native``) and once on the numpy model."""
    if request.param == "numpy":
        with native.disabled():
            yield request.param
    elif native.library() is None:
        pytest.skip("the native library cannot be built here")
    else:
        yield request.param
