"""Tensor.stride() of an empty tensor: NumPy reports all-zero strides for an array with no
elements; PyTorch reports the row-major strides of a new tensor, each the product of the later
sizes counted as at least 1. An empty view that keeps real strides (a slice, an expansion)
reports them, as PyTorch."""

from __future__ import annotations

import pytest

import minigenesis as mg


def _row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The reference: stride[d] = prod(max(n, 1) for n in shape[d + 1:])."""
    out = []
    for d in range(len(shape)):
        p = 1
        for n in shape[d + 1 :]:
            p *= max(n, 1)
        out.append(p)
    return tuple(out)


@pytest.mark.parametrize(
    "shape", [(0,), (2, 0, 3), (0, 3), (3, 0), (2, 3, 0), (0, 0), (4, 0, 0, 5)]
)
def test_new_empty_tensor_has_row_major_strides(shape):
    for make in (mg.zeros, mg.empty, mg.ones):
        t = make(*shape)
        assert t.stride() == _row_major(shape)
        assert t.stride(-1) == _row_major(shape)[-1]


def test_empty_views_keep_their_strides():
    assert mg.zeros(4, 3)[2:2].stride() == (3, 1)
    assert mg.zeros(1, 3).expand(0, 3).stride() == (0, 1)
    assert mg.zeros(2, 0, 3).reshape(0, 6).stride() == (6, 1)
