"""Operands whose shapes do not broadcast raise RuntimeError with PyTorch's message.

Every pointwise entry of two or three tensors in the op database (``db_binary``) is called with a
first operand of shape (3,) and the others of shape (4,), as a function, as a method and in place;
comparisons, ``masked_fill`` and the Python operators are checked the same way.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.size import broadcast_error

from . import db_binary
from .core import Lib, T

MG = Lib("minigenesis", mg)
MESSAGE = r"The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton"


def _mismatched(entry):
    """The entry's first sample with its tensors rebuilt as (3,), (4,), (4,)... of their dtype."""
    sample = next(iter(entry.samples()))
    args, k = [], 0
    for a in sample.args:
        if isinstance(a, T):
            shape = (3,) if k == 0 else (4,)
            values = np.ones(shape, bool) if a.dtype == "bool" else np.full(shape, 0.5)
            args.append(MG.tensor(T(values, a.dtype)))
            k += 1
        else:
            args.append(a)
    return args, dict(sample.kwargs), k


@pytest.mark.parametrize("entry", db_binary.ENTRIES, ids=lambda e: e.id)
def test_pointwise_ops_refuse_shapes_that_do_not_broadcast(entry):
    args, kwargs, n_tensors = _mismatched(entry)
    assert n_tensors >= 2
    calls = []
    if entry.call or not entry.name.startswith("Tensor."):
        calls.append(entry.call or (lambda lib, *a, **k: lib.resolve(entry.name)(*a, **k)))
    if entry.method:
        calls.append(lambda lib, a, *rest, **k: getattr(a, entry.method)(*rest, **k))
    if entry.inplace:
        calls.append(lambda lib, a, *rest, **k: getattr(a.clone(), entry.inplace)(*rest, **k))
    for call in calls:
        with pytest.raises(RuntimeError, match=MESSAGE):
            call(MG, *args, **kwargs)


@pytest.mark.parametrize(
    "op",
    [
        lambda a, b: a + b,
        lambda a, b: a * b,
        lambda a, b: a < b,
        lambda a, b: a == b,
        lambda a, b: a >= b,
        lambda a, b: mg.eq(a, b),
        lambda a, b: mg.ne(a, b),
        lambda a, b: a.add_(b),
        lambda a, b: a.masked_fill(b > 0, 1.0),  # PyTorch names the mask tensor a
        lambda a, b: mg.where(a > 0, a, b),
        lambda a, b: mg.lerp(a, b, 0.5),
        lambda a, b: mg.addcmul(a, b, a),
        lambda a, b: mg.addcdiv(a, b, a),
    ],
)
def test_operators_and_masks_refuse_shapes_that_do_not_broadcast(op):
    a, b = mg.ones(3), mg.ones(4)
    if op.__code__.co_code == (lambda a, b: a.masked_fill(b > 0, 1.0)).__code__.co_code:
        a, b = b, a
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        op(a, b)


def test_broadcast_error_names_the_first_conflicting_dimension_from_the_right():
    assert "a (3) must match the size of tensor b (4) at non-singleton dimension 2" in str(
        broadcast_error((2, 3), (4, 1, 4))
    )
    # the running broadcast shape is tensor a: (2, 3) with (1, 3) is (2, 3), then (5, 3) conflicts
    assert "a (2) must match the size of tensor b (5) at non-singleton dimension 0" in str(
        broadcast_error((2, 3), (1, 3), (5, 3))
    )
