"""tt-metal kernels built by ``tdbg.ttmetal.kit`` as tt-metal 0.81.1 builds them.

Expected values: ``tests/data/ttmetal_kernels.json``, measured by running tt-metal 0.81.1 itself (the
ttnn wheel, slow dispatch) on Tenstorrent's simulator ttsim, with zig's clang standing in for SFPI's
GCC: ttnn's eltwise binary add (``reader_binary_interleaved_start_id``, ``eltwise_binary_kernel``,
``writer_unary_interleaved_start_id``) and a matmul (``reader_bmm_8bank_output_tiles_partitioned``,
``bmm``, the unary writer) on one core, and the real ``ttnn.add`` on one core (0.81.1's binary_ng
kernels ``reader/writer_interleaved_no_bcast``, ``eltwise_binary_no_bcast``), all computing the numpy
result.  Per kernel: the build parameters read off tt-metal's JIT command line and generated files,
the sha256 of the files it generated, the ELF's layout, the image it wrote into L1; the sha256 of the
firmware it weakened; tt-metal's ``chlkc_descriptors.h`` for other CB formats and compute
configurations.

The ttnn wheel comes through ``tdbg.toolchain.ttnn`` (downloaded once into its cache); without it the
module skips, saying why.
"""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from tdbg.riscv.disasm import Disassembler
from tdbg.emu.elf import ElfImage
from tdbg.riscv.extensions import arch_extensions
from tdbg.arch.blackhole import BLACKHOLE
from tdbg.toolchain import elfpatch, ttnn
from tdbg.ttmetal import kit
from tdbg.tensix.isa import isa_of

DATA = json.loads((Path(__file__).parent / "data" / "ttmetal_kernels.json").read_text())
KERNELS = [(prog, k) for prog, p in DATA["programs"].items() for k in p["kernels"]]


@pytest.fixture(scope="module", autouse=True)
def wheel() -> ttnn.Tree:
    try:
        return ttnn.tree()
    except ttnn.TtnnUnavailable as exc:
        pytest.skip(f"tt-metal kernels need the ttnn wheel: {exc}")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def kernel_of(entry: dict, source: Path) -> kit.Kernel:
    return kit.Kernel(source, entry["processor"], {int(i): f for i, f in entry["cbs"].items()},
                      defines=tuple(tuple(d) for d in entry["defines"]), compile_args=tuple(entry["compile_args"]),
                      named_args=tuple(tuple(a) for a in entry["named_args"]), noc=entry.get("noc"),
                      compute=kit.ComputeConfig(**entry["compute"]) if "compute" in entry else kit.ComputeConfig())


@pytest.fixture(scope="module")
def builds(wheel: ttnn.Tree) -> dict[str, kit.Build]:
    return {k["kernel"] + "@" + prog: kit.build(kernel_of(k, wheel.operations / k["source"])) for prog, k in KERNELS}


@pytest.mark.parametrize("prog,entry", KERNELS, ids=[f"{p}-{k['kernel']}" for p, k in KERNELS])
def test_kernel_builds_as_tt_metal_loaded_it(builds: dict[str, kit.Build], prog: str, entry: dict) -> None:
    built = builds[entry["kernel"] + "@" + prog]
    assert [b.processor for b in built.binaries] == sorted(entry["binaries"])
    for binary in built.binaries:
        want = entry["binaries"][binary.processor]
        assert binary.index == want["index"] and binary.core == kit.PROCESSORS[binary.processor].core
        image = ElfImage.load(binary.elf)
        text, data = image.section(".text"), image.section(".data")
        # linked where tt-metal's kernel_<proc>.ld and the firmware's __fw_export_* put it
        assert binary.entry == image.entry == text.addr == want["entry"] == want["text"]["addr"]
        assert binary.data_address == data.addr == want["data"]["addr"]
        assert image.section(".bss").addr == want["bss"]["addr"]
        # the image: text, then the data at its load address right after it; its length is the
        # kernel_text_size tt-metal put in the launch message
        assert binary.size == text.size + data.size
        assert want["image_bytes"] == want["kernel_text_size"] == want["text"]["size"] + want["data"]["size"]
        if metadata.version("ziglang") == DATA["zig"]:      # the same compiler: the same bytes as on ttsim
            assert (text.size, data.size) == (want["text"]["size"], want["data"]["size"])
            assert sha(binary.image) == want["image_sha256"]


