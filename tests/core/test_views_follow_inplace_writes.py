"""A view made before an in-place write to its base reads the base's new history (PyTorch
regenerates the view's grad_fn from its base), for every kind of view; and an in-place write to a
view of a graph tensor is passed on to the base. The oracle: the same program on NumPy views,
differentiated by central differences in float64."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

# each view kind, as (minigenesis maker, NumPy maker of the same view)
VIEWS = {
    "view": (lambda t: t.view(4, 1), lambda a: a.reshape(4, 1)),
    "reshape": (lambda t: t.reshape(-1), lambda a: a.reshape(-1)),
    "flatten": (lambda t: t.flatten(), lambda a: a.reshape(-1)),
    "t": (lambda t: t.t(), lambda a: a.T),
    "T": (lambda t: t.T, lambda a: a.T),
    "transpose": (lambda t: t.transpose(0, 1), lambda a: a.swapaxes(0, 1)),
    "permute": (lambda t: t.permute(1, 0), lambda a: a.transpose(1, 0)),
    "movedim": (lambda t: t.movedim(0, 1), lambda a: np.moveaxis(a, 0, 1)),
    "unsqueeze": (lambda t: t.unsqueeze(1), lambda a: a[:, None]),
    "expand": (lambda t: t[None].expand(3, 2, 2), lambda a: np.broadcast_to(a, (3, 2, 2))),
    "indexing": (lambda t: t[1], lambda a: a[1]),
    "slice": (lambda t: t[:, 1:], lambda a: a[:, 1:]),
    "narrow": (lambda t: t.narrow(1, 0, 1), lambda a: a[:, 0:1]),
    "diagonal": (lambda t: t.diagonal(), lambda a: np.einsum("ii->i", a)),  # (a writable view)
    "split piece": (lambda t: t.split(1, dim=1)[1], lambda a: a[:, 1:2]),
    "unbind piece": (lambda t: t.unbind(0)[0], lambda a: a[0]),
    "view of a view": (lambda t: t.t()[0], lambda a: a.T[0]),
    "reshape of a transpose": (lambda t: t.t().unsqueeze(0), lambda a: a.T[None]),
}
X1 = np.array([[3.0, 4.0], [5.0, -2.0]])
X0 = np.array([[1.0, 2.0], [-0.5, 1.5]])


def _central_differences(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = h
        g[k] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("kind", list(VIEWS))
def test_a_view_made_before_an_in_place_write_to_its_base_sees_the_new_history(kind):
    make, make_np = VIEWS[kind]
    w = np.random.default_rng(0).standard_normal(make_np(X1).shape)

    def loss_np(x0):
        x1 = X1.copy()
        v = make_np(x1)  # a view: sees the write below
        x1 *= x0
        return (v * w).sum() + x0.sum()

    x0 = mg.tensor(X0, requires_grad=True)
    x1 = mg.tensor(X1)
    v = make(x1)
    x1.mul_(x0)
    np.testing.assert_array_equal(v.detach().numpy(), make_np(X1 * X0))
    ((v * mg.tensor(w)).sum() + x0.sum()).backward()
    np.testing.assert_allclose(x0.grad.numpy(), _central_differences(loss_np, X0), rtol=1e-7)


def test_the_reported_view_sees_the_multiplied_base():
    x0 = mg.tensor([1.0, 2.0], requires_grad=True)
    x1 = mg.tensor([3.0, 4.0])
    v0 = x1.view(2, 1)
    x1.mul_(x0)
    (v0.sum() + x0.sum()).backward()
    assert x0.grad.tolist() == [4.0, 5.0]


WRITABLE = [k for k in VIEWS if k not in ("expand", "split piece")]


@pytest.mark.parametrize("kind", WRITABLE)
def test_an_in_place_write_to_a_view_of_a_graph_tensor_reaches_the_base(kind):
    """y = t * 1; make(y).mul_(s); L = sum(y * c): gradients to t and to the scale s."""
    make, make_np = VIEWS[kind]
    c = np.arange(4.0).reshape(2, 2) - 1.5

    def loss_np(t, s):
        y = t * 1
        v = make_np(y)
        v *= s
        return (y * c).sum()

    t = mg.tensor(X0, requires_grad=True)
    s = mg.tensor(1.5, requires_grad=True)
    y = t * 1
    make(y).mul_(s)
    (y * mg.tensor(c)).sum().backward()
    np.testing.assert_allclose(
        t.grad.numpy(), _central_differences(lambda a: loss_np(a, 1.5), X0), rtol=1e-7
    )
    s_grad = (loss_np(X0, 1.5 + 1e-6) - loss_np(X0, 1.5 - 1e-6)) / 2e-6
    np.testing.assert_allclose(s.grad.item(), s_grad, rtol=1e-7)


def test_in_place_on_a_split_piece_in_a_graph_is_refused():
    y = mg.ones(2, 2, requires_grad=True) * 1
    with pytest.raises(RuntimeError, match="several views"):
        y.split(1, dim=1)[1].mul_(3)
