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


class TensixEvent(Exception):
    """A categorized event; ``rule`` names the spec rule (page and case) that was hit."""

    category: Category = Category.UndefinedBehavior

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
