"""Each core's program: its firmware (an ELF, or C built with the bundled toolchain), the symbol
files a host added beside it (GDB's ``add-symbol-file``), and their debug information, opened
when a source-level question first needs it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tdbg.debug.hostfiles import HostFileError, host_path
from tdbg.debug.target import Target
from tdbg.errors import SessionError
from tdbg.expr.values import PrintSettings
from tdbg.symbols.cxxnames import demangle
from tdbg.symbols.sourcepath import SourcePath
from tdbg.symbols.symbol_file import SymbolFile
from tdbg.toolchain.zig import SOURCE_SUFFIXES, ToolchainError, build

if TYPE_CHECKING:
    from tdbg.emu.elf import ElfImage
    from tdbg.symbols.debuginfo import DebugInfo


class CheckedDebugInfo:
    """A ``DebugInfo`` whose methods turn what corrupt DWARF makes pyelftools raise into one
    ``SessionError`` line (its own ``KeyError``/``FileNotFoundError`` messages pass through)."""

    def __init__(self, info: DebugInfo, path: Path) -> None:
        self._info, self._path = info, path

    def __getattr__(self, name: str) -> object:
        value = getattr(self._info, name)
        if not callable(value):
            return value

        def checked(*args: object, **kwargs: object) -> object:
            try:
                return value(*args, **kwargs)
            except (SessionError, KeyError, OSError):
                raise
            except Exception as exc:  # noqa: BLE001  (corrupt DWARF read lazily)
                from tdbg.emu.elf import one_line

                raise SessionError(one_line(f"{self._path}: unusable debug information "
                                            f"({type(exc).__name__}: {exc})")) from None

        return checked


def load_program(path: str | Path, core: str = "T0") -> ElfImage:
    """An ELF, or a C or C++ file built with the bundled toolchain first (as ``core``'s firmware)."""
    from tdbg.emu.elf import ElfImage

    path = Path(path)
    if path.suffix in SOURCE_SUFFIXES:
        path = build(path, core=core)
    return ElfImage.load(path)


class Programs:
    """The programs of the selected tile's cores, their symbols and debug information."""

    def __init__(self, target: Target) -> None:
        self.t = target
        self.print_settings = PrintSettings()   # GDB's set print pretty / demangle / asm-demangle
        self.source_path = SourcePath()         # GDB's set substitute-path and directory
        #: Symbol files read (and moved) once: (path, its mtime, text address) -> image, DWARF.
        self._symbol_images: dict[tuple, tuple[ElfImage, DebugInfo | None]] = {}
        self._in_file: tuple[str, SymbolFile | None] | None = None   # (core, file) symbols come from

    @property
    def debug_infos(self) -> dict[str, DebugInfo | None]:
        """Each core's debug information (None: no firmware, or no DWARF), made for firmware
        loaded since the last time this was read."""
        view = self.t.view
        while view.unread:
            name, image = view.unread.popitem()
            view.debug_infos[name] = self._debug_info(image)
        return view.debug_infos

    @property
    def symbol_files(self) -> dict[str, list[SymbolFile]]:
        """A core's code beyond its firmware (a host's kernels)."""
        return self.t.view.symbol_files

    @property
    def programs(self) -> dict[str, ElfImage]:
        """Each core's firmware, by core name."""
        return {name: program.image for name, program in self.t.tile.programs.items()}

    def load(self, core: str, program: str | Path | None, reset: bool = True, local_init: int | None = None) -> None:
        """Give ``core`` its firmware (an ELF, or C built with the bundled toolchain; None takes
        it away), then put the tile back in its loaded state.  ``local_init``: the L1 address
        where a host puts the bytes the ELF has in the core's private memory (tt-metal's
        ``MEM_*_INIT_LOCAL_L1_BASE_SCRATCH``; ``tdbg.emu.loader``)."""
        from tdbg.emu.elf import ElfLoadError

        tile = self.t.tile
        try:
            name = tile.core_named(core).name
        except ValueError as exc:
            raise SessionError(str(exc)) from None
        try:
            image = None if program is None else load_program(host_path(program), name)
            tile.load(name, image, local_init, reset)
            self.t.started = False
        except (ElfLoadError, ToolchainError, OSError, HostFileError) as exc:
            raise SessionError(str(exc)) from None
        view = self.t.view
        view.debug_infos[name] = None
        view.unread.pop(name, None)
        if image is not None:
            view.unread[name] = image
        self.t.view.opened_cores.discard(name)
        self.symbol_files.pop(name, None)
        self.t.points.sync()
        self.t.history.clear()

    def add_symbol_file(self, core: str, program: str | Path, text_address: int | None = None) -> SymbolFile:
        """Symbols and DWARF of more code on ``core`` (GDB's ``add-symbol-file FILE ADDR``):
        the ELF ``program``, its code moved to run at ``text_address`` (None: where it is
        linked).  The debugger names, lists and breaks in that code as in the firmware's."""
        from tdbg.emu.elf import ElfImage, ElfLoadError
        from tdbg.emu.moved import move_code

        try:
            name = self.t.tile.core_named(core).name
            path = host_path(program)
            key = (path, path.stat().st_mtime_ns, text_address)
            known = self._symbol_images.get(key)
            if known is None:
                image, bias = ElfImage.load(path), 0
                if text_address is not None and image.exec_ranges:
                    bias = text_address - min(lo for lo, _ in image.exec_ranges)
                    image = ElfImage.parse(move_code(image.raw, bias), path)
                known = self._symbol_images[key] = (image, self._debug_info(image))
                if known[1] is not None:
                    known[1].moved_by = bias
        except (ElfLoadError, OSError, HostFileError, ValueError) as exc:
            raise SessionError(str(exc)) from None
        added = SymbolFile(*known)
        self.symbol_files.setdefault(name, []).append(added)
        return added

    def remove_symbol_files(self, core: str) -> None:
        """Forget the symbol files added to ``core`` (GDB's ``remove-symbol-file``)."""
        self.symbol_files.pop(self.t.tile.core_named(core).name, None)

    def symbol_file(self, core: str, address: int | None = None) -> SymbolFile | None:
        """The symbol file of ``core`` whose code holds ``address`` (default: the core's PC),
        or the one a lookup is confined to; None: the firmware's."""
        if self._in_file is not None and self._in_file[0] == core:
            return self._in_file[1]
        at = self.t.tile.cores[core].pc if address is None else address
        return next((f for f in self.symbol_files.get(core, ()) if f.holds(at)), None)

    @contextmanager
    def symbols_from(self, core: str, symbol_file: SymbolFile | None = None) -> Iterator[None]:
        """Look ``core``'s symbols up in ``symbol_file`` (None: its firmware) for a while,
        wherever its PC is (e.g. a firmware global while the core runs a kernel)."""
        saved, self._in_file = self._in_file, (core, symbol_file)
        try:
            yield
        finally:
            self._in_file = saved

    def opened_file(self, symbol_file: SymbolFile) -> DebugInfo | None:
        """A symbol file's debug information, opened on first use (as ``opened``)."""
        from tdbg.emu.elf import one_line

        if symbol_file.info is not None and not symbol_file.opened:
            try:
                symbol_file.info.open()
            except Exception as exc:  # noqa: BLE001
                symbol_file.info = None
                self.t.warn(one_line(f"warning: {symbol_file.image.path}: its debug information is unusable "
                                     f"({type(exc).__name__}: {exc})"))
            symbol_file.opened = True
        return symbol_file.info

    def opened(self, core: str) -> DebugInfo | None:
        """``core``'s debug information, opened on first use: DWARF too corrupt to open leaves
        the program without source-level debugging, with a warning (``warn``) the first time,
        never without the program."""
        from tdbg.emu.elf import one_line

        info = self.debug_infos.get(core)
        opened = self.t.view.opened_cores
        if info is None or core in opened:
            return info
        try:
            info.open()
        except Exception as exc:  # noqa: BLE001  (pyelftools raises many kinds on corrupt DWARF)
            self.debug_infos[core] = None
            self.t.warn(one_line(f"warning: {self.t.tile.image(core).path}: its debug information is unusable "
                                 f"({type(exc).__name__}: {exc}); symbols and machine-level debugging still work"))
            return None
        opened.add(core)
        return info

    def _debug_info(self, image: ElfImage) -> DebugInfo | None:
        """The DWARF of ``image``, read when a source-level question first needs it
        (``opened``); its sources are found through ``source_path``."""
        from tdbg.symbols.debuginfo import DebugInfo

        info = DebugInfo.load(image)
        if info is not None:
            info.source_path = self.source_path
        return info

    def debug_info_at(self, core: str, pc: int) -> DebugInfo | None:
        """The debug information that describes ``core``'s code at ``pc`` (a symbol file's, or
        the firmware's)."""
        found = self.symbol_file(core, pc)
        return self.opened_file(found) if found is not None else self.opened(core)

    def programs_of(self, core: str) -> list[tuple[ElfImage, DebugInfo | None]]:
        """The firmware of ``core`` and each of its symbol files, with their (opened) DWARF."""
        image = self.t.tile.image(core)
        found = [(image, self.opened(core))] if image is not None else []
        return found + [(f.image, self.opened_file(f)) for f in self.symbol_files.get(core, ())]

    @property
    def image(self) -> ElfImage:
        """The current core's program: the symbol file its PC is in, else its firmware."""
        current = self.t.current
        found = self.symbol_file(current) if self.symbol_files else None
        if found is not None:
            return found.image
        image = self.t.tile.image(current)
        if image is None:
            raise SessionError(f"No symbol table is loaded for {current}.  Use the \"file {current} FILE\" command.")
        return image

    @property
    def debug(self) -> DebugInfo | None:
        """The current core's debug information (None without firmware or DWARF).  Its parts
        that are read only when asked (types, variables, frames) may turn out corrupt: such a
        failure is a ``SessionError`` line naming the file, never an internal error."""
        current = self.t.current
        found = self.symbol_file(current) if self.symbol_files else None
        if found is not None:
            info = self.opened_file(found)
            return None if info is None else CheckedDebugInfo(info, found.image.path)  # type: ignore[return-value]
        info = self.opened(current)
        return None if info is None else CheckedDebugInfo(info, self.t.tile.image(current).path)  # type: ignore[return-value]

    def symbol(self, name: str):
        """The current core's ELF symbol ``name``."""
        try:
            return self.image.symbol(name)
        except KeyError as exc:
            raise SessionError(str(exc.args[0])) from None

    def symbolize(self, address: int, demangled: bool | None = None) -> str:
        """``<main+4>`` for an address inside a known function or object, else ``""``.  A C++
        name is shown demangled when ``demangled`` (default: ``print_settings.asm_demangle``, as
        GDB's ``print_address`` in disassembly; values use ``print_settings.demangle``)."""
        current = self.t.current
        found = self.symbol_file(current, address) if self.symbol_files else None
        image = found.image if found is not None else self.t.tile.image(current)
        hit = image.symbol_at(address) if image else None
        demangled = self.print_settings.asm_demangle if demangled is None else demangled
        info = self.opened_file(found) if found is not None else self.opened(current)
        try:
            function = info.label_at(address, demangled) if info is not None else None
        except Exception:  # noqa: BLE001  (corrupt DWARF: the ELF symbols name it, as without DWARF)
            function = None
        if function is not None and (hit is None or address - hit[1] <= function[1]):   # GDB: the nearer one
            name, offset = function[0], address - function[1]
        elif hit is None:
            return ""
        else:
            name, offset = hit[0].name, hit[1]
            name = (demangle(name) or name) if demangled else name
        return f"<{name}+{offset}>" if offset else f"<{name}>"

    def describe_pc(self, core: str, pc: int) -> str:
        """``0x0000b05c in main at deadlock_t1.c:9``; in an inlined call ``... in
        cb_wait_front at dataflow_api.h:489, inlined in kernel_main at reader.cpp:40``
        (files by name, from the debug information of the code at ``pc``)."""
        info = self.debug_info_at(core, pc)
        where = f"{pc:#010x}"
        function = info.function_at(pc) if info is not None else None
        if info is None or function is None:
            with self.t.on_core(core):
                name = self.symbolize(pc)
            return f"{where} {name}" if name else where
        chain = info.inline_chain(pc)
        line = info.line_for(pc)
        where += f" in {chain[0].name if chain else function.name}"
        if line is not None:
            where += f" at {line.file.name}:{line.line}"
        if chain and chain[-1].call_file is not None:
            where += f", inlined in {function.name} at {chain[-1].call_file.name}:{chain[-1].call_line}"
        return where
