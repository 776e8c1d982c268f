"""Losses: NumPy references for every option, finite differences, numerical stability, PyTorch
parity (when importable), argument errors, modules and autocast."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(7)


def t64(a, grad=False):
    return mg.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


# ------------------------------------------------------------------------------------------------
# NumPy references, written from the formulas in PyTorch's documentation
# ------------------------------------------------------------------------------------------------
def log_softmax_ref(x, axis=1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def ce_indices_ref(x, t, weight, ignore_index, reduction, eps):
    """Move classes last, flatten samples, then the documented per-sample formula."""
    c = x.shape[1]
    logp = np.moveaxis(log_softmax_ref(x), 1, -1).reshape(-1, c)
    t = t.reshape(-1)
    w = np.ones(c) if weight is None else weight
    valid = t != ignore_index
    ts = np.where(valid, t, 0)
    w_t = w[ts] * valid
    nll = -logp[np.arange(len(t)), ts] * w_t
    smooth = -(logp * w).sum(1) * valid
    if reduction == "none":
        out = (1 - eps) * nll + eps / c * smooth
        return out.reshape((x.shape[0],) + x.shape[2:])
    if reduction == "sum":
        return (1 - eps) * nll.sum() + eps / c * smooth.sum()
    return ((1 - eps) * nll.sum() + eps / c * smooth.sum()) / w_t.sum()


def ce_probs_ref(x, p, weight, reduction, eps):
    c = x.shape[1]
    q = p * (1 - eps) + eps / c
    w = np.ones(c) if weight is None else weight
    w = w.reshape((1, c) + (1,) * (x.ndim - 2))
    loss = -(log_softmax_ref(x) * q * w).sum(1)
    return {"none": loss, "sum": loss.sum(), "mean": loss.mean()}[reduction]


def reduce_ref(v, reduction):
    return {"none": v, "sum": v.sum(), "mean": v.mean()}[reduction]


# ------------------------------------------------------------------------------------------------
# cross_entropy and nll_loss
# ------------------------------------------------------------------------------------------------
SHAPES = [(6, 5), (3, 4, 2, 3)]


@pytest.mark.parametrize(
    "shape,reduction,eps,weighted,ignore",
    list(itertools.product(SHAPES, ["none", "mean", "sum"], [0.0, 0.3], [False, True], [-100, 2])),
)
def test_cross_entropy_class_indices_every_option(shape, reduction, eps, weighted, ignore):
    c = shape[1]
    x = RNG.standard_normal(shape) * 3
    t = RNG.integers(0, c, (shape[0],) + shape[2:])
    t.flat[0] = ignore if ignore >= 0 else -100
    t.flat[1] = 2
    w = RNG.random(c) + 0.5 if weighted else None
    got = F.cross_entropy(
        t64(x),
        mg.tensor(t),
        None if w is None else t64(w),
        ignore_index=ignore,
        reduction=reduction,
        label_smoothing=eps,
    )
    np.testing.assert_allclose(
        got.numpy(), ce_indices_ref(x, t, w, ignore, reduction, eps), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize(
    "shape,reduction,eps,weighted",
    list(itertools.product(SHAPES, ["none", "mean", "sum"], [0.0, 0.3], [False, True])),
)
def test_cross_entropy_class_probabilities_every_option(shape, reduction, eps, weighted):
    x = RNG.standard_normal(shape) * 3
    p = RNG.random(shape)
    p /= p.sum(1, keepdims=True)
    w = RNG.random(shape[1]) + 0.5 if weighted else None
    got = F.cross_entropy(
        t64(x), t64(p), None if w is None else t64(w), reduction=reduction, label_smoothing=eps
    )
    np.testing.assert_allclose(
        got.numpy(), ce_probs_ref(x, p, w, reduction, eps), rtol=1e-12, atol=1e-12
    )


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_weighted_mean_and_ignore_index(reduction):
    logp = log_softmax_ref(RNG.standard_normal((5, 4)))
    t = np.array([0, 3, -100, 1, 3])
    w = np.array([1.0, 2.0, 0.5, 4.0])
    got = F.nll_loss(t64(logp), mg.tensor(t), t64(w), reduction=reduction)
    valid = t != -100
    ts = np.where(valid, t, 0)
    per = -logp[np.arange(5), ts] * w[ts] * valid
    ref = {"none": per, "sum": per.sum(), "mean": per.sum() / (w[ts] * valid).sum()}[reduction]
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-13)


def test_cross_entropy_unbatched_input():
    x = RNG.standard_normal(5)
    got = F.cross_entropy(t64(x), mg.tensor(3))
    assert got.shape == ()
    np.testing.assert_allclose(got.item(), -log_softmax_ref(x[None])[0, 3], rtol=1e-13)
    p = np.full(5, 0.2)
    got = F.cross_entropy(t64(x), t64(p), reduction="none")
    np.testing.assert_allclose(got.item(), -(log_softmax_ref(x[None])[0] * p).sum(), rtol=1e-13)


@pytest.mark.parametrize("eps", [0.0, 0.2])
def test_cross_entropy_gradcheck_indices(eps):
    x = t64(RNG.standard_normal((3, 4, 2)), grad=True)
    t = mg.tensor(np.array([[0, 3], [-100, 1], [2, 2]]))
    w = t64([0.5, 1.0, 2.0, 1.5])
    assert gradcheck(lambda x: F.cross_entropy(x, t, w, label_smoothing=eps), (x,))
    assert gradcheck(lambda x: F.cross_entropy(x, t, reduction="none", label_smoothing=eps), (x,))


def test_cross_entropy_gradcheck_probabilities_wrt_input_and_target():
    x = t64(RNG.standard_normal((3, 4)), grad=True)
    p = t64(RNG.random((3, 4)), grad=True)
    assert gradcheck(lambda x, p: F.cross_entropy(x, p, label_smoothing=0.1), (x, p))


def test_cross_entropy_gradient_is_softmax_minus_onehot():
    x = RNG.standard_normal((4, 3))
    t = np.array([2, 0, 1, 1])
    xt = t64(x, grad=True)
    F.cross_entropy(xt, mg.tensor(t), reduction="sum").backward()
    softmax = np.exp(log_softmax_ref(x))
    np.testing.assert_allclose(xt.grad.numpy(), softmax - np.eye(3)[t], atol=1e-14)


def test_cross_entropy_second_derivative():
    x = t64(RNG.standard_normal((2, 3)), grad=True)
    t = mg.tensor(np.array([1, 2]))

    def grad_sq(x):
        with mg.enable_grad():
            (g,) = mg.autograd.grad(F.cross_entropy(x, t), (x,), create_graph=True)
            return (g * g).sum()

    assert gradcheck(grad_sq, (x,))


def test_cross_entropy_is_stable_for_huge_logits():
    x = t64([[1000.0, 0.0, -1000.0], [-5000.0, 5000.0, 0.0]], grad=True)
    loss = F.cross_entropy(x, mg.tensor(np.array([0, 0])), reduction="none")
    np.testing.assert_allclose(loss.detach().numpy(), [0.0, 10000.0])
    loss.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    x32 = mg.tensor([[1000.0, -1000.0]], dtype=mg.float32)
    assert np.isfinite(F.cross_entropy(x32, mg.tensor(np.array([1]))).item())


def test_all_targets_ignored_gives_nan_loss_and_zero_gradient():
    x = t64(RNG.standard_normal((3, 4)), grad=True)
    t = mg.tensor(np.array([-100, -100, -100]))
    for eps in (0.0, 0.1):
        x.grad = None
        loss = F.cross_entropy(x, t, label_smoothing=eps)
        assert np.isnan(loss.item())
        loss.backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4)))


def test_class_loss_errors_name_the_shapes():
    x = mg.randn(4, 3)
    with pytest.raises(RuntimeError, match=r"input of shape \(4, 3\).*\(4,\).*got \(4, 2\)"):
        F.cross_entropy(x, mg.zeros(4, 2, dtype=mg.int64))
    with pytest.raises(RuntimeError, match=r"probability targets must have the input's shape"):
        F.cross_entropy(x, mg.zeros(4, 5))
    with pytest.raises(RuntimeError, match="dtype int64 or uint8, got float32"):
        F.nll_loss(x, mg.zeros(4))
    with pytest.raises(IndexError, match="target 3 is out of bounds"):
        F.cross_entropy(x, mg.tensor(np.array([0, 1, 2, 3])))
    with pytest.raises(IndexError, match="target -1 is out of bounds"):
        F.nll_loss(x, mg.tensor(np.array([0, 1, 2, -1])))
    with pytest.raises(RuntimeError, match=r"weight must have shape \(3,\)"):
        F.cross_entropy(x, mg.tensor(np.array([0, 1, 2, 0])), weight=mg.ones(4))
    with pytest.raises(ValueError, match="reduction must be"):
        F.cross_entropy(x, mg.tensor(np.array([0, 1, 2, 0])), reduction="avg")
    with pytest.raises(RuntimeError, match="label_smoothing"):  # at the call, as PyTorch
        nn.CrossEntropyLoss(label_smoothing=1.5)(x, mg.tensor(np.array([0, 1, 2, 0])))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.cross_entropy(mg.tensor(np.array([[1, 2]])), mg.tensor(np.array([0])))


# ------------------------------------------------------------------------------------------------
# Regression and binary losses
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_mse_and_l1(reduction):
    x, y = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    np.testing.assert_allclose(
        F.mse_loss(t64(x), t64(y), reduction=reduction).numpy(),
        reduce_ref((x - y) ** 2, reduction),
        rtol=1e-14,
    )
    np.testing.assert_allclose(
        F.l1_loss(t64(x), t64(y), reduction=reduction).numpy(),
        reduce_ref(np.abs(x - y), reduction),
        rtol=1e-14,
    )
    xt, yt = t64(x, grad=True), t64(y, grad=True)
    assert gradcheck(lambda a, b: F.mse_loss(a, b, reduction=reduction), (xt, yt))
    assert gradcheck(lambda a, b: F.l1_loss(a, b, reduction=reduction), (xt, yt))


def test_mse_broadcast_warns_and_mismatch_raises():
    with pytest.warns(UserWarning, match=r"target shape \(3, 1\) differs from input shape"):
        F.mse_loss(mg.randn(3, 4), mg.randn(3, 1))
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        F.l1_loss(mg.randn(3, 4), mg.randn(2, 4))


def bce_ref(x, y, w):
    loss = -(y * np.maximum(np.log(x), -100) + (1 - y) * np.maximum(np.log1p(-x), -100))
    return loss if w is None else loss * w


@pytest.mark.parametrize(
    "reduction,weighted", list(itertools.product(["none", "mean", "sum"], [False, True]))
)
def test_binary_cross_entropy(reduction, weighted):
    x = RNG.uniform(0.05, 0.95, (4, 3))
    y = RNG.random((4, 3))
    w = RNG.random((4, 3)) if weighted else None
    got = F.binary_cross_entropy(t64(x), t64(y), None if w is None else t64(w), reduction=reduction)
    np.testing.assert_allclose(got.numpy(), reduce_ref(bce_ref(x, y, w), reduction), rtol=1e-13)
    xt, yt = t64(x, grad=True), t64(y, grad=True)
    wt = None if w is None else t64(w)
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b, wt, reduction=reduction), (xt, yt))


def test_binary_cross_entropy_clamps_log_at_minus_100():
    x = t64([0.0, 1.0, 0.0, 1.0], grad=True)
    y = t64([1.0, 0.0, 0.0, 1.0])
    loss = F.binary_cross_entropy(x, y, reduction="none")
    np.testing.assert_array_equal(loss.detach().numpy(), [100.0, 100.0, 0.0, 0.0])
    loss.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()  # PyTorch's (x - y) / max(x (1 - x), 1e-12)
    np.testing.assert_allclose(x.grad.numpy(), [-1e12, 1e12, 0.0, 0.0])


def bce_logits_ref(z, y, w, pw):
    log_sig = -np.logaddexp(0, -z)  # log sigmoid(z), stable
    log_one_minus = -np.logaddexp(0, z)  # log(1 - sigmoid(z))
    p = 1.0 if pw is None else pw
    loss = -(p * y * log_sig + (1 - y) * log_one_minus)
    return loss if w is None else loss * w


@pytest.mark.parametrize(
    "reduction,weighted,pos",
    list(itertools.product(["none", "mean", "sum"], [False, True], [False, True])),
)
def test_binary_cross_entropy_with_logits(reduction, weighted, pos):
    z = RNG.standard_normal((4, 3)) * 4
    z[0, 0] = 0.0  # the kink of max(-z, 0): the gradient there must still be sigmoid(0) - y
    y = RNG.random((4, 3))
    w = RNG.random((4, 3)) if weighted else None
    pw = RNG.random(3) * 3 if pos else None
    got = F.binary_cross_entropy_with_logits(
        t64(z),
        t64(y),
        None if w is None else t64(w),
        reduction=reduction,
        pos_weight=None if pw is None else t64(pw),
    )
    ref = reduce_ref(bce_logits_ref(z, y, w, pw), reduction)
    np.testing.assert_allclose(got.numpy(), ref, rtol=1e-12, atol=1e-14)
    zt, yt = t64(z, grad=True), t64(y, grad=True)
    wt, pwt = (None if w is None else t64(w)), (None if pw is None else t64(pw))

    def f(a, b):
        return F.binary_cross_entropy_with_logits(a, b, wt, reduction=reduction, pos_weight=pwt)

    assert gradcheck(f, (zt, yt))


def test_bce_with_logits_is_stable_for_huge_logits():
    z = t64([800.0, -800.0, 40.0, -40.0], grad=True)
    y = t64([0.0, 1.0, 1.0, 0.0])
    loss = F.binary_cross_entropy_with_logits(z, y, reduction="none")
    # the true tails are ~4e-18; like PyTorch's form, ours may round the last one to 0
    np.testing.assert_allclose(
        loss.detach().numpy(),
        [800.0, 800.0, np.log1p(np.exp(-40.0)), np.log1p(np.exp(-40.0))],
        rtol=1e-12,
        atol=1e-17,
    )
    loss.sum().backward()
    np.testing.assert_allclose(
        z.grad.numpy(), [1.0, -1.0, -np.exp(-40.0), np.exp(-40.0)], rtol=1e-9, atol=1e-17
    )


def test_binary_loss_errors():
    with pytest.raises(RuntimeError, match="input should be between 0 and 1"):
        F.binary_cross_entropy(mg.tensor([0.5, 1.5]), mg.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"target shape \(3,\) differs from input shape \(2,\)"):
        F.binary_cross_entropy(mg.tensor([0.5, 0.5]), mg.tensor([0.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match=r"target shape \(2, 1\) differs"):
        F.binary_cross_entropy_with_logits(mg.randn(2), mg.randn(2, 1))


# ------------------------------------------------------------------------------------------------
# Modules, legacy arguments, float32 under autocast
# ------------------------------------------------------------------------------------------------
def test_loss_modules_match_functions_and_keep_weight_as_buffer():
    x, t = mg.randn(5, 3), mg.tensor(np.array([0, 2, 1, 1, 0]))
    w = mg.tensor([1.0, 2.0, 3.0])
    ce = nn.CrossEntropyLoss(weight=w, label_smoothing=0.1, reduction="sum")
    np.testing.assert_array_equal(
        ce(x, t).numpy(), F.cross_entropy(x, t, w, label_smoothing=0.1, reduction="sum").numpy()
    )
    assert list(ce.state_dict()) == ["weight"] and list(ce.parameters()) == []
    assert nn.NLLLoss()(x.log_softmax(1), t).item() == pytest.approx(F.cross_entropy(x, t).item())
    y = mg.randn(5, 3)
    assert nn.MSELoss(reduction="none")(x, y).shape == (5, 3)
    assert nn.L1Loss()(x, y).item() == pytest.approx(F.l1_loss(x, y).item())
    p = x.sigmoid()
    b = (y > 0).float()
    assert nn.BCELoss()(p, b).item() == pytest.approx(nn.BCEWithLogitsLoss()(x, b).item(), rel=1e-5)
    bce = nn.BCEWithLogitsLoss(pos_weight=mg.tensor([2.0, 1.0, 0.5]))
    assert list(bce.state_dict()) == ["pos_weight"]


def test_legacy_size_average_and_reduce():
    x, t = mg.randn(4, 3), mg.tensor(np.array([0, 1, 2, 0]))
    total = F.cross_entropy(x, t, reduction="sum").item()
    assert F.cross_entropy(x, t, size_average=False).item() == pytest.approx(total)
    assert F.cross_entropy(x, t, reduce=False).shape == (4,)
    assert nn.MSELoss(size_average=False).reduction == "sum"


def test_losses_compute_in_float32_under_autocast():
    logits = mg.randn(8, 5)
    t = mg.tensor(RNG.integers(0, 5, 8))
    ref = F.cross_entropy(logits, t).item()
    with mg.autocast():
        low = logits.to(mg.bfloat16)
        loss = F.cross_entropy(low, t)
        assert loss.dtype == mg.float32
        assert F.mse_loss(low, low * 2).dtype == mg.float32
        assert F.binary_cross_entropy_with_logits(low, (low > 0).float()).dtype == mg.float32
    assert loss.item() == pytest.approx(ref, rel=2e-2)  # only the bfloat16 logits are rounded


# ------------------------------------------------------------------------------------------------
# PyTorch parity (optional oracle)
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "reduction,eps,weighted,ignore",
    list(itertools.product(["none", "mean", "sum"], [0.0, 0.25], [False, True], [-100, 1])),
)
def test_cross_entropy_torch_parity(reduction, eps, weighted, ignore):
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((4, 5, 3))
    t = RNG.integers(0, 5, (4, 3))
    t[0, 0] = ignore if ignore >= 0 else -100
    w = RNG.random(5) + 0.5 if weighted else None
    ours = t64(x, grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    a = F.cross_entropy(
        ours,
        mg.tensor(t),
        None if w is None else t64(w),
        ignore_index=ignore,
        reduction=reduction,
        label_smoothing=eps,
    )
    b = torch.nn.functional.cross_entropy(
        theirs,
        torch.tensor(t),
        None if w is None else torch.tensor(w),
        ignore_index=ignore,
        reduction=reduction,
        label_smoothing=eps,
    )
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-14)
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-14)
    p = RNG.random(x.shape)
    p /= p.sum(1, keepdims=True)
    a = F.cross_entropy(
        t64(x), t64(p), None if w is None else t64(w), reduction=reduction, label_smoothing=eps
    )
    b = torch.nn.functional.cross_entropy(
        torch.tensor(x),
        torch.tensor(p),
        None if w is None else torch.tensor(w),
        reduction=reduction,
        label_smoothing=eps,
    )
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_binary_losses_torch_parity_including_edges(reduction):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    x = RNG.random((4, 3))
    x[0, 0], x[1, 1] = 0.0, 1.0
    y = RNG.random((4, 3))
    w = RNG.random((4, 3))
    pairs = [(t64(x, grad=True), torch.tensor(x, requires_grad=True))]
    a = F.binary_cross_entropy(pairs[0][0], t64(y), t64(w), reduction=reduction)
    b = tf.binary_cross_entropy(pairs[0][1], torch.tensor(y), torch.tensor(w), reduction=reduction)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    a.sum().backward()
    b.sum().backward()
    # gradients of ~1e11 at x = 0 and 1: equal up to the order of rounding
    np.testing.assert_allclose(pairs[0][0].grad.numpy(), pairs[0][1].grad.numpy(), rtol=1e-8)
    z = (x - 0.5) * 60
    pw = RNG.random(3) * 3
    ours, theirs = t64(z, grad=True), torch.tensor(z, requires_grad=True)
    a = F.binary_cross_entropy_with_logits(
        ours, t64(y), t64(w), reduction=reduction, pos_weight=t64(pw)
    )
    b = tf.binary_cross_entropy_with_logits(
        theirs, torch.tensor(y), torch.tensor(w), reduction=reduction, pos_weight=torch.tensor(pw)
    )
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-12)
    a.sum().backward()
    b.sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-15)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 5)])
def test_fused_cross_entropy_matches_the_composed_loss_with_unit_weights(shape, reduction):
    # No weight and no smoothing take one fused op; weight=ones takes log_softmax + nll_loss.
    rng = np.random.default_rng(3)
    x0 = rng.standard_normal(shape) * 3
    t0 = rng.integers(0, 4, (shape[0],) + shape[2:])
    t0.reshape(-1)[::3] = -1  # some ignored samples
    g = mg.tensor(rng.standard_normal(t0.shape)) if reduction == "none" else None
    results = []
    for weight in (None, mg.ones(4, dtype=mg.float64)):
        x = mg.tensor(x0, requires_grad=True)
        t = mg.tensor(t0)
        loss = F.cross_entropy(x, t, weight=weight, ignore_index=-1, reduction=reduction)
        (gx,) = mg.autograd.grad(loss, x, g, create_graph=True)  # first and second derivatives
        (ggx,) = mg.autograd.grad((gx * gx).sum(), x)
        results.append((loss.detach().numpy(), gx.detach().numpy(), ggx.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    x = mg.tensor(x0, requires_grad=True)
    assert gradcheck(lambda x: F.cross_entropy(x, mg.tensor(t0), ignore_index=-1), (x,))


def test_fused_cross_entropy_with_every_target_ignored_is_nan_with_zero_gradient():
    x = mg.randn(3, 4, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor([-100, -100, -100]))
    assert np.isnan(loss.item())
    loss.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((3, 4), np.float32))


@pytest.mark.parametrize("bad", [-1, 4, -101, 2**40])
def test_cross_entropy_refuses_a_class_outside_the_logits_naming_it(bad):
    logits = mg.randn(3, 4)
    with pytest.raises(IndexError, match=rf"target {bad} is out of bounds: .*\[0, 4\)"):
        mg.nn.functional.cross_entropy(logits, mg.tensor([0, bad, 1]))


def test_cross_entropy_takes_ignored_targets_that_are_no_class():
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    loss = mg.nn.functional.cross_entropy(mg.tensor(x), mg.tensor([2, -100, 3]))
    logp = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(loss.item(), -(logp[0, 2] + logp[2, 3]) / 2, rtol=1e-6)


@pytest.mark.parametrize(
    "loss", [nn.NLLLoss(reduction="sum"), nn.MSELoss(reduction="none"), nn.CTCLoss(blank=1)]
)
def test_a_loss_module_prints_none_of_its_options(loss):
    # PyTorch's loss modules have no extra_repr: NLLLoss(reduction='sum') prints NLLLoss()
    assert repr(loss) == type(loss).__name__ + "()"
