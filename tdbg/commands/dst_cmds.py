"""The ``dst`` command family (``dst row``, ``dst diff``, ``dst stats``, ``dst heatmap``,
``dst tile``) and ``dump dst`` / ``restore dst``.

Rows and views follow BlackholeA0 ``TensixCoprocessor/Dst.md``: a 16-bit view reads
``Dst16b`` (1024 rows), a 32-bit view reads ``Dst32b`` (512 distinct rows), both through the
current ``Adj16`` / ``Adj32`` row mapping.  A 32x32 tile is 64 rows of the view's storage
starting at row ``64*T``: four 16x16 faces of 16 rows each, arranged ``[[f0, f1], [f2, f3]]``.
"""

from __future__ import annotations

import io
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.commands.examine import format_float, format_view_value
from tdbg.commands.dst_rows import STORAGE_NAME, default_view, dst_rows, note_other_view, storage_rows
from tdbg.commands.files import DUMP, RESTORE
from tdbg.commands.interpreter import Interpreter
from tdbg.commands.layout import SHORT_DIGITS, blocks, first_fitting, fits, line_width
from tdbg.commands.registry import INIT_HOOKS, CommandError, Registry, command
from tdbg.commands.values import evaluate_int
from tdbg.debug.hostfiles import read_host_file, write_host_file

if TYPE_CHECKING:
    import numpy as np

    from tdbg.debug.snapshots import DstContents
    from tdbg.tensix import formats

DST = Registry("dst")

TILE_ROWS = 64
VIEW_CHOICES = ("bf16", "fp16", "fp8", "int8", "int16", "raw16", "raw", "fp32", "tf32", "int32", "raw32")
VIEW_NAMES = "bf16 fp16 fp8 int8 int16 raw16 (or raw) (Dst16b); fp32 tf32 int32 raw32 (Dst32b)"
RAMP = " .:-=+*#%@"
PALETTE = (16, 17, 18, 19, 25, 31, 37, 43, 184, 226)  # ANSI 256-colour backgrounds per level
NAN_COLOUR, INF_COLOUR = 196, 201
LAYOUT = (
    "A tile is 64 rows of the view's storage (Dst16b rows for 16-bit views, Dst32b rows for "
    "32-bit views) starting at row 64*T: face f is rows 16f..16f+15 of the tile, 16 columns "
    "each; the 32x32 matrix is [[f0, f1], [f2, f3]]."
)


# -- stop snapshots --------------------------------------------------------------------------

def install(interp: Interpreter) -> None:
    """Snapshot ``DstBits`` and which rows are defined as loaded and at every stop from now on
    (for ``dst diff``); idempotent."""
    hooks = interp.state.stop_hooks
    if _on_stop not in hooks:  # type: ignore[operator]
        hooks.append(_on_stop)  # type: ignore[union-attr]

        def loaded() -> None:
            interp.state.dst_stops[1] = _snapshot(interp)

        interp.session.when_built(loaded)


INIT_HOOKS.append(install)


def _snapshot(interp: Interpreter) -> DstContents:
    return interp.session.dst_contents()


def _on_stop(interp: Interpreter, stop: object) -> None:
    snaps = interp.state.dst_stops
    snaps[0], snaps[1] = snaps[1], _snapshot(interp)  # type: ignore[index]


# -- argument parsing ---------------------------------------------------------------------------

def _parse(args: str, **spec: Callable[[str], object] | None) -> tuple[list[str], dict[str, object]]:
    """Positional words and ``--NAME VALUE`` / ``--NAME=VALUE`` / ``--FLAG`` options; ``spec``
    maps each option to its converter (None for a flag)."""
    try:
        words = shlex.split(args)
    except ValueError as exc:
        raise CommandError(f"Bad arguments: {exc}.") from None
    positional: list[str] = []
    options: dict[str, object] = {}
    it = iter(words)
    for word in it:
        if not word.startswith("--") or len(word) == 2:
            positional.append(word)
            continue
        name, eq, value = word[2:].partition("=")
        if name not in spec:
            raise CommandError(f"Unknown option --{name}; expected " + ", ".join(f"--{n}" for n in spec) + ".")
        convert = spec[name]
        if convert is None:
            options[name] = True
            continue
        if not eq:
            value = next(it, None)  # type: ignore[arg-type]
            if value is None:
                raise CommandError(f"--{name} needs a value.")
        try:
            options[name] = convert(value)
        except ValueError:
            raise CommandError(f"Bad value for --{name}: {value}") from None
    return positional, options


def _int(text: str) -> int:
    return int(text, 0)


