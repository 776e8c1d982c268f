"""L-BFGS: iterates against PyTorch's (stored references, and live when PyTorch is installed),
the first two iterations against the BFGS formulas, the strong Wolfe conditions, the stopping
rules, the state_dict round trip and clear errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg

REFS = json.loads((Path(__file__).parents[1] / "data" / "optim_refs.json").read_text())["lbfgs"]
CASES = {case["name"]: case for case in REFS["cases"]}


def loss_fn(problem: str, x, lib=mg):
    """sum(100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2), or ||A x - B||^2 (as in make_optim_refs.py)."""
    if problem == "rosenbrock":
        return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
    A = lib.tensor(np.array(REFS["A"]), dtype=x.dtype)
    return ((A @ x - lib.tensor(np.array(REFS["B"]), dtype=x.dtype)) ** 2).sum()


def x0_of(problem: str) -> np.ndarray:
    return np.array(REFS["rosenbrock_x0"]) if problem == "rosenbrock" else np.zeros(5)


def run(problem, options, steps, lib=mg, x0=None):
    x = lib.tensor(x0_of(problem) if x0 is None else x0, dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS([x], **options)

    def closure():
        opt.zero_grad()
        loss = loss_fn(problem, x, lib)
        loss.backward()
        return loss

    trajectory, losses = [], []
    for _ in range(steps):
        losses.append(opt.step(closure).item())
        trajectory.append(x.detach().numpy().copy())
    return np.array(trajectory), losses, opt


@pytest.mark.parametrize("name", sorted(CASES))
def test_iterates_match_pytorch_reference(name):
    case = CASES[name]
    trajectory, losses, opt = run(case["problem"], case["options"], len(case["trajectory"]))
    want = np.array(case["trajectory"])
    assert np.abs(want[-1] - x0_of(case["problem"])).max() > 0.1  # it really moved
    np.testing.assert_allclose(trajectory, want, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(losses, case["losses"], rtol=1e-8, atol=1e-10)
    state = opt.state[opt.param_groups[0]["params"][0]]
    assert (state["func_evals"], state["n_iter"]) == (case["func_evals"], case["n_iter"])


def test_rosenbrock_with_line_search_reaches_the_minimum():
    trajectory, losses, _ = run("rosenbrock", {"line_search_fn": "strong_wolfe"}, 4)
    np.testing.assert_allclose(trajectory[-1], np.ones(4), atol=1e-5)
    assert losses[0] > 2000 and losses[-1] < 1e-9


@pytest.mark.parametrize(
    "options",
    [
        {"history_size": 3, "max_iter": 6},
        {"line_search_fn": "strong_wolfe", "max_iter": 9, "history_size": 4},
        {"lr": 0.3, "max_iter": 8, "max_eval": 9},
    ],
)
def test_iterates_match_pytorch_live(options):
    torch = pytest.importorskip("torch")
    x0 = np.array([-1.2, 1.0, 0.8, -0.3, 1.5])
    ours = run("rosenbrock", options, 3, x0=x0)
    theirs = run("rosenbrock", options, 3, lib=torch, x0=x0)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-8)
    for key in ("func_evals", "n_iter"):
        assert (
            ours[2].state[ours[2].param_groups[0]["params"][0]][key]
            == (theirs[2].state[theirs[2].param_groups[0]["params"][0]][key])
        )


def quadratic():
    """f(x) = 0.5 x^T H x - b^T x, with gradient H x - b."""
    H = np.array([[3.0, 0.5, 0.0], [0.5, 2.0, 0.3], [0.0, 0.3, 1.0]])
    b = np.array([1.0, -2.0, 0.5])
    return H, b


def test_first_two_iterations_follow_the_bfgs_formulas():
    H, b = quadratic()
    x = mg.tensor(np.zeros(3), dtype=mg.float64, requires_grad=True)
    opt = mg.optim.LBFGS([x], lr=0.5, max_iter=2, max_eval=10)  # default max_eval would be 2

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (mg.tensor(H) @ x)) - mg.tensor(b) @ x
        loss.backward()
        return loss

    opt.step(closure)

    # iteration 1: steepest descent with t = min(1, 1 / sum|g|) * lr
    x0 = np.zeros(3)
    g0 = H @ x0 - b
    t0 = min(1.0, 1.0 / np.abs(g0).sum()) * 0.5
    x1 = x0 - t0 * g0
    # iteration 2: d = -H_1 g_1 with the L-BFGS inverse Hessian built from one pair (s, y),
    # H_1 = (I - rho s y^T) (gamma I) (I - rho y s^T) + rho s s^T, gamma = s.y / y.y
    g1 = H @ x1 - b
    s, y = x1 - x0, g1 - g0
    rho, gamma = 1 / (y @ s), (y @ s) / (y @ y)
    eye = np.eye(3)
    H1 = (eye - rho * np.outer(s, y)) @ (gamma * eye) @ (eye - rho * np.outer(y, s))
    H1 += rho * np.outer(s, s)
    x2 = x1 - 0.5 * H1 @ g1
    np.testing.assert_allclose(x.detach().numpy(), x2, rtol=1e-12)


@pytest.mark.parametrize("lr", [1.0, 100.0])
def test_strong_wolfe_step_satisfies_the_wolfe_conditions(lr):
    H, b = quadratic()
    x = mg.tensor(np.array([2.0, 2.0, -3.0]), dtype=mg.float64, requires_grad=True)
    # lr=1: the first trial step is accepted; lr=100: it overshoots and the line search zooms
    opt = mg.optim.LBFGS([x], lr=lr, max_iter=1, max_eval=20, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (mg.tensor(H) @ x)) - mg.tensor(b) @ x
        loss.backward()
        return loss

    x_old = x.detach().numpy().copy()
    f_old = closure().item()
    g_old = H @ x_old - b
    opt.step(closure)
    x_new = x.detach().numpy()
    d = x_new - x_old  # = t * direction; the direction is -g on the first iteration
    f_new = 0.5 * x_new @ H @ x_new - b @ x_new
    g_new = H @ x_new - b
    assert f_new <= f_old + 1e-4 * (g_old @ d)  # sufficient decrease
    assert abs(g_new @ d) <= 0.9 * abs(g_old @ d)  # curvature (strong)
    if lr == 100.0:
        # on a quadratic, the cubic through two points and slopes is the quadratic itself, so
        # the interpolated step is the exact minimiser along the line
        assert abs(g_new @ d) < 1e-8 * abs(g_old @ d)


def test_stops_when_the_gradient_is_already_small():
    x = mg.tensor([1.0, 1.0, 1.0], dtype=mg.float64, requires_grad=True)
    opt = mg.optim.LBFGS([x], tolerance_grad=1e-5)
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = loss_fn("rosenbrock", x)
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert loss.item() == 0.0 and len(calls) == 1
    np.testing.assert_array_equal(x.detach().numpy(), [1.0, 1.0, 1.0])


def test_max_eval_bounds_the_number_of_closure_calls():
    x = mg.tensor(x0_of("rosenbrock"), dtype=mg.float64, requires_grad=True)
    opt = mg.optim.LBFGS([x], max_iter=100, max_eval=7, line_search_fn="strong_wolfe")
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = loss_fn("rosenbrock", x)
        loss.backward()
        return loss

    opt.step(closure)
    assert len(calls) <= 7 + 1  # the line search may finish the evaluation it started
    assert opt.state[x]["func_evals"] == len(calls)


def test_state_dict_round_trip_through_save_and_load_continues_the_same_run():
    options = {"history_size": 3, "max_iter": 4, "line_search_fn": "strong_wolfe"}
    full, _, _ = run("rosenbrock", options, 4)

    first, _, opt = run("rosenbrock", options, 2)
    buffer = io.BytesIO()
    mg.save(opt.state_dict(), buffer)
    buffer.seek(0)
    saved = mg.load(buffer)  # the weights-only loader: tensors, lists, numbers, None

    x = mg.tensor(first[-1], dtype=mg.float64, requires_grad=True)
    opt2 = mg.optim.LBFGS([x], **options)
    opt2.load_state_dict(saved)

    def closure():
        opt2.zero_grad()
        loss = loss_fn("rosenbrock", x)
        loss.backward()
        return loss

    rest = []
    for _ in range(2):
        opt2.step(closure)
        rest.append(x.detach().numpy().copy())
    np.testing.assert_array_equal(np.array(rest), full[2:])


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_a_state_dict_holding_pytorchs_scalar_tensors_continues_the_same_run(line_search_fn):
    # PyTorch's LBFGS keeps t, H_diag and ro as 0-d tensors; such a state dict must load and
    # step like one holding Python numbers
    options = {"history_size": 3, "max_iter": 4, "line_search_fn": line_search_fn}
    full, _, _ = run("rosenbrock", options, 4)
    first, _, opt = run("rosenbrock", options, 2)
    saved = opt.state_dict()
    state = saved["state"][0]
    for key in ("t", "H_diag", "prev_loss"):
        state[key] = mg.tensor(state[key], dtype=mg.float64)
    state["ro"] = [mg.tensor(r, dtype=mg.float64) for r in state["ro"]]

    x = mg.tensor(first[-1], dtype=mg.float64, requires_grad=True)
    opt2 = mg.optim.LBFGS([x], **options)
    opt2.load_state_dict(saved)

    def closure():
        opt2.zero_grad()
        loss = loss_fn("rosenbrock", x)
        loss.backward()
        return loss

    rest = []
    for _ in range(2):
        opt2.step(closure)
        rest.append(x.detach().numpy().copy())
    np.testing.assert_array_equal(np.array(rest), full[2:])


def test_bad_use_gets_a_clear_error():
    w = mg.zeros(2, requires_grad=True)
    with pytest.raises(ValueError, match="line_search_fn must be None or 'strong_wolfe'"):
        mg.optim.LBFGS([w], line_search_fn="backtracking")
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        mg.optim.LBFGS([{"params": [w]}, {"params": [mg.zeros(1, requires_grad=True)]}])
    with pytest.raises(TypeError, match="LBFGS.step needs a closure"):
        mg.optim.LBFGS([w]).step()
