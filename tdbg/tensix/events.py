"""Stop reasons raised by the model.

The taxonomy splits "the firmware is wrong" (``UndefinedBehavior``, ``UnpredictableValueUsed``,
``NonContractualBehavior``) from "tdbg does not model it" (``UnimplementedFunctionality``,
``UnsupportedFunctionality``, ``MissingSpecification``).  The model raises them; the emulation layer adds
the PC and core and turns them into stops, per the user's ``handle`` policy.
"""

from __future__ import annotations

from enum import Enum


class Category(str, Enum):
    """Stop categories, named as the ``handle`` command spells them."""

    UndefinedBehavior = "UndefinedBehavior"
    UnpredictableValueUsed = "UnpredictableValueUsed"
    NonContractualBehavior = "NonContractualBehavior"
    UnimplementedFunctionality = "UnimplementedFunctionality"
    UnsupportedFunctionality = "UnsupportedFunctionality"
    MissingSpecification = "MissingSpecification"
    NeverWritten = "NeverWritten"     # a NoC read of memory nothing wrote (default: warn)


#: What ``handle`` starts with: every category stops the run, but a read of memory nothing wrote,
#: which a kernel may make on purpose (the padding of a page), warns.
DEFAULT_POLICY_WARNS = frozenset({Category.NeverWritten})


class TensixEvent(Exception):
    """A categorized event; ``rule`` names the spec rule (page and case) that was hit.
    ``after_access``: raised once the access has had its effect (a stop leaves the core past
    it), not before."""

    category: Category = Category.UndefinedBehavior
    after_access = False

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule

    def __str__(self) -> str:
        return f"{self.category.value}: {self.rule}"


class UndefinedBehavior(TensixEvent):
    category = Category.UndefinedBehavior


class UnpredictableValueUsed(TensixEvent):
    category = Category.UnpredictableValueUsed


class NonContractualBehavior(TensixEvent):
    category = Category.NonContractualBehavior


class UnimplementedFunctionality(TensixEvent):
    category = Category.UnimplementedFunctionality


class UnsupportedFunctionality(TensixEvent):
    category = Category.UnsupportedFunctionality


class MissingSpecification(TensixEvent):
    category = Category.MissingSpecification


class NeverWritten(TensixEvent):
    """A NoC read of DRAM or another tile's L1 where nothing was written (issue 33 item 6): the
    data moved (zeros: tdbg's memory there; on silicon, whatever DRAM held)."""

    category = Category.NeverWritten
    after_access = True
