"""Building for the tile: tdbg's own firmware and C/C++ files with the bundled zig (``zig.py``),
and Tenstorrent's own code as tdbg obtains and builds it: the ``ttnn`` wheel from PyPI (tt-llk,
tt-metal's hardware headers, the pre-compiled firmware, the ttnn op kernels) and tt-llk's test
kernels built from it.  Nothing of Tenstorrent's is in the repository: the wheel is downloaded
once into tdbg's cache and the ELFs are built there."""
