"""group_norm refuses an input whose groups hold one value over the whole batch (N * C/G *
spatial == 1), as PyTorch does: the normalised output would be 0 whatever the input."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


@pytest.mark.parametrize(("shape", "groups"), [((1, 1), 1), ((1, 3), 3), ((1, 6, 1), 6)])
def test_group_norm_of_one_value_per_group_raises(shape: tuple, groups: int) -> None:
    with pytest.raises(ValueError, match="more than 1 value"):
        F.group_norm(mg.randn(*shape), groups)
    with pytest.raises(ValueError, match="more than 1 value"):
        mg.nn.GroupNorm(groups, shape[1])(mg.randn(*shape))


@pytest.mark.parametrize(("shape", "groups"), [((2, 3, 1), 3), ((1, 3, 2), 3), ((1, 6, 1), 3)])
def test_group_norm_of_several_values_normalises_each_group(shape: tuple, groups: int) -> None:
    x = np.random.default_rng(0).standard_normal(shape)
    y = F.group_norm(mg.tensor(x), groups, eps=1e-5).numpy()
    g = x.reshape(shape[0], groups, -1)
    ref = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(y, ref.reshape(shape), rtol=1e-10, atol=1e-12)
