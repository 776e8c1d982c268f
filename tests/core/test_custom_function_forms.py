"""Custom autograd Functions in the forms PyTorch's documentation shows beyond the basic one:
PyTorch 2's ``forward`` without ctx plus ``setup_context``, a ``@once_differentiable`` backward,
and second derivatives checked by ``gradgradcheck``. Oracles: closed-form derivatives in NumPy
float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import Function, GradcheckError, gradcheck, gradgradcheck
from minigenesis.autograd.function import once_differentiable


class Softplus(Function):
    """softplus_beta(x) = log(1 + exp(beta x)) / beta; d/dx = sigmoid(beta x)."""

    @staticmethod
    def forward(x, beta):
        return mg.log1p(mg.exp(beta * x)) / beta

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, beta = inputs
        ctx.save_for_backward(x, output)
        ctx.beta = beta

    @staticmethod
    def backward(ctx, grad_output):
        x, out = ctx.saved_tensors
        return grad_output * mg.sigmoid(ctx.beta * x), None


class Cube(Function):
    """x^3 with a backward written in tensor ops (so it is differentiable again): 3 x^2 g."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * grad_output


class CubeDetachedBackward(Cube):
    """The same first derivative, but computed from a detached x: its second derivative is lost."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x.detach() ** 2 * grad_output


class CubeOnce(Cube):
    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * grad_output


X = np.array([[-1.5, -0.2, 0.3], [0.7, 1.1, 2.0]])


def test_setup_context_form_runs_forward_without_ctx_and_backward_gets_what_it_saved() -> None:
    x = mg.tensor(X, requires_grad=True)
    y = Softplus.apply(x, 2.0)
    np.testing.assert_allclose(y.detach().numpy(), np.log1p(np.exp(2 * X)) / 2, rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 / (1 + np.exp(-2 * X)), rtol=1e-12)
    assert gradcheck(lambda t: Softplus.apply(t, 2.0), (mg.tensor(X, requires_grad=True),))


def test_setup_context_form_can_mark_outputs_non_differentiable() -> None:
    class SortValues(Function):
        @staticmethod
        def forward(x):
            return mg.sort(x, dim=-1)

        @staticmethod
        def setup_context(ctx, inputs, output):
            values, idx = output
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(idx)

        @staticmethod
        def backward(ctx, grad_values, grad_idx):
            (idx,) = ctx.saved_tensors
            return mg.zeros_like(grad_values).scatter_(-1, idx, grad_values)

    x = mg.tensor(X[:, ::-1].copy(), requires_grad=True)
    values, idx = SortValues.apply(x)
    assert values.requires_grad and not idx.requires_grad
    (values * mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)).sum().backward()
    ranks = np.argsort(np.argsort(X[:, ::-1], axis=-1), axis=-1)  # where each element went
    np.testing.assert_array_equal(x.grad.numpy(), ranks + 1.0)


def test_once_differentiable_backward_gives_the_first_derivative() -> None:
    x = mg.tensor(X, requires_grad=True)
    CubeOnce.apply(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * X**2, rtol=1e-12)
    (g,) = mg.autograd.grad(CubeOnce.apply(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * X**2, rtol=1e-12)


def test_once_differentiable_backward_refuses_a_second_backward() -> None:
    x = mg.tensor(X, requires_grad=True)
    v = mg.ones(2, 3, dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(CubeOnce.apply(x), x, grad_outputs=v, create_graph=True)
    assert g.requires_grad
    with pytest.raises(RuntimeError, match="marked with @once_differentiable"):
        g.sum().backward()


def test_gradgradcheck_passes_a_differentiable_backward() -> None:
    x = mg.tensor(X, requires_grad=True)
    assert gradgradcheck(Cube.apply, (x,))
    assert gradgradcheck(lambda t: Softplus.apply(t, 2.0), (x,), eps=1e-6, atol=1e-4)
    assert gradgradcheck(lambda t: (t.sin() * t).sum(dim=1), (x,))


def test_gradgradcheck_catches_a_lost_second_derivative() -> None:
    x = mg.tensor(X, requires_grad=True)
    assert gradcheck(CubeDetachedBackward.apply, (x,))  # the first derivative is right ...
    with pytest.raises(GradcheckError):  # ... the second (6 x g) is missing
        gradgradcheck(CubeDetachedBackward.apply, (x,))
    assert not gradgradcheck(CubeDetachedBackward.apply, (x,), raise_exception=False)


def test_gradgradcheck_uses_the_grad_outputs_given() -> None:
    x = mg.tensor(X, requires_grad=True)
    v = mg.tensor(np.full((2, 3), 0.5), requires_grad=True)
    assert gradgradcheck(Cube.apply, (x,), (v,))


def test_gradcheck_accepts_pytorch_keywords_and_refuses_checks_it_cannot_make() -> None:
    x = mg.tensor(X, requires_grad=True)
    assert gradcheck(
        Cube.apply,
        (x,),
        eps=1e-6,
        atol=1e-4,
        nondet_tol=0.0,
        check_undefined_grad=True,
        check_grad_dtypes=True,
        check_batched_grad=False,
        fast_mode=True,
    )
    assert gradcheck(Cube.apply, (x,), check_forward_ad=True)  # forward mode checked too
    with pytest.raises(NotImplementedError, match="check_batched_grad"):
        gradcheck(Cube.apply, (x,), check_batched_grad=True)
