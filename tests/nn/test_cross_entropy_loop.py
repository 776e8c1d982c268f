"""cross_entropy over class indices through its compiled loops (kernels/cross_entropy_loop.py,
Numba): loss and gradient against a float64 NumPy reference and at least as close to it as the
op's NumPy code (MINIGENESIS_NUMBA=0), every reduction, ignore_index, odd shapes and layouts,
non-finite logits; what it declines (float64, 2-byte floats, large or empty batches, the
recorded gradient of create_graph) runs the NumPy code and gives its numbers."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.kernels import cpu_jit
from minigenesis.kernels import cross_entropy_loop as loop
from tests.nn.compiled_calls import record_calls

pytest.importorskip("numba")


@pytest.fixture
def calls(monkeypatch) -> list[str]:
    """The names of the compiled loops that ran."""
    return record_calls(monkeypatch, loop, ("_forward_loop", "_backward_loop"))


def reference(x, t, reduction="mean", ignore_index=-100, gl=1.0):
    """The loss and dL/dx in float64: log-sum-exp minus the target's logit, softmax minus one-hot
    scaled by the reduction's d(loss)/d l_i (0 for an ignored sample)."""
    x = x.astype(np.float64)
    m = x.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=1, keepdims=True))
    valid = t != ignore_index
    rows, safe = np.arange(len(t)), np.where(valid, t, 0)
    losses = np.where(valid, lse[:, 0] - x[rows, safe], 0.0)
    count = valid.sum()
    if reduction == "mean":  # (no sample counted: NaN, 0/0)
        loss = losses.sum() / count if count else np.nan
        scale = valid * gl / max(count, 1)
    elif reduction == "sum":
        loss, scale = losses.sum(), valid * gl
    else:
        loss, scale = losses, valid * gl
    grad = np.exp(x - lse)
    grad[rows, safe] -= 1.0
    return loss, grad * scale[:, None]


def _run(x, t, gl=None, **kwargs):
    xt = mg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(xt, mg.tensor(t), **kwargs)
    loss.backward(None if gl is None else mg.tensor(gl))
    return loss.detach().numpy().astype(np.float64), xt.grad.numpy().astype(np.float64)


def _both(x, t, monkeypatch, gl=None, **kwargs):
    """(the compiled loops' loss and gradient, the NumPy code's)."""
    compiled = _run(x, t, gl, **kwargs)
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    plain = _run(x, t, gl, **kwargs)
    monkeypatch.setenv("MINIGENESIS_NUMBA", "1")
    return compiled, plain


def _error(got, want):
    return float(np.max(np.abs(np.asarray(got) - want), initial=0.0))


@pytest.mark.parametrize("shape", [(32, 27), (1, 64), (64, 1), (13, 5), (5, 64), (33, 101)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore", [False, True])
def test_compiled_loss_and_gradient_match_float64_at_least_as_well_as_numpy(
    shape, reduction, ignore, calls, monkeypatch
):
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 4 + 1).astype(np.float32)
    t = rng.integers(0, shape[1], shape[0])
    ignore_index = int(t[0]) if ignore else -100  # the first sample (and all of its class) ignored
    gl = rng.standard_normal(shape[0]).astype(np.float32) if reduction == "none" else None
    (loss, grad), (loss_np, grad_np) = _both(
        x, t, monkeypatch, gl, reduction=reduction, ignore_index=ignore_index
    )
    assert calls == ["_forward_loop", "_backward_loop"]
    want_loss, want_grad = reference(x, t, reduction, ignore_index, 1.0 if gl is None else gl)
    if ignore and reduction == "mean" and np.all(t == ignore_index):
        assert np.isnan(loss) and np.isnan(loss_np)
    else:
        scale = max(1.0, float(np.max(np.abs(want_loss))))
        assert _error(loss, want_loss) <= 4e-7 * scale
        assert _error(loss, want_loss) <= _error(loss_np, want_loss) + 1e-7 * scale
    assert _error(grad, want_grad) <= 1.2e-7 * max(1.0, np.max(np.abs(want_grad)))
    assert _error(grad, want_grad) <= _error(grad_np, want_grad) + 1e-9


def test_strided_logits_and_targets_are_read_where_they_lie(calls, monkeypatch):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((27, 40)) * 3).astype(np.float32).T[::2]  # (20, 27), not contiguous
    t = rng.integers(0, 27, 40)[::2]
    (loss, grad), (loss_np, grad_np) = _both(x, t, monkeypatch)
    assert calls == ["_forward_loop", "_backward_loop"]
    want_loss, want_grad = reference(x, t)
    assert _error(loss, want_loss) <= 4e-7 and _error(grad, want_grad) <= 1.2e-8
    assert _error(grad, want_grad) <= _error(grad_np, want_grad)
    assert _error(loss, want_loss) <= _error(loss_np, want_loss) + 1e-7


def test_non_finite_logits_give_the_numpy_codes_nan_and_inf_rows(calls, monkeypatch):
    x = np.array(
        [[0.0, 1.0, 2.0], [np.nan, 1.0, 2.0], [np.inf, 0.0, 1.0], [-np.inf, 0.0, 1.0],
         [-np.inf, -np.inf, -np.inf], [-1e30, 0.0, 1e30]],
        np.float32,
    )  # fmt: skip
    x, t = np.repeat(x, 4, axis=0), np.repeat([2, 1, 0, 1, 0, 2], 4)  # (over the loops' minimum)
    (loss, grad), (loss_np, grad_np) = _both(x, t, monkeypatch, reduction="none", gl=np.ones(24))
    assert calls == ["_forward_loop", "_backward_loop"]
    np.testing.assert_array_equal(np.isnan(loss), np.isnan(loss_np))
    np.testing.assert_array_equal(np.isnan(grad), np.isnan(grad_np))
    finite = ~np.isnan(grad_np)
    np.testing.assert_allclose(grad[finite], grad_np[finite], rtol=0, atol=1e-7)
    np.testing.assert_allclose(loss[~np.isnan(loss_np)], loss_np[~np.isnan(loss_np)], atol=1e-6)


