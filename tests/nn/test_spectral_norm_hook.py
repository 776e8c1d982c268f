"""The hook-based ``nn.utils.spectral_norm``: ``weight_orig`` learned, ``weight_u``/``weight_v``
buffers, ``weight = weight_orig / (u . W v)`` set before every call after ``n_power_iterations``
iterations v <- W^T u/|.|, u <- W v/|.| in training (none in eval). Oracle: NumPy's float64
iteration and SVD; PyTorch for the names and one step from the same buffers."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.nn.utils import remove_spectral_norm, spectral_norm

torch = pytest.importorskip("torch")


def _unit(a):
    return a / max(np.linalg.norm(a), 1e-12)


def _numpy_step(w_mat, u, v, n):
    for _ in range(n):
        v = _unit(w_mat.T @ u)
        u = _unit(w_mat @ v)
    return u, v, float(u @ w_mat @ v)


def test_spectral_norm_hook_names_tensors_as_pytorch():
    m = spectral_norm(mg.nn.Linear(5, 4))
    t = torch.nn.utils.spectral_norm(torch.nn.Linear(5, 4))
    assert list(m.state_dict()) == list(t.state_dict())
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert m.weight_u.shape == (4,) and m.weight_v.shape == (5,)
    assert "weight" not in dict(m.named_parameters())


@pytest.mark.parametrize("n", [1, 3])
def test_training_call_iterates_then_divides_by_the_estimate(n):
    mg.manual_seed(0)
    m = spectral_norm(mg.nn.Conv2d(2, 3, 2).double(), n_power_iterations=n)
    w = m.weight_orig.detach().numpy().copy()
    u0, v0 = m.weight_u.numpy().copy(), m.weight_v.numpy().copy()
    x = mg.tensor(np.random.default_rng(0).standard_normal((1, 2, 3, 3)))
    m(x)
    u, v, sigma = _numpy_step(w.reshape(3, -1), u0, v0, n)
    np.testing.assert_allclose(m.weight_u.numpy(), u, rtol=1e-12)
    np.testing.assert_allclose(m.weight_v.numpy(), v, rtol=1e-12)
    np.testing.assert_allclose(m.weight.detach().numpy(), w / sigma, rtol=1e-12)
    # and PyTorch's hook from the same tensors gives the same weight
    t = torch.nn.utils.spectral_norm(torch.nn.Conv2d(2, 3, 2).double(), n_power_iterations=n)
    with torch.no_grad():
        t.weight_orig.copy_(torch.tensor(w))
        t.weight_u.copy_(torch.tensor(u0))
        t.weight_v.copy_(torch.tensor(v0))
    t(torch.tensor(x.numpy()))
    np.testing.assert_allclose(m.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-12)


def test_eval_does_not_iterate_and_converges_to_the_largest_singular_value():
    mg.manual_seed(1)
    m = spectral_norm(mg.nn.Linear(6, 4).double(), n_power_iterations=50)
    x = mg.zeros(1, 6, dtype=mg.float64)
    m(x)
    w = m.weight_orig.detach().numpy()
    np.testing.assert_allclose(
        m.weight.detach().numpy(), w / np.linalg.svd(w, compute_uv=False)[0], rtol=1e-8
    )
    m.eval()
    u = m.weight_u.numpy().copy()
    m(x)
    np.testing.assert_array_equal(m.weight_u.numpy(), u)


def test_gradient_flows_to_weight_orig_through_sigma():
    mg.manual_seed(2)
    m = spectral_norm(mg.nn.Linear(3, 2).double()).eval()
    w = m.weight_orig.detach().numpy().copy()
    u, v = m.weight_u.numpy(), m.weight_v.numpy()
    x = np.random.default_rng(1).standard_normal((4, 3))
    m(mg.tensor(x)).sum().backward()
    # L = sum_n (W x_n / s) . 1 with s = u . W v:  dL/dW = (1 x^T) / s - (1^T W X^T 1) u v^T / s^2
    s = u @ w @ v
    g = np.ones((2, 1)) @ x.sum(0, keepdims=True)
    expected = g / s - (w @ x.sum(0)).sum() * np.outer(u, v) / s**2
    np.testing.assert_allclose(m.weight_orig.grad.numpy(), expected, rtol=1e-10)


def test_transposed_conv_uses_dim_one_and_remove_restores_a_parameter():
    m = spectral_norm(mg.nn.ConvTranspose2d(2, 5, 3))
    assert m.weight_u.shape == (5,) and m.weight_v.shape == (2 * 3 * 3,)
    m(mg.zeros(1, 2, 4, 4))
    weight = m.weight.detach().numpy().copy()
    remove_spectral_norm(m)
    assert isinstance(m.weight, mg.nn.Parameter)
    np.testing.assert_allclose(m.weight.detach().numpy(), weight, rtol=1e-6)
    assert sorted(m.state_dict()) == ["bias", "weight"]
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found"):
        remove_spectral_norm(m)


def test_spectral_norm_refuses_bad_use():
    m = spectral_norm(mg.nn.Linear(3, 2))
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
        spectral_norm(m)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        spectral_norm(mg.nn.Linear(3, 2), n_power_iterations=0)


def test_state_dict_round_trip_and_the_old_format_without_weight_v():
    mg.manual_seed(3)
    m = spectral_norm(mg.nn.Linear(4, 3).double())
    m(mg.zeros(1, 4, dtype=mg.float64))
    fresh = spectral_norm(mg.nn.Linear(4, 3).double())
    fresh.load_state_dict(m.state_dict())  # the current format: loaded as it is
    np.testing.assert_array_equal(fresh.weight_v.numpy(), m.weight_v.numpy())
    # the format before version 1: weight saved, weight_v not; v is solved so u . W v = sigma
    w = m.weight_orig.detach().numpy()
    old = {"weight_orig": m.weight_orig.detach(), "weight_u": m.weight_u, "bias": m.bias.detach()}
    old["weight"] = m.weight_orig.detach() / 2.5
    fresh.load_state_dict(old)
    u, v = fresh.weight_u.numpy(), fresh.weight_v.numpy()
    np.testing.assert_allclose(u @ w @ v, 2.5, rtol=1e-10)
    remove_spectral_norm(fresh)
    assert not fresh.__dict__.get("_state_dict_hooks")
    assert not fresh.__dict__.get("_load_state_dict_pre_hooks")
