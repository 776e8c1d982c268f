"""Conv1d, ConvTranspose2d, AdaptiveAvgPool2d, GroupNorm, Dropout2d, ELU, Hardtanh, PReLU, Mish
and the smooth L1 / Huber / KL losses: values against NumPy loops and closed forms, float64
finite-difference gradients, and clear errors on bad input."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd.gradcheck import gradcheck


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _t(a, grad=False):
    return mg.tensor(a, requires_grad=grad)


# ----------------------------------------------------------------------------------- convolution
def _np_conv_transpose2d(x, w, s, p, op, d):
    """Scatter every input pixel times the kernel into the output (the definition)."""
    n, c_in, h, wd = x.shape
    _, c_out, kh, kw = w.shape
    ho = (h - 1) * s - 2 * p + d * (kh - 1) + op + 1
    wo = (wd - 1) * s - 2 * p + d * (kw - 1) + op + 1
    full = np.zeros((n, c_out, ho + 2 * p + d * kh, wo + 2 * p + d * kw))
    for i in range(h):
        for j in range(wd):
            for a in range(kh):
                for b in range(kw):
                    full[:, :, i * s + a * d, j * s + b * d] += x[:, :, i, j] @ w[:, :, a, b]
    return full[:, :, p : p + ho, p : p + wo]


@pytest.mark.parametrize("s, p, op, d", [(1, 0, 0, 1), (2, 1, 1, 1), (3, 2, 2, 1), (2, 0, 1, 2)])
def test_conv_transpose2d_matches_the_scatter_definition(s, p, op, d):
    x, w = _rand(2, 3, 4, 3), _rand(3, 2, 3, 2, seed=1)
    out = F.conv_transpose2d(_t(x), _t(w), stride=s, padding=p, output_padding=op, dilation=d)
    np.testing.assert_allclose(out.numpy(), _np_conv_transpose2d(x, w, s, p, op, d), rtol=1e-12)


def test_conv_transpose2d_gradients_match_finite_differences():
    x, w, b = _t(_rand(1, 4, 3, 3), True), _t(_rand(4, 1, 2, 2, seed=2), True), _t(_rand(2), True)
    assert gradcheck(
        lambda x, w, b: F.conv_transpose2d(
            x, w, b, stride=2, padding=1, output_padding=1, groups=2
        ),
        (x, w, b),
    )


def test_conv1d_matches_a_numpy_correlation():
    x, w = _rand(2, 3, 9), _rand(4, 3, 3, seed=3)
    out = F.conv1d(_t(x), _t(w), stride=2, padding=1, dilation=2).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    expected = np.stack(
        [
            np.einsum("nck,ock->no", xp[:, :, l * 2 : l * 2 + 5 : 2], w)
            for l in range(out.shape[-1])
        ],
        axis=-1,
    )
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_conv1d_gradients_match_finite_differences():
    x, w = _t(_rand(1, 2, 6), True), _t(_rand(2, 1, 3, seed=4), True)
    assert gradcheck(lambda x, w: F.conv1d(x, w, padding="same", groups=2), (x, w))


def test_conv_layers_refuse_bad_shapes_with_named_sizes():
    with pytest.raises(RuntimeError, match=r"conv1d: expected a 3-d input.*\(2, 3, 4, 5\)"):
        nn.Conv1d(3, 2, 2)(mg.randn(2, 3, 4, 5))
    with pytest.raises(RuntimeError, match=r"has 5 channels.*expects 4"):
        F.conv_transpose2d(mg.randn(1, 5, 3, 3), mg.randn(4, 2, 3, 3))
    with pytest.raises(RuntimeError, match="output padding must be smaller"):
        F.conv_transpose2d(mg.randn(1, 4, 3, 3), mg.randn(4, 2, 3, 3), stride=2, output_padding=2)
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect")
    with pytest.raises(ValueError, match=r"in_channels \(3\).*groups \(2\)"):
        nn.Conv1d(3, 4, 2, groups=2)


# ----------------------------------------------------------------------------------- pooling
@pytest.mark.parametrize("out", [(3, 2), (5, 7), (1, 1), (4, 4)])
def test_adaptive_avg_pool2d_averages_pytorchs_windows(out):
    x = _rand(2, 3, 5, 7)
    y = F.adaptive_avg_pool2d(_t(x), out).numpy()
    (H, W), (oh, ow) = x.shape[-2:], out
    for i in range(oh):
        for j in range(ow):
            r0, r1 = (i * H) // oh, -(-((i + 1) * H) // oh)
            c0, c1 = (j * W) // ow, -(-((j + 1) * W) // ow)
            np.testing.assert_allclose(y[..., i, j], x[..., r0:r1, c0:c1].mean(axis=(-2, -1)))


def test_adaptive_avg_pool2d_gradient_and_errors():
    x = _t(_rand(1, 2, 5, 4), True)
    assert gradcheck(lambda t: F.adaptive_avg_pool2d(t, (3, 3)), (x,))
    with pytest.raises(RuntimeError, match=r"3-d.*or 4-d.*\(5, 4\)"):
        F.adaptive_avg_pool2d(mg.randn(5, 4), 2)
    assert nn.AdaptiveAvgPool2d((0, 2))(mg.randn(1, 2, 3, 3)).shape == (1, 2, 0, 2)
    with pytest.raises(RuntimeError, match="greater than or equal to 0"):
        nn.AdaptiveAvgPool2d((-1, 2))(mg.randn(1, 2, 3, 3))


# ----------------------------------------------------------------------------------- group norm
def test_group_norm_matches_numpy_statistics_per_group():
    x, w, b = _rand(2, 6, 3, 2), _rand(6, seed=5), _rand(6, seed=6)
    y = F.group_norm(_t(x), 3, _t(w), _t(b), eps=1e-5).numpy()
    g = x.reshape(2, 3, -1)
    xhat = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)
    expected = xhat.reshape(x.shape) * w[:, None, None] + b[:, None, None]
    np.testing.assert_allclose(y, expected, rtol=1e-10)


def test_group_norm_gradients_and_errors():
    x, w, b = _t(_rand(2, 4, 3), True), _t(_rand(4, seed=7), True), _t(_rand(4, seed=8), True)
    assert gradcheck(lambda x, w, b: F.group_norm(x, 2, w, b), (x, w, b))
    with pytest.raises(
        ValueError, match=r"num_channels \(6\) must be divisible by num_groups \(4\)"
    ):
        nn.GroupNorm(4, 6)
    with pytest.raises(RuntimeError, match=r"divisible by num_groups.*\(2, 6, 3\)"):
        F.group_norm(mg.randn(2, 6, 3), 4)


# ----------------------------------------------------------------------------------- dropout2d
def test_dropout2d_zeroes_whole_channels_and_scales_the_rest():
    mg.manual_seed(0)
    x = mg.ones(8, 16, 3, 3, requires_grad=True)
    y = F.dropout2d(x, p=0.25)
    per_channel = y.detach().numpy().reshape(8, 16, 9)
    np.testing.assert_allclose(np.unique(per_channel), [0.0, 1.0 / 0.75], rtol=1e-6)
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # a channel is kept or dropped whole
    dropped = (per_channel[..., 0] == 0).mean()
    assert 0.1 < dropped < 0.4
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())


def test_dropout2d_module_is_identity_in_eval_mode_and_checks_p():
    m = nn.Dropout2d(0.5).eval()
    x = mg.randn(2, 3, 4, 4)
    assert m(x) is x
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout2d(1.5)


# ----------------------------------------------------------------------------------- activations
def test_activation_values_match_closed_forms():
    a = np.linspace(-4, 4, 17)
    x = _t(a)
    np.testing.assert_allclose(F.elu(x, 0.7).numpy(), np.where(a > 0, a, 0.7 * np.expm1(a)))
    np.testing.assert_allclose(F.hardtanh(x, -2, 3).numpy(), np.clip(a, -2, 3))
    np.testing.assert_allclose(F.mish(x).numpy(), a * np.tanh(np.log1p(np.exp(a))), rtol=1e-12)
    np.testing.assert_allclose(F.prelu(x, _t(np.array([0.2]))).numpy(), np.where(a > 0, a, 0.2 * a))


def test_activation_gradients_match_finite_differences():
    x = _t(_rand(2, 3, 4) * 2, True)
    a = _t(_rand(3, seed=9), True)
    assert gradcheck(lambda t: F.elu(t, 1.3), (x,))
    assert gradcheck(lambda t: F.mish(t), (x,))
    assert gradcheck(lambda t: F.hardtanh(t, -0.5, 0.8), (x,))
    assert gradcheck(lambda t, a: F.prelu(t, a), (x, a))


def test_elu_gradient_stays_finite_for_large_inputs():
    x = _t([1000.0, -1000.0], True)
    F.elu(x).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]


def test_prelu_refuses_a_slope_count_that_is_not_the_channel_count():
    with pytest.raises(RuntimeError, match=r"parameter numbers = 4 and channel size = 6"):
        nn.PReLU(4)(mg.randn(2, 6, 3))


def test_inplace_activations_write_into_the_input():
    x = mg.tensor([-1.0, 2.0])
    assert nn.ELU(inplace=True)(x) is x and x.tolist()[1] == 2.0
    assert x.tolist()[0] == pytest.approx(np.expm1(-1.0))


# ----------------------------------------------------------------------------------- losses
def test_smooth_l1_and_huber_closed_forms():
    d = np.array([-3.0, -0.5, 0.0, 0.2, 2.0])
    x, y = _t(d), mg.zeros(5, dtype=mg.float64)
    beta = 0.8
    sl1 = np.where(np.abs(d) < beta, 0.5 * d**2 / beta, np.abs(d) - 0.5 * beta)
    np.testing.assert_allclose(F.smooth_l1_loss(x, y, reduction="none", beta=beta).numpy(), sl1)
    hub = np.where(np.abs(d) <= beta, 0.5 * d**2, beta * (np.abs(d) - 0.5 * beta))
    np.testing.assert_allclose(F.huber_loss(x, y, delta=beta).item(), hub.mean())
    np.testing.assert_allclose(F.smooth_l1_loss(x, y, beta=0.0, reduction="sum").item(), 5.7)


def test_kl_div_batchmean_is_the_kl_divergence_per_sample():
    rng = np.random.default_rng(10)
    p, q = rng.dirichlet(np.ones(4), size=3), rng.dirichlet(np.ones(4), size=3)
    kl = (p * np.log(p / q)).sum(-1).mean()
    out = F.kl_div(_t(np.log(q)), _t(p), reduction="batchmean")
    np.testing.assert_allclose(out.item(), kl, rtol=1e-12)
    out_log = F.kl_div(_t(np.log(q)), _t(np.log(p)), reduction="batchmean", log_target=True)
    np.testing.assert_allclose(out_log.item(), kl, rtol=1e-12)


def test_loss_gradients_match_finite_differences():
    x, y = _t(_rand(3, 4) * 2, True), _t(_rand(3, 4, seed=11), True)
    assert gradcheck(lambda a, b: F.smooth_l1_loss(a, b, beta=0.6), (x, y))
    assert gradcheck(lambda a, b: F.huber_loss(a, b, delta=0.6), (x, y))
    logq = _t(np.log(np.random.default_rng(12).dirichlet(np.ones(4), size=3)), True)
    p = _t(np.random.default_rng(13).dirichlet(np.ones(4), size=3))
    assert gradcheck(lambda a: F.kl_div(a, p, reduction="batchmean"), (logq,))


def test_losses_refuse_bad_arguments():
    x = mg.randn(3)
    with pytest.raises(RuntimeError, match="negative values for beta"):
        F.smooth_l1_loss(x, x, beta=-1.0)
    with pytest.raises(RuntimeError, match="non-positive values for delta"):
        nn.HuberLoss(delta=0.0)(x, x)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        nn.KLDivLoss(reduction="average")
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(x, x.exp())


def test_new_layers_give_the_cpu_numbers_on_each_device(device):
    layers = [
        nn.ELU(),
        nn.Hardtanh(),
        nn.PReLU(4),
        nn.Mish(),
        nn.GroupNorm(2, 4),
        nn.AdaptiveAvgPool2d((2, 3)),
        nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
    ]
    x0 = _rand(2, 4, 5, 6).astype(np.float32)
    for layer in layers:
        ref = layer(mg.tensor(x0)).detach().numpy()
        x = mg.tensor(x0, device=device, requires_grad=True)
        out = layer.to(device)(x)
        out.sum().backward()
        assert out.device.type == device and x.grad.device.type == device
        np.testing.assert_allclose(out.detach().cpu().numpy(), ref, rtol=1e-5, atol=1e-6)
    a, b = mg.randn(3, 4, device=device), mg.randn(3, 4, device=device)
    for loss in (F.smooth_l1_loss(a, b), F.huber_loss(a, b), F.kl_div(a, b.exp(), reduction="sum")):
        assert loss.device.type == device
