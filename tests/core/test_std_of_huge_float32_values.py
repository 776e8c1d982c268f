"""std of float32 / bfloat16 values beyond ~1e19: their variance overflows float32 (it is inf in
PyTorch too) but the std (~1e30 here) fits; it used to come out inf (sqrt of the overflowed
float32 variance). Oracle: NumPy's float64 std, rounded to the dtype."""

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", [mg.float32, mg.bfloat16])
def test_std_of_huge_values_is_finite_where_the_variance_overflows(dtype):
    x64 = np.random.default_rng(0).uniform(-2, 2, (3, 100)) * 1e30
    x = mg.tensor(x64).to(dtype).requires_grad_()
    xr = x.detach().double().numpy()
    truth = np.std(xr, axis=1, ddof=1)
    s = x.std(1)
    assert s.dtype == dtype
    np.testing.assert_allclose(s.detach().double().numpy(), truth, rtol=1e-2)
    np.testing.assert_allclose(mg.std_mean(x, 1)[0].detach().double().numpy(), truth, rtol=1e-2)
    np.testing.assert_allclose(x.std().item(), np.std(xr, ddof=1), rtol=1e-2)
    assert np.isinf(x.detach().float().var(1).numpy()).all()  # the float32 variance overflows
    s.sum().backward()  # ds/dx = (x - mean) / ((N - 1) s)
    centered = xr - xr.mean(axis=1, keepdims=True)
    want = centered / (99 * truth[:, None])
    np.testing.assert_allclose(x.grad.double().numpy(), want, rtol=2e-2, atol=1e-4)


def test_std_with_an_inf_input_is_still_nan():
    x = mg.tensor([1.0, float("inf"), 3.0])
    assert np.isnan(x.std().item())
