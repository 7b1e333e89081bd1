"""What a tt-metal program runs on each core, as ``info kernels`` shows it: the kernel, its source,
what its JIT build took (compile-time arguments, defines, named arguments, the NoC), where the
host put its code, and the runtime arguments as launched (the words the host wrote at
``kernel_config_base + rta_offset``, ``program.Layout``) beside what L1 holds there now, so an
argument a kernel overwrote shows; the program's CBs with their L1 addresses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tdbg.ttmetal.program import CORES, DEFAULT_NOC, L1_ALIGNMENT, Buffer

if TYPE_CHECKING:
    from tdbg.session import Session
    from tdbg.ttmetal.program import ProgramHost


@dataclass(frozen=True)
class Argument:
    """One runtime argument: its name (a Metal 2.0 named one), the word launched, what it stands
    for (a buffer's name), the word in L1 now (None: not launched yet)."""

    name: str | None
    value: int
    buffer: str | None
    now: int | None


@dataclass(frozen=True)
class Launched:
    """A kernel of the program and where it runs."""

    name: str
    processor: str
    cores: tuple[str, ...]
    source: str | None
    compile_args: tuple[int, ...]
    defines: tuple[tuple[str, str], ...]
    named_args: tuple[tuple[str, int], ...]
    noc: int | None
    code: dict[str, tuple[int, int]]        # core -> (address, bytes) of its image
    args_at: int
    args: tuple[Argument, ...]
    common_at: int
    common_args: tuple[Argument, ...]       # Metal 2.0: named, then each tensor binding's address
    dfbs: tuple[tuple[str, int], ...]       # Metal 2.0: dfb:: name -> CB
    tensors: tuple[tuple[str, str], ...]    # Metal 2.0: tensor:: name -> buffer
    sems: tuple[tuple[str, int, int], ...] = ()   # Metal 2.0: sem:: name -> (semaphore id, its L1 address)


def launched(session: Session, host: ProgramHost) -> list[Launched]:
    """Each kernel of the host's program, in processor order (``program.CORES``)."""
    program, layout = host.program, host.layout
    out = []
    for kernel in sorted(program.kernels, key=lambda k: CORES.index(k.cores[0])):
        core = kernel.cores[0]
        at = layout.base + layout.rta_offset[core]
        common_at = layout.base + layout.crta_offset.get(core, 0)
        args = _arguments(session, host, at, kernel.arg_words(), [*kernel.rt_args.items(), *((None, a) for a in kernel.args)])
        common = _arguments(session, host, common_at, kernel.common_words(),
                            [*kernel.common_args.items(), *((f"tensor {n}", b) for n, b in kernel.tensors.items())])
        code = {c: (layout.base + layout.text_offset[c], len(layout.images[c])) for c in kernel.cores if c in layout.images}
        noc = kernel.noc if kernel.noc is not None else DEFAULT_NOC.get(kernel.processor)
        out.append(Launched(kernel.name, kernel.processor, kernel.cores,
                            str(kernel.source) if kernel.source is not None else None, tuple(kernel.all_compile_args),
                            tuple(sorted((k, str(v)) for k, v in kernel.defines.items())),
                            tuple(sorted(kernel.named_args.items())), noc, code, at, args, common_at, common,
                            tuple(kernel.dfbs.items()), tuple((n, b.name) for n, b in kernel.tensors.items()),
                            tuple((n, i, layout.base + layout.sem_offset + L1_ALIGNMENT * i) for n, i in kernel.sems.items())))
    return out


def _arguments(session: Session, host: ProgramHost, at: int, words: list[int],
               sources: list[tuple[str | None, object]]) -> tuple[Argument, ...]:
    now = _words(session, at, len(words)) if host.sent else [None] * len(words)
    return tuple(Argument(name, w, a.name if isinstance(a, Buffer) else None, n)
                 for w, (name, a), n in zip(words, sources, now))


def _words(session: Session, address: int, count: int) -> list[int | None]:
    with session.on_core("B"):
        raw = session.read_memory(address, 4 * count)
    return [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4)]
