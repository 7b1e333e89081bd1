"""Architecture profiles: every fact about one Tensix generation that tdbg uses, in one place.

As tt-exalens arranges its hardware descriptions, each architecture is a package of its own
(``tdbg.arch.blackhole``: its ``Profile`` and the tables generated for it); the types a profile
is made of (``tdbg.arch.profile``), the typed address map (``tdbg.arch.memory_map``) and the data
formats (``tdbg.arch.data_formats``, the same codes on Wormhole B0 and Blackhole) belong to no
architecture.  Wormhole B0 would be a second
package beside ``blackhole`` (``tdbg.arch.wormhole_b0`` already holds its instruction table).
Nothing here imports the model or the emulator.

``profile_for(name)`` is the profile of an architecture by its package's name; without a name,
the architecture tdbg models by default (``DEFAULT``): every default in the code is this one.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdbg.arch.profile import Profile

DEFAULT = "blackhole"


def profile_for(name: str = DEFAULT) -> Profile:
    """The profile of architecture ``name`` (``tdbg.arch.<name>``: its upper-case name is its
    profile, ``tdbg.arch.blackhole.BLACKHOLE``)."""
    try:
        return getattr(import_module(f"tdbg.arch.{name}"), name.upper())
    except (ImportError, AttributeError):
        raise ValueError(f"no architecture profile {name!r}") from None