def _view(interp: Interpreter, name: object) -> formats.View:
    """A Dst view by name (``raw16``/``raw`` and ``raw32`` for raw bits, as in ``Session.dst`` and
    ``x ... as``); None: the view in force (``dst_rows.default_view``)."""
    from tdbg.tensix import formats

    if name is None:
        return default_view(interp, "--view V")
    if name in ("raw16", "raw32"):  # the same names as the Python API's and x's
        return formats.get_view("dst16" if name == "raw16" else "dst32", "raw")
    for storage in ("dst16", "dst32"):
        view = formats.VIEWS.get(f"{storage}.{name}")
        if view is not None:
            return view
    raise CommandError(f'Unknown view "{name}"; choose from: {VIEW_NAMES}.')


def _note(interp: Interpreter, opts: dict[str, object], view: formats.View) -> None:
    """An explicit ``--view`` that disagrees with the math configuration is said so in one line
    (``dst_rows.note_other_view``), before the command's output."""
    if "view" in opts:
        note_other_view(interp, view)


def _tile_number(interp: Interpreter, text: str, view: formats.View) -> int:
    tile = evaluate_int(interp, text)
    tiles = storage_rows(interp, view.storage) // TILE_ROWS
    if not 0 <= tile < tiles:
        raise CommandError(f"Tile {tile} out of range 0..{tiles - 1} for {STORAGE_NAME[view.storage]} ({view.name}).")
    return tile


# -- reading and formatting ---------------------------------------------------------------------

UNDEF = "<undef>"


def _fmt(view: formats.View, value: object, short: bool = False) -> str:
    """A decoded value: raw bits in hex, numbers as ``x`` shows them (``short``: floats with the
    view's ``layout.SHORT_DIGITS``)."""
    if view.name == "raw":
        return f"{int(value):#0{view.width // 4 + 2}x}"  # type: ignore[call-overload]
    if short and view.name in SHORT_DIGITS:
        return format_float(float(value), SHORT_DIGITS[view.name])  # type: ignore[arg-type]
    return format_view_value(value)


def _where(view: formats.View, rows: np.ndarray) -> str:
    from tdbg.tensix.state_description import ranges

    return f"{STORAGE_NAME[view.storage]} rows {ranges(rows)} as {view.name}"


def to_matrix(rows: np.ndarray) -> np.ndarray:
    """64 tile rows (4 faces of 16x16) -> the 32x32 matrix ``[[f0, f1], [f2, f3]]``."""
    return rows.reshape(2, 2, 16, 16).transpose(0, 2, 1, 3).reshape(32, 32)


def from_matrix(matrix: np.ndarray) -> np.ndarray:
    """The inverse of ``to_matrix``."""
    return matrix.reshape(2, 16, 2, 16).transpose(0, 2, 1, 3).reshape(64, 16)


def _grid(cells: list[list[str]], labels: list[str], header: list[str] | None, split: bool, sep: str = " ", width: int = 0) -> list[str]:
    """Right-aligned columns (``width``: the cells' visible width, else the widest text); with
    ``split`` a ``|`` between the two halves of the columns and a ``-`` line between the two
    halves of the rows (face borders)."""
    width = width or max([*(len(c) for row in cells for c in row), *(len(h) for h in header or [])])
    label_width = max(len(x) for x in labels)
    half = len(cells[0]) // 2 if split else len(cells[0])

    def line(items: list[str], border: str) -> str:
        parts = [x.rjust(width) for x in items]
        body = sep.join(parts[:half])
        if split:
            body += sep + border + sep + sep.join(parts[half:])
        return body

    out = [" " * label_width + " " + line(header, " ")] if header else []
    side = "-" * (half * width + (half - 1) * len(sep))
    for i, (label, row) in enumerate(zip(labels, cells)):
        if split and i == len(cells) // 2:
            out.append(" " * label_width + " " + side + "-" * len(sep) + "+" + "-" * len(sep) + side)
        out.append(label.rjust(label_width) + " " + line(row, "|"))
    return out


# -- magnitude maps -------------------------------------------------------------------------------

def _colour(interp: Interpreter) -> bool:
    """ANSI colour only on a terminal and never in batch mode."""
    return sys.stdout.isatty() and not interp.state.batch


