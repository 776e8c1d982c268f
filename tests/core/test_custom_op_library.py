"""``mg.library.custom_op``: an operator around a NumPy kernel, its registered gradient (checked
against the closed form), ``mg.ops.<namespace>.<name>``, the error when no gradient was
registered, the version bump of a mutated argument, and opcheck catching a false claim."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.library import OpCheckError


@mg.library.custom_op("testlib::np_exp", mutates_args=())
def np_exp(x: mg.Tensor) -> mg.Tensor:
    return mg.from_numpy(np.exp(x.numpy()))


@np_exp.register_fake
def _(x):
    return mg.empty_like(x)


def _setup(ctx, inputs, output):
    ctx.save_for_backward(output)


def _backward(ctx, grad):
    (out,) = ctx.saved_tensors
    return grad * out


np_exp.register_autograd(_backward, setup_context=_setup)


@mg.library.custom_op("testlib::np_square_no_grad", mutates_args=())
def np_square(x: mg.Tensor) -> mg.Tensor:
    return mg.from_numpy(x.numpy() ** 2)


@mg.library.custom_op("testlib::np_add_one_", mutates_args={"x"})
def np_add_one_(x: mg.Tensor) -> None:
    x.numpy()[...] += 1


@mg.library.custom_op("testlib::sneaky", mutates_args=())
def sneaky(x: mg.Tensor) -> mg.Tensor:
    x.numpy()[...] = 0  # writes its input although it declared no mutation
    return x.clone()


def test_registered_gradient_is_used() -> None:
    x = mg.tensor([0.0, 1.0, -2.0], dtype=mg.float64, requires_grad=True)
    y = np_exp(x)
    (g,) = mg.autograd.grad((y * y).sum(), x)  # d/dx e^{2x} = 2 e^{2x}
    np.testing.assert_allclose(y.detach().numpy(), np.exp([0.0, 1.0, -2.0]))
    np.testing.assert_allclose(g.numpy(), 2 * np.exp(2 * np.array([0.0, 1.0, -2.0])))


def test_the_operator_is_reachable_through_ops() -> None:
    x = mg.tensor([1.0, 2.0])
    assert mg.ops.testlib.np_exp is np_exp and mg.ops.testlib.np_exp.default is np_exp
    np.testing.assert_allclose(mg.ops.testlib.np_exp(x).numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(AttributeError):
        getattr(mg.ops.testlib, "no_such_op")  # noqa: B009
    with pytest.raises(AttributeError):
        getattr(mg.ops, "no_such_namespace")  # noqa: B009


def test_no_registered_gradient_raises_at_backward() -> None:
    x = mg.tensor([3.0], requires_grad=True)
    y = np_square(x)
    assert y.item() == 9.0 and y.requires_grad
    with pytest.raises(RuntimeError, match="Autograd has not been implemented for operator"):
        y.sum().backward()


def test_a_mutated_argument_gets_a_new_version() -> None:
    x = mg.tensor([1.0, 2.0])
    before = x._version
    np_add_one_(x)
    assert x.tolist() == [2.0, 3.0] and x._version == before + 1


def test_opcheck_passes_true_claims_and_catches_false_ones() -> None:
    assert set(mg.library.opcheck(np_exp, (mg.randn(3),)).values()) == {"SUCCESS"}
    with pytest.raises(OpCheckError, match="test_schema failed"):
        mg.library.opcheck(sneaky, (mg.ones(2),))
    with pytest.raises(OpCheckError, match="test_autograd_registration failed"):
        mg.library.opcheck(np_square, (mg.ones(2, requires_grad=True),))

    @mg.library.custom_op("testlib::halves", mutates_args=())
    def halves(x: mg.Tensor) -> mg.Tensor:
        return x[: x.shape[0] // 2].clone()

    mg.library.register_fake("testlib::halves")(lambda x: mg.empty_like(x))  # wrong shape
    result = mg.library.opcheck(halves, (mg.ones(4),), raise_exception=False)
    assert "test_faketensor failed" in result["test_faketensor"]


def test_bad_names_and_undeclared_mutations_are_refused() -> None:
    with pytest.raises(ValueError, match="namespace"):
        mg.library.custom_op("no_namespace", lambda x: x, mutates_args=())
    with pytest.raises(ValueError, match="not arguments"):
        mg.library.custom_op("testlib::f", lambda x: x, mutates_args={"y"})


def test_the_operator_prints_as_pytorchs() -> None:
    assert repr(np_exp) == "<CustomOpDef(testlib::np_exp)>" and np_exp.__name__ == "np_exp"


def test_a_custom_op_of_meta_tensors_runs_its_fake_implementation():
    @mg.library.custom_op("metacheck::double_rows", mutates_args=())
    def double_rows(x: mg.Tensor) -> mg.Tensor:
        return mg.from_numpy(np.repeat(x.numpy(), 2, axis=0))  # needs values

    @double_rows.register_fake
    def _(x):
        return x.new_empty((2 * x.shape[0], *x.shape[1:]))

    out = double_rows(mg.empty(3, 4, device="meta"))
    assert out.device.type == "meta" and tuple(out.shape) == (6, 4)
    np.testing.assert_array_equal(double_rows(mg.ones(1, 2)).numpy(), np.ones((2, 2)))


@pytest.mark.parametrize("give_back", [lambda x: x, lambda x: x[1:], lambda x: x.view(-1)])
def test_a_custom_op_returning_its_input_or_a_view_of_it_is_refused(give_back):
    name = f"aliascheck::op{abs(hash(give_back.__code__)) % 10**6}"

    @mg.library.custom_op(name, mutates_args=())
    def op(x: mg.Tensor) -> mg.Tensor:
        return give_back(x)

    with pytest.raises(RuntimeError, match="may not alias any inputs"):
        op(mg.ones(3))
