"""cat and stack refuse bad lists with PyTorch's exception types, so ``except RuntimeError``
written for PyTorch catches them: a shape mismatch, a 0-d tensor in cat, an empty stack are
RuntimeErrors; an empty cat is a ValueError (as PyTorch's); good lists join as NumPy does."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    "call",
    [
        lambda: mg.cat([mg.ones(2, 2), mg.ones(3, 3)]),
        lambda: mg.cat([mg.ones(2, 2), mg.ones(3)]),
        lambda: mg.cat([mg.tensor(1.0), mg.tensor(2.0)]),
        lambda: mg.stack([mg.ones(2), mg.ones(3)]),
        lambda: mg.stack([]),
    ],
    ids=["cat_sizes", "cat_ndims", "cat_0d", "stack_sizes", "stack_empty"],
)
def test_bad_lists_raise_runtime_error(call) -> None:
    with pytest.raises(RuntimeError):
        call()


def test_an_empty_cat_is_a_value_error_and_good_lists_join() -> None:
    with pytest.raises(ValueError):
        mg.cat([])
    a, b = np.arange(6.0).reshape(2, 3), np.arange(3.0).reshape(1, 3)
    np.testing.assert_array_equal(
        mg.cat([mg.tensor(a), mg.tensor(b)]).numpy(), np.concatenate([a, b])
    )
    np.testing.assert_array_equal(
        mg.stack([mg.tensor(a), mg.tensor(a)], 1).numpy(), np.stack([a, a], 1)
    )
