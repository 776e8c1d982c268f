"""PyTorch parity: a new Generator starts from PyTorch's fixed seed."""

from __future__ import annotations

import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


def test_a_new_generator_has_pytorchs_seed() -> None:
    assert mg.Generator().initial_seed() == torch.Generator().initial_seed()
