"""Shared fixtures."""

from __future__ import annotations

import pytest

from tdbg.tensix.tile import TensixState


@pytest.fixture
def tensix() -> TensixState:
    return TensixState()
