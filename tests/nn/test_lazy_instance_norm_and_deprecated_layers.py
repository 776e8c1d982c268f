"""``nn.LazyInstanceNorm1d/2d/3d`` (num_features read off the first input, PyTorch's lazy
defaults affine=True and track_running_stats=True) against InstanceNorm written in NumPy, and
the deprecated ``nn.Container`` and ``nn.NLLLoss2d`` (a warning each, then Module / NLLLoss)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn


def _instance_norm(x, eps=1e-5):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


@pytest.mark.parametrize(
    ("lazy", "eager", "shape"),
    [(nn.LazyInstanceNorm1d, nn.InstanceNorm1d, (2, 3, 7)),
     (nn.LazyInstanceNorm2d, nn.InstanceNorm2d, (2, 4, 5, 3)),
     (nn.LazyInstanceNorm3d, nn.InstanceNorm3d, (1, 2, 3, 4, 2))],
)  # fmt: skip
def test_lazy_instance_norm_becomes_the_eager_norm_sized_by_the_input(lazy, eager, shape):
    m = lazy()
    assert m.has_uninitialized_params() and (m.affine, m.track_running_stats) == (True, True)
    x = np.random.default_rng(0).standard_normal(shape)
    y = m(mg.tensor(x, dtype=mg.float32))
    assert type(m) is eager and m.num_features == shape[1]
    assert m.weight.shape == (shape[1],) and m.running_var.shape == (shape[1],)
    np.testing.assert_allclose(y.detach().numpy(), _instance_norm(x), rtol=1e-5, atol=1e-5)
    # training updated the running mean with momentum 0.1 from its start at 0
    mean = x.mean(axis=tuple(range(2, x.ndim))).mean(axis=0)
    np.testing.assert_allclose(m.running_mean.numpy(), 0.1 * mean, rtol=1e-5, atol=1e-6)


def test_lazy_instance_norm_takes_a_loaded_state_dict_shape_and_eager_options():
    src = nn.InstanceNorm2d(6, affine=True, track_running_stats=True)
    src.weight.data.fill_(2.0)
    m = nn.LazyInstanceNorm2d(eps=1e-3)
    m.load_state_dict(src.state_dict())
    assert type(m) is nn.InstanceNorm2d and m.num_features == 6 and m.eps == 1e-3
    assert mg.equal(m.weight, src.weight)
    plain = nn.LazyInstanceNorm1d(affine=False, track_running_stats=False)
    assert list(plain.parameters()) == [] and plain.running_mean is None


def test_lazy_instance_norm_reads_dim_1_even_of_unbatched_input_as_pytorch_does():
    # PyTorch's _LazyNormBase takes input.shape[1]; with affine=True the size check then fails
    with pytest.raises(ValueError, match="num_features"):
        nn.LazyInstanceNorm1d()(mg.randn(3, 5))


def test_container_warns_and_registers_its_keyword_children():
    with pytest.warns(FutureWarning, match="nn.Container. is deprecated"):
        c = nn.Container(fc=nn.Linear(2, 3), act=nn.ReLU())
    assert isinstance(c, nn.Module) and [n for n, _ in c.named_children()] == ["fc", "act"]
    assert [n for n, _ in c.named_parameters()] == ["fc.weight", "fc.bias"]


def test_nll_loss_2d_warns_and_equals_nll_loss_on_image_shaped_input():
    logp = mg.randn(2, 3, 4, 5).log_softmax(1)
    target = mg.randint(0, 3, (2, 4, 5))
    with pytest.warns(FutureWarning, match="NLLLoss2d. has been deprecated"):
        loss = nn.NLLLoss2d(ignore_index=1, reduction="sum")
    assert isinstance(loss, nn.NLLLoss)
    lp, t = logp.numpy(), target.numpy()
    n, h, w = np.indices(t.shape)
    want = -(lp[n, t, h, w] * (t != 1)).sum()
    np.testing.assert_allclose(loss(logp, target).item(), want, rtol=1e-6)
