"""Architecture profiles: every fact about one Tensix generation that tdbg uses, in one place.

As tt-exalens arranges its hardware descriptions, each architecture is a package of its own
(``tdbg.arch.blackhole``: its ``Profile`` and the tables generated for it); the types a profile
is made of (``tdbg.arch.profile``), the typed address map (``tdbg.arch.memory_map``) and the data
formats (``tdbg.arch.data_formats``, the same codes on Wormhole B0 and Blackhole) belong to no
architecture.  Wormhole B0 would be a second
package beside ``blackhole`` (``tdbg.arch.wormhole_b0`` already holds its instruction table).
Nothing here imports the model or the emulator.
"""