def _magnitudes(view: formats.View, bits: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """|value| (0 where not finite), NaN mask and Inf mask of the view's reading of ``bits``."""
    import numpy as np

    values = view.decode(bits).astype(np.float64)
    nan, inf = np.isnan(values), np.isinf(values)
    return np.where(nan | inf, 0.0, np.abs(values)), nan, inf


def _cells(mag: np.ndarray, nan: np.ndarray, inf: np.ndarray, top: float, width: int, colour: bool) -> list[list[str]]:
    """One cell per element: a ramp character (or an ANSI background) for its level."""
    import numpy as np

    levels = np.zeros(mag.shape, dtype=np.int64)
    if top > 0:
        levels = np.clip(np.ceil(mag / top * (len(RAMP) - 1)), 0, len(RAMP) - 1).astype(np.int64)

    def cell(level: int, is_nan: bool, is_inf: bool) -> str:
        char = "N" if is_nan else "I" if is_inf else RAMP[level]
        if not colour:
            return char * width
        code = NAN_COLOUR if is_nan else INF_COLOUR if is_inf else PALETTE[level]
        return f"\x1b[48;5;{code}m{(char if is_nan or is_inf else ' ') * width}\x1b[0m"

    return [[cell(int(lv), bool(n), bool(i)) for lv, n, i in zip(*row)] for row in zip(levels, nan, inf)]


def _legend(top: float, colour: bool) -> str:
    scale = "colours dark to bright" if colour else f'ramp "{RAMP}"'
    return f"|value| 0 .. {format_float(top)} linear, {scale}; N NaN, I Inf."


# -- dst subcommands --------------------------------------------------------------------------------

@DST.command("row", usage="dst row N", help="Show Dst row N in every view side by side with the raw bits: Dst16b as bf16, fp16, int8, int16 and Dst32b as fp32, int32, tf32.", example="dst row 3")
def dst_row(interp: Interpreter, args: str) -> None:
    import numpy as np

    from tdbg.tensix import formats

    words = args.split()
    if len(words) != 1:
        raise CommandError("Usage: dst row N")
    row = evaluate_int(interp, words[0])
    rows = storage_rows(interp, "dst16")
    if not 0 <= row < rows:
        raise CommandError(f"Dst row {row} out of range 0..{rows - 1}")
    dst = interp.session.dst_contents()
    one = np.array([row])
    r16 = dst.read16(row)
    undefined = " undefined (ZEROACC, or never written)" if not dst.defined("dst16", one).all() else ""
    interp.out(f"Dst16b[{row}] (DstBits row {int(dst.row16[row])}){undefined}")
    interp.out("col" + "".join(f" {n:>15}" for n in ("raw", "bf16", "fp16", "int8", "int16")))
    views16 = [formats.get_view("dst16", n) for n in ("bf16", "fp16", "int8", "int16")]
    for c in range(16):
        cells = [f"{int(r16[c]):#06x}"] + [format_view_value(v.decode(r16[c])) for v in views16]
        interp.out(f"{c:>3}" + "".join(f" {UNDEF if undefined else x:>15}" for x in cells))
    r32 = dst.read32(row)
    high = int(dst.row32[row])
    undefined = " undefined (ZEROACC, or never written)" if not dst.defined("dst32", one).all() else ""
    interp.out(f"Dst32b[{row}] (DstBits rows {high}, {high + 8}){undefined}")
    interp.out("col" + "".join(f" {n:>15}" for n in ("raw", "fp32", "int32", "tf32")))
    views32 = [formats.get_view("dst32", n) for n in ("fp32", "int32", "tf32")]
    for c in range(16):
        cells = [f"{int(r32[c]):#010x}"] + [format_view_value(v.decode(r32[c])) for v in views32]
        interp.out(f"{c:>3}" + "".join(f" {UNDEF if undefined else x:>15}" for x in cells))


# The largest array a Dst file holds: 1024 DstBits rows of 16 lanes, or a 32x32 tile.
FILE_ROWS, FILE_COLUMNS = 1024, 32
_CSV_BYTES = FILE_ROWS * FILE_COLUMNS * 40  # 40 characters a field is more than any number needs
_LIMIT = f"at most {FILE_ROWS} rows of 16 values or a 32x32 tile"


def _load(path: str) -> np.ndarray:
    """A 2-D numeric array from ``.npy`` or ``.csv`` (integers if every CSV field is one).  Its
    size is checked before it is read (a ``.npy`` header's shape, a CSV's line and field
    counts): a Dst file holds ``_LIMIT``."""
    array = _load_csv(path) if path.endswith(".csv") else _load_npy(path)
    if array.ndim != 2 or array.dtype.kind not in "iuf" or not array.size:
        raise CommandError(f"{path}: expected a 2-D numeric array, not {array.dtype} of shape {array.shape}.")
    return array


def _check_shape(path: str, shape: tuple[int, ...]) -> None:
    if len(shape) == 2 and (shape[0] > FILE_ROWS or shape[1] > FILE_COLUMNS):
        raise CommandError(f"{path}: a {shape[0]}x{shape[1]} array; a Dst file holds {_LIMIT}.")


def _load_npy(path: str) -> np.ndarray:
    """numpy's ``.npy`` format (NEP 1): the header's shape and dtype are checked, then the data read."""
    import numpy as np

    limit = 65536 + FILE_ROWS * FILE_COLUMNS * 16  # a header numpy writes, the widest numeric dtype
    data = read_host_file(path, limit, "Dst .npy file", head=True)
    if not data:
        raise CommandError(f"{path}: an empty file, not a .npy array.")
    fh = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            raise ValueError(f".npy format version {version[0]}.{version[1]} (tdbg reads 1.0 and 2.0)")
    except (ValueError, EOFError) as exc:
        raise CommandError(f"{path}: not a .npy file ({exc}).") from None
    if dtype.hasobject or dtype.kind not in "iuf" or len(shape) != 2:
        raise CommandError(f"{path}: expected a 2-D numeric array, not {dtype} of shape {shape}.")
    if not all(type(n) is int and n >= 0 for n in shape):   # the header is a Python literal: (True, -1) parse
        raise CommandError(f"{path}: not a .npy file (its header's shape {shape} is not two counts).")
    _check_shape(path, shape)
    count = int(np.prod(shape))
    body = data[fh.tell():]
    if len(body) < count * dtype.itemsize:
        raise CommandError(f"{path}: its header says {shape} {dtype} ({count * dtype.itemsize} bytes) but {len(body)} bytes follow.")
    array = np.frombuffer(body, dtype, count)
    return (array.reshape(shape[::-1]).T if fortran else array.reshape(shape)).copy()


def _load_csv(path: str) -> np.ndarray:
    """Comma-separated numbers, one row a line: UTF-8 text of at most ``FILE_ROWS`` lines of
    at most ``FILE_COLUMNS`` fields, checked before any field is parsed."""
    import numpy as np

    data = read_host_file(path, _CSV_BYTES, "Dst .csv file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise CommandError(f"{path}:{line}: not UTF-8 text (byte {data[exc.start]:#04x}).") from None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if len(lines) > FILE_ROWS:
        raise CommandError(f"{path}: {len(lines)} lines; a Dst file holds {_LIMIT}.")
    fields = [line.split(",") for line in lines]
    for number, row in enumerate(fields, 1):
        if len(row) > FILE_COLUMNS:
            raise CommandError(f"{path}: {len(row)} fields in a line; a Dst file holds {_LIMIT}.")
        if len(row) != len(fields[0]):
            raise CommandError(f"{path}: line {number} has {len(row)} fields, line 1 has {len(fields[0])}.")
    if not fields:
        raise CommandError(f"{path}: no numbers in it.")
    cells = [[cell.strip() for cell in row] for row in fields]
    try:
        return np.array([[int(cell, 10) for cell in row] for row in cells], dtype=np.int64)
    except (ValueError, OverflowError):
        pass
    try:
        return np.array([[float(cell) for cell in row] for row in cells], dtype=np.float64)
    except ValueError as exc:
        raise CommandError(f"{path}: not a number: {exc}.") from None


def _report_diff(interp: Interpreter, view: formats.View, rows: np.ndarray, old: np.ndarray, new: np.ndarray,
                 differ: np.ndarray, limit: int, what: str, undefined: int = 0) -> None:
    """``row R col C: OLD -> NEW`` per differing lane (``old``/``new`` are display values), then
    the count (and how many of those lanes are undefined now)."""
    import numpy as np

    where = np.argwhere(differ)
    for r, c in where[:limit]:
        interp.session.check_interrupt()
        interp.out(f"row {int(rows[r])} col {int(c)}: {old[r, c]} -> {new[r, c]}")
    shown = f"; the first {limit} shown" if len(where) > limit else ""
    undef = f", {undefined} of them undefined" if undefined else ""
    interp.out(f"{len(where)} of {differ.size} lanes differ{undef} ({_where(view, rows)}, {what}){shown}.")


def _display(view: formats.View, bits: np.ndarray, defined: np.ndarray | None = None, short: bool = False) -> np.ndarray:
    """The view's text for every lane of ``bits`` (``<undef>`` where not ``defined``)."""
    import numpy as np

    text = np.array([[_fmt(view, v, short) for v in row] for row in view.decode(bits)], dtype=object)
    if defined is not None:
        text[~defined] = UNDEF
    return text


def _diff_bits(interp: Interpreter, view: formats.View, before: DstContents, limit: int, what: str) -> None:
    """Lanes whose bits changed while defined before and after, or that became defined or
    undefined (``<undef>``) since ``before`` (its ``DstBits`` and per-row defined flags, seen
    through today's row mapping)."""
    import numpy as np

    from tdbg.tensix import formats

    dst = interp.session.dst_contents()
    before = dst.with_storage(before.bits, before.written)
    rows = np.arange(storage_rows(interp, view.storage))
    old, new = before.lanes(view.storage, rows), dst.lanes(view.storage, rows)
    old_def = before.defined(view.storage, rows)
    new_def = dst.defined(view.storage, rows)
    differ = (old_def != new_def) | (old_def & new_def & (old != new))
    r_idx, c_idx = np.nonzero(differ)
    old_text = np.full(differ.shape, "", dtype=object)
    new_text = np.full(differ.shape, "", dtype=object)
    raw = formats.get_view(view.storage, "raw")
    for r, c in zip(r_idx[:limit], c_idx[:limit]):
        a = _fmt(view, view.decode(old[r, c])) if old_def[r, c] else UNDEF
        b = _fmt(view, view.decode(new[r, c])) if new_def[r, c] else UNDEF
        if a == b:  # e.g. sign-magnitude -0 and 0
            a, b = f"{a} ({_fmt(raw, old[r, c])})", f"{b} ({_fmt(raw, new[r, c])})"
        old_text[r, c], new_text[r, c] = a, b
    _report_diff(interp, view, rows, old_text, new_text, differ, limit, what, int((differ & ~new_def).sum()))


def _diff_golden(interp: Interpreter, view: formats.View, words: list[str], opts: dict[str, object], limit: int) -> None:
    from tdbg.tensix.state_description import ranges

    import numpy as np

    path = words[0]
    golden = _load(path)
    limit_rows = storage_rows(interp, view.storage)
    if golden.shape == (32, 32):
        if len(words) not in (1, 3) or words[1:2] not in ([], ["tile"]):
            raise CommandError("Usage: dst diff FILE [tile T] (a 32x32 golden tile)")
        tile = _tile_number(interp, words[2], view) if len(words) == 3 else 0
        golden = from_matrix(golden)
        rows = np.arange(TILE_ROWS) + TILE_ROWS * tile
    elif golden.shape[1] == 16:
        if len(words) > 2:
            raise CommandError("Usage: dst diff FILE [ROWS] (an (N, 16) golden)")
        rows = np.arange(len(golden))
        if len(words) == 2:
            rows = dst_rows(interp, words[1], limit_rows, STORAGE_NAME[view.storage])
            if len(rows) == 1:
                rows = np.arange(rows[0], rows[0] + len(golden))
        if len(rows) != len(golden) or rows[-1] >= limit_rows:
            raise CommandError(f"{path} holds {len(golden)} rows; they do not match {STORAGE_NAME[view.storage]} rows {ranges(rows)} (0..{limit_rows - 1} exist).")
    else:
        raise CommandError(f"{path} holds shape {golden.shape}; expected (N, 16) rows or a (32, 32) tile.")
    _note(interp, opts, view)
    dst = interp.session.dst_contents()
    bits = dst.lanes(view.storage, rows)
    defined = dst.defined(view.storage, rows)
    new = _display(view, bits, defined)
    if opts.get("raw"):
        if golden.dtype.kind not in "iu" or golden.min() < 0 or int(golden.max()) >> view.width:
            raise CommandError(f"{path} does not hold {view.width}-bit patterns (--raw).")
        differ = (golden != bits) | ~defined
        old = _display(view, golden.astype(bits.dtype))
        what = f"against {path} bits"
    else:
        atol, rtol = float(opts.get("atol", 0.0)), float(opts.get("rtol", 0.0))  # type: ignore[arg-type]
        values = view.decode(bits).astype(np.float64)
        differ = ~np.isclose(values, golden.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True) | ~defined
        old = np.array([[format_view_value(v) for v in row] for row in golden], dtype=object)
        what = f"against {path}, atol {format_float(atol)}, rtol {format_float(rtol)}"
    _report_diff(interp, view, rows, old, new, differ, limit, what, int((differ & ~defined).sum()))


_DIFF_OPTIONS: dict[str, Callable[[str], object] | None] = dict(view=str, max=_int, atol=float, rtol=float, raw=None)


def diff_reads_file(args: str) -> bool:
    """True when ``dst diff ARGS`` would read a golden file on the host (parsed as the command
    parses them: a bare ``--`` is a file name; arguments it refuses read nothing)."""
    try:
        words, _ = _parse(args, **_DIFF_OPTIONS)
    except CommandError:
        return False
    return bool(words) and words[0] != "checkpoint"


@DST.command(
    "diff",
    usage="dst diff [checkpoint N | FILE [ROWS | tile T] [--atol A] [--rtol R] [--raw]] [--view V] [--max N]",
    help=(
        "List the Dst lanes that differ, one line 'row R col C: OLD -> NEW' each (at most --max, "
        "default 64), then their count.  With no argument: since the previous stop (Dst is "
        "snapshotted at every stop).  'checkpoint N': against checkpoint N.  FILE (.npy or .csv): "
        "against a golden array in view V, either (N, 16) rows compared with rows ROWS (A-B, or the "
        "first row; default from 0) or a (32, 32) tile matrix compared with tile T (default 0); "
        "lanes within --atol + --rtol * |golden| match.  --raw: the golden holds the view "
        "storage's bit patterns, compared exactly.  A lane of an undefined row (ZEROACC, or never "
        "written) shows as <undef>: it differs from any golden value, and from a defined lane; "
        "the count says how many differing lanes are undefined."
    ),
    example="dst diff golden.npy 0-63 --view bf16 --atol 0.01",
    host_files=diff_reads_file,
)
def dst_diff(interp: Interpreter, args: str) -> None:
    words, opts = _parse(args, **_DIFF_OPTIONS)
    view = _view(interp, opts.get("view"))
    limit = int(opts.get("max", 64))  # type: ignore[call-overload]
    if limit < 0:
        raise CommandError("--max must not be negative.")
    if words and words[0] != "checkpoint":
        _diff_golden(interp, view, words, opts, limit)
        return
    if {"atol", "rtol", "raw"} & opts.keys():
        raise CommandError("--atol, --rtol and --raw apply to a golden FILE.")
    if words:
        if len(words) != 2:
            raise CommandError("Usage: dst diff checkpoint N")
        number = evaluate_int(interp, words[1])
        if number not in interp.session.checkpoints:
            raise CommandError(f"No checkpoint {number}.")
        snap = interp.session.checkpoint_dst(number)
        _note(interp, opts, view)
        _diff_bits(interp, view, snap, limit, f"since checkpoint {number}")
        return
    previous = interp.state.dst_stops[0]
    if previous is None:
        raise CommandError("No previous stop recorded yet; Dst is snapshotted at every stop from now on.")
    _note(interp, opts, view)
    _diff_bits(interp, view, previous, limit, "since the previous stop")


@DST.command(
    "stats",
    usage="dst stats [ROWS] [--view V]",
    help=(
        "Statistics of Dst rows ROWS (A-B or N; default every defined row) in view V: min, "
        "max and mean of the finite values, and counts of NaN, Inf, denormal and zero values; "
        "undefined lanes (ZEROACC, or never written) are left out."
    ),
    example="dst stats 0-63 --view bf16",
)
def dst_stats(interp: Interpreter, args: str) -> None:
    import numpy as np

    words, opts = _parse(args, view=str)
    view = _view(interp, opts.get("view"))
    dst = interp.session.dst_contents()
    storage = view.storage
    if len(words) > 1:
        raise CommandError("Usage: dst stats [ROWS] [--view V]")
    if words:
        rows = dst_rows(interp, words[0], storage_rows(interp, storage), STORAGE_NAME[storage])
    else:
        rows = np.flatnonzero(dst.defined(storage, np.arange(storage_rows(interp, storage)))[:, 0])
        if not len(rows):
            interp.out("No Dst rows written.")
            return
    _note(interp, opts, view)
    defined = dst.defined(storage, rows)
    bits = dst.lanes(storage, rows)[defined]
    values = view.decode(bits)
    finite = values[np.isfinite(values.astype(np.float64))]
    undefined = f" ({int((~defined).sum())} undefined lanes left out)" if not defined.all() else ""
    interp.out(f"{_where(view, rows)}: {values.size} values{undefined}")
    if finite.size:
        interp.out(f"  min {format_view_value(finite.min())}, max {format_view_value(finite.max())}, mean {format_float(float(finite.astype(np.float64).mean()))}")
    else:
        interp.out("  no finite values")
    counts = (view.is_nan(bits).sum(), view.is_inf(bits).sum(), view.is_denormal(bits).sum(), (values == 0).sum())
    interp.out("  NaN {}, Inf {}, denormal {}, zero {}".format(*map(int, counts)))


@DST.command(
    "heatmap",
    usage="dst heatmap [tile T | all] [--view V]",
    help=(
        "A map of |value| in view V, scaled linearly to the largest finite magnitude shown: "
        "ANSI 256-colour backgrounds on a terminal, the characters of \"" + RAMP + "\" otherwise "
        "(batch output); N marks NaN, I Inf.  'tile T' draws the 32x32 tile, two characters per "
        "element, with face borders; 'all' (the default) draws one line per tile, one character per "
        "row (the largest magnitude of its 16 columns), '|' between faces."
    ),
    example="dst heatmap tile 0 --view bf16",
)
def dst_heatmap(interp: Interpreter, args: str) -> None:
    import numpy as np

    words, opts = _parse(args, view=str)
    view = _view(interp, opts.get("view"))
    dst = interp.session.dst_contents()
    colour = _colour(interp)
    if words[:1] == ["tile"] and len(words) == 2:
        tile = _tile_number(interp, words[1], view)
        rows = np.arange(TILE_ROWS) + TILE_ROWS * tile
        _note(interp, opts, view)
        mag, nan, inf = (to_matrix(a) for a in _magnitudes(view, dst.lanes(view.storage, rows)))
        top = float(mag.max())
        interp.out(f"Tile {tile} ({_where(view, rows)}): {_legend(top, colour)}")
        cells = _cells(mag, nan, inf, top, 2, colour)
        for line in _grid(cells, [str(i) for i in range(32)], None, True, sep="", width=2):
            interp.out(line)
        return
    if words not in ([], ["all"]):
        raise CommandError("Usage: dst heatmap [tile T | all] [--view V]")
    _note(interp, opts, view)
    rows = np.arange(storage_rows(interp, view.storage))
    mag, nan, inf = _magnitudes(view, dst.lanes(view.storage, rows))
    shape = (-1, TILE_ROWS)
    mag, nan, inf = mag.max(axis=1).reshape(shape), nan.any(axis=1).reshape(shape), inf.any(axis=1).reshape(shape)
    top = float(mag.max())
    interp.out(f"{_where(view, rows)}, one line per tile, one character per row: {_legend(top, colour)}")
    cells = _cells(mag, nan, inf, top, 1, colour)
    for t, row in enumerate(cells):
        faces = ["".join(row[f * 16:(f + 1) * 16]) for f in range(4)]
        interp.out(f"tile {t:>2} |" + "|".join(faces) + "|")


@DST.command(
    "tile",
    usage="dst tile T [face F] [--view V]",
    help=(
        "Print tile T as a 32x32 matrix in view V, aligned columns, face borders drawn with '|' "
        "and '-' (rows and columns labelled with matrix indices), or only its face F as 16x16 "
        "(rows labelled with their Dst rows).  When the matrix is wider than the line (set width; "
        "80 columns by default) the tile is shown a face at a time, floats with the digits that "
        "tell the view's values apart (bf16 4, fp16 and tf32 5, fp32 9), and a face still too wide "
        "in blocks of its columns; 'set width unlimited' gives the one-matrix layout."
    ),
    example="dst tile 0 face 2 --view bf16",
)
def dst_tile(interp: Interpreter, args: str) -> None:
    import numpy as np

    words, opts = _parse(args, view=str)
    view = _view(interp, opts.get("view"))
    if len(words) not in (1, 3) or (len(words) == 3 and words[1] != "face"):
        raise CommandError("Usage: dst tile T [face F] [--view V]")
    tile = _tile_number(interp, words[0], view)
    _note(interp, opts, view)
    dst = interp.session.dst_contents()
    width = line_width(interp)
    if len(words) == 3:
        face = evaluate_int(interp, words[2])
        if not 0 <= face < 4:
            raise CommandError(f"Face {face} out of range 0..3.")
        faces = [face]
    else:
        rows = np.arange(TILE_ROWS) + TILE_ROWS * tile
        text = to_matrix(_display(view, dst.lanes(view.storage, rows), dst.defined(view.storage, rows)))
        lines = [f"Tile {tile} ({_where(view, rows)}), faces [[0, 1], [2, 3]]:",
                 *_grid(text.tolist(), [str(i) for i in range(32)], [str(j) for j in range(32)], True)]
        if fits(lines, width):
            for line in lines:
                interp.out(line)
            return
        faces = list(range(4))  # a face per screen
    for face in faces:
        rows = np.arange(16) + TILE_ROWS * tile + 16 * face
        bits, defined = dst.lanes(view.storage, rows), dst.defined(view.storage, rows)
        interp.out(f"Tile {tile} face {face} ({_where(view, rows)}):")
        labels = [str(r) for r in rows]

        def face_grid(short: bool) -> Callable[[], list[str]]:
            text = _display(view, bits, defined, short).tolist()

            def block(a: int, b: int) -> list[str]:
                return _grid([r[a:b] for r in text], labels, [str(c) for c in range(a, b)], False)
            return lambda: block(0, 16) if not short else blocks(16, width, block)

        for line in first_fitting(width, [face_grid(False), face_grid(True)]):
            interp.out(line)


def _summary(registry: Registry) -> str:
    return "\n".join(f"  {cmd.usage}: {cmd.help}" for cmd in registry.commands.values())


def _complete(registry: Registry) -> Callable[[Interpreter, str], list[str]]:
    """Subcommand names for the second word, view names after --view."""

    def complete(interp: Interpreter, word: str) -> list[str]:
        line = interp.state.completion_line
        words = line.split() + ([""] if line.endswith(" ") else [])
        if len(words) == 2:
            return [n for n in registry.names() if n.startswith(word)]
        if len(words) > 2 and words[-2] == "--view":
            return [n for n in VIEW_CHOICES if n.startswith(word)]
        return []

    return complete


# -- dump / restore ----------------------------------------------------------------------------------

@DUMP.command(
    "dst",
    usage="dump dst ROWS FILE.npy|FILE.csv [--view V | --raw]",
    help=(
        "Save Dst rows ROWS (A-B or N) to a .npy or .csv file as an (N, 16) array: the values of "
        "view V (float32 or int64; rows of the view's storage, default the view in force: see help dst), "
        "or with --raw the DstBits storage rows themselves (uint16, no Adj16), which 'restore dst' "
        "loads back."
    ),
    example="dump dst 0-63 tile0.npy --raw",
)
def dump_dst(interp: Interpreter, args: str) -> None:
    from tdbg.tensix.state_description import ranges

    import numpy as np

    words, opts = _parse(args, view=str, raw=None)
    if len(words) != 2:
        raise CommandError("Usage: dump dst ROWS FILE.npy|FILE.csv [--view V | --raw]")
    suffix = Path(words[1]).suffix
    if suffix not in (".npy", ".csv"):
        raise CommandError(f"{words[1]}: the file name must end in .npy or .csv.")
    dst = interp.session.dst_contents()
    if opts.get("raw"):
        if "view" in opts:
            raise CommandError("--view and --raw exclude each other.")
        rows = dst_rows(interp, words[0], storage_rows(interp, "bits"), "DstBits")
        data = dst.bits[rows].copy()
        what = f"DstBits rows {ranges(rows)}"
    else:
        view = _view(interp, opts.get("view"))
        rows = dst_rows(interp, words[0], storage_rows(interp, view.storage), STORAGE_NAME[view.storage])
        _note(interp, opts, view)
        data = view.decode(dst.lanes(view.storage, rows))
        what = _where(view, rows)
    out = io.BytesIO()
    if suffix == ".npy":
        np.save(out, data)
    else:
        np.savetxt(out, data, delimiter=",", fmt="%.9g" if data.dtype.kind == "f" else "%d")
    write_host_file(words[1], out.getvalue())
    hint = f"; restore dst {words[1]} {int(rows[0])} loads it back" if opts.get("raw") else ""
    interp.out(f"Saved {what} ({data.shape[0]}x16 {data.dtype}) to {words[1]}{hint}.")


@RESTORE.command(
    "dst",
    usage="restore dst FILE.npy|FILE.csv [ROW] [--view V]",
    help=(
        "Load an (N, 16) array into Dst from row ROW (default 0).  Without --view the file must "
        "hold integers: raw DstBits rows (as 'dump dst --raw' saves them), written as they are.  "
        "With --view V the values are encoded in view V and written to rows of its storage "
        "(Dst16b or Dst32b) as a store of the view's format would."
    ),
    example="restore dst tile0.npy 0",
)
def restore_dst(interp: Interpreter, args: str) -> None:
    from tdbg.tensix.state_description import ranges

    import numpy as np

    words, opts = _parse(args, view=str)
    if len(words) not in (1, 2):
        raise CommandError("Usage: restore dst FILE.npy|FILE.csv [ROW] [--view V]")
    data = _load(words[0])
    if data.shape[1] != 16:
        raise CommandError(f"{words[0]} holds shape {data.shape}; expected (N, 16).")
    start = evaluate_int(interp, words[1]) if len(words) == 2 else 0
    s = interp.session
    if "view" in opts:
        view = _view(interp, opts["view"])
        limit, where = storage_rows(interp, view.storage), STORAGE_NAME[view.storage]
    else:
        limit, where = storage_rows(interp, "bits"), "DstBits"
    rows = np.arange(start, start + len(data))
    if start < 0 or rows[-1] >= limit:
        raise CommandError(f"{words[0]} holds {len(data)} rows; from row {start} they do not fit {where} rows 0..{limit - 1}.")
    if "view" in opts:
        try:
            bits = view.encode(data)
        except (TypeError, ValueError) as exc:
            raise CommandError(f"{words[0]}: {exc} (view {view.name}).") from None
        s.set_dst(rows, bits, "raw16" if view.storage == "dst16" else "raw32")
        interp.out(f"Restored {_where(view, rows)} from {words[0]}.")
        return
    if data.dtype.kind not in "iu" or data.min() < 0 or data.max() > 0xFFFF:
        raise CommandError(f"{words[0]} does not hold raw 16-bit DstBits (use --view V for values).")
    s.set_dst_bits(start, data)
    interp.out(f"Restored DstBits rows {ranges(rows)} from {words[0]}.")


# -- the prefix commands ----------------------------------------------------------------------------

@command(
    "dst",
    usage="dst SUBCOMMAND",
    help=(
        "Inspect the Dst register: rows in every view, differences, statistics, heatmaps, tiles.\n"
        + _summary(DST) + "\n"
        f"Views (--view V): {VIEW_NAMES}.  The default is the view the math configuration says Dst "
        "holds, as tt-exalens reads Dst: Dst32b (int32 for an integer ALU_FORMAT_SPEC_REG2_Dstacc, else "
        "fp32) when ALU_ACC_CTRL_Fp32_enabled or ALU_ACC_CTRL_INT8_math_enabled is set, else the Dst16b "
        "type of ALU_FORMAT_SPEC_REG2_Dstacc (ALU_FORMAT_SPEC_REG_Dstacc_val while overridden), in the "
        "current core's config bank; where those fields name no Dst16b type (Dstacc FP32, TF32 or "
        "INT32, as at power-on), the current core's window view (its RISC_DEST_ACCESS_CTRL fmt).  A "
        "--view that reads other data than the configuration names is said so in one line.  Rows and lanes "
        "are those of the view's storage: 1024 Dst16b rows or 512 Dst32b rows, through the "
        "current row mapping; lanes of undefined rows (ZEROACC, or never written) show as <undef>.  " + LAYOUT
    ),
    example="dst tile 0 --view bf16",
    complete=_complete(DST),
    host_files=DST.touches_host_files,
)
def dst_cmd(interp: Interpreter, args: str) -> None:
    install(interp)   # the stop snapshots ``dst diff`` compares with
    DST.dispatch(interp, args)
