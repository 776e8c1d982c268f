"""mg.stack as one op (Stack, with Unstack as its gradient): values against np.stack,
gradients by float64 central differences, second derivatives, a tensor stacked twice, the
gradient handed in left unchanged, and mixed dtypes promoted as by cat."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack_matches_numpy_and_its_gradient_central_differences(dim):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((2, 3)) for _ in range(3)]
    ts = [mg.tensor(a, requires_grad=True) for a in arrays]
    y = mg.stack(ts, dim=dim)
    np.testing.assert_array_equal(y.detach().numpy(), np.stack(arrays, axis=dim))
    assert type(y.grad_fn).__name__ == "StackBackward0"
    w = mg.tensor(rng.standard_normal(tuple(y.shape)))
    assert gradcheck(lambda *xs: (mg.stack(xs, dim=dim) * w).sum(), ts)


def test_second_derivative_through_stack_and_its_gradient():
    rng = np.random.default_rng(1)
    a = mg.tensor(rng.standard_normal((3,)), requires_grad=True)
    b = mg.tensor(rng.standard_normal((3,)), requires_grad=True)

    def grad_norm(a, b):  # d/da, d/db of sum(stack(a^3, b^2)); then its squared norm
        with mg.enable_grad():
            y = mg.stack([a**3, b**2], dim=1).sum()
            ga, gb = mg.autograd.grad(y, (a, b), create_graph=True)
            return (ga * ga).sum() + (gb * gb).sum()

    assert gradcheck(grad_norm, (a, b))
    ga, gb = mg.autograd.grad(grad_norm(a, b), (a, b))
    np.testing.assert_allclose(ga.numpy(), 36 * a.detach().numpy() ** 3, rtol=1e-12)  # (3a^2)^2
    np.testing.assert_allclose(gb.numpy(), 8 * b.detach().numpy(), rtol=1e-12)  # (2b)^2


def test_a_tensor_stacked_twice_gets_the_sum_and_the_given_gradient_is_not_written():
    rng = np.random.default_rng(2)
    a = mg.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    b = mg.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    y = mg.stack([a, b, a], dim=2)
    g = rng.standard_normal((2, 3, 3))
    g_tensor = mg.tensor(g.copy())
    (y + a.unsqueeze(2)).backward(g_tensor)
    np.testing.assert_array_equal(g_tensor.numpy(), g)
    np.testing.assert_allclose(a.grad.numpy(), g[..., 0] + g[..., 2] + g.sum(axis=2))
    np.testing.assert_allclose(b.grad.numpy(), g[..., 1])


def test_mixed_dtypes_are_promoted_and_errors_name_the_problem():
    y = mg.stack([mg.ones(2, dtype=mg.float32), mg.ones(2, dtype=mg.float64)])
    assert y.dtype == mg.float64 and tuple(y.shape) == (2, 2)
    with pytest.raises(RuntimeError, match="shape"):  # PyTorch's type
        mg.stack([mg.ones(2), mg.ones(3)])
    with pytest.raises(IndexError, match="dim"):
        mg.stack([mg.ones(2), mg.ones(2)], dim=3)