@pytest.mark.parametrize("prog,entry", KERNELS, ids=[f"{p}-{k['kernel']}" for p, k in KERNELS])
def test_generated_files_are_tt_metals(builds: dict[str, kit.Build], wheel: ttnn.Tree, prog: str, entry: dict) -> None:
    built = builds[entry["kernel"] + "@" + prog]
    source = str(wheel.operations / entry["source"])
    for name, digest in entry["generated_sha256"].items():
        text = (built.directory / name).read_text().replace(f'"{source}"', '"<SOURCE>"')
        assert sha(text.encode()) == digest, name


@pytest.mark.parametrize("prog,entry", KERNELS, ids=[f"{p}-{k['kernel']}" for p, k in KERNELS])
def test_disassembly_has_no_unknown_words(builds: dict[str, kit.Build], prog: str, entry: dict) -> None:
    """Every word of the code tdbg will run decodes: RV32IM, Zba/Zbb, CSRs, .ttinsn."""
    for binary in builds[entry["kernel"] + "@" + prog].binaries:
        image = ElfImage.load(binary.elf)
        text = image.section(".text")
        decode = Disassembler(isa_of(BLACKHOLE), arch_extensions(image.arch))
        unknown = [f"{text.addr + i:#x}: {decode(text.addr + i, w).render()}"
                   for i, (w,) in zip(range(0, text.size, 4), struct.iter_unpack("<I", text.data))
                   if decode(text.addr + i, w).render().startswith(".4byte")]
        assert not unknown, unknown[:5]


def test_weakened_firmware_is_tt_metals(wheel: ttnn.Tree) -> None:
    for name, digest in DATA["weakened_firmware_sha256"].items():
        fw = wheel.precompiled / DATA["firmware"] / name / f"{name}.elf"
        assert sha(elfpatch.weaken(fw.read_bytes())) == digest, name


@pytest.mark.parametrize("case", DATA["descriptor_cases"], ids=[f"{c['case']}-{c['processor']}" for c in DATA["descriptor_cases"]])
def test_descriptors_are_tt_metals(case: dict, tmp_path: Path) -> None:
    """chlkc_descriptors.h for Float16_b / Float32 / Bfp8_b CBs, with and without a 32-bit Dst."""
    source = tmp_path / "k.cpp"
    source.write_text("void kernel_main() {}\n")
    kernel = kit.Kernel(source, case["processor"], {int(i): f for i, f in case["cbs"].items()},
                        defines=tuple(tuple(d) for d in case["defines"]), compute=kit.ComputeConfig(**case["compute"]))
    assert sha(kit.descriptors(kernel).encode()) == case["chlkc_descriptors_sha256"]


USER_DATAFLOW = """\
#include <stdint.h>
#include "api/dataflow/dataflow_api.h"
#include "scale.h"

void kernel_main() {
    uint32_t dst = get_arg_val<uint32_t>(0);
    constexpr uint32_t cb = get_compile_time_arg_val(0);
    cb_wait_front(cb, 1);
    *reinterpret_cast<volatile uint32_t*>(dst) = get_read_ptr(cb) * SCALE;
    cb_pop_front(cb, 1);
}
"""


def test_a_users_kernel_builds_is_cached_and_rebuilt_when_its_header_changes(tmp_path: Path) -> None:
    source = tmp_path / "my_reader.cpp"
    source.write_text(USER_DATAFLOW)
    (tmp_path / "scale.h").write_text("#define SCALE 3\n")
    kernel = kit.Kernel(source, "ncrisc", {0: "Float16_b"}, compile_args=(0,))
    first = kit.build(kernel)
    (binary,) = first.binaries
    assert (binary.processor, binary.core, binary.index) == ("ncrisc", "NC", 1)
    assert binary.entry == DATA["programs"]["add"]["kernels"][1]["binaries"]["ncrisc"]["entry"]   # NCRISC's text
    mtime = binary.elf.stat().st_mtime_ns
    assert kit.build(kernel).binaries[0].elf.stat().st_mtime_ns == mtime             # cached
    (tmp_path / "scale.h").write_text("#define SCALE 5\n")
    rebuilt = kit.build(kernel).binaries[0]
    assert rebuilt.elf.stat().st_mtime_ns != mtime and rebuilt.image != binary.image


def test_sfpi_vector_code_is_refused_in_one_line(wheel: ttnn.Tree) -> None:
    kernel = kit.Kernel(wheel.operations / "eltwise/unary/device/kernels/compute/eltwise_sfpu.cpp", "compute",
                        {0: "Float16_b", 16: "Float16_b"}, compile_args=(1, 1),
                        defines=(("SFPU_OP_EXP_INCLUDE", "1"), ("SFPU_OP_CHAIN_0", "exp_tile_init(); exp_tile(0);")))
    with pytest.raises(kit.NeedsSfpi) as refused:
        kit.build(kernel)
    message = str(refused.value)
    assert "\n" not in message and "SFPI" in message and "vFloat" in message


