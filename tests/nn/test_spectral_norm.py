"""``parametrizations.spectral_norm``: the weight divided by its largest singular value, estimated
by power iteration on two buffers (one step per training call, none in eval). Oracle: NumPy's SVD
and the closed form u . (W v) of the estimate the buffers hold."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn.utils.parametrizations import spectral_norm


def _sigma(w: np.ndarray, dim: int = 0) -> float:
    mat = np.moveaxis(w, dim, 0).reshape(w.shape[dim], -1)
    return float(np.linalg.svd(mat, compute_uv=False)[0])


def test_the_weight_is_divided_by_its_largest_singular_value() -> None:
    mg.manual_seed(0)
    layer = nn.Linear(5, 4).double()
    raw = layer.weight.detach().numpy().copy()
    spectral_norm(layer, n_power_iterations=30)
    layer(mg.zeros(1, 5, dtype=mg.float64))  # one training call: 30 more power iterations
    np.testing.assert_allclose(layer.weight.detach().numpy(), raw / _sigma(raw), rtol=1e-8)
    np.testing.assert_allclose(np.linalg.svd(layer.weight.detach().numpy())[1][0], 1.0, rtol=1e-8)


def test_sigma_is_the_buffers_estimate_and_eval_does_not_iterate() -> None:
    mg.manual_seed(1)
    conv = spectral_norm(nn.Conv2d(2, 3, 2).double())
    sn = conv.parametrizations.weight[0]
    raw = conv.parametrizations.weight.original.detach().numpy()
    conv.eval()
    u, v = sn._u.numpy().copy(), sn._v.numpy().copy()
    w = conv.weight.detach().numpy()
    np.testing.assert_allclose(w, raw / (u @ raw.reshape(3, -1) @ v), rtol=1e-12)
    np.testing.assert_array_equal(sn._u.numpy(), u)  # eval: the buffers stay
    conv.train()
    conv.weight  # noqa: B018  (training: one power step)
    w_mat = raw.reshape(3, -1)
    u1 = w_mat @ v / np.linalg.norm(w_mat @ v)
    np.testing.assert_allclose(sn._u.numpy(), u1, rtol=1e-12)
    np.testing.assert_allclose(sn._v.numpy(), w_mat.T @ u1 / np.linalg.norm(w_mat.T @ u1))


def test_gradients_flow_to_the_original_weight() -> None:
    layer = spectral_norm(nn.Linear(3, 2).double())
    layer(mg.ones(4, 3, dtype=mg.float64)).sum().backward()
    grad = layer.parametrizations.weight.original.grad
    assert grad is not None and np.isfinite(grad.numpy()).all()


def test_state_dict_keys_and_the_default_dim_of_transposed_convolutions() -> None:
    layer = spectral_norm(nn.Linear(3, 2))
    assert list(layer.state_dict()) == [
        "bias",
        "parametrizations.weight.original",
        "parametrizations.weight.0._u",
        "parametrizations.weight.0._v",
    ]
    convt = spectral_norm(nn.ConvTranspose2d(2, 5, 3))
    sn = convt.parametrizations.weight[0]
    assert sn.dim == 1 and sn._u.shape == (5,) and sn._v.shape == (2 * 9,)


def test_bad_arguments() -> None:
    with pytest.raises(IndexError, match="Dimension out of range"):
        spectral_norm(nn.Linear(3, 2), dim=2)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        spectral_norm(nn.Linear(3, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="no parameter or buffer with name 'w'"):
        spectral_norm(nn.Linear(3, 2), name="w")
