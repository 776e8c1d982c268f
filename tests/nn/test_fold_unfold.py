"""F.unfold / F.fold and nn.Unfold / nn.Fold: the blocks of a small image written out by hand,
fold as unfold's adjoint (<unfold x, y> = <x, fold y>), non-overlapping blocks folding back to the
image, and PyTorch's shape checks."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F


def test_unfold_lists_each_block_as_a_column() -> None:
    x = np.arange(9.0).reshape(1, 1, 3, 3)
    cols = F.unfold(mg.tensor(x), 2).numpy()[0]
    # blocks in row-major order, each read row-major: [[0,1],[3,4]], [[1,2],[4,5]], ...
    expected = np.array([[0, 1, 3, 4], [1, 2, 4, 5], [3, 4, 6, 7], [4, 5, 7, 8]], float).T
    np.testing.assert_array_equal(cols, expected)


@pytest.mark.parametrize(
    "geometry",
    [dict(kernel_size=2), dict(kernel_size=(2, 3), dilation=(1, 2), padding=(1, 0), stride=(2, 1))],
)
def test_fold_is_the_adjoint_of_unfold(geometry: dict) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 5, 6))
    cols = F.unfold(mg.tensor(x), **geometry).numpy()
    y = rng.standard_normal(cols.shape)
    back = F.fold(mg.tensor(y), (5, 6), **geometry).numpy()
    np.testing.assert_allclose((cols * y).sum(), (x * back).sum(), rtol=1e-12)


def test_non_overlapping_blocks_fold_back_to_the_image() -> None:
    x = np.random.default_rng(1).standard_normal((3, 4, 6))  # unbatched
    cols = mg.nn.Unfold(2, stride=2)(mg.tensor(x))
    assert tuple(cols.shape) == (12, 6)
    np.testing.assert_array_equal(mg.nn.Fold((4, 6), 2, stride=2)(cols).numpy(), x)


def test_fold_and_unfold_refuse_inconsistent_shapes() -> None:
    with pytest.raises(RuntimeError, match="sliding blocks"):
        F.fold(mg.zeros(1, 12, 8), (4, 4), 2)  # 3 x 3 = 9 blocks, not 8
    with pytest.raises(RuntimeError, match="divisible"):
        F.fold(mg.zeros(1, 10, 9), (4, 4), 2)
    with pytest.raises(RuntimeError, match="3-d"):
        F.unfold(mg.zeros(4, 4), 2)
