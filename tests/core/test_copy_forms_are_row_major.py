"""The copy forms of the views (``mg.t_copy``, ``mg.permute_copy``, ``mg.slice_copy``,
``x.narrow_copy`` ...) return new row-major tensors, as PyTorch's, whatever the strides of the
view they copy: contiguous, strides of a fresh tensor of that shape, and not sharing memory."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

A = np.arange(12.0).reshape(3, 4)


def _row_major_strides(shape: tuple) -> tuple:
    return tuple(int(np.prod(shape[k + 1 :])) for k in range(len(shape)))


@pytest.mark.parametrize(
    ("name", "call", "expected"),
    [
        ("t_copy", lambda x: mg.t_copy(x), A.T),
        ("permute_copy", lambda x: mg.permute_copy(x, (1, 0)), A.T),
        ("transpose_copy", lambda x: mg.transpose_copy(x, 0, 1), A.T),
        ("slice_copy", lambda x: mg.slice_copy(x.t(), 0, 1, 3), A.T[1:3]),
        ("alias_copy", lambda x: mg.alias_copy(x.t()), A.T),
        ("narrow_copy", lambda x: x.t().narrow_copy(0, 1, 2), A.T[1:3]),
        ("unbind_copy", lambda x: mg.unbind_copy(x.t().unsqueeze(0))[0], A.T),
    ],
)
def test_copy_form_is_a_new_row_major_tensor(name, call, expected) -> None:
    x = mg.tensor(A)
    out = call(x)
    np.testing.assert_array_equal(out.numpy(), expected)
    assert out.is_contiguous(), name
    assert out.stride() == _row_major_strides(expected.shape), name
    out.fill_(-1.0)
    np.testing.assert_array_equal(x.numpy(), A)
