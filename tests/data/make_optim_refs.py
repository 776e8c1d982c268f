"""Generate tests/data/optim_refs.json: optimizer trajectories computed by PyTorch.

Run from the repository root with PyTorch installed (it is not a dependency of minigenesis):

    python tests/data/make_optim_refs.py

The problem is small and smooth: loss(W, b) = sign * (mean((X @ W + b - Y)^2) + 0.01 * sum(W^4))
in float64, so minigenesis' autograd and PyTorch's agree to rounding and the trajectories can be
compared tightly. Each case records the flattened (W, b) after every step. The test
(tests/optim/test_reference.py) rebuilds the problem from the stored X, Y, W0 and b0, runs our
optimizer with the same options and compares; it needs no PyTorch.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch

STEPS = 25

# (name, optimizer class name, options, param groups or None, loss sign)
# A group spec is {"params": ["W"] or ["b"], **options}.
CASES = [
    ("sgd", "SGD", {"lr": 0.1}, None, 1),
    ("sgd_momentum", "SGD", {"lr": 0.05, "momentum": 0.9}, None, 1),
    ("sgd_dampening", "SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}, None, 1),
    ("sgd_nesterov", "SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}, None, 1),
    ("sgd_weight_decay", "SGD", {"lr": 0.05, "momentum": 0.5, "weight_decay": 0.1}, None, 1),
    ("sgd_maximize", "SGD", {"lr": 0.05, "momentum": 0.9, "maximize": True}, None, -1),
    (
        "sgd_groups",
        "SGD",
        {"lr": 0.05, "momentum": 0.9},
        [{"params": ["W"]}, {"params": ["b"], "lr": 0.2, "momentum": 0.0}],
        1,
    ),
    ("adam", "Adam", {"lr": 0.05}, None, 1),
    ("adam_amsgrad", "Adam", {"lr": 0.05, "amsgrad": True}, None, 1),
    ("adam_weight_decay", "Adam", {"lr": 0.05, "weight_decay": 0.1}, None, 1),
    ("adam_betas", "Adam", {"lr": 0.02, "betas": (0.3, 0.8), "eps": 1e-6}, None, 1),
    ("adam_maximize", "Adam", {"lr": 0.05, "maximize": True, "amsgrad": True}, None, -1),
    (
        "adam_groups",
        "Adam",
        {"lr": 0.05},
        [
            {"params": ["W"], "weight_decay": 0.05},
            {"params": ["b"], "lr": 0.1, "betas": (0.8, 0.99)},
        ],
        1,
    ),
    ("adamw", "AdamW", {"lr": 0.05}, None, 1),
    ("adamw_amsgrad", "AdamW", {"lr": 0.05, "weight_decay": 0.1, "amsgrad": True}, None, 1),
    ("rmsprop", "RMSprop", {"lr": 0.01}, None, 1),
    ("rmsprop_alpha", "RMSprop", {"lr": 0.01, "alpha": 0.9, "eps": 1e-6}, None, 1),
    ("rmsprop_centered", "RMSprop", {"lr": 0.01, "centered": True}, None, 1),
    ("rmsprop_momentum", "RMSprop", {"lr": 0.005, "momentum": 0.9}, None, 1),
    (
        "rmsprop_all",
        "RMSprop",
        {"lr": 0.005, "momentum": 0.8, "centered": True, "weight_decay": 0.1},
        None,
        1,
    ),
    ("rmsprop_maximize", "RMSprop", {"lr": 0.01, "maximize": True}, None, -1),
    ("adadelta", "Adadelta", {}, None, 1),
    ("adadelta_options", "Adadelta", {"lr": 0.5, "rho": 0.8, "eps": 1e-5}, None, 1),
    ("adadelta_weight_decay", "Adadelta", {"weight_decay": 0.1, "maximize": True}, None, -1),
    ("adagrad", "Adagrad", {"lr": 0.1}, None, 1),
    (
        "adagrad_options",
        "Adagrad",
        {"lr": 0.1, "lr_decay": 0.05, "initial_accumulator_value": 0.2, "eps": 1e-6},
        None,
        1,
    ),
    (
        "adagrad_weight_decay",
        "Adagrad",
        {"lr": 0.1, "weight_decay": 0.1, "maximize": True},
        None,
        -1,
    ),
    ("adamax", "Adamax", {"lr": 0.05}, None, 1),
    ("adamax_options", "Adamax", {"lr": 0.05, "betas": (0.8, 0.99), "eps": 1e-4}, None, 1),
    (
        "adamax_weight_decay",
        "Adamax",
        {"lr": 0.05, "weight_decay": 0.1, "maximize": True},
        None,
        -1,
    ),
    ("nadam", "NAdam", {"lr": 0.05}, None, 1),
    (
        "nadam_momentum_decay",
        "NAdam",
        {"lr": 0.05, "momentum_decay": 0.01, "betas": (0.8, 0.99)},
        None,
        1,
    ),
    ("nadam_weight_decay", "NAdam", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}, None, -1),
    (
        "nadam_decoupled",
        "NAdam",
        {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True},
        None,
        1,
    ),
    ("radam", "RAdam", {"lr": 0.05}, None, 1),
    ("radam_betas", "RAdam", {"lr": 0.05, "betas": (0.9, 0.9), "eps": 1e-6}, None, 1),
    ("radam_weight_decay", "RAdam", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}, None, -1),
    (
        "radam_decoupled",
        "RAdam",
        {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True},
        None,
        1,
    ),
    (
        "adagrad_groups",
        "Adagrad",
        {"lr": 0.1},
        [{"params": ["W"], "lr_decay": 0.1}, {"params": ["b"], "lr": 0.3, "weight_decay": 0.05}],
        1,
    ),
    (
        "nadam_groups",
        "NAdam",
        {"lr": 0.05},
        [{"params": ["W"], "momentum_decay": 0.02}, {"params": ["b"], "lr": 0.1}],
        1,
    ),
]

# L-BFGS cases: (name, problem, options, number of step(closure) calls). Each step runs up to
# max_iter iterations, so a few steps go a long way. Plain L-BFGS (lr=1, no line search) on the
# Rosenbrock function is chaotic (PyTorch against itself with x0 moved by 1e-15 ends 0.07 apart),
# so the Rosenbrock cases use the line search or a small lr, where the iterates are stable.
LBFGS_CASES = [
    ("rosenbrock_strong_wolfe", "rosenbrock", {"line_search_fn": "strong_wolfe"}, 4),
    (
        "rosenbrock_short_history",
        "rosenbrock",
        {"max_iter": 7, "history_size": 2, "line_search_fn": "strong_wolfe"},
        5,
    ),
    ("rosenbrock_small_lr", "rosenbrock", {"lr": 0.1, "max_iter": 5, "history_size": 3}, 6),
    (
        "rosenbrock_max_eval",
        "rosenbrock",
        {"max_iter": 4, "max_eval": 5, "line_search_fn": "strong_wolfe"},
        6,
    ),
    ("least_squares", "least_squares", {}, 3),
    ("least_squares_strong_wolfe", "least_squares", {"line_search_fn": "strong_wolfe"}, 3),
    (
        "least_squares_tolerances",
        "least_squares",
        {"lr": 0.5, "max_iter": 30, "tolerance_grad": 1e-3, "tolerance_change": 1e-4},
        3,
    ),
]


def problem() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1234)
    return {
        "X": rng.standard_normal((8, 4)),
        "Y": rng.standard_normal((8, 3)),
        "W0": rng.standard_normal((4, 3)),
        "b0": rng.standard_normal(3),
    }


def lbfgs_problem() -> dict[str, list]:
    rng = np.random.default_rng(4321)
    return {
        "rosenbrock_x0": [-1.5, 2.0, -0.5, 1.2],
        "A": rng.standard_normal((20, 5)).tolist(),
        "B": rng.standard_normal(20).tolist(),
    }


def lbfgs_loss(problem: str, x, data: dict):
    """sum(100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2), or ||A x - B||^2."""
    if problem == "rosenbrock":
        return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
    A = torch.tensor(data["A"], dtype=torch.float64)
    return ((A @ x - torch.tensor(data["B"], dtype=torch.float64)) ** 2).sum()


def run_torch_lbfgs(data: dict, problem: str, options: dict, steps: int) -> dict:
    x0 = data["rosenbrock_x0"] if problem == "rosenbrock" else [0.0] * 5
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([x], **options)

    def closure():
        opt.zero_grad()
        loss = lbfgs_loss(problem, x, data)
        loss.backward()
        return loss

    trajectory, losses = [], []
    for _ in range(steps):
        losses.append(opt.step(closure).item())
        trajectory.append(x.detach().tolist())
    state = opt.state[x]
    return {
        "trajectory": trajectory,
        "losses": losses,
        "func_evals": state["func_evals"],
        "n_iter": state["n_iter"],
    }


def run_torch(data: dict, opt_name: str, options: dict, groups: list | None, sign: int) -> list:
    X, Y = torch.tensor(data["X"]), torch.tensor(data["Y"])
    params = {
        "W": torch.tensor(data["W0"], requires_grad=True),
        "b": torch.tensor(data["b0"], requires_grad=True),
    }
    if groups is None:
        spec = [params["W"], params["b"]]
    else:
        spec = [dict(g, params=[params[n] for n in g["params"]]) for g in groups]
    opt = getattr(torch.optim, opt_name)(spec, **options)
    trajectory = []
    for _ in range(STEPS):
        opt.zero_grad()
        loss = ((X @ params["W"] + params["b"] - Y) ** 2).mean() + 0.01 * (params["W"] ** 4).sum()
        (sign * loss).backward()
        opt.step()
        flat = torch.cat([params["W"].detach().reshape(-1), params["b"].detach().reshape(-1)])
        trajectory.append(flat.tolist())
    return trajectory


def main() -> None:
    data = problem()
    out = {
        "generated_by": f"tests/data/make_optim_refs.py with torch {torch.__version__}",
        "steps": STEPS,
        **{k: v.tolist() for k, v in data.items()},
        "cases": [],
    }
    for name, opt_name, options, groups, sign in CASES:
        out["cases"].append(
            {
                "name": name,
                "optimizer": opt_name,
                "options": options,
                "groups": groups,
                "sign": sign,
                "trajectory": run_torch(data, opt_name, options, groups, sign),
            }
        )
    lbfgs_data = lbfgs_problem()
    out["lbfgs"] = {**lbfgs_data, "cases": []}
    for name, kind, options, steps in LBFGS_CASES:
        out["lbfgs"]["cases"].append(
            {
                "name": name,
                "problem": kind,
                "options": options,
                **run_torch_lbfgs(lbfgs_data, kind, options, steps),
            }
        )
    path = Path(__file__).with_name("optim_refs.json")
    path.write_text(json.dumps(out, indent=1))
    print(f"wrote {path} ({len(CASES)} cases x {STEPS} steps, {len(LBFGS_CASES)} L-BFGS cases)")


if __name__ == "__main__":
    main()
