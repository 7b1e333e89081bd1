"""SV REMAP SHAPE (seed 003): the iterator, the SHAPE codec, ``remap`` and ``x ... remap``.

Expected sequences are worked by hand from the seed's explanation: the seed's example has
xdim 3, ydim 4, zdim 5, so element (x, y, z) is index x + 3*y + 12*z, and ``permute`` picks
which of x, y, z counts fastest (the seed's "order" column, first entry innermost).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tdbg.commands import Interpreter
from tdbg.session import Session
from tdbg.tensix.remap import Shape, indices, parse

# permute -> the seed's example sequence (xdim 3, ydim 4, zdim 5), one line per outer step.
WORKED = {
    0: list(range(60)),  # x fastest, then y, then z: linear
    1: [  # order 0,2,1: x fastest, then z, then y (one line per y)
        0, 1, 2, 12, 13, 14, 24, 25, 26, 36, 37, 38, 48, 49, 50,
        3, 4, 5, 15, 16, 17, 27, 28, 29, 39, 40, 41, 51, 52, 53,
        6, 7, 8, 18, 19, 20, 30, 31, 32, 42, 43, 44, 54, 55, 56,
        9, 10, 11, 21, 22, 23, 33, 34, 35, 45, 46, 47, 57, 58, 59,
    ],
    2: [  # order 1,0,2: y fastest, then x, then z (one line per z)
        0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11,
        12, 15, 18, 21, 13, 16, 19, 22, 14, 17, 20, 23,
        24, 27, 30, 33, 25, 28, 31, 34, 26, 29, 32, 35,
        36, 39, 42, 45, 37, 40, 43, 46, 38, 41, 44, 47,
        48, 51, 54, 57, 49, 52, 55, 58, 50, 53, 56, 59,
    ],
    3: [  # order 1,2,0: y fastest, then z, then x (one line per x)
        0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57,
        1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34, 37, 40, 43, 46, 49, 52, 55, 58,
        2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38, 41, 44, 47, 50, 53, 56, 59,
    ],
    4: [  # order 2,0,1: z fastest, then x, then y (one line per y)
        0, 12, 24, 36, 48, 1, 13, 25, 37, 49, 2, 14, 26, 38, 50,
        3, 15, 27, 39, 51, 4, 16, 28, 40, 52, 5, 17, 29, 41, 53,
        6, 18, 30, 42, 54, 7, 19, 31, 43, 55, 8, 20, 32, 44, 56,
        9, 21, 33, 45, 57, 10, 22, 34, 46, 58, 11, 23, 35, 47, 59,
    ],
    5: [  # order 2,1,0: z fastest, then y, then x (one line per x)
        0, 12, 24, 36, 48, 3, 15, 27, 39, 51, 6, 18, 30, 42, 54, 9, 21, 33, 45, 57,
        1, 13, 25, 37, 49, 4, 16, 28, 40, 52, 7, 19, 31, 43, 55, 10, 22, 34, 46, 58,
        2, 14, 26, 38, 50, 5, 17, 29, 41, 53, 8, 20, 32, 44, 56, 11, 23, 35, 47, 59,
    ],
}


def example(**fields: int) -> Shape:
    return Shape.from_names(xdim=3, ydim=4, zdim=5, **fields)


# -- the iterator --------------------------------------------------------------------------------

@pytest.mark.parametrize("permute", range(6))
def test_worked_example_all_permutations(permute: int) -> None:
    assert indices(example(permute=permute)) == WORKED[permute]


def test_invert_each_axis() -> None:
    # An inverted dimension of size d visits d-1 .. 0 (the reading of the seed).
    assert indices(example(invxyz=0b001))[:15] == [2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9, 14, 13, 12]
    assert indices(example(invxyz=0b010))[:24] == [
        9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2,
        21, 22, 23, 18, 19, 20, 15, 16, 17, 12, 13, 14,
    ]
    assert indices(example(invxyz=0b100)) == [
        *range(48, 60), *range(36, 48), *range(24, 36), *range(12, 24), *range(0, 12),
    ]
    assert indices(example(invxyz=0b111)) == list(range(59, -1, -1))


def test_invert_with_permutation() -> None:
    # permute 2 (y fastest, then x, then z) with x inverted: x runs 2, 1, 0.
    assert indices(example(permute=2, invxyz=0b001))[:24] == [
        2, 5, 8, 11, 1, 4, 7, 10, 0, 3, 6, 9,
        14, 17, 20, 23, 13, 16, 19, 22, 12, 15, 18, 21,
    ]
    # permute 4 (z fastest) with z inverted: z runs 4 .. 0.
    assert indices(example(permute=4, invxyz=0b100))[:10] == [48, 36, 24, 12, 0, 49, 37, 25, 13, 1]


def test_modulo() -> None:
    assert indices(example(modulo=7)) == [0, 1, 2, 3, 4, 5, 6] * 8 + [0, 1, 2, 3]
    assert indices(example(permute=2, modulo=16)) == [
        0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11,
        12, 15, 2, 5, 13, 0, 3, 6, 14, 1, 4, 7,
        8, 11, 14, 1, 9, 12, 15, 2, 10, 13, 0, 3,
        4, 7, 10, 13, 5, 8, 11, 14, 6, 9, 12, 15,
        0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11,
    ]
    assert indices(example(modulo=1)) == [0] * 60


def test_applydim() -> None:
    # applydim 1: x counts as 0, so each (y, z) index appears xdim times.
    assert indices(example(applydim=1)) == [3 * y + 12 * z for z in range(5) for y in range(4) for _ in range(3)]
    assert indices(example(applydim=1))[:12] == [0, 0, 0, 3, 3, 3, 6, 6, 6, 9, 9, 9]
    # applydim 2: only z applies.
    assert indices(example(applydim=2)) == [0] * 12 + [12] * 12 + [24] * 12 + [36] * 12 + [48] * 12
    # with permute 2 (y fastest): y sweeps once per x.
    assert indices(example(permute=2, applydim=1))[:12] == [0, 3, 6, 9] * 3
    # a dimension applydim zeroes stays zero even when inverted; the applied ones still invert.
    assert indices(example(applydim=1, invxyz=0b001)) == indices(example(applydim=1))
    assert indices(example(applydim=1, invxyz=0b010))[:12] == [9, 9, 9, 6, 6, 6, 3, 3, 3, 0, 0, 0]


def test_count_wraps_and_zero_shape_is_linear() -> None:
    shape = Shape.from_names(xdim=2, ydim=2, permute=2)
    assert indices(shape) == [0, 2, 1, 3]
    assert indices(shape, 6) == [0, 2, 1, 3, 0, 2]
    assert indices(Shape.decode(0), 5) == [0, 1, 2, 3, 4]


@given(st.builds(Shape, xdimsz=st.integers(0, 63), ydimsz=st.integers(0, 7), zdimsz=st.integers(0, 7),
                 permute=st.integers(0, 5), invxyz=st.integers(0, 7)))
def test_one_pass_visits_each_element_once(shape: Shape) -> None:
    assert sorted(indices(shape)) == list(range(shape.size))


# -- the SHAPE value -----------------------------------------------------------------------------

def test_layout() -> None:
    # xdimsz 2 | ydimsz 3 << 6 | zdimsz 4 << 12 | permute 2 << 18
    assert example(permute=2).encode() == 0x000840C2
    assert example(permute=2) == Shape(xdimsz=2, ydimsz=3, zdimsz=4, permute=2)
    assert Shape.decode(0xBFF7FFFF) == Shape(63, 63, 63, permute=5, invxyz=7, modulo=63, applydim=2)
    assert Shape.decode(1 << 21) == Shape(invxyz=1)   # invxyz bit 0: x
    assert Shape.decode(5 << 24) == Shape(modulo=5)
    assert Shape.decode(1 << 30) == Shape(applydim=1)
    assert Shape.from_names(xdim=64).xdimsz == 63


@given(st.builds(Shape, xdimsz=st.integers(0, 63), ydimsz=st.integers(0, 63), zdimsz=st.integers(0, 63),
                 permute=st.integers(0, 5), invxyz=st.integers(0, 7), modulo=st.integers(0, 63),
                 applydim=st.integers(0, 2)))
def test_encode_decode_round_trip(shape: Shape) -> None:
    raw = shape.encode()
    assert 0 <= raw < 1 << 32
    assert Shape.decode(raw) == shape
    assert parse(f"{raw:#x}") == shape
    assert parse(shape.describe().partition("  ")[0]) == shape


@given(st.integers(0, (1 << 32) - 1))
def test_decode_encode_round_trip(raw: int) -> None:
    if (raw >> 18 & 7) > 5 or raw >> 30 == 3:
        with pytest.raises(ValueError, match="reserved"):
            Shape.decode(raw)
    else:
        assert Shape.decode(raw).encode() == raw


@pytest.mark.parametrize("make", [
    lambda: Shape.decode(6 << 18),
    lambda: Shape.decode(7 << 18),
    lambda: Shape.decode(3 << 30),
    lambda: Shape(permute=6),
    lambda: Shape.from_names(permute=7),
    lambda: Shape.from_names(applydim=3),
])
def test_reserved_values_refused(make) -> None:
    with pytest.raises(ValueError, match="reserved"):
        make()


@pytest.mark.parametrize("make", [
    lambda: Shape.from_names(xdim=0),
    lambda: Shape.from_names(zdim=65),
    lambda: Shape(ydimsz=64),
    lambda: Shape(modulo=64),
    lambda: Shape(invxyz=8),
    lambda: Shape.decode(1 << 32),
    lambda: Shape.decode(-1),
])
def test_out_of_range_refused(make) -> None:
    with pytest.raises(ValueError) as exc:
        make()
    assert "\n" not in str(exc.value)


def test_parse() -> None:
    want = example(permute=2, invxyz=0b101, modulo=9, applydim=1)
    assert parse("xdim=3 ydim=4 zdim=5 permute=2 invxyz=xz modulo=9 applydim=1") == want
    assert parse("xdimsz=2 ydimsz=3 zdimsz=4 permute=2 invxyz=0b101 modulo=9 applydim=1") == want
    assert parse(hex(want.encode())) == want
    assert parse("ydim=2") == Shape(ydimsz=1)
    for bad in ("xdim=3 xdimsz=2", "wdim=3", "xdim=three", "xdim=3 xdim=4", ""):
        with pytest.raises(ValueError):
            parse(bad)


# -- the shell -----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def session() -> Session:
    return Session()


@pytest.fixture
def shell(session: Session) -> tuple[Interpreter, list[str]]:
    chunks: list[str] = []
    return Interpreter(session, write=chunks.append), chunks


def run(shell: tuple[Interpreter, list[str]], line: str) -> str:
    interp, chunks = shell
    chunks.clear()
    interp.failed = False
    interp.execute(line)
    return "".join(chunks)


@pytest.mark.parametrize("permute", range(6))
def test_remap_indices(shell, permute: int) -> None:
    out = run(shell, f"remap indices xdim=3 ydim=4 zdim=5 permute={permute}")
    assert [int(w) for w in out.split()] == WORKED[permute]
    assert not shell[0].failed


def test_remap_indices_raw_and_stored_sizes(shell) -> None:
    assert [int(w) for w in run(shell, "remap indices 0x840C2").split()] == WORKED[2]
    assert [int(w) for w in run(shell, "remap indices xdimsz=2 ydimsz=3 zdimsz=4 permute=2").split()] == WORKED[2]
    assert run(shell, "remap indices xdim=3 ydim=2 invxyz=x") == "2 1 0 5 4 3\n"


@pytest.mark.parametrize("line", [
    "remap indices permute=6", "remap indices 0xC0000000", "remap indices xdim=65",
    "remap indices nosuchshape", "remap indices", "remap frob",
])
def test_remap_errors_are_one_line(shell, line: str) -> None:
    out = run(shell, line)
    assert shell[0].failed
    assert out.count("\n") == 1


def test_remap_define_and_show(shell) -> None:
    interp, _ = shell
    assert run(shell, "remap show") == "No remap shapes defined.\n"
    assert run(shell, "remap define T4 xdim=4 ydim=4 permute=2") == ""
    assert interp.state.remap_shapes["T4"] == Shape(3, 3, 0, permute=2)
    assert run(shell, "remap indices T4") == "0 4 8 12 1 5 9 13 2 6 10 14 3 7 11 15\n"
    assert run(shell, "remap show").startswith("T4: 0x000800c3  xdim=4 ydim=4 zdim=1 permute=2")


def test_x_remap_transposes_a_small_tile(shell, session: Session) -> None:
    # a 4x4 tile in dst row 5: element (r, c) at column 4r + c holds 100 + 4r + c
    session.tile.tensix.dst.write16(5, np.arange(100, 116))
    run(shell, "remap define T xdim=4 ydim=4 permute=2")
    transposed = "dst[5]:\t100\t104\t108\t112\t101\t105\t109\t113\ndst[5][2]:\t102\t106\t110\t114\t103\t107\t111\t115\n"
    assert run(shell, "x/16hd dst[5] remap T") == transposed
    assert run(shell, "x/16hd dst[5] remap xdim=4 ydim=4 permute=2") == transposed
    assert run(shell, "x/16hd dst[5]").startswith("dst[5]:\t100\t101\t102")


def test_x_remap_transposes_a_32x32_tile(shell, session: Session) -> None:
    tile = np.arange(1024, dtype=np.uint16).reshape(32, 32)
    session.tile.tensix.dst.write16(np.arange(64, 128), tile.reshape(64, 16))
    out = run(shell, "x/1024hd dst[64] remap xdim=32 ydim=32 permute=2")
    lines = out.splitlines()
    assert len(lines) == 128
    assert lines[0].split("\t")[0] == "dst[64]:"
    assert lines[4].split("\t")[0] == "dst[64][1]:"  # output 32 = tile[0][1]
    values = [int(v) for line in lines for v in line.split("\t")[1:]]
    assert values == tile.T.reshape(-1).tolist()


def test_x_remap_refusals(shell) -> None:
    assert run(shell, "x/4wx 0x0 remap xdim=2") == "'remap SHAPE' applies to dst, dstbits, srca and srcb\n"
    assert "past" in run(shell, "x/16hx dst[1023] remap xdim=4 ydim=8 permute=2")
    assert "reserved" in run(shell, "x/16hx dst[0] remap permute=7")
