"""minigenesis has every public name PyTorch has on ``torch.Tensor``, ``torch``,
``torch.nn.functional`` and ``torch.nn``, except the reviewed skip lists of
``tests/pytorch_public_names.py`` (each group with its reason).
``tests/parity/test_pytorch_public_names.py`` checks those tables against the installed
PyTorch, so a name PyTorch adds fails there until it is implemented or reviewed."""

from __future__ import annotations

import pytest
from pytorch_public_names import (
    FUNCTIONAL_NAMES,
    FUNCTIONAL_SKIPS,
    NN_NAMES,
    NN_SKIPS,
    TENSOR_NAMES,
    TENSOR_SKIPS,
    TORCH_NAMES,
    TORCH_SKIPS,
    skipped,
)

import minigenesis as mg

AREAS = {
    "torch.Tensor": (lambda: mg.Tensor, TENSOR_NAMES, TENSOR_SKIPS),
    "torch": (lambda: mg, TORCH_NAMES, TORCH_SKIPS),
    "torch.nn.functional": (lambda: mg.nn.functional, FUNCTIONAL_NAMES, FUNCTIONAL_SKIPS),
    "torch.nn": (lambda: mg.nn, NN_NAMES, NN_SKIPS),
}


@pytest.mark.parametrize("area", AREAS)
def test_every_public_pytorch_name_is_there_or_reviewed(area: str) -> None:
    target, names, _ = AREAS[area]
    missing = sorted(n for n in names if not hasattr(target(), n))
    assert missing == [], f"{area} lacks {len(missing)} names PyTorch has: {missing}"


@pytest.mark.parametrize("area", AREAS)
def test_skip_lists_hold_only_names_minigenesis_lacks(area: str) -> None:
    """A skipped name that has since been implemented moves to the table (so it is checked)."""
    target, names, skips = AREAS[area]
    assert not skipped(skips) & names
    assert sorted(n for n in skipped(skips) if hasattr(target(), n)) == []


@pytest.mark.parametrize("area", AREAS)
def test_each_skip_group_states_a_reason_and_names(area: str) -> None:
    for reason, names in AREAS[area][2].items():
        assert len(reason) > 10 and names.split(), reason
