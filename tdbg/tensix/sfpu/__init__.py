"""The Vector Unit (SFPU): its state and every instruction of the Blackhole table.

``VectorUnit`` (``state``) holds ``LReg`` and the lane predication and configuration state;
``EXECUTE`` maps each Vector Unit mnemonic to its executor.  One module per group of
instructions, each implementing the pages it names:

* ``loadstore``: ``SFPLOAD``, ``SFPSTORE``, ``SFPLOADI``;
* ``macro``: ``SFPLOADMACRO``;
* ``mad``: the MAD sub-unit (``SFPMAD``, ``SFPADD``, ``SFPMUL``, ``SFPADDI``, ``SFPMULI``,
  ``SFPMUL24``, ``SFPLUT``, ``SFPLUTFP32``), with ``numerics.fma``;
* ``bits``: integer, bitwise and FP32 field instructions;
* ``convert``: ``SFPCAST``, ``SFPSTOCHRND``, ``SFPARECIP``;
* ``predication``: ``SFPSETCC``, ``SFPENCC``, ``SFPPUSHC``, ``SFPPOPC``, ``SFPCOMPC``,
  ``SFPLE``, ``SFPGT``;
* ``movement``: ``SFPMOV``, ``SFPSWAP``, ``SFPTRANSP``, ``SFPSHFT2``, ``SFPCONFIG``, ``SFPNOP``.
"""

from tdbg.tensix.sfpu import bits, convert, loadstore, macro, mad, movement, predication  # noqa: F401  (registration)
from tdbg.tensix.sfpu.vector_unit import EXECUTE, LANES, VectorUnit

__all__ = ["EXECUTE", "LANES", "VectorUnit"]
