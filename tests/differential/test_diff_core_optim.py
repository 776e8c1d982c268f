"""Differential tests: every optimizer's parameter trajectory against PyTorch's, in float64.

Both libraries start from the same parameters and, at every step, receive the same gradient
(a fixed function of the current parameter values, computed in NumPy), so any difference in the
trajectories is a difference in the update rule, its state or its bookkeeping: parameter groups
with their own options, a parameter whose gradient is None on some steps, a state_dict saved and
loaded into a fresh optimizer mid-run, a PyTorch state_dict loaded into ours, ``lr`` as a tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

STEPS = 20
ATOL = 1e-13  # parameters are O(1); the updates of one rounding each differ in the last bit


def _gradients(arrays: list[np.ndarray], step: int) -> list[np.ndarray]:
    """A gradient that depends on the parameters (a non-convex landscape) and on the step."""
    return [
        np.sin(3 * a) + 0.3 * a + 0.1 * np.cos(step + np.arange(a.size).reshape(a.shape))
        for a in arrays
    ]


def _initial() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal((3, 4)), rng.standard_normal(5)]


def _build(lib: Any, name: str, params: list, kwargs: dict, groups: list | None) -> Any:
    cls = getattr(lib.optim, name)
    if groups:
        return cls([{"params": [p], **g} for p, g in zip(params, groups)], **kwargs)
    return cls(params, **kwargs)


def _trajectory(
    lib: Any,
    name: str,
    kwargs: dict,
    groups: list | None = None,
    none_every: int | None = None,
    reload_at: int | None = None,
) -> np.ndarray:
    """The parameters after each of STEPS steps, flattened into one row per step."""
    params = [lib.tensor(a.copy(), dtype=lib.float64, requires_grad=True) for a in _initial()]
    opt = _build(lib, name, params, kwargs, groups)
    rows = []
    for step in range(STEPS):
        grads = _gradients([p.detach().numpy().copy() for p in params], step)
        for i, (p, g) in enumerate(zip(params, grads)):
            skip = none_every is not None and i == 1 and step % none_every == 1
            p.grad = None if skip else lib.tensor(g)
        if name == "LBFGS":

            def closure(opt: Any = opt) -> Any:
                opt.zero_grad()
                loss = sum(((1 - lib.cos(3 * p)) / 3 + 0.15 * p * p).sum() for p in params)
                loss.backward()
                return loss

            opt.step(closure)
        else:
            opt.step()
        if reload_at == step:
            saved = opt.state_dict()
            opt = _build(lib, name, params, kwargs, groups)
            opt.load_state_dict(saved)
        rows.append(np.concatenate([p.detach().numpy().ravel() for p in params]))
    return np.array(rows)


CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.5, maximize=True, weight_decay=0.2)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.05, maximize=True)),
    ("Adam", dict(lr=0.05, decoupled_weight_decay=True, weight_decay=0.1)),
    ("AdamW", dict(lr=0.05)),
    ("AdamW", dict(lr=0.05, amsgrad=True, weight_decay=0.3, maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, initial_accumulator_value=0.3, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, maximize=True, alpha=0.9)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, momentum_decay=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.05, decoupled_weight_decay=True, weight_decay=0.1, maximize=True)),
    ("RAdam", dict(lr=0.05)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True)),
    ("RAdam", dict(lr=0.05, weight_decay=0.1, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, etas=(0.4, 1.3), step_sizes=(1e-4, 1), maximize=True)),
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, lambd=1e-3, alpha=0.5, t0=5, weight_decay=0.1, maximize=True)),
    ("ASGD", dict(lr=0.05, lambd=1e-2, t0=3)),
]
LBFGS_CASES = [
    dict(lr=0.5),
    dict(lr=1, line_search_fn="strong_wolfe"),
    dict(lr=1, max_iter=5, history_size=3, line_search_fn="strong_wolfe"),
]
VARIANTS = {
    "plain": dict(),
    "grad_none_some_steps": dict(none_every=3),
    "state_dict_reload_mid_run": dict(reload_at=7),
    "groups_with_own_options": dict(groups=[dict(lr=0.02), dict(weight_decay=0.05)]),
}


def _case_id(case: tuple) -> str:
    return case[0] + "-" + "-".join(f"{k}={v}" for k, v in case[1].items())


def _sweep() -> list:
    """Every case plain, and every case in every variant; the fast run keeps a third of the
    variant runs (each case's variants in turn), the rest are marked slow."""
    runs = []
    for i, case in enumerate(CASES):
        for j, variant in enumerate(VARIANTS):
            fast = variant == "plain" or (i + j) % 3 == 0
            marks = () if fast else (pytest.mark.slow,)
            runs.append(pytest.param(case, variant, marks=marks, id=f"{_case_id(case)}-{variant}"))
    return runs


@pytest.mark.parametrize("case,variant", _sweep())
def test_optimizer_trajectory_matches_pytorch(case: tuple, variant: str) -> None:
    name, kwargs = case
    extra = VARIANTS[variant]
    ours = _trajectory(mg, name, kwargs, **extra)
    theirs = _trajectory(torch, name, kwargs, **extra)
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=ATOL)


