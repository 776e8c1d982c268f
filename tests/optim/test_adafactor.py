"""Adafactor against a NumPy transcription of its update (the factored second moment of a matrix,
the plain one of a vector, the relative step size and the update clipping), in float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def _numpy_adafactor(params, grads_of, steps, lr, beta2_decay, eps, d, weight_decay):
    eps1 = np.finfo(np.float64).eps if eps[0] is None else eps[0]
    state = [{} for _ in params]
    for t in range(1, steps + 1):
        grads = grads_of(params, t - 1)
        for p, g, s in zip(params, grads, state):
            beta = t**beta2_decay  # 1 - beta2_t
            alpha = max(eps[1], np.sqrt(np.mean(p * p))) * min(lr, 1 / np.sqrt(t))
            p *= 1 - lr * weight_decay
            if g.ndim > 1:
                r = s.setdefault("r", np.zeros(g.shape[:-1] + (1,)))
                c = s.setdefault("c", np.zeros(g.shape[:-2] + (1, g.shape[-1])))
                r += beta * ((g * g).mean(-1, keepdims=True) - r)
                c += beta * ((g * g).mean(-2, keepdims=True) - c)
                v = r @ c / np.maximum(r.mean(-2, keepdims=True), eps1)
            else:
                v = s.setdefault("v", np.zeros(g.shape))
                v += beta * (g * g - v)
                v = v.copy()
            u = g / np.sqrt(np.maximum(v, eps1 * eps1))
            p -= alpha / max(1.0, np.sqrt(np.mean(u * u)) / d) * u
    return params


def _grads(params, step):
    return [np.sin(3 * p) + 0.3 * p + 0.1 * np.cos(step + np.arange(p.size).reshape(p.shape))
            for p in params]  # fmt: skip


@pytest.mark.parametrize(
    "options",
    [
        dict(),
        dict(lr=0.1, beta2_decay=-0.5, eps=(1e-6, 0.1), d=2.0, weight_decay=0.1),
        dict(lr=1.0, beta2_decay=0.0),
    ],
    ids=str,
)
def test_adafactor_follows_its_update_rule(options: dict) -> None:
    rng = np.random.default_rng(0)
    init = [rng.standard_normal((3, 4)), rng.standard_normal(5), rng.standard_normal((2, 3, 2))]
    params = [mg.tensor(a.copy(), dtype=mg.float64, requires_grad=True) for a in init]
    opt = mg.optim.Adafactor(params, **options)
    for step in range(8):
        for p, g in zip(params, _grads([p.detach().numpy() for p in params], step)):
            p.grad = mg.tensor(g)
        opt.step()
    full = dict(lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0) | options
    want = _numpy_adafactor([a.copy() for a in init], _grads, 8, **full)
    for p, w in zip(params, want):
        np.testing.assert_allclose(p.detach().numpy(), w, rtol=1e-12, atol=1e-14)


def test_state_is_factored_for_matrices() -> None:
    w, b = mg.zeros(3, 4, requires_grad=True), mg.zeros(4, requires_grad=True)
    opt = mg.optim.Adafactor([w, b])
    w.grad, b.grad = mg.ones(3, 4), mg.ones(4)
    opt.step()
    assert opt.state[w]["row_var"].shape == (3, 1) and opt.state[w]["col_var"].shape == (1, 4)
    assert opt.state[b]["variance"].shape == (4,) and float(opt.state[b]["step"]) == 1.0
    assert opt.param_groups[0]["eps"] == (None, 1e-3)


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(lr=-1.0), "Learning rate should be >= 0"),
        (dict(beta2_decay=0.5), "beta2_decay should be <= 0"),
        (dict(eps=(-1.0, 1e-3)), "epsilon1 should be >= 0"),
        (dict(eps=(None, -1.0)), "epsilon2 should be >= 0"),
        (dict(d=0.5), "Clipping threshold d should be >= 1"),
    ],
)
def test_bad_options_raise_value_error(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        mg.optim.Adafactor([mg.zeros(2, requires_grad=True)], **options)


@pytest.mark.parametrize(("dtype", "want"), [("bfloat16", 1.0), ("float16", 0.990234375)])
def test_adafactor_steps_a_low_precision_parameter_with_its_dtypes_eps(dtype, want):
    """eps1 defaults to the parameter dtype's machine epsilon (bfloat16's is 2**-7, which
    NumPy's finfo does not know). With g = 1e-3: g^2 = 1e-6 is below bfloat16's eps^2 = 2**-14,
    so the update is g / eps = 0.128 and p = 1 - 0.01 * 0.128 rounds back to 1.0; float16's
    eps^2 = 2**-20 is below g^2, so the update is g / |g| = 1 and p = 0.99 in float16."""
    p = mg.nn.Parameter(mg.ones(4, dtype=getattr(mg, dtype)))
    p.grad = mg.full((4,), 1e-3, dtype=getattr(mg, dtype))
    mg.optim.Adafactor([p]).step()
    np.testing.assert_array_equal(p.detach().float().numpy(), np.full(4, want, np.float32))
