"""What a firmware's symbols and DWARF answer, for the engine (``tdbg.debug``).

- ``debuginfo``: a program's DWARF (lines, functions and inlined calls, variables and their
  locations, types, unwinding).
- ``linespec``: GDB's locations (``FUNCTION``, ``FILE:LINE``, ``*ADDR``) resolved to sites.
- ``sourcepath``: where source files are found (``set substitute-path``, ``directory``).
- ``cxxnames``: C++ names as GDB shows them (demangling, scopes).
- ``llk_names``: tt-llk's semaphore and mutex names.
"""
