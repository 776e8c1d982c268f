"""Arguments PyTorch refuses: isclose compares two tensors of one dtype (RuntimeError otherwise),
and max / min / argmax / argmin reduce along one dim (a tuple or list is a TypeError; amax and
amin take several)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(("a", "b"), [(mg.float32, mg.float64), (mg.int64, mg.float32)])
def test_isclose_of_two_dtypes_raises(a, b):
    with pytest.raises(RuntimeError, match="did not match"):
        mg.isclose(mg.ones(2, dtype=a), mg.ones(2, dtype=b))


def test_isclose_of_one_dtype_still_compares():
    got = mg.isclose(mg.tensor([1.0, 2.0]), mg.tensor([1.0 + 1e-7, 2.1]))
    np.testing.assert_array_equal(got.numpy(), [True, False])


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("dim", [(0, 2), [0], (1,)])
def test_one_dim_reductions_refuse_a_tuple_of_dims(name, dim):
    x = mg.ones(2, 3, 2)
    with pytest.raises(TypeError, match="must be int"):
        getattr(x, name)(dim=dim)
    with pytest.raises(TypeError, match="must be int"):
        getattr(mg, name)(x, dim)


def test_amax_still_takes_a_tuple_of_dims():
    x = np.arange(12.0).reshape(2, 3, 2)
    np.testing.assert_array_equal(mg.tensor(x).amax(dim=(0, 2)).numpy(), x.max(axis=(0, 2)))
