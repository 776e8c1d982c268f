"""weight_norm's ``dim`` must name a dim of the weight: one outside [-ndim, ndim - 1] (other than
-1, which means the whole tensor) is an IndexError, as in PyTorch, instead of being wrapped
around (``dim % ndim``) into a norm over the wrong dims."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.nn.utils import parametrizations


@pytest.mark.parametrize("dim", [2, 3, -3])
def test_hook_weight_norm_refuses_a_dim_the_weight_does_not_have(dim):
    with pytest.raises(IndexError, match="Dimension out of range"):
        with pytest.warns(FutureWarning):
            mg.nn.utils.weight_norm(mg.nn.Linear(4, 3), dim=dim)


@pytest.mark.parametrize("dim", [2, -3])
def test_parametrized_weight_norm_refuses_a_dim_the_weight_does_not_have(dim):
    with pytest.raises(IndexError, match="Dimension out of range"):
        parametrizations.weight_norm(mg.nn.Linear(4, 3), dim=dim)


@pytest.mark.parametrize("dim", [0, 1, -2, -1, None])
def test_weight_norm_in_range_dims_keep_the_weight_and_take_norms_over_the_other_dims(dim):
    lin = mg.nn.Linear(4, 3)
    w = lin.weight.detach().numpy().astype(np.float64)
    m = parametrizations.weight_norm(lin, dim=dim)
    g = m.parametrizations.weight.original0.detach().numpy()
    if dim in (-1, None):
        expect = np.linalg.norm(w)
    else:
        axis = 1 - dim % 2  # the other dim of the 2-d weight
        expect = np.linalg.norm(w, axis=axis, keepdims=True)
    np.testing.assert_allclose(g, expect, rtol=1e-6)
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-5, atol=1e-6)