def test_bad_kernels_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "k.cpp"
    source.write_text("void kernel_main() { this is not C++; }\n")
    with pytest.raises(kit.KernelBuildError, match="k.cpp .ncrisc. failed"):
        kit.build(kit.Kernel(source, "ncrisc"))
    for bad, match in ((kit.Kernel(source, "erisc"), "brisc, ncrisc or compute"),
                       (kit.Kernel(source, "brisc", {3: "Float16"}), "data format 'Float16'"),
                       (kit.Kernel(source, "brisc", {64: "Float32"}), "outside 0..63"),
                       (kit.Kernel(tmp_path / "none.cpp", "brisc"), "not found"),
                       (kit.Kernel(source, "compute", compute=kit.ComputeConfig("HiFi9")), "math fidelity")):
        with pytest.raises(kit.KernelBuildError, match=match):
            kit.build(bad)


def test_build_command(wheel: ttnn.Tree, tmp_path: Path) -> None:
    def tdbg(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tdbg", "build", "--tt-metal", *args], capture_output=True,
                              text=True, timeout=900)
    add = DATA["programs"]["add"]["kernels"][0]
    assert add["kernel"] == "eltwise_binary_kernel"
    done = tdbg(str(wheel.operations / add["source"]), *(f"--cb={i}={f}" for i, f in add["cbs"].items()),
                *(f"-D{k}={v}" for k, v in add["defines"]), "-o", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:3] for line in lines] == [
        [p, kit.PROCESSORS[p].core, str(tmp_path / "out" / f"{p}.elf")] for p in ("trisc0", "trisc1", "trisc2")]
    for line, (p, b) in zip(lines, sorted(add["binaries"].items())):
        assert f"entry {b['entry']:#x}" in line and (tmp_path / "out" / f"{p}.elf").is_file()
    sfpu = tdbg(str(wheel.operations / "eltwise/unary/device/kernels/compute/eltwise_sfpu.cpp"),
                "-DSFPU_OP_EXP_INCLUDE", "-DSFPU_OP_CHAIN_0=exp_tile_init(); exp_tile(0);", "--compile-args", "1,1")
    assert sfpu.returncode == 1 and len(sfpu.stderr.splitlines()) == 1 and "SFPI" in sfpu.stderr
    bad = tdbg(str(wheel.operations / add["source"]), "--cb", "x=Float16_b")
    assert bad.returncode == 2 and "--cb: 'x' is not an integer" in bad.stderr


def test_a_tree_without_the_kernel_parts_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ttnn/tt_metal/tt-llk/tests/sources").mkdir(parents=True)     # what tree() checks, and no more
    monkeypatch.setenv("TDBG_TTNN_DIR", str(tmp_path))
    source = tmp_path / "k.cpp"
    source.write_text("void kernel_main() {}\n")
    with pytest.raises(ttnn.TtnnUnavailable, match="has no ttnn/runtime/hw/toolchain/blackhole, which tt-metal kernels need"):
        kit.build(kit.Kernel(source, "brisc"))


def test_the_watcher_gets_what_tt_metals_jit_build_passes(tmp_path: Path) -> None:
    """Issue 33 item 7: tt-metal's JIT build passes -DWATCHER_ENABLED and -DWATCHER_DISABLE_<FEATURE>
    (jit_build/build.cpp, with TT_METAL_WATCHER and TT_METAL_WATCHER_DISABLE_STACK_USAGE); without the
    watcher neither, and the two builds are cached apart."""
    source = tmp_path / "k.cpp"
    source.write_text("void kernel_main() {}\n")
    proc = kit.PROCESSORS["ncrisc"]

    def defines(kernel: kit.Kernel) -> set[str]:
        command = kit.compile_command(kernel, proc, tmp_path, tmp_path, tmp_path / "k.o", "k/0/")
        return {arg for arg in command if arg.startswith("-DWATCHER")}

    plain, watched = kit.Kernel(source, "ncrisc"), kit.Kernel(source, "ncrisc", watcher=True, runtime_args=3)
    assert defines(plain) == set() and defines(watched) == {"-DWATCHER_ENABLED", "-DWATCHER_DISABLE_STACK_USAGE"}
    try:
        tree = ttnn.tree()
    except ttnn.TtnnUnavailable as exc:
        pytest.skip(f"the cache keys need the ttnn wheel: {exc}")
    keys = {kit._key(k, source, tree) for k in (plain, watched, kit.Kernel(source, "ncrisc", watcher=True, runtime_args=2))}
    assert len(keys) == 3
