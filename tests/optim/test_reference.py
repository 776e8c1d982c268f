"""Optimizer trajectories against PyTorch.

The references in tests/data/optim_refs.json were computed by PyTorch (tests/data/make_optim_refs.py
made them; re-run it to regenerate). They make these tests meaningful without PyTorch installed.
The problem is float64, so our autograd and PyTorch's agree to rounding and 25 steps of each
optimizer must agree to ~1e-12.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg

REFS = json.loads((Path(__file__).parents[1] / "data" / "optim_refs.json").read_text())
CASES = {case["name"]: case for case in REFS["cases"]}


def make_params(dtype=mg.float64, device="cpu"):
    return {
        "W": mg.tensor(np.array(REFS["W0"]), dtype=dtype, device=device, requires_grad=True),
        "b": mg.tensor(np.array(REFS["b0"]), dtype=dtype, device=device, requires_grad=True),
    }


def make_optimizer(case: dict, params: dict):
    if case["groups"] is None:
        spec = [params["W"], params["b"]]
    else:
        spec = [dict(g, params=[params[n] for n in g["params"]]) for g in case["groups"]]
    return getattr(mg.optim, case["optimizer"])(spec, **case["options"])


def train(case: dict, params: dict, opt, steps: int, dtype=mg.float64) -> list[np.ndarray]:
    device = params["W"].device
    X = mg.tensor(np.array(REFS["X"]), dtype=dtype, device=device)
    Y = mg.tensor(np.array(REFS["Y"]), dtype=dtype, device=device)
    trajectory = []
    for _ in range(steps):
        opt.zero_grad()
        W, b = params["W"], params["b"]
        loss = ((X @ W + b - Y) ** 2).mean() + 0.01 * (W**4).sum()
        (case["sign"] * loss).backward()
        opt.step()
        trajectory.append(
            np.concatenate([W.detach().cpu().numpy().ravel(), b.detach().cpu().numpy().ravel()])
        )
    return trajectory


@pytest.mark.parametrize("name", sorted(CASES))
def test_trajectory_matches_pytorch_reference(name, device):
    case = CASES[name]
    params = make_params(device=device)
    got = np.stack(train(case, params, make_optimizer(case, params), REFS["steps"]))
    want = np.array(case["trajectory"])
    # the run really moves the parameters (a test that cannot fail would not)
    start = np.concatenate([np.ravel(REFS["W0"]), np.ravel(REFS["b0"])])
    assert np.abs(want[-1] - start).max() > 1e-2
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["sgd_nesterov", "adam_groups", "adamw_amsgrad", "rmsprop_all"])
def test_float32_trajectory_close_to_reference(name):
    # float32 rounding differs from the float64 reference by ~1e-7 per step; Adam-like methods
    # normalise the step, so the gap stays small over 25 steps.
    case = CASES[name]
    params = make_params(mg.float32)
    got = np.stack(train(case, params, make_optimizer(case, params), REFS["steps"], mg.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.array(case["trajectory"]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(CASES))
def test_resume_from_state_dict_equals_uninterrupted_run(name):
    case = CASES[name]
    params = make_params()
    full = train(case, params, make_optimizer(case, params), 20)

    params = make_params()
    opt = make_optimizer(case, params)
    train(case, params, opt, 10)
    saved_params = {k: v.detach().numpy().copy() for k, v in params.items()}
    saved_state = opt.state_dict()

    # a fresh model and optimizer (the options on construction deliberately differ: the loaded
    # param_groups must win), restored from the saved dicts
    fresh = {k: mg.tensor(v, requires_grad=True) for k, v in saved_params.items()}
    options = dict(case["options"], lr=123.0)
    opt2 = make_optimizer(dict(case, options=options), fresh)
    opt2.load_state_dict(saved_state)
    resumed = train(case, fresh, opt2, 10)
    if case["optimizer"] == "NAdam":
        # PyTorch's load casts NAdam's float32 momentum product to the parameters' float64, so
        # the resumed run rounds that product less often than the uninterrupted one
        np.testing.assert_allclose(np.stack(resumed), np.stack(full[10:]), rtol=1e-9, atol=0)
        assert opt2.state[fresh["W"]]["mu_product"].dtype == mg.float64
    else:
        np.testing.assert_array_equal(np.stack(resumed), np.stack(full[10:]))
