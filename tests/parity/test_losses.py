"""PyTorch parity: losses (functional and module forms) with every reduction, class weights,
ignore_index, label smoothing, probability targets, K-dimensional inputs, pos_weight;
values, gradients of input and target, dtypes, and errors.
"""

from __future__ import annotations

import numpy as np
import pytest
from parity_helpers import RTOL_ACC, assert_grads, assert_same, data, pair

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional

REDUCTIONS = ["mean", "sum", "none"]


def _targets(shape, classes, seed, ignore=False):
    t = np.random.default_rng(seed).integers(0, classes, shape)
    if ignore:
        t.flat[::3] = -100
    return t


def _check(m_loss, t_loss, m_leaves, t_leaves, dtype="float32", fw_atol=1e-7):
    rtol = RTOL_ACC[dtype]
    assert_same(m_loss, t_loss, rtol=rtol, atol=fw_atol)
    g = data(tuple(t_loss.shape), "float64", 50) if t_loss.ndim else np.array(1.3)
    m_loss.backward(mg.tensor(g, dtype=m_loss.dtype))
    t_loss.backward(torch.tensor(g, dtype=t_loss.dtype))
    # In float16/bfloat16 a gradient like sigmoid(x) - y is a difference of O(1) terms, each
    # rounded (PyTorch's formula and our composition round at different steps): the error is
    # an ulp of those terms, not of the (small) result.
    atol = 1e-7 if dtype in ("float32", "float64") else 2 * RTOL_ACC[dtype] * float(abs(g).max())
    assert_grads(m_leaves, t_leaves, rtol=rtol, atol=atol)


CE_CASES = {
    "plain": {},
    "weight": {"weight": True},
    "ignore": {"ignore": True},
    "weight_ignore": {"weight": True, "ignore": True},
    "smoothing": {"label_smoothing": 0.2},
    "smoothing_weight_ignore": {"label_smoothing": 0.1, "weight": True, "ignore": True},
    "ignore_index_1": {"ignore_index": 1},
}


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("case", list(CE_CASES))
@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 5), (4,)], ids=["NC", "NCd", "C"])
def test_cross_entropy_class_indices(shape, case, reduction):
    opts = dict(CE_CASES[case])
    if len(shape) == 1 and opts.get("ignore"):
        pytest.skip("an unbatched sample is one target")
    mx, tx = pair(torch, data(shape, "float64", 51) * 2, "float32", requires_grad=True)
    c = shape[1] if len(shape) > 1 else shape[0]
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    target = _targets(tshape, c, 52, opts.pop("ignore", False))
    kw_m, kw_t = {"reduction": reduction}, {"reduction": reduction}
    if opts.pop("weight", False):
        w = np.abs(data((c,), "float64", 53)) + 0.2
        kw_m["weight"], kw_t["weight"] = pair(torch, w, "float32")
    kw_m.update(opts)
    kw_t.update(opts)
    m_loss = F.cross_entropy(mx, mg.tensor(target), **kw_m)
    t_loss = TF.cross_entropy(tx, torch.tensor(target), **kw_t)
    _check(m_loss, t_loss, [mx], [tx])
    m_mod = nn.CrossEntropyLoss(**kw_m)(mx.detach(), mg.tensor(target))
    t_mod = tnn_loss("CrossEntropyLoss", kw_t)(tx.detach(), torch.tensor(target))
    assert_same(m_mod, t_mod, rtol=1e-5, atol=1e-7)


def tnn_loss(name, kwargs):
    return getattr(torch.nn, name)(**kwargs)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
@pytest.mark.parametrize("weight", [False, True])
def test_cross_entropy_probability_targets(reduction, smoothing, weight):
    mx, tx = pair(torch, data((5, 4, 2), "float64", 54), "float32", requires_grad=True)
    p = np.random.default_rng(55).dirichlet(np.ones(4), (5, 2)).transpose(0, 2, 1)
    mp, tp = pair(torch, p, "float32", requires_grad=True)
    kw_m = {"reduction": reduction, "label_smoothing": smoothing}
    kw_t = dict(kw_m)
    if weight:
        kw_m["weight"], kw_t["weight"] = pair(torch, [0.5, 1.0, 2.0, 1.5], "float32")
    _check(F.cross_entropy(mx, mp, **kw_m), TF.cross_entropy(tx, tp, **kw_t), [mx, mp], [tx, tp])


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_cross_entropy_other_dtypes(dtype):
    mx, tx = pair(torch, data((6, 5), "float64", 56), dtype, requires_grad=True)
    target = _targets((6,), 5, 57)
    _check(
        F.cross_entropy(mx, mg.tensor(target)),
        TF.cross_entropy(tx, torch.tensor(target)),
        [mx],
        [tx],
        dtype,
    )


def test_cross_entropy_all_targets_ignored_is_nan_with_zero_gradient():
    mx, tx = pair(torch, data((3, 4), "float64", 58), "float32", requires_grad=True)
    target = np.full(3, -100)
    m_loss = F.cross_entropy(mx, mg.tensor(target))
    t_loss = TF.cross_entropy(tx, torch.tensor(target))
    assert_same(m_loss, t_loss)
    m_loss.backward()
    t_loss.backward()
    assert_grads([mx], [tx])


