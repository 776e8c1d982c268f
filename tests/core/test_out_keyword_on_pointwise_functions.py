"""``out=`` on the functions PyTorch gives it (one shared mechanism, ``_with_out`` in
functions/_common.py): the result is written into ``out``, which is returned; keyword arguments
(round's decimals, nan_to_num's limits, cumprod's dim) still reach the function."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

X = np.array([[0.25, -0.75, 0.5], [0.9, -0.1, 0.0]])
INTS = np.array([[3, 5, 0], [1, 6, 7]])
CASES = {
    "asin": ((X,), {}, np.arcsin(X)),
    "acos": ((X,), {}, np.arccos(X)),
    "atan": ((X,), {}, np.arctan(X)),
    "floor": ((X,), {}, np.floor(X)),
    "ceil": ((X,), {}, np.ceil(X)),
    "trunc": ((X,), {}, np.trunc(X)),
    "frac": ((X,), {}, X - np.trunc(X)),
    "round": ((X,), {"decimals": 1}, np.round(X, 1)),
    "signbit": ((X,), {}, np.signbit(X)),
    "nan_to_num": ((X,), {"nan": 1.0}, X),
    "clamp_min": ((X,), {"min": 0.1}, np.maximum(X, 0.1)),
    "clamp_max": ((X,), {"max": 0.1}, np.minimum(X, 0.1)),
    "cumprod": ((X,), {"dim": 1}, np.cumprod(X, axis=1)),
    "lerp": ((X, X[::-1]), {"weight": 0.25}, X + 0.25 * (X[::-1] - X)),
    "logical_and": ((X, X[::-1]), {}, np.logical_and(X, X[::-1])),
    "logical_or": ((X, X[::-1]), {}, np.logical_or(X, X[::-1])),
    "logical_xor": ((X, X[::-1]), {}, np.logical_xor(X, X[::-1])),
    "logical_not": ((X,), {}, np.logical_not(X)),
    "bitwise_and": ((INTS, INTS[::-1]), {}, INTS & INTS[::-1]),
    "bitwise_or": ((INTS, INTS[::-1]), {}, INTS | INTS[::-1]),
    "bitwise_xor": ((INTS, INTS[::-1]), {}, INTS ^ INTS[::-1]),
    "bitwise_not": ((INTS,), {}, ~INTS),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_receives_the_result_and_is_returned(name):
    args, kwargs, want = CASES[name]
    tensors = [mg.tensor(a) for a in args]
    out = mg.empty(*want.shape, dtype=mg.bool if want.dtype == bool else tensors[0].dtype)
    got = getattr(mg, name)(*tensors, **kwargs, out=out)
    assert got is out
    np.testing.assert_allclose(out.numpy().astype(np.float64), want.astype(np.float64), rtol=1e-6)


@pytest.mark.parametrize("name", ["erfinv", "lgamma", "digamma"])
def test_out_of_the_special_functions_equals_the_function(name):
    x = mg.tensor([[0.25, 0.5], [0.75, 0.9]])
    out = mg.empty(2, 2)
    assert getattr(mg, name)(x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), getattr(mg, name)(x).numpy())


def test_out_refuses_inputs_requiring_grad():
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        mg.floor(mg.ones(2, requires_grad=True), out=mg.empty(2))


def test_outer_addmm_baddbmm_write_into_out():
    a, b = mg.tensor([1.0, 2.0]), mg.tensor([3.0, -1.0, 0.5])
    m1, m2, c = mg.ones(2, 3), mg.ones(3, 2), mg.ones(2, 2)
    for fn, args in (
        (mg.outer, (a, b)),
        (mg.addmm, (c, m1, m2)),
        (mg.baddbmm, (c, m1.unsqueeze(0), m2.unsqueeze(0))),
    ):
        out = mg.empty(0)
        assert fn(*args, out=out) is out
        np.testing.assert_array_equal(out.numpy(), fn(*args).numpy())


def test_special_xlogy_and_xlog1py_write_into_out():
    x = mg.tensor([0.0, 2.0, 3.0])
    y = mg.tensor([0.0, 4.0, 0.5])
    for fn, ref in ((mg.special.xlogy, np.log), (mg.special.xlog1py, np.log1p)):
        out = mg.empty(3, dtype=mg.float64)
        assert fn(x, y, out=out) is out
        with np.errstate(divide="ignore", invalid="ignore"):  # (x = 0 picks 0 there)
            want = np.where(x.numpy() == 0, 0.0, x.numpy() * ref(y.numpy().astype(np.float64)))
        np.testing.assert_allclose(out.numpy(), want, rtol=1e-6)
