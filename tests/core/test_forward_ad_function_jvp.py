"""Forward-mode AD with custom Functions and gradcheck's forward-mode check: a Function that
defines only ``jvp`` gives dual outputs whose tangent is its jvp (closed forms), ``unpack_dual``
returns the very tangent given to ``make_dual``, and ``gradcheck(check_forward_ad=True)``
compares forward-mode Jacobians with central differences, catching a wrong jvp with PyTorch's
message."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.autograd.forward_ad as fwAD
from minigenesis.autograd import GradcheckError, gradcheck


class Exp(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.result = x.exp()
        return ctx.result

    @staticmethod
    def jvp(ctx, t):
        return t * ctx.result


class WrongSquare(mg.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.x = x
        return x * x

    @staticmethod
    def jvp(ctx, t):
        return t * ctx.x  # should be 2 x t


class ScaleBy(mg.autograd.Function):  # setup_context form, a non-tensor argument
    @staticmethod
    def forward(x, k):
        return x * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.k = inputs[1]

    @staticmethod
    def jvp(ctx, t, _):
        return t * ctx.k


X = np.array([0.5, -1.0, 2.0])


def test_jvp_only_function_gives_its_tangent() -> None:
    x, t = mg.tensor(X, dtype=mg.float64), mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64)
    with fwAD.dual_level():
        y = Exp.apply(fwAD.make_dual(x, t))
        z = ScaleBy.apply(y, 3.0).sin()  # a Function's dual output flows on through ops
        np.testing.assert_allclose(fwAD.unpack_dual(y).tangent.numpy(), [1, 2, 3] * np.exp(X))
        expected = np.cos(3 * np.exp(X)) * 3 * np.exp(X) * [1, 2, 3]
        np.testing.assert_allclose(fwAD.unpack_dual(z).tangent.numpy(), expected)
    assert Exp.apply(x).tolist() == np.exp(X).tolist()  # outside a level: a plain forward


def test_unpack_dual_returns_the_tangent_given() -> None:
    p, t = mg.randn(2, 2), mg.randn(2, 2)
    with fwAD.dual_level():
        d = fwAD.make_dual(p, t)
        assert fwAD.unpack_dual(d).tangent is t


def test_gradcheck_checks_forward_mode_against_finite_differences() -> None:
    x = mg.tensor(X, dtype=mg.float64, requires_grad=True)
    assert gradcheck(Exp.apply, (x,), check_forward_ad=True, check_backward_ad=False)
    assert gradcheck(lambda a: (a.sin() * a).cumsum(0), (x,), check_forward_ad=True)
    assert not gradcheck(
        WrongSquare.apply, (x,), check_forward_ad=True, check_backward_ad=False,
        raise_exception=False,
    )  # fmt: skip
    with pytest.raises(
        GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0,\nnumerical:"
    ):
        gradcheck(WrongSquare.apply, (x,), check_forward_ad=True, check_backward_ad=False)


def test_mismatch_message_names_the_output_tensor_not_its_element() -> None:
    class TwoOutputs(mg.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0, a * 2.0

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2  # misses the factor 2 of the second output

    a = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="for output 1 with respect to input 0"):
        gradcheck(TwoOutputs.apply, (a,))
