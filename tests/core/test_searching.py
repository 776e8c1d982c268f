"""searchsorted, bucketize and isin: index and mask results against NumPy, the side/right rules,
N-D sorted rows, sorter=, out_int32=, and errors naming the argument."""

import numpy as np
import pytest

import minigenesis as mg

RNG = np.random.default_rng(21)
SEQ = np.array([-2.0, -1.0, 0.0, 0.0, 0.5, 3.0])
V = np.array([[-3.0, -1.0, 0.0], [0.2, 3.0, 9.0]])


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_1d_matches_numpy(side):
    got = mg.searchsorted(mg.tensor(SEQ), mg.tensor(V), side=side)
    np.testing.assert_array_equal(got.numpy(), np.searchsorted(SEQ, V, side=side))
    assert got.dtype is mg.int64
    right = mg.searchsorted(mg.tensor(SEQ), mg.tensor(V), right=side == "right")
    np.testing.assert_array_equal(right.numpy(), got.numpy())


def test_searchsorted_with_rows_scalars_sorter_and_int32():
    rows = np.sort(RNG.normal(size=(3, 7)), axis=1)
    v = RNG.normal(size=(3, 4))
    got = mg.searchsorted(mg.tensor(rows), mg.tensor(v), out_int32=True)
    assert got.dtype is mg.int32
    np.testing.assert_array_equal(got.numpy(), [np.searchsorted(r, q) for r, q in zip(rows, v)])
    assert mg.searchsorted(mg.tensor(SEQ), 0.25).ndim == 0
    unsorted = RNG.permutation(SEQ)
    order = np.argsort(unsorted, kind="stable")
    got = mg.searchsorted(mg.tensor(unsorted), mg.tensor(V), sorter=mg.tensor(order))
    np.testing.assert_array_equal(got.numpy(), np.searchsorted(SEQ, V))


def test_bucketize_is_searchsorted_with_the_arguments_swapped():
    x = RNG.normal(size=(4, 5)) * 2
    np.testing.assert_array_equal(
        mg.bucketize(mg.tensor(x), mg.tensor(SEQ)).numpy(), np.digitize(x, SEQ, right=True)
    )
    np.testing.assert_array_equal(
        mg.bucketize(mg.tensor(x), mg.tensor(SEQ), right=True).numpy(),
        np.digitize(x, SEQ, right=False),
    )


def test_isin_and_its_inverse():
    e = RNG.integers(0, 10, size=(3, 5))
    t = np.array([1, 4, 4, 9])
    np.testing.assert_array_equal(mg.isin(mg.tensor(e), mg.tensor(t)).numpy(), np.isin(e, t))
    np.testing.assert_array_equal(
        mg.isin(mg.tensor(e), mg.tensor(t), invert=True).numpy(), ~np.isin(e, t)
    )
    np.testing.assert_array_equal(mg.isin(mg.tensor(e), 4).numpy(), e == 4)
    assert mg.isin(3, mg.tensor(t)).item() is False


@pytest.mark.parametrize(
    "call, error, words",
    [
        (
            lambda: mg.searchsorted(mg.tensor(SEQ), mg.tensor(V), right=True, side="left"),
            RuntimeError,
            "opposites",
        ),
        (
            lambda: mg.searchsorted(mg.tensor(SEQ), mg.tensor(V), side="middle"),
            RuntimeError,
            "side",
        ),
        (
            lambda: mg.searchsorted(mg.tensor(np.zeros((2, 3))), mg.tensor(np.zeros((3, 1)))),
            RuntimeError,
            "first N-1",
        ),
        (
            lambda: mg.bucketize(mg.tensor(V), mg.tensor(np.zeros((2, 2)))),
            RuntimeError,
            "boundaries",
        ),
        (lambda: mg.isin(1, 2), TypeError, "Tensor"),
        (lambda: mg.isin(mg.tensor([True]), mg.tensor([1])), RuntimeError, "Bool"),
        (lambda: mg.isin(mg.tensor([1.0]), True), RuntimeError, "Bool"),
        (lambda: mg.tensor([True, False]).bincount(), NotImplementedError, "Bool"),
    ],
)
def test_bad_arguments_are_named(call, error, words):
    with pytest.raises(error, match=words):
        call()
