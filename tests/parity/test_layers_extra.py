"""PyTorch parity: Conv1d, ConvTranspose2d, AdaptiveAvgPool2d, GroupNorm, ELU, Hardtanh, PReLU,
Mish (modules with torch's weights, and their F.* forms), and the smooth L1, Huber and KL-divergence
losses: values and gradients in float64, state_dict keys, initial value ranges."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn

torch = pytest.importorskip("torch")
tnn = torch.nn
TF = torch.nn.functional


def _pair(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    return (
        [mg.tensor(a, requires_grad=True) for a in arrays],
        [torch.tensor(a, requires_grad=True) for a in arrays],
    )


def _close(m, t, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def _same_module(m_mod, t_mod, shape, seed=0):
    """Load torch's weights, run both on one input, compare outputs and every gradient."""
    t_state = t_mod.state_dict()
    assert sorted(m_mod.state_dict()) == sorted(t_state)
    m_mod.load_state_dict({k: mg.tensor(v.numpy()) for k, v in t_state.items()})
    (mx,), (tx,) = _pair(shape, seed=seed)
    m_out, t_out = m_mod(mx), t_mod(tx)
    _close(m_out, t_out)
    g = np.random.default_rng(seed + 1).standard_normal(tuple(t_out.shape))
    m_out.backward(mg.tensor(g))
    t_out.backward(torch.tensor(g))
    _close(mx.grad, tx.grad)
    t_params = dict(t_mod.named_parameters())
    for name, p in m_mod.named_parameters():
        _close(p.grad, t_params[name].grad)


CONV1D = [
    dict(),
    dict(stride=2, padding=1),
    dict(padding="same", dilation=2),
    dict(groups=2, bias=False),
    dict(padding=2, padding_mode="reflect"),
    dict(padding=1, padding_mode="circular", stride=2),
    dict(padding="same", padding_mode="replicate", dilation=3),
    dict(padding="valid", padding_mode="reflect"),
]


@pytest.mark.parametrize("kw", CONV1D)
def test_conv1d_matches_torch(kw):
    d64 = {"dtype": torch.float64}
    _same_module(
        nn.Conv1d(4, 6, 3, dtype=mg.float64, **kw), tnn.Conv1d(4, 6, 3, **d64, **kw), (2, 4, 9)
    )


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_conv2d_same_padding_with_an_even_kernel_pads_as_torch(mode):
    # total padding d (k - 1) is odd along both dims: the extra row/column goes after
    d64 = {"dtype": torch.float64}
    kw = dict(padding="same", padding_mode=mode, dilation=(1, 3))
    _same_module(
        nn.Conv2d(2, 3, (2, 4), dtype=mg.float64, **kw),
        tnn.Conv2d(2, 3, (2, 4), **d64, **kw),
        (2, 2, 6, 13),
    )


def test_conv_forward_runs_the_layer_geometry_with_another_weight_as_torch():
    # PyTorch's hook for layers that transform their weight first (weight standardisation)
    d64 = {"dtype": torch.float64}
    for m_conv, t_conv, shape in (
        (
            nn.Conv1d(2, 4, 3, padding=2, padding_mode="circular", dtype=mg.float64),
            tnn.Conv1d(2, 4, 3, padding=2, padding_mode="circular", **d64),
            (2, 2, 7),
        ),
        (
            nn.Conv2d(2, 4, 3, stride=2, groups=2, dtype=mg.float64),
            tnn.Conv2d(2, 4, 3, stride=2, groups=2, **d64),
            (1, 2, 8, 8),
        ),
    ):
        (mx, mw), (tx, tw) = _pair(shape, tuple(t_conv.weight.shape), seed=3)
        _close(m_conv._conv_forward(mx, mw, None), t_conv._conv_forward(tx, tw, None))
        assert (m_conv.transposed, m_conv.output_padding) == (
            t_conv.transposed,
            t_conv.output_padding,
        )
    t_up = tnn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1)
    m_up = nn.ConvTranspose1d(2, 4, 3, stride=2, output_padding=1)
    assert (m_up.transposed, m_up.output_padding) == (t_up.transposed, t_up.output_padding)


