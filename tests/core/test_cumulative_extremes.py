"""cummax / cummin: values and indices against a NumPy loop (ties pick the latest index, a NaN
stays the extreme once seen), gradients against float64 finite differences, and PyTorch."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck

rng = np.random.default_rng(1)


def reference(a, dim, largest):
    """Walk along dim: keep the running extreme and the last index where it was reached."""
    a = np.moveaxis(np.asarray(a, dtype=np.float64), dim, -1)
    values, indices = np.empty_like(a), np.empty(a.shape, dtype=np.int64)
    for lead in np.ndindex(*a.shape[:-1]):
        best, at = None, 0
        for i, v in enumerate(a[lead]):
            if best is None or np.isnan(v):
                best, at = v, i
            elif not np.isnan(best) and (v >= best if largest else v <= best):
                best, at = v, i
            values[lead + (i,)], indices[lead + (i,)] = best, at
    return np.moveaxis(values, -1, dim), np.moveaxis(indices, -1, dim)


CASES = [
    np.array([1.0, 3.0, 3.0, 2.0, 3.0]),
    np.array([1.0, np.nan, 2.0, np.nan, 3.0]),
    rng.integers(0, 3, (3, 6)).astype(np.float64),  # many ties
    rng.standard_normal((2, 3, 4)),
]


@pytest.mark.parametrize("largest", [True, False], ids=["cummax", "cummin"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_values_and_indices_match_the_definition(case, largest):
    a = CASES[case]
    for dim in range(-a.ndim, a.ndim):
        x = mg.tensor(a)
        values, indices = x.cummax(dim) if largest else x.cummin(dim)
        ref_v, ref_i = reference(a, dim, largest)
        np.testing.assert_array_equal(values.numpy(), ref_v)
        np.testing.assert_array_equal(indices.numpy(), ref_i)
        assert indices.dtype == mg.int64


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_gradient_goes_to_the_indexed_elements(name):
    x = mg.tensor(rng.standard_normal((3, 5)), requires_grad=True)
    assert gradcheck(lambda t: getattr(t, name)(1).values, (x,))
    assert gradcheck(lambda t: getattr(mg, name)(t, 0)[0], (x,))
    ties = mg.tensor([2.0, 1.0, 2.0, 0.0], dtype=mg.float64, requires_grad=True)
    getattr(ties, name)(0)[0].sum().backward()
    # cummax: values 2 2 2 2 from indices 0 0 2 2; cummin: values 2 1 1 0 from indices 0 1 1 3
    expected = [2.0, 0.0, 2.0, 0.0] if name == "cummax" else [1.0, 2.0, 0.0, 1.0]
    np.testing.assert_array_equal(ties.grad.numpy(), expected)


def test_zero_dim_and_integer_tensors():
    v, i = mg.tensor(5.0).cummax(0)
    assert v.item() == 5.0 and i.item() == 0 and v.ndim == 0
    v, i = mg.tensor([1, 3, 2]).cummin(-1)
    assert v.tolist() == [1, 1, 1] and i.tolist() == [0, 0, 0] and v.dtype == mg.int64
    with pytest.raises(IndexError, match="dim 2 is out of range"):
        mg.tensor([1.0]).cummax(2)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_matches_torch(case, name):
    torch = pytest.importorskip("torch")
    a = CASES[case]
    x, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    for dim in range(a.ndim):
        v, i = getattr(x, name)(dim)
        tv, ti = getattr(t, name)(dim)
        np.testing.assert_array_equal(v.detach().numpy(), tv.detach().numpy())
        np.testing.assert_array_equal(i.numpy(), ti.numpy())
        weights = rng.standard_normal(a.shape)
        x.grad = None
        t.grad = None
        (v * mg.tensor(weights)).sum().backward()
        (tv * torch.tensor(weights)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_on_each_device_matches_the_cpu(device, name):
    a = CASES[2]  # ties
    x = mg.tensor(a, device=device, requires_grad=True)
    values, indices = getattr(x, name)(1)
    values.sum().backward()
    ref_v, ref_i = reference(a, 1, name == "cummax")
    np.testing.assert_array_equal(values.cpu().detach().numpy(), ref_v)
    np.testing.assert_array_equal(indices.cpu().numpy(), ref_i)
    counts = np.zeros_like(a)
    np.put_along_axis(counts, ref_i, 0, axis=1)  # every index that receives a gradient
    assert set(np.flatnonzero(x.grad.cpu().numpy())) <= set(np.flatnonzero(counts == 0))
    assert x.grad.cpu().numpy().sum() == a.size


def test_cummax_cummin_logcumsumexp_write_into_out():
    x = mg.tensor([1.0, 3.0, 2.0, 5.0, 0.5], dtype=mg.float64)
    values, indices = mg.empty(5, dtype=mg.float64), mg.empty(5, dtype=mg.int64)
    got = mg.cummax(x, 0, out=(values, indices))
    assert got[0] is values and got[1] is indices
    np.testing.assert_array_equal(values.numpy(), np.maximum.accumulate(x.numpy()))
    np.testing.assert_array_equal(indices.numpy(), [0, 1, 1, 3, 3])
    mg.cummin(x, 0, out=(values, indices))
    np.testing.assert_array_equal(values.numpy(), np.minimum.accumulate(x.numpy()))
    np.testing.assert_array_equal(indices.numpy(), [0, 0, 0, 0, 4])
    out = mg.empty(5, dtype=mg.float64)
    assert mg.logcumsumexp(x, 0, out=out) is out
    np.testing.assert_allclose(out.numpy(), np.logaddexp.accumulate(x.numpy()), rtol=1e-12)


@pytest.mark.parametrize("dtype", [mg.float16, mg.float32, mg.float64, mg.bfloat16])
def test_a_tie_of_signed_zeros_takes_the_later_zeros_sign(dtype):
    # 0 >= -0 is a tie: the index moves to the later zero, and the value is that element
    # (values == x.gather(dim, indices), as everywhere else)
    values, indices = mg.tensor([-1.0, -0.0, 0.0], dtype=dtype).cummax(0)
    assert indices.tolist() == [0, 1, 2]
    assert np.signbit(values.float().numpy()).tolist() == [True, True, False]
    values, indices = mg.tensor([1.0, 0.0, -0.0], dtype=dtype).cummin(0)
    assert indices.tolist() == [0, 1, 2]
    assert np.signbit(values.float().numpy()).tolist() == [False, False, True]
