"""The tables of tests/pytorch_public_names.py against the installed PyTorch: the names listed
(present or skipped with a reason) are exactly the public names PyTorch has on ``torch.Tensor``
and the public callables of ``torch``, ``torch.nn.functional`` and ``torch.nn``."""

from __future__ import annotations

import inspect

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

torch = pytest.importorskip("torch")


def _public(obj: object, callables_only: bool) -> set[str]:
    """Public attribute names of obj, leaving out submodules (and non-callables if asked)."""
    out = set()
    for name in dir(obj):
        if name.startswith("_"):
            continue
        try:
            value = getattr(obj, name)
        except Exception:  # a deprecated attribute that raises on access
            continue
        if inspect.ismodule(value) or (callables_only and not callable(value)):
            continue
        out.add(name)
    return out


AREAS = {
    "torch.Tensor": (lambda: _public(torch.Tensor, False), TENSOR_NAMES, TENSOR_SKIPS),
    "torch": (lambda: _public(torch, True), TORCH_NAMES, TORCH_SKIPS),
    "torch.nn.functional": (
        lambda: _public(torch.nn.functional, True),
        FUNCTIONAL_NAMES,
        FUNCTIONAL_SKIPS,
    ),
    "torch.nn": (lambda: _public(torch.nn, True), NN_NAMES, NN_SKIPS),
}


@pytest.mark.parametrize("area", AREAS)
def test_every_pytorch_name_is_in_the_table_or_a_skip_list(area: str) -> None:
    found, names, skips = AREAS[area]
    assert sorted(found() - names - skipped(skips)) == []


@pytest.mark.parametrize("area", AREAS)
def test_the_tables_name_only_what_pytorch_has(area: str) -> None:
    found, names, skips = AREAS[area]
    assert sorted((names | skipped(skips)) - found()) == []
