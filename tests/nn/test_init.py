"""nn.init: distributions checked statistically (moments and bounds, with tolerances set from the
sample size), fan computation, gains, and the default initialisation of each layer (compared with
PyTorch's own layers when PyTorch is installed)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn import init

N = 200_000  # samples per check: the standard error of a std estimate is ~std/sqrt(2N) ~ 0.16%


def sample(shape=(400, 500)):
    return mg.empty(*shape)


def test_fan_in_fan_out_for_linear_and_conv_layouts():
    assert init.calculate_fan_in_and_fan_out(mg.empty(7, 3)) == (3, 7)
    assert init.calculate_fan_in_and_fan_out(mg.empty(8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match="fewer than 2 dims"):
        init.calculate_fan_in_and_fan_out(mg.empty(5))


def test_calculate_gain_table():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("tanh") == pytest.approx(5 / 3)
    assert init.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert init.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert init.calculate_gain("leaky_relu") == pytest.approx(math.sqrt(2 / (1 + 0.01**2)))
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="unsupported nonlinearity"):
        init.calculate_gain("swish")


def check_uniform(t, bound):
    a = t.numpy()
    assert a.min() >= -bound and a.max() <= bound
    assert a.min() < -0.99 * bound and a.max() > 0.99 * bound  # the whole range is used
    assert abs(a.mean()) < 0.01 * bound
    assert a.std() == pytest.approx(bound / math.sqrt(3), rel=0.01)


def check_normal(t, std, mean=0.0):
    a = t.numpy()
    assert a.mean() == pytest.approx(mean, abs=0.01 * std)
    assert a.std() == pytest.approx(std, rel=0.01)
    # a normal, not a uniform of the same variance: about 4.55% of samples beyond 2 std
    assert np.mean(np.abs(a - mean) > 2 * std) == pytest.approx(0.0455, abs=0.003)


def test_uniform_normal_constant_zeros_ones():
    mg.manual_seed(0)
    t = sample()
    assert init.uniform_(t, -2.0, 2.0) is t
    check_uniform(t, 2.0)
    check_normal(init.normal_(sample(), 1.5, 0.5), 0.5, 1.5)
    assert np.all(init.constant_(sample((3, 3)), 0.7).numpy() == np.float32(0.7))
    assert np.all(init.zeros_(sample((3, 3))).numpy() == 0)
    assert np.all(init.ones_(sample((3, 3))).numpy() == 1)
    np.testing.assert_array_equal(init.eye_(sample((2, 3))).numpy(), np.eye(2, 3))


def test_xavier_and_kaiming_scales():
    mg.manual_seed(1)
    fan_out, fan_in = 400, 500
    check_uniform(init.xavier_uniform_(sample(), gain=2.0), 2.0 * math.sqrt(6 / (fan_in + fan_out)))
    check_normal(init.xavier_normal_(sample()), math.sqrt(2 / (fan_in + fan_out)))
    check_uniform(
        init.kaiming_uniform_(sample(), nonlinearity="relu"), math.sqrt(2) * math.sqrt(3 / fan_in)
    )
    check_normal(
        init.kaiming_normal_(sample(), mode="fan_out", nonlinearity="relu"), math.sqrt(2 / fan_out)
    )
    check_normal(init.kaiming_normal_(sample(), a=0.5), math.sqrt(2 / 1.25 / fan_in))
    with pytest.raises(ValueError, match="mode 'fan_avg'"):
        init.kaiming_uniform_(sample(), mode="fan_avg")


def test_trunc_normal_stays_in_bounds_with_the_truncated_moments():
    mg.manual_seed(2)
    t = init.trunc_normal_(sample(), mean=0.5, std=1.0, a=-1.0, b=1.5)
    a = t.numpy()
    assert a.min() >= -1.0 and a.max() <= 1.5
    # moments of N(0.5, 1) truncated to [-1.5, 1] in standard units (closed form)
    alpha, beta = -1.5, 1.0
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    mean = 0.5 + (phi(alpha) - phi(beta)) / z
    var = 1 + (alpha * phi(alpha) - beta * phi(beta)) / z - ((phi(alpha) - phi(beta)) / z) ** 2
    assert a.mean() == pytest.approx(mean, abs=0.005)
    assert a.std() == pytest.approx(math.sqrt(var), rel=0.01)
    with pytest.raises(ValueError, match="a < b"):
        init.trunc_normal_(sample((2, 2)), a=1.0, b=0.0)


def _truncated_moments(mean, std, a, b):
    """Mean and standard deviation of N(mean, std^2) truncated to [a, b] (closed form)."""
    alpha, beta = (a - mean) / std, (b - mean) / std
    phi = lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    m = (phi(alpha) - phi(beta)) / z
    var = 1 + (alpha * phi(alpha) - beta * phi(beta)) / z - m**2
    return mean + std * m, std * math.sqrt(var)


@pytest.mark.parametrize(
    "mean, std, a, b",
    [(0.0, 1.0, 5.0, 6.0), (0.0, 0.02, 0.04, 0.2), (1.0, 1.0, -4.0, -3.0), (0.0, 1.0, 0.0, 0.1)],
)
def test_trunc_normal_draws_intervals_far_in_the_tail(mean, std, a, b):
    """[a, b] may hold almost none of the normal's mass (N(0, 1) on [5, 6]: 3e-7), as PyTorch
    allows (with a warning when the mean is more than 2 std away)."""
    mg.manual_seed(5)
    t = mg.empty(100_000, dtype=mg.float64)
    far = mean < a - 2 * std or mean > b + 2 * std
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        init.trunc_normal_(t, mean=mean, std=std, a=a, b=b)
    assert any("more than 2 std" in str(w.message) for w in caught) == far
    x = t.numpy()
    assert x.min() >= a and x.max() <= b
    want_mean, want_std = _truncated_moments(mean, std, a, b)
    assert x.mean() == pytest.approx(want_mean, abs=0.01 * want_std)
    assert x.std() == pytest.approx(want_std, rel=0.02)


def test_init_is_reproducible_and_leaves_no_graph():
    mg.manual_seed(3)
    a = nn.Linear(5, 4)
    mg.manual_seed(3)
    b = nn.Linear(5, 4)
    np.testing.assert_array_equal(a.weight.detach().numpy(), b.weight.detach().numpy())
    p = nn.Parameter(mg.empty(3, 3))
    init.xavier_uniform_(
        p, gain=1.0
    )  # as in the mixed-precision guide: nn.init.xavier_uniform_(module.weight, gain=1.0)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    with pytest.raises(TypeError, match="expects a Tensor"):
        init.zeros_(np.zeros(3))


def test_default_layer_initialisation():
    mg.manual_seed(4)
    lin = nn.Linear(500, 400)
    bound = 1 / math.sqrt(500)
    check_uniform(lin.weight.detach(), bound)  # kaiming_uniform_(a=sqrt 5) == U(-1/sqrt(in), ..)
    b = lin.bias.detach().numpy()
    assert b.min() >= -bound and b.max() <= bound
    check_normal(nn.Embedding(400, 500).weight.detach(), 1.0)
    for norm in (nn.LayerNorm(8), nn.BatchNorm1d(8), nn.RMSNorm(8)):
        assert np.all(norm.weight.detach().numpy() == 1)
    assert np.all(nn.LayerNorm(8).bias.detach().numpy() == 0)


def test_default_initialisation_matches_pytorch_distributions():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    mg.manual_seed(0)
    pairs = [
        (torch.nn.Linear(300, 200), nn.Linear(300, 200)),
        (torch.nn.Embedding(200, 300), nn.Embedding(200, 300)),
    ]
    for tl, ml in pairs:
        for name, tp in tl.named_parameters():
            a = tp.detach().numpy()
            b = getattr(ml, name).detach().numpy()
            assert a.shape == b.shape
            # The same distribution (different generators, so not the same numbers): compare
            # quantiles, within a tolerance well above their sampling error at these sizes.
            qs = [0.05, 0.25, 0.5, 0.75, 0.95]
            tol = (0.05 if a.size > 10_000 else 0.3) * a.std()  # ~4 standard errors
            np.testing.assert_allclose(np.quantile(b, qs), np.quantile(a, qs), atol=tol)
