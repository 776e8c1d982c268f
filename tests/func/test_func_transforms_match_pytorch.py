"""mg.func's transforms give torch.func's numbers on the same float64 data (an additional check
to the closed forms of test_func_transforms.py)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.func as mfunc

torch = pytest.importorskip("torch")
import torch.func as tfunc  # noqa: E402

RNG = np.random.default_rng(11)
W1, B1, W2 = RNG.standard_normal((5, 3)), RNG.standard_normal(5), RNG.standard_normal(5)
X, Y = RNG.standard_normal((4, 3)), RNG.standard_normal(4)


def _run(lib, func, transform: str) -> np.ndarray:
    """One transform of a small tanh network's squared error, in one library."""
    linear = lib.nn.functional.linear
    params = {"w1": lib.tensor(W1), "b1": lib.tensor(B1), "w2": lib.tensor(W2)}

    def loss(params, x, y):
        return ((linear(x, params["w1"], params["b1"]).tanh() @ params["w2"]) - y).pow(2).sum()

    def hidden(x):
        return linear(x, params["w1"], params["b1"]).tanh()

    def loss_of_x(x):
        return loss(params, x, lib.tensor(Y[0]))

    if transform == "per_sample_grad":
        out = func.vmap(func.grad(loss), in_dims=(None, 0, 0))(params, lib.tensor(X), lib.tensor(Y))
        return np.concatenate([out[k].detach().numpy().reshape(4, -1) for k in sorted(out)], 1)
    if transform == "jacrev":
        return func.jacrev(hidden)(lib.tensor(X[0])).detach().numpy()
    return func.hessian(loss_of_x)(lib.tensor(X[0])).detach().numpy()


@pytest.mark.parametrize("transform", ["per_sample_grad", "jacrev", "hessian"])
def test_transforms_match_torch_func(transform: str) -> None:
    ours, theirs = _run(mg, mfunc, transform), _run(torch, tfunc, transform)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
