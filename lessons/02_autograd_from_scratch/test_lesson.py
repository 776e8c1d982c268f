"""Checks for chapter 2. Oracles: minigenesis's autograd on the same expressions (float64),
NumPy closed forms, and central finite differences (mg.autograd.gradcheck)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def _leaves(impl, seed: int = 0, n: int = 3, shape=(4,)):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(-1.5, 1.5, shape) for _ in range(n)]
    return arrays, [impl.Node(a) for a in arrays]


def _mg_leaves(arrays):
    return [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in arrays]


@pytest.mark.exercise("2.1")
def test_mul_forward_and_local_gradients(impl):
    (a, b, _), (na, nb, _) = _leaves(impl)
    z = impl.mul(na, nb)
    np.testing.assert_allclose(z.data, a * b)
    assert z.parents == (na, nb)
    g = np.linspace(-1, 1, 4)
    ga, gb = z.backward_fn(g)
    np.testing.assert_allclose(ga, g * b)
    np.testing.assert_allclose(gb, g * a)


@pytest.mark.exercise("2.2")
def test_tanh_forward_and_local_gradient(impl):
    (a, _, _), (na, _, _) = _leaves(impl)
    y = impl.tanh(na)
    np.testing.assert_allclose(y.data, np.tanh(a))
    assert y.parents == (na,)
    (ga,) = y.backward_fn(np.ones(4))
    eps = 1e-6  # central difference of np.tanh: an independent oracle
    np.testing.assert_allclose(ga, (np.tanh(a + eps) - np.tanh(a - eps)) / (2 * eps), rtol=1e-6)


def _diamond(impl, nodes):
    """f = exp(a + b) + ((a + b) + c), from the given ops only: a + b is used twice."""
    a, b, c = nodes
    ab = impl.add(a, b)
    return impl.add(impl.exp(ab), impl.add(ab, c)), ab


@pytest.mark.exercise("2.3")
def test_topological_order_puts_parents_first(impl):
    _, nodes = _leaves(impl)
    root, ab = _diamond(impl, nodes)
    order = impl.topological_order(root)
    assert len(order) == len({id(n) for n in order}) == 7  # 3 leaves, ab, exp, ab + c, root
    position = {id(n): i for i, n in enumerate(order)}
    assert order[-1] is root and id(ab) in position
    for node in order:
        for parent in node.parents:
            assert position[id(parent)] < position[id(node)], (parent, node)


@pytest.mark.exercise("2.3")
def test_topological_order_is_not_recursive(impl):
    x = impl.Node(np.array([0.5]))
    y = x
    for _ in range(5000):
        y = impl.add(y, x)
    order = impl.topological_order(y)
    assert len(order) == 5001 and order[0] is x and order[-1] is y


@pytest.mark.exercise("2.4")
def test_backward_matches_minigenesis_on_a_diamond(impl):
    arrays, nodes = _leaves(impl, seed=1)
    root, _ = _diamond(impl, nodes)
    impl.backward(root)

    ta, tb, tc = _mg_leaves(arrays)
    tab = ta + tb
    (tab.exp() + (tab + tc)).sum().backward()
    for node, t in zip(nodes, (ta, tb, tc)):
        np.testing.assert_allclose(node.grad, t.grad.numpy(), rtol=1e-12)


@pytest.mark.exercise("2.4")
def test_backward_twice_gives_the_same_gradients(impl):
    arrays, nodes = _leaves(impl, seed=2)
    root, _ = _diamond(impl, nodes)
    impl.backward(root)
    first = [n.grad.copy() for n in nodes]
    impl.backward(root)
    for g, n in zip(first, nodes):
        np.testing.assert_allclose(n.grad, g)


@pytest.mark.exercise("2.4")
def test_backward_through_a_tanh_network(impl):
    """A two-layer elementwise 'network' y = tanh(tanh(x*w1 + b1) * w2) summed (mul and tanh
    are the reference answers here: this checks backward alone)."""
    arrays, nodes = _leaves(impl, seed=3, n=4, shape=(5,))
    x, w1, b1, w2 = nodes
    y = impl.tanh(impl.mul(impl.tanh(impl.add(impl.mul(x, w1), b1)), w2))
    impl.backward(y)
    tx, tw1, tb1, tw2 = _mg_leaves(arrays)
    (((tx * tw1 + tb1).tanh() * tw2).tanh()).sum().backward()
    for node, t in zip(nodes, (tx, tw1, tb1, tw2)):
        np.testing.assert_allclose(node.grad, t.grad.numpy(), rtol=1e-10)


@pytest.mark.exercise("2.5")
def test_softplus_forward_is_stable_and_correct(impl):
    x = np.array([-800.0, -20.0, -1.0, 0.0, 0.5, 30.0, 800.0])
    y = impl.Softplus.apply(mg.tensor(x, dtype=mg.float64))
    assert y.dtype == mg.float64
    expected = np.logaddexp(0.0, x)  # log(e^0 + e^x), NumPy's stable form
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.exercise("2.5")
def test_softplus_gradient_passes_gradcheck(impl):
    mg.manual_seed(0)
    x = mg.randn(6, dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(impl.Softplus.apply, (x,))
    y = impl.Softplus.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 / (1 + np.exp(-x.detach().numpy())))


@pytest.mark.exercise("2.5")
def test_softplus_second_derivative(impl):
    """Backward built from Tensor ops can be differentiated again: d2/dx2 = s(x)(1 - s(x))."""
    x = mg.tensor([-2.0, 0.0, 1.5], dtype=mg.float64, requires_grad=True)
    (g,) = mg.autograd.grad(impl.Softplus.apply(x).sum(), x, create_graph=True)
    (gg,) = mg.autograd.grad(g.sum(), x)
    s = 1 / (1 + np.exp(-x.detach().numpy()))
    np.testing.assert_allclose(gg.numpy(), s * (1 - s), rtol=1e-12)


def _graph_cases():
    """Small graphs with a shared node, a leaf used twice by one op, an unnamed leaf and an
    argument that needs no gradient."""
    a, b, c = (mg.tensor(v, dtype=mg.float64, requires_grad=True) for v in (0.5, -1.2, 2.0))
    u = a * b
    yield (u.exp() + u * c), {"a": a, "b": b, "c": c}
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    w = mg.tensor([3.0, 4.0], requires_grad=True)
    yield ((x * x).sum() + (w * mg.tensor([1.0, 1.0])).sum()), {"x": x}


@pytest.mark.exercise("2.6")
def test_graph_lists_match_the_drawn_graph(impl):
    from collections import Counter

    for root, names in _graph_cases():
        boxes, arrows = impl.graph_lists(root, names)
        drawn = mg.viz.graph(root, params=names, show_broadcast=False)
        assert Counter(boxes) == Counter(n.name for n in drawn.nodes)
        assert Counter(arrows) == Counter(drawn.edge_names())
