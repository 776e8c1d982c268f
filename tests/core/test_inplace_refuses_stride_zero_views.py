"""An in-place write into a tensor whose dim of size > 1 has stride 0 (an ``as_strided`` view
that repeats an element) is refused with PyTorch's RuntimeError: one write would change several
of its elements. A stride-0 dim of size 1 (``x[None]``) shares nothing and stays writable."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    "write",
    [lambda v: v.add_(1.0), lambda v: v.__setitem__((0, 0), 3.0), lambda v: v.fill_(0.0)],
)
def test_write_into_stride_zero_view_is_refused(write) -> None:
    x = mg.arange(4.0)
    v = x.as_strided((2, 2), (0, 1))
    with pytest.raises(RuntimeError, match="single memory location"):
        write(v)
    np.testing.assert_array_equal(x.numpy(), np.arange(4.0))


def test_write_into_size_one_stride_zero_dim_is_allowed() -> None:
    x = mg.arange(4.0)
    x[None].add_(1.0)
    x.as_strided((1, 4), (0, 1)).mul_(2.0)
    np.testing.assert_array_equal(x.numpy(), (np.arange(4.0) + 1) * 2)


def test_write_into_empty_tensor_with_zero_strides_is_allowed() -> None:
    x = mg.zeros(2, 0, 3)[None, None]
    x[...] = 1.0
    x.add_(1.0)
    assert tuple(x.shape) == (1, 1, 2, 0, 3)