def test_far_negative_logits_underflow_to_zero_probability(calls, monkeypatch):
    x = np.repeat(np.array([[0.0, -80.0, -120.0, -800.0, -3e38]], np.float32), 16, axis=0)
    (loss, grad), (_, grad_np) = _both(x, np.ones(16, np.int64), monkeypatch)
    want_loss, want_grad = reference(x, np.ones(16, np.int64))
    assert abs(loss - want_loss) <= 1e-5  # (80: float32's spacing there is 7.6e-6)
    np.testing.assert_allclose(grad, want_grad.astype(np.float32), rtol=1e-7, atol=0)
    np.testing.assert_array_equal(grad[:, 2:], 0.0)
    np.testing.assert_array_equal(grad_np[:, 2:], 0.0)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_other_dtypes_keep_the_numpy_code_to_the_bit(dtype, calls, monkeypatch):
    rng = np.random.default_rng(7)
    x = mg.tensor(rng.standard_normal((16, 10)).astype(np.float32)).to(getattr(mg, dtype))
    t = rng.integers(0, 10, 16)
    compiled = _run(x.numpy(), t) if dtype == "float64" else _run_tensor(x, t)
    monkeypatch.setenv("MINIGENESIS_NUMBA", "0")
    plain = _run(x.numpy(), t) if dtype == "float64" else _run_tensor(x, t)
    assert calls == []
    np.testing.assert_array_equal(compiled[0], plain[0])
    np.testing.assert_array_equal(compiled[1], plain[1])
    want_loss, want_grad = reference(x.float().numpy(), t)
    assert abs(compiled[0] - want_loss) <= (1e-12 if dtype == "float64" else 2e-2)


def _run_tensor(x, t):
    x = x.detach().requires_grad_(True)
    loss = F.cross_entropy(x, mg.tensor(t))
    loss.backward()
    return loss.float().detach().numpy(), x.grad.float().numpy()


@pytest.mark.parametrize("shape", [(0, 5), (400, 27), (8, 3)])
def test_empty_small_and_large_batches_keep_the_numpy_code(shape, calls, monkeypatch):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    t = rng.integers(0, shape[1], shape[0])
    (loss, grad), (loss_np, grad_np) = _both(x, t, monkeypatch, reduction="sum")
    assert calls == []  # (outside CROSS_ENTROPY_LOOP_MIN to CROSS_ENTROPY_LOOP_MAX elements)
    np.testing.assert_array_equal(loss, loss_np)
    np.testing.assert_array_equal(grad, grad_np)


def test_weights_and_label_smoothing_still_match_float64(calls):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal((12, 6)) * 2).astype(np.float32)
    t = rng.integers(0, 6, 12)
    w = rng.uniform(0.5, 2.0, 6).astype(np.float32)
    xt = mg.tensor(x, requires_grad=True)
    loss = F.cross_entropy(xt, mg.tensor(t), weight=mg.tensor(w), label_smoothing=0.1)
    loss.backward()
    x64 = x.astype(np.float64)
    logp = x64 - x64.max(1, keepdims=True)
    logp -= np.log(np.exp(logp).sum(1, keepdims=True))
    wt = w[t].astype(np.float64)
    nll = -(wt * logp[np.arange(12), t]).sum() / wt.sum()
    smooth = -(logp * w).sum() / wt.sum()
    assert abs(float(loss.item()) - (0.9 * nll + 0.1 / 6 * smooth)) <= 1e-6
    assert xt.grad is not None and np.all(np.isfinite(xt.grad.numpy()))


def test_double_backward_takes_the_recorded_gradient(calls, monkeypatch):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((16, 5)).astype(np.float32)
    t = rng.integers(0, 5, 16)

    def second(numba: str):
        monkeypatch.setenv("MINIGENESIS_NUMBA", numba)
        xt = mg.tensor(x, requires_grad=True)
        (g,) = mg.autograd.grad(F.cross_entropy(xt, mg.tensor(t)), xt, create_graph=True)
        (gg,) = mg.autograd.grad((g * g).sum(), xt)
        return g.detach().numpy(), gg.numpy()

    (g, gg), (g_np, gg_np) = second("1"), second("0")
    assert calls == ["_forward_loop"]  # the gradient itself is the recorded Tensor-op form
    _, want = reference(x, t)
    assert _error(g, want) <= _error(g_np, want) + 1e-9
    np.testing.assert_allclose(gg, gg_np, rtol=1e-5, atol=1e-7)


def test_the_loops_decline_without_numba_and_out_of_range_targets(monkeypatch):
    x = np.zeros((4, 3), np.float32)  # (no minimum size here)
    ctx = SimpleNamespace(valid=None, reduction="mean", target=np.array([0, 1, 2, 0]))
    monkeypatch.setattr(cpu_jit, "available", lambda: False)
    assert loop.forward(ctx, x) is None
    monkeypatch.undo()
    monkeypatch.setenv("MINIGENESIS_NUMBA", "1")
    for bad in ([0, 1, 3, 0], [0, -1, 2, 0]):
        ctx.target = np.array(bad)
        assert loop.forward(ctx, x) is None
    ctx.target, ctx.valid, ctx.reduction = (
        np.array([0, 7, 2, 0]),
        np.array([1, 0, 1, 1], bool),
        "sum",
    )
    assert loop.forward(ctx, x) is not None  # (7 ignored)
    assert ctx.count == 3 and ctx.grad_loop is loop.backward
