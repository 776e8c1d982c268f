"""``out=`` on the ops with several results (sort, topk, kthvalue, frexp take a tuple of tensors,
one per result, and return them as their named tuple) and on the ops whose result has a fixed
dtype (histc, searchsorted, bucketize: ``out`` must have exactly that dtype), as PyTorch's."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg

X = np.array([[0.5, -1.0, 2.0, 0.25], [3.0, 1.5, -0.5, 0.0]])


def _pair(values_dtype=mg.float64, indices_dtype=mg.int64, n: int = 0):
    return mg.empty(n, dtype=values_dtype), mg.empty(n, dtype=indices_dtype)


@pytest.mark.parametrize(
    ("name", "call", "want"),
    [
        ("sort", lambda x, out: mg.sort(x, dim=1, out=out), (np.sort(X, 1), np.argsort(X, 1))),
        (
            "topk",
            lambda x, out: mg.topk(x, 2, out=out),
            (-np.sort(-X, 1)[:, :2], np.argsort(-X, 1)[:, :2]),
        ),
        (
            "kthvalue",
            lambda x, out: mg.kthvalue(x, 2, out=out),
            (np.sort(X, 1)[:, 1], np.argsort(X, 1)[:, 1]),
        ),
    ],
)
def test_values_indices_ops_write_into_an_out_pair_and_return_it(name, call, want):
    values, indices = _pair()
    got = call(mg.tensor(X), (values, indices))
    assert got[0] is values and got[1] is indices and got.values is values
    np.testing.assert_array_equal(values.numpy(), want[0])
    np.testing.assert_array_equal(indices.numpy(), want[1])


def test_frexp_writes_mantissa_and_exponent_into_an_out_pair():
    x = np.array([3.0, -0.1, 5e-310, 0.0])
    m, e = mg.empty(0, dtype=mg.float64), mg.empty(0, dtype=mg.int32)
    got = mg.frexp(mg.tensor(x), out=(m, e))
    assert got.mantissa is m and got.exponent is e
    wm, we = np.frexp(x)
    np.testing.assert_array_equal(m.numpy(), wm)
    np.testing.assert_array_equal(e.numpy(), we)


@pytest.mark.parametrize(
    "call",
    [
        lambda x, out: mg.sort(x, out=out),
        lambda x, out: mg.topk(x, 2, out=out),
        lambda x, out: mg.kthvalue(x, 2, out=out),
    ],
)
def test_an_out_pair_of_other_dtypes_than_the_results_raises(call):
    x = mg.tensor(X)
    for out in (_pair(mg.float32), _pair(indices_dtype=mg.int32)):
        with pytest.raises(RuntimeError):
            call(x, out)
        assert out[0].numel() == 0 and out[1].numel() == 0  # nothing written before the check
    with pytest.raises(TypeError, match="tuple"):
        call(x, mg.empty(0))  # one tensor for two results
    with pytest.raises(TypeError, match="2 elements"):
        call(x, (*_pair(), mg.empty(0)))


def test_frexp_out_pair_needs_the_inputs_dtype_and_int32():
    x = mg.tensor([1.5, 3.0])
    with pytest.raises(RuntimeError, match="mantissa"):
        mg.frexp(x, out=(mg.empty(0, dtype=mg.float64), mg.empty(0, dtype=mg.int32)))
    with pytest.raises(RuntimeError, match="exponent"):
        mg.frexp(x, out=(mg.empty(0), mg.empty(0, dtype=mg.int64)))


def test_an_out_pair_is_resized_with_a_warning_only_when_it_had_elements():
    x = mg.tensor(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.sort(x, out=_pair())  # empty: resized silently
    with pytest.warns(UserWarning, match="was resized"):
        values, indices = mg.topk(x, 2, out=_pair(n=5))
    assert values.shape == (2, 2) and indices.shape == (2, 2)


def test_an_out_pair_refuses_autograd():
    x = mg.tensor(X, requires_grad=True)
    with pytest.raises(RuntimeError, match="automatic differentiation"):
        mg.sort(x, out=_pair())
    with mg.no_grad():
        mg.sort(x, out=_pair())


def test_histc_out_must_have_the_inputs_dtype():
    x = mg.tensor(X.ravel())
    hist = mg.empty(0, dtype=mg.float64)
    assert mg.histc(x, bins=4, min=-1, max=3, out=hist) is hist
    np.testing.assert_array_equal(hist.numpy(), np.histogram(X, 4, (-1, 3))[0])
    with pytest.raises(RuntimeError, match="same dtype"):
        mg.histc(x, bins=4, out=mg.empty(0, dtype=mg.float32))


def test_searchsorted_and_bucketize_out_must_be_int64_or_int32_with_out_int32():
    seq, v = mg.tensor([0.0, 1.0, 2.0, 3.0]), mg.tensor(X)
    want = np.searchsorted([0.0, 1.0, 2.0, 3.0], X)
    out = mg.empty(0, dtype=mg.int64)
    assert mg.searchsorted(seq, v, out=out) is out
    np.testing.assert_array_equal(out.numpy(), want)
    out32 = mg.empty(0, dtype=mg.int32)
    assert mg.bucketize(v, seq, out_int32=True, out=out32) is out32
    np.testing.assert_array_equal(out32.numpy(), want)
    for dtype, flag in ((mg.int32, False), (mg.int64, True), (mg.float32, False)):
        with pytest.raises(RuntimeError, match="dtype is wrong"):
            mg.searchsorted(seq, v, out_int32=flag, out=mg.empty(0, dtype=dtype))


@pytest.mark.parametrize(
    ("name", "x", "want"),
    [
        ("asinh", [0.25, -0.5, 3.0], np.arcsinh),
        ("arcsinh", [0.25, -0.5, 3.0], np.arcsinh),
        ("acosh", [1.25, 1.5, 3.0], np.arccosh),
        ("atanh", [0.25, -0.5, 0.75], np.arctanh),
        ("nextafter", [0.25, -0.5, 0.75], lambda x: np.nextafter(x, 2.0)),
    ],
)
def test_inverse_hyperbolics_and_nextafter_take_out(name, x, want):
    x = np.array(x)
    args = (
        (mg.tensor(x), mg.tensor(2.0, dtype=mg.float64)) if name == "nextafter" else (mg.tensor(x),)
    )
    out = mg.empty(0, dtype=mg.float64)
    assert getattr(mg, name)(*args, out=out) is out
    np.testing.assert_allclose(out.numpy(), want(x), rtol=1e-15)


def test_argmax_argmin_all_any_take_out_with_pytorchs_dtype_rules():
    x = mg.tensor([[3.0, 7.0, 1.0], [9.0, 0.0, 2.0]])
    out = mg.empty(2, dtype=mg.int64)
    assert mg.argmax(x, 1, out=out) is out and out.tolist() == np.argmax(x.numpy(), 1).tolist()
    mg.argmin(x, 1, out=out)
    assert out.tolist() == np.argmin(x.numpy(), 1).tolist()
    with pytest.raises(RuntimeError, match="dtype long int"):
        mg.argmax(x, 1, out=mg.empty(2, dtype=mg.int32))
    flags = mg.empty(2, dtype=mg.bool)
    assert mg.all(x, 1, out=flags) is flags and flags.tolist() == [True, False]
    mg.any(x == 0, 1, out=flags)
    assert flags.tolist() == [False, True]
    mg.all(mg.tensor([[1, 2], [0, 3]], dtype=mg.uint8), 1, out=flags)  # uint8 into bool
    assert flags.tolist() == [True, False]
    with pytest.raises(RuntimeError, match="only supports bool tensor"):
        mg.any(x, 1, out=mg.empty(2, dtype=mg.int64))
