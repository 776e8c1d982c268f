"""PyTorch parity: weight normalisation (parametrizations.weight_norm and the older hook form)
and a user parametrization: state_dict keys, values, gradients, the parametrized repr."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

torch = pytest.importorskip("torch")


def _pair(kind: str, dim):
    torch.manual_seed(0)
    t_layer = torch.nn.Conv2d(2, 3, 3).double()
    m_layer = nn.Conv2d(2, 3, 3).double()
    m_layer.load_state_dict({k: mg.tensor(v.numpy()) for k, v in t_layer.state_dict().items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if kind == "parametrization":
            torch.nn.utils.parametrizations.weight_norm(t_layer, dim=dim)
            nn.utils.parametrizations.weight_norm(m_layer, dim=dim)
        else:
            torch.nn.utils.weight_norm(t_layer, dim=dim)
            nn.utils.weight_norm(m_layer, dim=dim)
    return t_layer, m_layer


@pytest.mark.parametrize("kind", ["parametrization", "hook"])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_pytorch(kind, dim):
    t_layer, m_layer = _pair(kind, dim)
    t_state, m_state = t_layer.state_dict(), m_layer.state_dict()
    assert list(m_state) == list(t_state)
    for k in t_state:
        np.testing.assert_allclose(m_state[k].numpy(), t_state[k].numpy(), rtol=1e-14)
    x = np.random.default_rng(0).standard_normal((2, 2, 5, 5))
    yt, ym = t_layer(torch.tensor(x)), m_layer(mg.tensor(x))
    np.testing.assert_allclose(ym.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    (yt**2).sum().backward()
    (ym**2).sum().backward()
    for (name, a), (_, b) in zip(m_layer.named_parameters(), t_layer.named_parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-11, err_msg=name)
    if kind == "parametrization":
        assert repr(m_layer) == repr(t_layer)