def test_cross_entropy_is_stable_for_huge_logits():
    mx, tx = pair(torch, [[1000.0, 0.0, -1000.0], [0.0, 2000.0, 0.0]], "float32", True)
    target = [2, 1]
    _check(
        F.cross_entropy(mx, mg.tensor(target)),
        TF.cross_entropy(tx, torch.tensor(target)),
        [mx],
        [tx],
    )


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 2, 2)], ids=["NC", "NCHW"])
def test_nll_loss(shape, weight, reduction):
    logp = np.log(np.random.default_rng(59).dirichlet(np.ones(shape[1]), shape[:1] + shape[2:]))
    logp = np.moveaxis(logp, -1, 1)
    mx, tx = pair(torch, logp, "float32", requires_grad=True)
    target = _targets(shape[:1] + shape[2:], shape[1], 60, ignore=True)
    kw_m = {"reduction": reduction}
    kw_t = dict(kw_m)
    if weight:
        kw_m["weight"], kw_t["weight"] = pair(torch, np.arange(1.0, shape[1] + 1), "float32")
    _check(
        F.nll_loss(mx, mg.tensor(target), **kw_m),
        TF.nll_loss(tx, torch.tensor(target), **kw_t),
        [mx],
        [tx],
    )
    m_mod = nn.NLLLoss(**kw_m)(mx.detach(), mg.tensor(target))
    assert_same(m_mod, tnn_loss("NLLLoss", kw_t)(tx.detach(), torch.tensor(target)), rtol=1e-5)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_regression_losses(name, reduction, dtype):
    mx, tx = pair(torch, data((4, 3), "float64", 61), dtype, requires_grad=True)
    my, ty = pair(torch, data((4, 3), "float64", 62), dtype, requires_grad=True)
    _check(
        getattr(F, name)(mx, my, reduction=reduction),
        getattr(TF, name)(tx, ty, reduction=reduction),
        [mx, my],
        [tx, ty],
        dtype,
    )
    module = {"mse_loss": "MSELoss", "l1_loss": "L1Loss"}[name]
    assert_same(
        getattr(nn, module)(reduction=reduction)(mx.detach(), my.detach()),
        tnn_loss(module, {"reduction": reduction})(tx.detach(), ty.detach()),
        rtol=RTOL_ACC[dtype],
    )


def test_l1_gradient_is_zero_where_input_equals_target():
    mx, tx = pair(torch, [1.0, 2.0, 3.0], "float32", requires_grad=True)
    _check(
        F.l1_loss(mx, mg.tensor([1.0, 0.0, 3.0])),
        TF.l1_loss(tx, torch.tensor([1.0, 0, 3])),
        [mx],
        [tx],
    )


def test_regression_losses_broadcast_with_a_warning():
    mx, tx = pair(torch, data((4, 3), "float64", 63), "float32", requires_grad=True)
    my, ty = pair(torch, data((3,), "float64", 64), "float32")
    with pytest.warns(UserWarning):
        t_loss = TF.mse_loss(tx, ty)
    with pytest.warns(UserWarning):
        m_loss = F.mse_loss(mx, my)
    _check(m_loss, t_loss, [mx], [tx])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight", [False, True])
def test_binary_cross_entropy(reduction, weight):
    p = np.random.default_rng(65).uniform(0.02, 0.98, (5, 3))
    p[0, 0], p[1, 1] = 0.0, 1.0  # the clamped logs: -100 instead of -inf
    mx, tx = pair(torch, p, "float32", requires_grad=True)
    y = np.random.default_rng(66).uniform(0, 1, (5, 3))
    y[0, 0], y[1, 1] = 1.0, 0.0
    my, ty = pair(torch, y, "float32")
    kw_m, kw_t = {"reduction": reduction}, {"reduction": reduction}
    if weight:
        kw_m["weight"], kw_t["weight"] = pair(torch, [0.5, 1.0, 2.0], "float32")
    m_loss, t_loss = F.binary_cross_entropy(mx, my, **kw_m), TF.binary_cross_entropy(tx, ty, **kw_t)
    assert_same(m_loss, t_loss, rtol=1e-5)
    m_loss.sum().backward()
    t_loss.sum().backward()
    assert_grads([mx], [tx], rtol=1e-5)
    assert_same(
        nn.BCELoss(**kw_m)(mx.detach(), my), tnn_loss("BCELoss", kw_t)(tx.detach(), ty), rtol=1e-5
    )


