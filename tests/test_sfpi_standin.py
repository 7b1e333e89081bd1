"""tdbg's stand-in for SFPI's compiler (tdbg.toolchain.sfpi_standin): where it goes, what it
refuses, and, on Tenstorrent's simulator (``TTSIM_LIB``), a user's ttnn script whose firmware and
kernels it built, to numpy's answer.

The ttsim tests need the ttnn host (tests/ttnn_host.py: pyenv's Python 3.10 or 3.12 and the ttnn
wheel) and a ttsim build named by ``TTSIM_LIB``; they skip visibly without either.  About 2-3 min
each (tt-metal's first JIT build of firmware and kernels, then ttsim)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import ttnn_host
from tdbg.toolchain import sfpi_standin
from tdbg.ttmetal import kit

OPS = Path(__file__).with_name("ttnn_ops.py")


# ---- without ttsim ------------------------------------------------------------------------------


def fake_ttnn(root: Path) -> Path:
    (root / "tt_metal" / "hw").mkdir(parents=True)
    (root / "runtime").mkdir()
    return root


def test_install_writes_the_compiler_where_tt_metal_looks(tmp_path: Path) -> None:
    wrapper = sfpi_standin.install(fake_ttnn(tmp_path / "ttnn"))
    assert wrapper == tmp_path / "ttnn" / "runtime/sfpi/compiler/bin/riscv-tt-elf-g++"
    done = subprocess.run([wrapper, "--version"], capture_output=True, text=True, timeout=120,
                          env=ttnn_host.clean_env())
    assert done.returncode == 0 and "tdbg SFPI stand-in" in done.stdout


def test_the_command_installs_into_a_venvs_ttnn(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from tdbg.cli.main import main

    package = fake_ttnn(tmp_path / "venv/lib/python3.10/site-packages/ttnn")
    assert main(["toolchain", "sfpi-standin", str(tmp_path / "venv")]) == 0
    assert capsys.readouterr().out == f"{package / sfpi_standin.COMPILER}\n"
    assert main(["toolchain", "sfpi-standin", str(tmp_path / "nothing")]) == 1
    assert capsys.readouterr().err == f"tdbg: {tmp_path / 'nothing'} is not an installed ttnn package (no tt_metal/hw, runtime/)\n"


def test_install_refuses_a_folder_that_is_not_ttnn(tmp_path: Path) -> None:
    with pytest.raises(sfpi_standin.StandinError, match=r"is not an installed ttnn package"):
        sfpi_standin.install(tmp_path)


def standin(work: Path, source: str, capfd: pytest.CaptureFixture, link: bool = False) -> tuple[int, str]:
    """Compile ``source`` as tt-metal's JIT compiles a kernel (the GCC-only flags included) in
    ``work`` (laid out as tt-metal's output, ``kernels/<name>/<hash>/<proc>``), and link it."""
    work.mkdir(parents=True)
    (work / "k.cpp").write_text(source)
    gcc_only = ["-O3", "-std=c++17", "-ftt-nttp", "-flto=1", "-mcpu=tt-bh-tensix", "--param=min-pagesize=0"]
    rc = sfpi_standin.main([*gcc_only, '-DFULL_KERNEL_NAME="eltwise_mine/1234/"', "-c", "-o", str(work / "k.o"),
                            str(work / "k.cpp")])
    if rc == 0 and link:
        (work / "k.ld").write_text("SECTIONS { .text : { *(.text*) } }\n")
        rc = sfpi_standin.main([*gcc_only, "-nostartfiles", "-Wl,-z,max-page-size=16", f"-T{work / 'k.ld'}",
                                str(work / "k.o"), "-o", str(work / "trisc1.elf")])
    return rc, capfd.readouterr().err


SFPI_TEMPLATE = """#include <cstdint>
#include "sfpi.h"
template <int N> void square() {
    sfpi::vFloat x = sfpi::dst_reg[0];
    sfpi::dst_reg[0] = x * x;
}
"""


def test_sfpi_vector_code_is_refused_in_one_line_naming_the_kernel_and_the_line(tmp_path: Path,
                                                                                 capfd: pytest.CaptureFixture) -> None:
    work = tmp_path / "kernels/eltwise_mine/1234/trisc1"
    rc, err = standin(work, SFPI_TEMPLATE + "void kernel_main() { square<1>(); }\n", capfd, link=True)
    assert rc == 1
    assert err.count("\n") == 1, err
    assert re.match(rf"tdbg sfpi-standin: eltwise_mine: {re.escape(str(work / 'k.cpp'))}:[45] uses SFPI vector code "
                    r"\(sfpi::", err), err
    assert "needs SFPI's compiler" in err


def test_sfpi_code_a_kernel_does_not_run_still_builds(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    """A template never instantiated, and a function never called (what ttnn's reduce kernel
    includes: the SFPU library)."""
    unused = "inline void unused() { sfpi::vFloat y = sfpi::dst_reg[1]; sfpi::dst_reg[1] = -y; }\n"
    rc, err = standin(tmp_path / "k", SFPI_TEMPLATE + unused + "int kernel_main() { return 3; }\n", capfd, link=True)
    assert (rc, err) == (0, "")
    assert (tmp_path / "k" / "trisc1.elf").read_bytes()[:4] == b"\x7fELF"


# ---- a user's ttnn script on ttsim --------------------------------------------------------------------


@pytest.fixture
def ttsim() -> Path:
    lib = os.environ.get("TTSIM_LIB")
    if not lib or not Path(lib).is_file():
        pytest.skip("TTSIM_LIB does not name a build of Tenstorrent's simulator (libttsim.so)")
    return Path(lib)


@pytest.fixture
def host(ttsim: Path) -> Path:
    """The ttnn host venv's ttnn package, with the stand-in installed (only where ttsim is)."""
    ttnn_host.require()
    try:
        package = ttnn_host.package()
    except ttnn_host.HostUnavailable as exc:
        pytest.skip(f"no ttnn host: {exc}")
    sfpi_standin.install(package)
    return package


def run_ops(ttsim: Path, tmp_path: Path, descriptor: str, *ops: str) -> tuple[dict, Path]:
    """Run tests/ttnn_ops.py on ttsim (its library beside ``descriptor``); (results by op, the
    JIT output folder)."""
    sim = tmp_path / "sim"
    sim.mkdir()
    shutil.copy(ttsim, sim / "libttsim.so")
    (sim / "soc_descriptor.yaml").write_text(descriptor)
    cache = tmp_path / "cache"
    done = subprocess.run([str(ttnn_host.venv()), str(OPS), *ops], capture_output=True, text=True, timeout=1800,
                          cwd=tmp_path, env=ttnn_host.clean_env(TT_METAL_SIMULATOR=str(sim / "libttsim.so"),
                                                                TT_METAL_SLOW_DISPATCH_MODE="1",
                                                                TT_METAL_CACHE=str(cache)))
    results = {r["op"]: r for r in map(json.loads, (line for line in done.stdout.splitlines() if line.startswith("{")))}
    assert done.returncode == 0 and set(ops) <= set(results), done.stderr[-3000:]
    jit = [d for d in cache.iterdir() if d.name.startswith("tt-metal-cache") and (d / "firmware").is_dir()]
    assert len(jit) == 1, list(cache.iterdir())
    return results, jit[0]


def test_a_ttnn_script_on_ttsim_with_two_cores(host: Path, ttsim: Path, tmp_path: Path) -> None:
    """The 1x2 grid tdbg's server presents: firmware built by the stand-in (LTO, -Oz) boots, and
    add, tilize/untilize, a matmul multicast between the two cores, a sum (the reduce kernel, which
    includes the SFPU library) give numpy's answer; relu (SFPI code) is refused."""
    ops = ("add", "add_64_tiles", "add_random", "tilize_untilize", "matmul", "reduce_sum", "relu")
    results, jit = run_ops(ttsim, tmp_path, ttnn_host.soc_descriptor("1-2, 2-2"), *ops)
    assert (results["grid"]["x"], results["grid"]["y"]) == (2, 1)
    for op in ops[:-1]:
        assert results[op]["mismatches"] == 0, results[op]
    assert results["add_64_tiles"]["values"] == 64 * 1024
    assert "tdbg sfpi-standin: eltwise_sfpu_metal2: " in results["relu"]["error"]
    assert "ckernel_sfpu_relu.h:" in results["relu"]["error"] and "uses SFPI vector code" in results["relu"]["error"]
    kernels = {d.name for d in (jit / "kernels").iterdir()}
    assert {"reader_bmm_tile_layout_in0_sender_padding_metal2", "reader_bmm_tile_layout_in0_receiver_metal2"} <= kernels
    for name in ("brisc", "ncrisc", "trisc0", "trisc1", "trisc2"):
        elf = jit / "firmware" / name / f"{name}.elf"
        assert elf.read_bytes()[:4] == b"\x7fELF"
        assert elf.read_bytes() != (host / "tt_metal/pre-compiled" / kit.FIRMWARE / name / f"{name}.elf").read_bytes()


def test_the_140_core_descriptor_boots_the_wheels_precompiled_firmware(host: Path, ttsim: Path, tmp_path: Path) -> None:
    results, jit = run_ops(ttsim, tmp_path, ttnn_host.soc_descriptor(), "add")
    assert results["add"]["mismatches"] == 0
    for name in ("brisc", "ncrisc", "trisc0", "trisc1", "trisc2", "active_erisc", "idle_erisc"):
        precompiled = host / "tt_metal/pre-compiled" / kit.FIRMWARE / name
        assert (jit / "firmware" / name / f"{name}.elf").read_bytes() == (precompiled / f"{name}.elf").read_bytes()
        # tt-metal weakens the firmware itself: the same bytes as the set's own
        assert ((jit / "firmware" / name / f"{name}_weakened.elf").read_bytes()
                == (precompiled / f"{name}_weakened.elf").read_bytes())


def test_the_c_library_shim_uses_no_stack(tmp_path: Path) -> None:
    """The watcher paints the free stack below sp with a loop clang makes a memset call: memset
    must not keep anything there (its return address was painted, measured on ttsim)."""
    from elftools.elf.elffile import ELFFile

    for name in ("libc.c", "memmove.c"):
        with sfpi_standin._shim_object(name).open("rb") as f:
            text = ELFFile(f).get_section_by_name(".text").data()
        words, at = [], 0
        while at < len(text):           # 32-bit instructions; a 16-bit parcel is alignment padding
            size = 4 if text[at] & 3 == 3 else 2
            if size == 4:
                words.append(int.from_bytes(text[at:at + 4], "little"))
            at += size
        assert len(words) > 8, name
        # rd (bits 11:7) and rs1 (bits 19:15) of every instruction: never x2, the stack pointer
        assert [hex(w) for w in words if (w >> 7) & 31 == 2 or (w >> 15) & 31 == 2] == [], name
