"""tdbg.toolchain.ttnn: where the ttnn wheel comes from, what is unpacked, and the one line said
when it cannot be had.  A small zip stands in for the 100 MB wheel; the download test points pip
at an index that does not answer."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tdbg.toolchain import ttnn


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("TDBG_TTNN_DIR", "TDBG_TTNN_WHEEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TDBG_TTNN_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def fake_wheel(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ttnn/tt_metal/tt-llk/tests/sources/eltwise_unary_datacopy_test.cpp", "// test\n")
        z.writestr("ttnn/tt_metal/hw/inc/internal/tensix.h", "// hw\n")
        z.writestr("ttnn/tt_metal/pre-compiled/123/trisc0/trisc0.elf", b"\x7fELF")
        z.writestr("ttnn/ttnn/cpp/ttnn/operations/eltwise/kernels/compute.cpp", "// op\n")
        z.writestr("ttnn/_ttnn.cpython-310-x86_64-linux-gnu.so", b"\0" * 64)
        z.writestr("ttnn/tt_metal/impl/device.hpp", "// host only\n")
    return path


def test_a_wheel_on_disk_is_unpacked_once_and_only_its_kernel_parts(cache: Path, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    wheel = fake_wheel(tmp_path / "ttnn.whl")
    monkeypatch.setenv("TDBG_TTNN_WHEEL", str(wheel))
    tree = ttnn.tree()
    assert tree.root == cache / ttnn.VERSION
    assert (tree.tt_llk / "tests" / "sources" / "eltwise_unary_datacopy_test.cpp").is_file()
    assert (tree.precompiled / "123" / "trisc0" / "trisc0.elf").read_bytes() == b"\x7fELF"
    assert (tree.operations / "eltwise" / "kernels" / "compute.cpp").is_file()
    assert not (tree.root / "ttnn" / "_ttnn.cpython-310-x86_64-linux-gnu.so").exists()
    assert not (tree.tt_metal / "impl").exists()
    wheel.unlink()                                   # the second call never reads it again
    assert ttnn.tree() == tree


def test_an_unpacked_tree_is_used_as_it_is(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    given = tmp_path / "given"
    (given / "ttnn" / "tt_metal" / "tt-llk" / "tests" / "sources").mkdir(parents=True)
    monkeypatch.setenv("TDBG_TTNN_DIR", str(given))
    assert ttnn.tree().root == given
    assert not cache.exists()


@pytest.mark.parametrize(("variable", "value", "says"), [
    ("TDBG_TTNN_DIR", "{tmp}", "holds no unpacked ttnn wheel"),
    ("TDBG_TTNN_WHEEL", "{tmp}/missing.whl", "is not a file"),
])
def test_a_bad_override_is_one_line(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                    variable: str, value: str, says: str) -> None:
    monkeypatch.setenv(variable, value.format(tmp=tmp_path))
    with pytest.raises(ttnn.TtnnUnavailable, match=says) as caught:
        ttnn.tree()
    assert "\n" not in str(caught.value)


def test_not_a_ttnn_wheel(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    other = tmp_path / "other.whl"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("other/__init__.py", "")
    monkeypatch.setenv("TDBG_TTNN_WHEEL", str(other))
    with pytest.raises(ttnn.TtnnUnavailable, match="not a ttnn 0.81.1 wheel"):
        ttnn.tree()
    assert not (cache / ttnn.VERSION).exists()


def test_no_network_is_one_line(cache: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture) -> None:
    for name, value in (("PIP_INDEX_URL", "http://127.0.0.1:9/simple"), ("PIP_RETRIES", "0"), ("PIP_TIMEOUT", "1"),
                        ("PIP_NO_CACHE_DIR", "1"), ("PIP_CONFIG_FILE", "/dev/null")):
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    with pytest.raises(ttnn.TtnnUnavailable) as caught:
        ttnn.tree()
    message = str(caught.value)
    assert message.startswith(f"cannot download ttnn=={ttnn.VERSION} from PyPI (no network?): ") and "\n" not in message
    assert "downloading ttnn==0.81.1 (about 100 MB) from PyPI" in capfd.readouterr().err
    assert not (cache / ttnn.VERSION).exists() and not list(cache.glob(".download-*"))


def test_the_wheel_file_itself_for_a_host_venv(cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    given = fake_wheel(tmp_path / "ttnn.whl")
    monkeypatch.setenv("TDBG_TTNN_WHEEL", str(given))
    assert ttnn.wheel() == given
    monkeypatch.delenv("TDBG_TTNN_WHEEL")
    cached = fake_wheel(cache / ttnn.WHEEL)          # a download done before: never fetched again
    assert ttnn.wheel() == cached


def test_no_host_python_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ttnn_host

    monkeypatch.setenv("TDBG_HOST_PYTHON", str(tmp_path / "python3.10"))
    with pytest.raises(ttnn_host.HostUnavailable, match=r"no Python 3\.10 or 3\.12 .*python3\.10\)$"):
        ttnn_host.venv()
