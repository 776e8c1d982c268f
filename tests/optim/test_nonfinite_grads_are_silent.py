"""Gradient clipping and optimizer steps over gradients holding inf or NaN (or squares past
float32's range) are silent, as PyTorch's: NumPy's floating-point RuntimeWarnings ("overflow
encountered in multiply", "invalid value encountered in divide") are not let out. The values
are still right: oracle, the same clipping in float64 NumPy, whose inf/NaN rules are IEEE's."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

GRADS = {
    "inf": [1.0, math.inf, 2.0, 3.0, 1.0, 1.0, 1.0],
    "nan": [math.nan, 1.0, 2.0, 3.0, 1.0, 1.0, 1.0],
    "huge": [3e38, 3e38, 1.0, 1.0, 1.0, 1.0, 1.0],
    "both_infs": [-math.inf, math.inf, 0.0, 0.0, math.nan, 1.0, 1.0],
}
DTYPES = ["float32", "float64", "float16", "bfloat16"]


def _params(values: list[float], dtype: str) -> list[nn.Parameter]:
    dt = getattr(mg, dtype)
    ps = [nn.Parameter(mg.ones(4, dtype=dt)), nn.Parameter(mg.ones(3, dtype=dt))]
    ps[0].grad, ps[1].grad = mg.tensor(values[:4], dtype=dt), mg.tensor(values[4:], dtype=dt)
    return ps


@pytest.mark.parametrize("foreach", [None, True, False])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 0.5, 3.0])
@pytest.mark.parametrize("case", sorted(GRADS))
def test_clip_grad_norm_over_nonfinite_grads_is_silent_and_ieee_exact(case, norm_type, foreach):
    ps = _params(GRADS[case], "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        total = nn.utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type, foreach=foreach)
        nn.utils.clip_grad_value_(_params(GRADS[case], "float32"), 1.0, foreach=foreach)
    g = np.array(GRADS[case], np.float32)
    with np.errstate(all="ignore"):  # the oracle: float32 norms, as the gradients' dtype
        norms = [np.linalg.norm(part, ord=norm_type) for part in (g[:4], g[4:])]
        want_total = np.float32(np.linalg.norm(np.array(norms, np.float32), ord=norm_type))
        coef = np.minimum(np.float32(1.0), np.float32(1.0) / (want_total + np.float32(1e-6)))
        want = g * np.float32(coef)
    got = np.concatenate([p.grad.numpy() for p in ps])
    assert np.isnan(total.item()) == np.isnan(want_total)
    assert np.isnan(want_total) or np.isclose(total.item(), want_total, rtol=1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-5)  # (NaN where NaN)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", sorted(GRADS))
def test_clip_grad_norm_in_every_float_dtype_is_silent(case, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for norm_type in (2.0, 1.0, math.inf, 0.5, 3.0, 0.0):
            for max_norm in (1.0, 0.0, math.inf):
                nn.utils.clip_grad_norm_(_params(GRADS[case], dtype), max_norm, norm_type)
            nn.utils.clip_grad_value_(_params(GRADS[case], dtype), 1.0)


OPTIMIZERS = {
    "SGD": dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1),
    "Adam": dict(lr=0.1, amsgrad=True),
    "AdamW": dict(lr=0.1),
    "RMSprop": dict(lr=0.1, momentum=0.5, centered=True),
    "Adagrad": dict(lr=0.1),
    "Adadelta": dict(),
    "Adamax": dict(),
    "NAdam": dict(),
    "RAdam": dict(),
    "ASGD": dict(),
    "Rprop": dict(),
    "Adafactor": dict(),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", sorted(GRADS))
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_optimizer_steps_with_nonfinite_grads_are_silent(name, case, dtype):
    ps = _params(GRADS[case], dtype)
    opt = getattr(mg.optim, name)(ps, **OPTIMIZERS[name])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        opt.step()  # (a second step meets the inf/NaN kept in the state)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", sorted(GRADS))
def test_lbfgs_step_with_nonfinite_grads_is_silent(case, dtype):
    ps = _params(GRADS[case], dtype)

    def closure():
        for p, part in zip(ps, (GRADS[case][:4], GRADS[case][4:])):
            p.grad = mg.tensor(part, dtype=getattr(mg, dtype))
        return mg.tensor(1.0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mg.optim.LBFGS(ps, max_iter=3).step(closure)
