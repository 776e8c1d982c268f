"""Empty inputs of local_response_norm, bilinear and fractional max pooling: an empty result of
the right shape (and an empty gradient), or PyTorch's error where it refuses one."""

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


@pytest.mark.parametrize("shape", [(2, 0, 3), (2, 3, 0), (2, 0, 3, 4), (1, 3, 0, 2, 2), (0, 3, 4)])
def test_local_response_norm_of_an_empty_input_is_empty(shape):
    x = mg.zeros(*shape, requires_grad=True)
    y = F.local_response_norm(x, 2)
    assert tuple(y.shape) == shape
    y.sum().backward()
    assert tuple(x.grad.shape) == shape


def test_bilinear_with_no_outputs_or_no_features():
    rng = np.random.default_rng(0)
    x1, x2 = mg.tensor(rng.standard_normal((2, 3))), mg.tensor(rng.standard_normal((2, 4)))
    assert tuple(F.bilinear(x1, x2, mg.zeros(0, 3, 4, dtype=mg.float64)).shape) == (2, 0)
    # no first-input features: each output is the empty sum, 0, plus the bias
    bias = mg.tensor([1.0, -2.0, 0.5], dtype=mg.float64)
    y = F.bilinear(mg.zeros(2, 0, dtype=mg.float64), x2, mg.zeros(3, 0, 4, dtype=mg.float64), bias)
    np.testing.assert_array_equal(y.numpy(), np.tile([1.0, -2.0, 0.5], (2, 1)))
    y0 = F.bilinear(mg.zeros(2, 0, 3), mg.zeros(2, 0, 4), mg.zeros(5, 3, 4))
    assert tuple(y0.shape) == (2, 0, 5)


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_of_an_empty_batch_is_empty(nd):
    pool = F.fractional_max_pool2d if nd == 2 else F.fractional_max_pool3d
    x = mg.zeros(0, 2, *(4,) * nd, requires_grad=True)
    y, idx = pool(x, 2, output_size=2, return_indices=True)
    assert tuple(y.shape) == tuple(idx.shape) == (0, 2, *(2,) * nd)
    y.sum().backward()
    assert tuple(x.grad.shape) == tuple(x.shape)
    with pytest.raises(RuntimeError, match="non-zero size"):  # empty channels: PyTorch refuses
        pool(mg.zeros(2, 0, *(4,) * nd), 2, output_size=2)