def test_binary_cross_entropy_target_gradient():
    mx, tx = pair(torch, np.random.default_rng(67).uniform(0.05, 0.95, (4,)), "float32", True)
    my, ty = pair(torch, [0.0, 0.3, 1.0, 0.5], "float32", requires_grad=True)
    _check(F.binary_cross_entropy(mx, my), TF.binary_cross_entropy(tx, ty), [mx, my], [tx, ty])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weights", ["none", "weight", "pos_weight", "both"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_binary_cross_entropy_with_logits(reduction, weights, dtype):
    x = data((5, 3), "float64", 68) * 4
    x[0, 0], x[1, 1] = 60.0, -60.0  # stable far from 0
    mx, tx = pair(torch, x, dtype, requires_grad=True)
    my, ty = pair(torch, np.random.default_rng(69).uniform(0, 1, (5, 3)), dtype, True)
    kw_m, kw_t = {"reduction": reduction}, {"reduction": reduction}
    if weights in ("weight", "both"):
        kw_m["weight"], kw_t["weight"] = pair(torch, [0.5, 1.0, 2.0], dtype)
    if weights in ("pos_weight", "both"):
        kw_m["pos_weight"], kw_t["pos_weight"] = pair(torch, [3.0, 0.5, 1.0], dtype)
    m_loss = F.binary_cross_entropy_with_logits(mx, my, **kw_m)
    fw_atol = 1e-7
    if dtype == "float16":
        # Ours computes in float32 and rounds once: within half an ulp of the float64 closed
        # form. PyTorch's float16 composite rounds (1 - y) x and log sigmoid(x) first, an error
        # of a few ulps of those terms (|x| <= ~12 here, apart from the saturated +-60).
        truth = _bce_with_logits_float64(mx, my, kw_m.get("weight"), kw_m.get("pos_weight"))
        truth = {"mean": truth.mean(), "sum": truth.sum()}.get(reduction, truth)
        got = m_loss.detach().double().numpy()
        np.testing.assert_allclose(got, truth, rtol=2.0**-11 * 1.02, atol=2.0**-25)
        fw_atol = 2.0**-5  # (PyTorch: up to 0.01 off, for weights up to 2)
    _check(
        m_loss,
        TF.binary_cross_entropy_with_logits(tx, ty, **kw_t),
        [mx, my],
        [tx, ty],
        dtype,
        fw_atol,
    )
    assert_same(
        nn.BCEWithLogitsLoss(**kw_m)(mx.detach(), my.detach()),
        tnn_loss("BCEWithLogitsLoss", kw_t)(tx.detach(), ty.detach()),
        rtol=RTOL_ACC[dtype],
        atol=fw_atol,
    )


def _bce_with_logits_float64(x, y, weight, pos_weight) -> np.ndarray:
    """w ((1 - y) x - (1 + (p - 1) y) log sigmoid(x)) in float64 (NumPy), per element."""
    x, y = (t.detach().double().numpy() for t in (x, y))
    w = 1.0 if weight is None else weight.double().numpy()
    p = 1.0 if pos_weight is None else pos_weight.double().numpy()
    return w * ((1 - y) * x + (1 + (p - 1) * y) * np.logaddexp(0.0, -x))


LOSS_ERRORS = {
    "ce_target_out_of_range": lambda L, F_: F_.cross_entropy(L.randn(3, 4), L.tensor([0, 4, 1])),
    "ce_float_target_wrong_shape": lambda L, F_: F_.cross_entropy(L.randn(3, 4), L.rand(3, 5)),
    "ce_target_shape": lambda L, F_: F_.cross_entropy(L.randn(3, 4), L.tensor([0, 1])),
    "ce_bad_reduction": lambda L, F_: F_.cross_entropy(
        L.randn(3, 4), L.tensor([0, 1, 2]), reduction="avg"
    ),
    "ce_weight_shape": lambda L, F_: F_.cross_entropy(
        L.randn(3, 4), L.tensor([0, 1, 2]), weight=L.ones(3)
    ),
    "nll_float_target": lambda L, F_: F_.nll_loss(L.randn(3, 4), L.tensor([0.0, 1.0, 2.0])),
    "bce_out_of_range": lambda L, F_: F_.binary_cross_entropy(L.tensor([1.5]), L.tensor([1.0])),
    "bce_shape": lambda L, F_: F_.binary_cross_entropy(L.rand(3), L.rand(2)),
    "bce_logits_shape": lambda L, F_: F_.binary_cross_entropy_with_logits(L.rand(3), L.rand(2)),
}


@pytest.mark.parametrize("case", list(LOSS_ERRORS))
def test_loss_errors(case):
    with pytest.raises((RuntimeError, ValueError, IndexError, TypeError)):
        LOSS_ERRORS[case](torch, TF)
    with pytest.raises((RuntimeError, ValueError, IndexError, TypeError)):
        LOSS_ERRORS[case](mg, F)


def test_loss_modules_register_weights_as_buffers():
    for name, kwargs in [
        ("CrossEntropyLoss", {"weight": [1.0, 2.0]}),
        ("NLLLoss", {"weight": [1.0, 2.0]}),
        ("BCELoss", {"weight": [1.0, 2.0]}),
        ("BCEWithLogitsLoss", {"weight": [1.0, 2.0], "pos_weight": [2.0, 1.0]}),
        ("MSELoss", {}),
    ]:
        m = getattr(nn, name)(**{k: mg.tensor(v) for k, v in kwargs.items()})
        t = getattr(torch.nn, name)(**{k: torch.tensor(v) for k, v in kwargs.items()})
        assert sorted(m.state_dict()) == sorted(t.state_dict())
        assert [n for n, _ in m.named_parameters()] == []
