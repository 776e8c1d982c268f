"""PyTorch's RuntimeError for two bad inputs that reached NumPy's errors: hstack / vstack /
row_stack / dstack / column_stack of no tensors at all (was IndexError or ValueError), and a
masked_select mask that does not broadcast with self (was ValueError); the message names the
function, or the sizes and the dim."""

from __future__ import annotations

import pytest

import minigenesis as mg


@pytest.mark.parametrize("name", ["hstack", "vstack", "row_stack", "dstack", "column_stack"])
def test_stacking_no_tensors_raises_runtime_error(name) -> None:
    with pytest.raises(RuntimeError, match="non-empty TensorList"):
        getattr(mg, name)([])


def test_masked_select_mask_that_does_not_broadcast_raises_runtime_error() -> None:
    x = mg.zeros(2, 3, 4)
    mask = mg.ones(3, 4, 4, dtype=mg.bool)
    with pytest.raises(RuntimeError, match=r"tensor a \(4\).*tensor b \(3\).*dimension 1"):
        x.masked_select(mask)
