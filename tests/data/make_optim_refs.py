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
]


def problem() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1234)
    return {
        "X": rng.standard_normal((8, 4)),
        "Y": rng.standard_normal((8, 3)),
        "W0": rng.standard_normal((4, 3)),
        "b0": rng.standard_normal(3),
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
    path = Path(__file__).with_name("optim_refs.json")
    path.write_text(json.dumps(out, indent=1))
    print(f"wrote {path} ({len(CASES)} cases x {STEPS} steps)")


if __name__ == "__main__":
    main()
