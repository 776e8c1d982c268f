"""lgamma, digamma and polygamma (ops/special.py), which Gamma and Beta are built on: values
against mpmath (50-digit reference) and torch, gradients of every order by finite differences."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.autograd import gradcheck
from minigenesis.ops.special import Digamma, Lgamma, Polygamma

POSITIVE = np.concatenate([np.linspace(0.02, 3, 40), np.linspace(3.1, 60, 40), [1e-6, 1e3, 1e8]])
NEGATIVE = np.array([-0.5, -1.3, -2.7, -5.5, -10.25])


def _eval(op, x, *extra):
    return op.apply(mg.tensor(x), *extra).numpy()


def test_lgamma_and_digamma_match_mpmath():
    mpmath = pytest.importorskip("mpmath")
    x = np.concatenate([POSITIVE, NEGATIVE])
    lg = np.array([float(mpmath.log(abs(mpmath.gamma(v)))) for v in x])
    dg = np.array([float(mpmath.digamma(v)) for v in x])
    np.testing.assert_allclose(_eval(Lgamma, x), lg, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(_eval(Digamma, x), dg, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma_matches_mpmath(n):
    mpmath = pytest.importorskip("mpmath")
    ref = np.array([float(mpmath.polygamma(n, v)) for v in POSITIVE])
    np.testing.assert_allclose(_eval(Polygamma, POSITIVE, n), ref, rtol=1e-13)


def test_special_functions_match_torch_in_float32_and_float64():
    torch = pytest.importorskip("torch")
    x = np.concatenate([POSITIVE[:-1], NEGATIVE])
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 2e-6)):
        xs = x.astype(dtype)
        for op, fn in ((Lgamma, torch.lgamma), (Digamma, torch.digamma)):
            ours = _eval(op, xs)
            assert ours.dtype == dtype
            np.testing.assert_allclose(ours, fn(torch.tensor(xs)).numpy(), rtol=rtol, atol=rtol)
        # torch's own trigamma is accurate to about 1e-9 (mpmath is the reference above)
        tp = torch.polygamma(1, torch.tensor(xs[xs > 0])).numpy()
        np.testing.assert_allclose(_eval(Polygamma, xs[xs > 0], 1), tp, rtol=max(rtol, 1e-8))


def test_poles_and_special_values():
    np.testing.assert_allclose(
        _eval(Lgamma, np.array([1.0, 2.0, 0.5])), [0, 0, 0.5 * np.log(np.pi)], atol=1e-14
    )
    assert np.all(np.isinf(_eval(Lgamma, np.array([0.0, -1.0, -2.0]))))
    np.testing.assert_allclose(_eval(Digamma, np.array([1.0])), [-np.euler_gamma], rtol=1e-14)
    np.testing.assert_allclose(_eval(Polygamma, np.array([1.0]), 1), [np.pi**2 / 6], rtol=1e-14)


def test_gradients_of_every_order_match_finite_differences():
    x = mg.tensor([0.7, 2.5, 9.0, 31.0], dtype=mg.float64, requires_grad=True)
    assert gradcheck(Lgamma.apply, (x,))
    assert gradcheck(Digamma.apply, (x,))
    assert gradcheck(lambda t: Polygamma.apply(t, 2), (x,))

    def lgamma_second_derivative(t):
        (g,) = mg.autograd.grad(Lgamma.apply(t).sum(), t, create_graph=True)
        return g

    assert gradcheck(lgamma_second_derivative, (x,))


def test_lgamma_digamma_polygamma_are_torch_names():
    torch = pytest.importorskip("torch")
    x = np.array([0.3, 1.0, 2.0, 4.5, 17.0])
    t = torch.tensor(x)
    np.testing.assert_allclose(mg.lgamma(mg.tensor(x)).numpy(), torch.lgamma(t).numpy(), rtol=1e-14)
    np.testing.assert_allclose(mg.tensor(x).digamma().numpy(), t.digamma().numpy(), rtol=1e-13)
    for n in (0, 1, 3):
        np.testing.assert_allclose(
            mg.polygamma(n, mg.tensor(x)).numpy(), torch.polygamma(n, t).numpy(), rtol=1e-8
        )
    assert mg.lgamma(mg.tensor([1.0, 2.0])).tolist() == [0.0, 0.0]  # exact, as PyTorch
    ints = mg.lgamma(mg.tensor([1, 5]))  # integers compute in the default float dtype
    assert ints.dtype == mg.float32 and ints.tolist() == pytest.approx([0.0, np.log(24)])
    with pytest.raises(ValueError, match="n must be a nonnegative integer"):
        mg.polygamma(-1, mg.tensor(x))
