"""Where source files are found, as GDB finds them (GDB manual, "Specifying Source Directories"):
the path substitution rules (``set substitute-path FROM TO``) rewrite a recorded path's leading
directories, then the source path (``directory DIR``, default ``$cdir:$cwd``) is searched.

Firmware built on another machine (tt-llk's kernels are) records that machine's paths; a rule
``set substitute-path /build/tt-llk /home/me/tt-llk`` or a ``directory`` makes ``list``, stop lines
and the LLK_ASSERT decoder read the sources here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DIRECTORIES = ("$cdir", "$cwd")


@dataclass
class SourcePath:
    """The substitution rules (in the order given; the first that matches applies) and the
    source path (searched in order; ``$cdir`` is the compilation directory, ``$cwd`` the current
    directory)."""

    directories: list[str] = field(default_factory=lambda: list(DEFAULT_DIRECTORIES))
    substitutions: list[tuple[str, str]] = field(default_factory=list)

    def rewrite(self, path: str) -> str:
        """``path`` with the first rule whose FROM is a leading part of it (whole directory
        names: ``/usr/src`` rewrites ``/usr/src/x.c``, not ``/usr/source/x.c``) applied."""
        for old, new in self.substitutions:
            if path == old or path.startswith(old.rstrip("/") + "/"):
                return new + path[len(old.rstrip("/")):]
        return path

    def find(self, path: Path, comp_dir: str | None = None) -> Path | None:
        """The file on this machine for a recorded source ``path`` (absolute or relative to its
        compilation directory ``comp_dir``): the rewritten path itself, then in each directory of
        the source path the path below it, then its base name (GDB's ``find_and_open_source``)."""
        recorded = str(path)
        if not os.path.isabs(recorded) and comp_dir:
            recorded = os.path.join(comp_dir, recorded)
        candidates = [self.rewrite(recorded)]
        relative = recorded.lstrip("/")
        for directory in self.directories:
            if directory == "$cdir":
                if not comp_dir:
                    continue
                directory = self.rewrite(comp_dir)
            elif directory == "$cwd":
                directory = os.getcwd()
            candidates += [os.path.join(directory, relative), os.path.join(directory, os.path.basename(recorded))]
        return next((Path(c) for c in candidates if os.path.isfile(c)), None)

    def directories_text(self) -> str:
        """``show directories``."""
        return f"Source directories searched: {':'.join(self.directories)}"

    def add_directories(self, names: list[str]) -> None:
        """GDB's ``directory DIR...``: each goes to the front (moved there if present), the
        last one named first."""
        for name in reversed(names):
            name = name if name.startswith("$") else os.path.abspath(os.path.expanduser(name))
            if name in self.directories:
                self.directories.remove(name)
            self.directories.insert(0, name)

    def set_directories(self, text: str) -> None:
        """GDB's ``set directories PATH``: PATH (colon-separated), then $cdir and $cwd if
        missing."""
        self.directories = []
        self.add_directories([p for p in text.split(":") if p])
        for default in DEFAULT_DIRECTORIES:
            if default not in self.directories:
                self.directories.append(default)

    def substitute(self, old: str, new: str) -> None:
        """``set substitute-path FROM TO``: a rule with the same FROM is replaced."""
        old = old.rstrip("/") or "/"
        self.substitutions = [(o, n) for o, n in self.substitutions if o != old] + [(old, new.rstrip("/") or "/")]