def test_conv1d_unbatched_input_matches_torch():
    _same_module(
        nn.Conv1d(3, 2, 2, dtype=mg.float64), tnn.Conv1d(3, 2, 2, dtype=torch.float64), (3, 7)
    )


CONV_T = [
    dict(),
    dict(stride=2),
    dict(stride=2, padding=1, output_padding=1),
    dict(stride=(2, 3), padding=(1, 0), output_padding=(0, 2)),
    dict(dilation=2, padding=1),
    dict(stride=2, dilation=3, output_padding=2),
    dict(groups=2, stride=2, bias=False),
]


@pytest.mark.parametrize("kw", CONV_T)
def test_conv_transpose2d_matches_torch(kw):
    m = nn.ConvTranspose2d(4, 6, (3, 2), dtype=mg.float64, **kw)
    t = tnn.ConvTranspose2d(4, 6, (3, 2), dtype=torch.float64, **kw)
    _same_module(m, t, (2, 4, 4, 5))


def test_conv_transpose2d_output_size_argument_matches_torch():
    m = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, dtype=mg.float64)
    t = tnn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, dtype=torch.float64)
    m.load_state_dict({k: mg.tensor(v.numpy()) for k, v in t.state_dict().items()})
    (mx,), (tx,) = _pair((1, 2, 4, 4))
    _close(m(mx, output_size=[8, 8]), t(tx, output_size=[8, 8]))
    with pytest.raises(ValueError, match="valid sizes"):
        m(mx, output_size=(10, 10))


def test_conv_transpose2d_is_the_input_gradient_of_conv2d():
    (x, w), _ = _pair((2, 4, 5, 6), (3, 4, 3, 3), seed=3)
    y = F.conv2d(x, w, stride=2, padding=1)  # (2, 3, 3, 3) from input channels 4 -> out 3
    g = mg.tensor(np.random.default_rng(4).standard_normal(tuple(y.shape)))
    inp = mg.randn(2, 4, 5, 6, dtype=mg.float64, requires_grad=True)
    F.conv2d(inp, w, stride=2, padding=1).backward(g)
    _close(F.conv_transpose2d(g, w, stride=2, padding=1, output_padding=(0, 1)), inp.grad)


@pytest.mark.parametrize("size", [(3, 2), 4, (None, 3), (7, 1)])
def test_adaptive_avg_pool2d_matches_torch(size):
    _same_module(nn.AdaptiveAvgPool2d(size), tnn.AdaptiveAvgPool2d(size), (2, 3, 7, 5))


@pytest.mark.parametrize("groups", [1, 2, 6])
@pytest.mark.parametrize("shape", [(2, 6, 4, 3), (3, 6), (2, 6, 5)])
def test_group_norm_matches_torch(groups, shape):
    m = nn.GroupNorm(groups, 6, dtype=mg.float64)
    t = tnn.GroupNorm(groups, 6, dtype=torch.float64)
    with torch.no_grad():  # non-trivial affine parameters
        t.weight.normal_()
        t.bias.normal_()
    _same_module(m, t, shape)


ACTIVATIONS = [
    (lambda: nn.ELU(), lambda: tnn.ELU()),
    (lambda: nn.ELU(alpha=0.5), lambda: tnn.ELU(alpha=0.5)),
    (lambda: nn.Hardtanh(), lambda: tnn.Hardtanh()),
    (lambda: nn.Hardtanh(-0.5, 2.0), lambda: tnn.Hardtanh(-0.5, 2.0)),
    (lambda: nn.PReLU(), lambda: tnn.PReLU()),
    (
        lambda: nn.PReLU(3, init=0.1, dtype=mg.float64),
        lambda: tnn.PReLU(3, init=0.1, dtype=torch.float64),
    ),
    (lambda: nn.Mish(), lambda: tnn.Mish()),
]


@pytest.mark.parametrize("make", ACTIVATIONS)
def test_activation_modules_match_torch(make):
    m_mod, t_mod = make[0](), make[1]()
    if isinstance(t_mod, tnn.PReLU):
        t_mod.double()
        m_mod.to(mg.float64)
    _same_module(m_mod, t_mod, (2, 3, 4))