@pytest.mark.parametrize("kwargs", LBFGS_CASES, ids=str)
def test_lbfgs_trajectory_matches_pytorch(kwargs: dict) -> None:
    np.testing.assert_allclose(
        _trajectory(mg, "LBFGS", kwargs), _trajectory(torch, "LBFGS", kwargs), rtol=0, atol=1e-11
    )


@pytest.mark.parametrize(
    "name,kwargs", [c for c in CASES if c[1].get("weight_decay", 0) == 0][:12], ids=str
)
def test_optimizer_with_tensor_lr_matches_pytorch(name: str, kwargs: dict) -> None:
    """A float64 lr tensor: a float32 one makes PyTorch round some of its step sizes (Adam's
    ``lr / bias_correction1``) to float32, which is a rounding of PyTorch's, not the update rule."""

    def run(lib: Any) -> np.ndarray:
        p = lib.tensor(_initial()[1], requires_grad=True)
        lr = lib.tensor(kwargs.get("lr", 1.0), dtype=lib.float64)
        opt = getattr(lib.optim, name)([p], **{**kwargs, "lr": lr})
        rows = []
        for step in range(STEPS):
            p.grad = lib.tensor(_gradients([p.detach().numpy()], step)[0])
            opt.step()
            rows.append(p.detach().numpy().copy())
        return np.array(rows)

    np.testing.assert_allclose(run(mg), run(torch), rtol=0, atol=ATOL)


def _torch_state_to_ours(state: dict) -> dict:
    """A PyTorch optimizer state_dict with its tensors turned into ours (same keys and shapes)."""

    def conv(v: Any) -> Any:
        if isinstance(v, torch.Tensor):
            return mg.tensor(v.numpy(), dtype=getattr(mg, str(v.dtype).split(".")[1]))
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        return v

    return {"state": conv(state["state"]), "param_groups": state["param_groups"]}


@pytest.mark.parametrize("name,kwargs", CASES[1::2], ids=str)
def test_loading_a_pytorch_state_dict_continues_pytorchs_trajectory(name: str, kwargs: dict):
    """Run 6 steps in PyTorch, load its state_dict into ours and into a fresh PyTorch optimizer
    (a load casts state such as NAdam's ``mu_product`` to the parameter's dtype), continue both."""
    tp = [torch.tensor(a, requires_grad=True) for a in _initial()]
    topt = getattr(torch.optim, name)(tp, **kwargs)
    for step in range(6):
        for p, g in zip(tp, _gradients([p.detach().numpy() for p in tp], step)):
            p.grad = torch.tensor(g)
        topt.step()
    mp = [mg.tensor(p.detach().numpy().copy(), requires_grad=True) for p in tp]
    mopt = getattr(mg.optim, name)(mp, **kwargs)
    mopt.load_state_dict(_torch_state_to_ours(topt.state_dict()))
    saved, topt = topt.state_dict(), getattr(torch.optim, name)(tp, **kwargs)
    topt.load_state_dict(saved)
    for step in range(6, STEPS):
        for params, lib in ((tp, torch), (mp, mg)):
            for p, g in zip(params, _gradients([p.detach().numpy() for p in params], step)):
                p.grad = lib.tensor(g)
        topt.step()
        mopt.step()
        for a, b in zip(mp, tp):
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=0, atol=ATOL)


def test_add_param_group_and_zero_grad_without_none_match_pytorch() -> None:
    def run(lib: Any) -> np.ndarray:
        a, b = (lib.tensor(x, requires_grad=True) for x in _initial())
        opt = lib.optim.Adam([a], lr=0.05, amsgrad=True)
        rows = []
        for step in range(STEPS):
            if step == 5:
                opt.add_param_group({"params": [b], "lr": 0.01, "betas": (0.5, 0.9)})
            opt.zero_grad(set_to_none=step % 2 == 0)
            params = [a, b] if step >= 5 else [a]
            for p, g in zip(params, _gradients([p.detach().numpy() for p in params], step)):
                if p.grad is None:
                    p.grad = lib.tensor(g)
                else:
                    p.grad += lib.tensor(g)
            opt.step()
            rows.append(np.concatenate([a.detach().numpy().ravel(), b.detach().numpy()]))
        return np.array(rows)

    np.testing.assert_allclose(run(mg), run(torch), rtol=0, atol=ATOL)
