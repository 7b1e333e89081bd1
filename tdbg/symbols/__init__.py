"""What a firmware's symbols and DWARF answer, for the engine (``tdbg.debug``).

- ``debuginfo``: ``DebugInfo``, a program's DWARF, composed of one part per question:
  ``lines`` (line tables, functions, sources), ``inline_frames``, ``locations`` (variables and
  where they are), ``type_info`` (C types), ``symbol_tables`` (GDB's ``info functions`` and the
  like), ``cfi`` (unwinding), over ``dwarf_reader``; ``records`` holds what they answer with,
  ``dies`` the DIE and expression helpers they share.
- ``linespec``: GDB's locations (``FUNCTION``, ``FILE:LINE``, ``*ADDR``) resolved to sites.
- ``sourcepath``: where source files are found (``set substitute-path``, ``directory``).
- ``cxxnames``: C++ names as GDB shows them (demangling, scopes).
- ``llk_names``: tt-llk's semaphore and mutex names.
- ``symbol_file``: code a host added beside a core's firmware, with its DWARF.
"""