def test_activations_at_their_kinks_and_extremes_match_torch():
    a = np.array([-50.0, -1.0, -0.5, 0.0, 0.5, 1.0, 30.0, 800.0])
    for mf, tf in (
        (F.elu, TF.elu),
        (F.hardtanh, TF.hardtanh),
        (F.mish, TF.mish),
        (lambda x: F.hardtanh(x, 0.0, 1.0), lambda x: TF.hardtanh(x, 0.0, 1.0)),
    ):
        m, t = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
        mf(m).sum().backward()
        tf(t).sum().backward()
        _close(mf(m), tf(t))
        _close(m.grad, t.grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("beta", [1.0, 0.3, 0.0])
def test_smooth_l1_and_huber_match_torch(reduction, beta):
    (mx, my), (tx, ty) = _pair((4, 5), (4, 5), seed=5)
    for mf, tf in (
        (lambda: F.smooth_l1_loss(mx, my, reduction=reduction, beta=beta),
         lambda: TF.smooth_l1_loss(tx, ty, reduction=reduction, beta=beta)),
        (lambda: F.huber_loss(mx, my, reduction=reduction, delta=beta or 2.0),
         lambda: TF.huber_loss(tx, ty, reduction=reduction, delta=beta or 2.0)),
    ):  # fmt: skip
        m_out, t_out = mf(), tf()
        _close(m_out, t_out)
        m_out.sum().backward()
        t_out.sum().backward()
        _close(mx.grad, tx.grad)
        _close(my.grad, ty.grad)
        mx.grad = my.grad = tx.grad = ty.grad = None


def test_loss_modules_and_huber_weight_match_torch():
    (mx, my), (tx, ty) = _pair((3, 4), (3, 4), seed=6)
    w = np.random.default_rng(7).random((3, 4))
    _close(nn.SmoothL1Loss(beta=0.5)(mx, my), tnn.SmoothL1Loss(beta=0.5)(tx, ty))
    _close(nn.HuberLoss(delta=0.7)(mx, my), tnn.HuberLoss(delta=0.7)(tx, ty))
    _close(F.huber_loss(mx, my, weight=mg.tensor(w)), TF.huber_loss(tx, ty, weight=torch.tensor(w)))


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "none", "mean"])
@pytest.mark.parametrize("log_target", [False, True])
@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
def test_kl_div_matches_torch(reduction, log_target):
    rng = np.random.default_rng(8)
    logq = np.log(rng.dirichlet(np.ones(5), size=3))
    p = rng.dirichlet(np.ones(5), size=3)
    p[0, 1] = 0.0  # a zero-probability target: contributes 0
    target = np.log(p + 1e-3) if log_target else p
    m_in, t_in = mg.tensor(logq, requires_grad=True), torch.tensor(logq, requires_grad=True)
    m_t, t_t = mg.tensor(target, requires_grad=True), torch.tensor(target, requires_grad=True)
    m_out = nn.KLDivLoss(reduction=reduction, log_target=log_target)(m_in, m_t)
    t_out = tnn.KLDivLoss(reduction=reduction, log_target=log_target)(t_in, t_t)
    _close(m_out, t_out)
    m_out.sum().backward()
    t_out.sum().backward()
    _close(m_in.grad, t_in.grad)
    if log_target:
        _close(m_t.grad, t_t.grad)


def test_new_layers_have_torchs_parameter_shapes_and_init_ranges():
    pairs = [
        (nn.Conv1d(4, 6, 3, groups=2), tnn.Conv1d(4, 6, 3, groups=2)),
        (nn.ConvTranspose2d(4, 6, 3, groups=2), tnn.ConvTranspose2d(4, 6, 3, groups=2)),
        (nn.GroupNorm(2, 6, affine=False), tnn.GroupNorm(2, 6, affine=False)),
        (nn.GroupNorm(2, 6, bias=False), tnn.GroupNorm(2, 6, bias=False)),
        (nn.PReLU(5), tnn.PReLU(5)),
    ]
    for m, t in pairs:
        m_state, t_state = m.state_dict(), t.state_dict()
        assert sorted(m_state) == sorted(t_state)
        for k, v in t_state.items():
            assert tuple(m_state[k].shape) == tuple(v.shape)
            if v.numel() > 1 and k == "weight" and v.ndim > 1:
                bound = float(v.abs().max()) * 1.5
                assert float(m_state[k].abs().max()) <= bound
