"""The making functions' ``out=`` and keyword forms, as PyTorch takes them: zeros, ones, full,
empty, eye, rand, randn, randint and randperm make the tensor in ``out``'s dtype and write it into
``out`` (resized to the result's shape); normal, bernoulli, multinomial and tensordot copy their
result into ``out``. ``arange(end=n)`` and ``randint(high=n, size=s)`` start at 0. randperm
refuses a dtype its values 0 .. n-1 would wrap around in. Oracles: NumPy's eye / full, the
properties every draw has (its range, a permutation's sorted values)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", ["int32", "float64", "float16", "uint8"])
def test_filled_makers_write_into_out_in_outs_dtype(dtype):
    dt = getattr(mg, dtype)
    cases = [
        (lambda out: mg.zeros(2, 3, out=out), np.zeros((2, 3))),
        (lambda out: mg.ones((2, 3), out=out), np.ones((2, 3))),
        (lambda out: mg.full((2, 3), 7, out=out), np.full((2, 3), 7)),
        (lambda out: mg.eye(3, 2, out=out), np.eye(3, 2)),
    ]
    for make, expected in cases:
        out = mg.empty(0, dtype=dt)  # resized (silently, from 0 elements)
        result = make(out)
        assert result is out and out.dtype is dt and out.shape == expected.shape
        np.testing.assert_array_equal(out.numpy(), expected.astype(dt.numpy_dtype))
    out = mg.empty(5, dtype=dt)
    with pytest.warns(UserWarning, match="resized"):  # PyTorch's warning for a non-empty out
        assert mg.empty(2, 2, out=out) is out and out.shape == (2, 2)


def test_a_dtype_other_than_outs_is_refused():
    with pytest.raises(RuntimeError, match="does not match dtype of out"):
        mg.zeros(2, dtype=mg.float32, out=mg.empty(2, dtype=mg.int64))


def test_random_makers_write_into_out():
    out = mg.empty(4, 5, dtype=mg.float64)
    assert mg.rand(4, 5, out=out) is out and out.dtype is mg.float64
    assert ((out.numpy() >= 0) & (out.numpy() < 1)).all()
    assert mg.randn(4, 5, out=out) is out and out.shape == (4, 5)
    ints = mg.empty(50, dtype=mg.int32)
    assert mg.randint(2, 6, (50,), out=ints) is ints and ints.dtype is mg.int32
    assert set(ints.tolist()) <= {2, 3, 4, 5}
    perm = mg.empty(7, dtype=mg.int64)
    assert mg.randperm(7, out=perm) is perm
    assert sorted(perm.tolist()) == list(range(7))
    drawn = mg.empty(3)
    assert mg.normal(mg.tensor([0.0, 10.0, 20.0]), 0.0, out=drawn) is drawn
    np.testing.assert_array_equal(drawn.numpy(), [0.0, 10.0, 20.0])
    flips = mg.empty(4)
    assert mg.bernoulli(mg.tensor([0.0, 1.0, 1.0, 0.0]), out=flips) is flips
    np.testing.assert_array_equal(flips.numpy(), [0.0, 1.0, 1.0, 0.0])
    picks = mg.empty(1, dtype=mg.int64)
    assert mg.multinomial(mg.tensor([0.0, 1.0, 0.0]), 1, out=picks) is picks
    assert picks.tolist() == [1]


def test_tensordot_takes_out_and_dims_as_a_tensor():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    expected = np.tensordot(a, b, 1)
    for dims in (mg.tensor(1), mg.tensor([[1], [0]])):
        ours = mg.tensordot(mg.tensor(a), mg.tensor(b), dims=dims)
        np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-12)
    out = mg.empty(2, 4, dtype=mg.float64)
    assert mg.tensordot(mg.tensor(a), mg.tensor(b), dims=1, out=out) is out
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)


def test_arange_and_randint_keyword_forms_start_at_zero():
    np.testing.assert_array_equal(mg.arange(end=4).numpy(), np.arange(4))
    np.testing.assert_array_equal(mg.arange(start=1, end=4).numpy(), np.arange(1, 4))
    draws = mg.randint(high=3, size=(40,))
    assert draws.shape == (40,) and set(draws.tolist()) <= {0, 1, 2}
    with pytest.raises(TypeError):
        mg.arange()
    with pytest.raises(TypeError):
        mg.randint(size=(3,))


def test_randperm_refuses_a_dtype_its_values_would_wrap_in():
    assert sorted(mg.randperm(256, dtype=mg.uint8).tolist()) == list(range(256))
    with pytest.raises(RuntimeError):
        mg.randperm(257, dtype=mg.uint8)
    with pytest.raises(RuntimeError):
        mg.randperm(129, dtype=mg.int8)
    with pytest.raises(NotImplementedError):
        mg.randperm(3, dtype=mg.bool)


def test_randint_refuses_a_bool_range_beyond_zero_and_one():
    draws = mg.randint(0, 2, (50,), dtype=mg.bool)
    assert draws.dtype is mg.bool and set(draws.tolist()) <= {False, True}
    with pytest.raises(RuntimeError):
        mg.randint(0, 5, (3,), dtype=mg.bool)  # 2, 3, 4 would all read as True
    with pytest.raises(RuntimeError):
        mg.randint_like(mg.zeros(2, dtype=mg.bool), 5)
