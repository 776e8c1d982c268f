"""Layers: each forward against a NumPy reference, each gradient against central finite
differences in float64 (gradcheck), train/eval differences, and PyTorch parity where installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis import nn
from minigenesis.autograd import gradcheck

RNG = np.random.default_rng(0)


def t64(*shape, requires_grad=True, scale=1.0, device="cpu"):
    data = RNG.standard_normal(shape) * scale
    return mg.tensor(data, dtype=mg.float64, device=device, requires_grad=requires_grad)


def npy(t):
    return t.detach().cpu().numpy()


# ------------------------------------------------------------------------------ Linear
@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_forward_and_gradients(shape, bias, device):
    x, w = t64(*shape, device=device), t64(4, 3, device=device)
    b = t64(4, device=device) if bias else None
    ref = npy(x) @ npy(w).T + (npy(b) if bias else 0)
    np.testing.assert_allclose(npy(F.linear(x, w, b)), ref, rtol=1e-12)
    inputs = (x, w, b) if bias else (x, w)
    assert gradcheck(lambda *a: F.linear(*a), inputs)


def test_linear_module_shapes_dtype_and_errors():
    lin = nn.Linear(3, 4, dtype=mg.float64)
    assert lin.weight.shape == (4, 3) and lin.bias.shape == (4,)
    assert lin.weight.dtype is mg.float64 and lin(mg.randn(2, 3).double()).shape == (2, 4)
    assert nn.Linear(3, 4, bias=False).bias is None
    with pytest.raises(RuntimeError, match="3 features in its last dim but the weight expects 5"):
        nn.Linear(5, 2)(mg.randn(2, 3))
    with pytest.raises(ValueError, match=r"bias has shape \(3,\)"):
        F.linear(mg.randn(2, 3), mg.randn(4, 3), mg.randn(3))
    # Mixed dtypes are refused, as PyTorch (a float16 input into a float32 layer).
    with pytest.raises(
        RuntimeError, match="linear: expected input, weight and bias to have the same"
    ):
        nn.Linear(3, 2)(mg.randn(1, 3).half())


def test_linear_second_derivative():
    x, w, b = t64(3, 2), t64(2, 2), t64(2)

    def grad_of_sum_of_squares(x, w, b):
        (gx,) = mg.autograd.grad((F.linear(x, w, b) ** 2).sum(), [x], create_graph=True)
        return gx

    assert gradcheck(grad_of_sum_of_squares, (x, w, b))


# ------------------------------------------------------------------------------ Embedding
def test_embedding_forward_and_gradient_with_repeated_indices():
    w = t64(6, 3)
    idx = mg.tensor([[0, 2, 2], [5, 0, 1]])
    np.testing.assert_array_equal(npy(F.embedding(idx, w)), npy(w)[idx.numpy()])
    assert gradcheck(lambda w: F.embedding(idx, w), (w,))
    F.embedding(idx, w).sum().backward()
    counts = np.bincount(idx.numpy().ravel(), minlength=6)[:, None] * np.ones((1, 3))
    np.testing.assert_array_equal(w.grad.numpy(), counts)  # repeats add up


def test_embedding_padding_idx_gets_no_gradient_and_starts_at_zero():
    mg.manual_seed(0)
    emb = nn.Embedding(5, 3, padding_idx=1)
    assert float(emb.weight[1].abs().sum()) == 0
    emb(mg.tensor([1, 1, 2, 4])).sum().backward()
    g = emb.weight.grad.numpy()
    assert np.all(g[1] == 0) and np.all(g[2] == 1) and np.all(g[4] == 1)
    # Finite differences see the padding row (the forward reads it), so check the other rows.
    assert gradcheck(lambda w: F.embedding(mg.tensor([0, 3, 0]), w, padding_idx=1), (t64(4, 2),))


@pytest.mark.parametrize("padding_idx", [None, 2])
def test_embedding_gradient_sums_repeated_rows_and_differentiates_again(padding_idx):
    rng = np.random.default_rng(0)
    idx = rng.integers(0, 7, (5, 9))
    idx[0, :3] = 2  # a run of one index, and (with padding_idx=2) padding among the rows
    w = t64(7, 4)
    gy = mg.tensor(rng.standard_normal((5, 9, 4)), requires_grad=True)
    (gw,) = mg.autograd.grad(F.embedding(mg.tensor(idx), w, padding_idx), w, gy, create_graph=True)
    expected = np.zeros((7, 4))
    np.add.at(expected, idx.ravel(), gy.detach().numpy().reshape(-1, 4))
    if padding_idx is not None:
        expected[padding_idx] = 0
    np.testing.assert_allclose(gw.detach().numpy(), expected, rtol=1e-12)
    # d/d gy of sum(g_W * R) = R[idx], zero on the padding rows (they never reach g_W)
    r = rng.standard_normal((7, 4))
    (gw * mg.tensor(r)).sum().backward()
    picked = r[idx] * (idx != padding_idx)[..., None] if padding_idx is not None else r[idx]
    np.testing.assert_allclose(gy.grad.numpy(), picked, rtol=1e-12)


def test_embedding_errors_and_extras():
    emb = nn.Embedding(4, 2)
    with pytest.raises(IndexError, match=r"index 4 is out of bounds: expected values in \[0, 4\)"):
        emb(mg.tensor([0, 4]))
    with pytest.raises(RuntimeError, match="dtype int64 or int32, got float32"):
        emb(mg.tensor([0.0, 1.0]))
    w = mg.randn(3, 2)
    frozen = nn.Embedding.from_pretrained(w)
    assert not frozen.weight.requires_grad and frozen(mg.tensor([2])).shape == (1, 2)
    np.testing.assert_array_equal(
        F.one_hot(mg.tensor([0, 2]), 3).numpy(), np.array([[1, 0, 0], [0, 0, 1]])
    )
    big = nn.Embedding(3, 4, max_norm=1.0)
    big(mg.tensor([0, 1]))
    norms = np.linalg.norm(big.weight.detach().numpy()[:2], axis=1)
    assert np.all(norms <= 1.0 + 1e-5)


def test_embedding_max_norm_rescales_float64_rows_in_float64():
    rows = np.array([[3.0, 4.0, 0.0], [0.3, 0.4, 0.0], [1.0, 2.0, 2.0]])
    emb = nn.Embedding(3, 3, max_norm=1.0, dtype=mg.float64)
    with mg.no_grad():
        emb.weight.copy_(mg.tensor(rows))
    out = emb(mg.tensor([0, 1, 2])).detach().numpy()
    # PyTorch's rule: a row of norm n > max_norm is scaled by max_norm / (n + 1e-7)
    expected = rows * np.array([1 / (5 + 1e-7), 1.0, 1 / (3 + 1e-7)])[:, None]
    np.testing.assert_allclose(out, expected, rtol=1e-15)
    np.testing.assert_allclose(emb.weight.detach().numpy(), expected, rtol=1e-15)


# ------------------------------------------------------------------------------ Dropout
def test_dropout_statistics_scaling_and_reproducibility():
    mg.manual_seed(0)
    x = mg.ones(200, 500)
    y = F.dropout(x, p=0.3)
    a = y.numpy()
    assert abs((a == 0).mean() - 0.3) < 0.01  # 100k Bernoulli draws: sd of the mean ~0.0015
    np.testing.assert_allclose(a[a != 0], 1 / 0.7, rtol=1e-6)  # survivors scaled
    mg.manual_seed(0)
    np.testing.assert_array_equal(F.dropout(x, p=0.3).numpy(), a)  # same seed, same mask


def test_dropout_gradient_uses_the_same_mask_and_eval_is_identity():
    mg.manual_seed(1)
    x = t64(50, 20)
    y = F.dropout(x, p=0.5)
    y.sum().backward()
    kept = npy(y) != 0
    np.testing.assert_allclose(x.grad.numpy(), np.where(kept, 2.0, 0.0))
    drop = nn.Dropout(0.5)
    drop.eval()
    assert drop(x) is x
    assert F.dropout(x, 0.0) is x
    assert float(F.dropout(x, 1.0).abs().sum()) == 0
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


# ------------------------------------------------------------------------------ LayerNorm / RMSNorm
def ln_ref(x, w, b, axes, eps):
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


@pytest.mark.parametrize("shape,normalized", [((4, 5), (5,)), ((2, 3, 4), (3, 4))])
def test_layer_norm_forward_and_gradients(shape, normalized, device):
    x, w, b = (t64(*s, device=device) for s in (shape, normalized, normalized))
    axes = tuple(range(len(shape) - len(normalized), len(shape)))
    ref = ln_ref(npy(x), npy(w), npy(b), axes, 1e-5)
    np.testing.assert_allclose(npy(F.layer_norm(x, normalized, w, b)), ref, rtol=1e-10)
    assert gradcheck(lambda x, w, b: F.layer_norm(x, normalized, w, b), (x, w, b))
    assert gradcheck(lambda x: F.layer_norm(x, normalized), (x,))


def test_layer_norm_second_derivative():
    x, w, b = t64(3, 4), t64(4), t64(4)

    def grad_fn(x, w, b):
        y = F.layer_norm(x, (4,), w, b)
        gx, gw = mg.autograd.grad((y * y * y).sum(), [x, w], create_graph=True)
        return gx, gw

    assert gradcheck(grad_fn, (x, w, b))


def test_layer_norm_module_low_precision_and_errors():
    ln = nn.LayerNorm(6)
    assert np.all(ln.weight.detach().numpy() == 1) and np.all(ln.bias.detach().numpy() == 0)
    x = mg.randn(4, 6) * 3 + 2
    ref = ln(x)
    for low in (mg.float16, mg.bfloat16):
        got = nn.LayerNorm(6).to(low)(x.to(low))
        assert got.dtype is low
        np.testing.assert_allclose(got.float().detach().numpy(), npy(ref), atol=3e-2)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[5\]"):
        nn.LayerNorm(5)(x)
    assert nn.LayerNorm(6, elementwise_affine=False).weight is None
    assert nn.LayerNorm(6, bias=False).bias is None


def test_rms_norm_forward_and_gradients():
    x, w = t64(3, 5), t64(5)
    eps = 1e-6
    ref = npy(x) / np.sqrt((npy(x) ** 2).mean(-1, keepdims=True) + eps) * npy(w)
    np.testing.assert_allclose(npy(F.rms_norm(x, (5,), w, eps)), ref, rtol=1e-10)
    assert gradcheck(lambda x, w: F.rms_norm(x, (5,), w, eps), (x, w))
    m = nn.RMSNorm(5)
    assert m.eps is None and m(mg.randn(2, 5)).shape == (2, 5)


# ------------------------------------------------------------------------------ BatchNorm
def test_batchnorm1d_training_forward_running_stats_and_counter():
    bn = nn.BatchNorm1d(3, momentum=0.1).double()
    x = t64(8, 3, scale=2.0)
    y = bn(x)
    xn = npy(x)
    np.testing.assert_allclose(npy(y), (xn - xn.mean(0)) / np.sqrt(xn.var(0) + 1e-5), rtol=1e-10)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * xn.mean(0), rtol=1e-12)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * xn.var(0, ddof=1), rtol=1e-12)
    assert bn.num_batches_tracked.item() == 1
    bn(x)
    assert bn.num_batches_tracked.item() == 2


def test_batchnorm_eval_uses_running_statistics_and_differs_from_training():
    bn = nn.BatchNorm2d(2).double()
    with mg.no_grad():
        bn.running_mean.copy_(mg.tensor([1.0, -1.0]))
        bn.running_var.copy_(mg.tensor([4.0, 0.25]))
        bn.weight.copy_(mg.tensor([2.0, 3.0]))
        bn.bias.copy_(mg.tensor([0.5, 0.0]))
    x = t64(3, 2, 4, 4)
    bn.eval()
    y = bn(x)
    rm = np.array([1.0, -1.0])[None, :, None, None]
    rv = np.array([4.0, 0.25])[None, :, None, None]
    w = np.array([2.0, 3.0])[None, :, None, None]
    b = np.array([0.5, 0.0])[None, :, None, None]
    np.testing.assert_allclose(npy(y), (npy(x) - rm) / np.sqrt(rv + 1e-5) * w + b, rtol=1e-10)
    assert bn.num_batches_tracked.item() == 0  # eval does not count
    bn.train()
    assert not np.allclose(npy(bn(x)), npy(y))
    assert gradcheck(
        lambda x: F.batch_norm(x, bn.running_mean, bn.running_var, bn.weight, bn.bias, False), (x,)
    )


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (3, 3, 2, 2)])
def test_batch_norm_training_gradients(shape, device):
    x, w, b = t64(*shape, device=device), t64(3, device=device), t64(3, device=device)
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), (x, w, b))


def test_batchnorm_momentum_none_is_a_cumulative_average_and_errors():
    bn = nn.BatchNorm1d(2, momentum=None).double()
    batches = [t64(5, 2) for _ in range(3)]
    for xb in batches:
        bn(xb)
    means = np.mean([npy(xb).mean(0) for xb in batches], axis=0)
    np.testing.assert_allclose(bn.running_mean.numpy(), means, rtol=1e-12)
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        bn(mg.randn(1, 2).double())
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(2)(mg.randn(3, 2))
    with pytest.raises(RuntimeError, match="has 3 channels"):
        nn.BatchNorm1d(2)(mg.randn(4, 3))
    free = nn.BatchNorm1d(2, track_running_stats=False, affine=False)
    free.eval()
    y = free(mg.randn(6, 2))  # no running statistics: batch statistics even in eval
    np.testing.assert_allclose(npy(y).mean(0), 0, atol=1e-6)


# ------------------------------------------------------------------------------ activations
def _np_gelu(x):
    from math import erf

    return x * 0.5 * (1 + np.vectorize(erf)(x / math.sqrt(2)))


ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0)),
    (nn.GELU(), _np_gelu),
    (
        nn.GELU("tanh"),
        lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))),
    ),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x))),
    (nn.Tanh(), np.tanh),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    (nn.LogSoftmax(dim=1), lambda x: x - np.log(np.exp(x).sum(1, keepdims=True))),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.Softplus(), lambda x: np.log1p(np.exp(x))),
]


@pytest.mark.parametrize("module,ref", ACTIVATIONS, ids=lambda v: type(v).__name__)
def test_activation_modules_forward_and_gradients(module, ref, device):
    x = t64(4, 5, device=device)
    np.testing.assert_allclose(npy(module(x)), ref(npy(x)), rtol=1e-7, atol=1e-12)
    assert gradcheck(module, (x,))


def test_inplace_activations_and_implicit_softmax_dim():
    x = mg.randn(3, 4)
    y = nn.ReLU(inplace=True)(x)
    assert y is x and float(x.min()) >= 0
    with pytest.warns(UserWarning, match="Implicit dimension"):
        s = F.softmax(mg.randn(2, 3))  # 2-D: dim 1, as PyTorch's legacy rule
    np.testing.assert_allclose(npy(s).sum(1), 1, rtol=1e-6)
    assert F.log_softmax(mg.randn(2, 3), dim=-1, dtype=mg.float64).dtype is mg.float64


def test_flatten_unflatten_identity():
    x = t64(2, 3, 4)
    assert nn.Flatten()(x).shape == (2, 12) and nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Unflatten(1, (3, 4))(nn.Flatten()(x)).shape == (2, 3, 4)
    assert nn.Identity(5, foo=1)(x) is x
    assert gradcheck(lambda x: nn.Flatten()(x) * 2, (x,))


# ------------------------------------------------------------------------------ PyTorch parity
def test_layers_match_pytorch_numbers():
    torch = pytest.importorskip("torch")
    x = RNG.standard_normal((6, 4, 3)).astype(np.float32)
    tx = torch.tensor(x, requires_grad=True)
    mx = mg.tensor(x, requires_grad=True)

    tln, mln = torch.nn.LayerNorm(3), nn.LayerNorm(3)
    with torch.no_grad():
        tln.weight.copy_(torch.tensor([1.0, 2.0, -1.0]))
    mln.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in tln.state_dict().items()})
    np.testing.assert_allclose(npy(mln(mx)), tln(tx).detach().numpy(), rtol=1e-5, atol=1e-6)
    (tln(tx) ** 2).sum().backward()
    (mln(mx) ** 2).sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mln.weight.grad.numpy(), tln.weight.grad.numpy(), rtol=1e-4)

    tbn, mbn = torch.nn.BatchNorm1d(4), nn.BatchNorm1d(4)
    for _ in range(3):
        tout, mout = tbn(tx * 2 + 1), mbn(mx * 2 + 1)
    np.testing.assert_allclose(npy(mout), tout.detach().numpy(), rtol=1e-4, atol=1e-5)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(
            getattr(mbn, name).numpy(), getattr(tbn, name).numpy(), rtol=1e-5
        )
    assert mbn.num_batches_tracked.item() == tbn.num_batches_tracked.item()
    tbn.eval()
    mbn.eval()
    np.testing.assert_allclose(npy(mbn(mx)), tbn(tx).detach().numpy(), rtol=1e-5, atol=1e-6)

    trms, mrms = torch.nn.RMSNorm(3), nn.RMSNorm(3)
    np.testing.assert_allclose(npy(mrms(mx)), trms(tx).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert list(mbn.state_dict()) == list(tbn.state_dict())
    assert list(nn.LayerNorm(3).state_dict()) == list(tln.state_dict())


@pytest.mark.parametrize("num_classes", [-1, 3])
def test_one_hot_of_a_negative_class_says_class_values_must_be_non_negative(num_classes):
    with pytest.raises(RuntimeError, match="one_hot: class values must be non-negative, got -2"):
        F.one_hot(mg.tensor([1, -2]), num_classes)
