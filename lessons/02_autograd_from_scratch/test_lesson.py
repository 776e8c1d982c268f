"""Checks for chapter 2. Oracles: minigenesis's autograd on the same expressions (float64),
NumPy closed forms, and central finite differences (mg.autograd.gradcheck)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 2.1  backward_fn returns (gz, gz), add's rule                   -> local gradients
#      backward_fn returns (gz * a.data, gz * b.data), swapped     -> local gradients
# 2.2  backward returns gy * y                                     -> central difference
#      backward returns gy * (1 - a)                               -> central difference
#      backward returns 1 - y * y, without gy                       -> local gradient
# 2.3  recursive post-order DFS after sys.setrecursionlimit(100000) -> call-depth watch
#      pre-order DFS reversed (a shared node can come too early)   -> parents first
#      seen-set checked only when a node is emitted (pushed once per path) -> each node once
#      (a correct Kahn's-algorithm order reads .parents ~5 times a node: within the budget)
# 2.4  gradients accumulated without zeroing them first            -> backward twice
#      breadth-first from the root (a node sends before it has its whole gradient)
#                                                                  -> diamond vs minigenesis
#      a parent's first gradient stored as is (p.grad = g), += after -> gradients not shared
# 2.5  return mg.viz.graph(...)'s own boxes and arrows             -> viz-is-not-called watch
#      the named leaves only, each with an arrow to "Mul"           -> the hand-written graphs
# 2.6  log(1 + exp(x)), which overflows at x = 800                 -> stable forward
#      forward and backward in NumPy (no graph for a 2nd derivative) -> gradcheck, 2nd derivative
#      x.clamp_(min=0) in forward (the caller's x and the saved x) -> input left alone
#      backward as e^x / (1 + e^x), nan at x = 800                 -> stable gradient
# 2.5  start = root.grad_fn (fails when the root is a leaf)        -> the hand-written graphs


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
    eps = 1e-6  # central difference of np.tanh: an independent oracle
    local = (np.tanh(a + eps) - np.tanh(a - eps)) / (2 * eps)
    g = np.linspace(-1, 1, 4)  # not all ones: the incoming gradient must scale the local one
    (ga,) = y.backward_fn(g)
    ga_ones = y.backward_fn(np.ones(4))[0]
    assert not (np.allclose(ga_ones, local, rtol=1e-6) and np.allclose(ga, local, rtol=1e-6)), (
        "tanh's backward_fn ignores the gradient gy it receives: the chain rule multiplies the "
        "local derivative by gy"
    )
    np.testing.assert_allclose(ga, g * local, rtol=1e-6, atol=1e-12)


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
    repeated = len(order) - len({id(n) for n in order})
    assert not repeated, (
        f"{repeated} node(s) appear more than once in your order of {len(order)}: a node reached "
        "by two paths (here a + b, used twice) must be emitted once"
    )
    assert len(order) == 7, f"{len(order)} nodes, not 7 (3 leaves, a+b, exp, (a+b)+c, the root)"
    position = {id(n): i for i, n in enumerate(order)}
    assert order[-1] is root and id(ab) in position
    for node in order:
        for parent in node.parents:
            assert position[id(parent)] < position[id(node)], (parent, node)


@pytest.mark.exercise("2.3")
def test_topological_order_is_not_recursive(impl):
    """A chain 5000 ops deep, walked while the check watches the call depth: a recursive walk
    (even one that raised ``sys.setrecursionlimit``) nests one call per node and fails; real
    graphs (a network unrolled over thousands of steps) are deeper than any recursion limit."""
    x = impl.Node(np.array([0.5]))
    y = x
    for _ in range(5000):
        y = impl.add(y, x)
    limit = sys.getrecursionlimit()
    try:
        with watch_calls() as seen:
            order = impl.topological_order(y)
    finally:
        sys.setrecursionlimit(limit)  # an answer that raised it does not change later checks
    deepest = seen.deepest(in_file=impl.topological_order.__code__.co_filename)
    assert deepest < 50, (
        f"a function of your file was {deepest} calls deep: walk with an explicit stack (a list "
        "you push and pop), not recursion"
    )
    assert len(order) == 5001 and order[0] is x and order[-1] is y


@pytest.mark.exercise("2.3")
def test_topological_order_expands_each_node_once(impl):
    """y = y + y, 40 times: 41 nodes, but 2**40 paths from the root to the leaf. A walk that
    skips only nodes it has already emitted pushes a shared node once per path and never ends;
    one that remembers every node it has reached expands each once. The check counts the reads
    of ``.parents`` (a depth-first walk needs one or two per node, one that first collects the
    nodes and then orders them by counting parents, as Kahn's algorithm does, four or five) and
    stops the walk past a budget that is still far below the 2**40 reads of a walk per path."""
    budget = 41 * 16

    class CountedNode(impl.Node):
        reads = 0

        @property
        def parents(self):
            CountedNode.reads += 1
            if CountedNode.reads > budget:
                raise RuntimeError("read budget exceeded")
            return self._parents

        @parents.setter
        def parents(self, value):
            self._parents = value

    x = CountedNode(np.array([0.5]))
    y = x
    for _ in range(40):
        y = CountedNode(y.data + y.data, (y, y), lambda g: (g, g), "add")
    try:
        order = impl.topological_order(y)
    except RuntimeError as err:
        if "read budget exceeded" not in str(err):
            raise
        pytest.fail(
            f"your walk read node.parents more than {budget} times on a graph of 41 nodes where "
            "each node is used twice: it expands a node once per path to it (2**40 paths). Mark "
            "a node as seen the first time you reach it and skip it when you reach it again.",
            pytrace=False,
        )
    assert len(order) == 41 and order[0] is x and order[-1] is y


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
def test_backward_gives_each_node_its_own_gradient_array(impl):
    """z = (a + b) + a. ``add``'s backward hands the SAME array to both parents; a walk that
    stores a parent's first gradient as is (``p.grad = g``) and adds the next ones in place
    (``p.grad += g``) makes several nodes share one array, so adding into a's gradient changes
    b's too. Closed form: dz/da = 2, dz/db = 1."""
    (_, _, _), (na, nb, _) = _leaves(impl, seed=4)
    z = impl.add(impl.add(na, nb), na)
    impl.backward(z)
    np.testing.assert_allclose(na.grad, np.full(4, 2.0))
    assert np.allclose(nb.grad, 1.0), (
        f"b.grad is {nb.grad}, not 1 (z = (a + b) + a): another node's gradient was added into "
        "b's array. add's backward returns the same array for both parents; store a copy or "
        "accumulate with a new array (p.grad = p.grad + g), never keep the returned array and "
        "add into it in place"
    )


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


@pytest.mark.exercise("2.6")
def test_softplus_forward_is_stable_and_correct(impl):
    x = np.array([-800.0, -20.0, -1.0, 0.0, 0.5, 30.0, 800.0])
    y = impl.Softplus.apply(mg.tensor(x, dtype=mg.float64))
    assert y.dtype == mg.float64
    expected = np.logaddexp(0.0, x)  # log(e^0 + e^x), NumPy's stable form
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-12, atol=1e-15)


@pytest.mark.exercise("2.6")
def test_softplus_gradient_is_stable(impl):
    x = mg.tensor([-800.0, -20.0, 0.0, 30.0, 800.0], dtype=mg.float64, requires_grad=True)
    impl.Softplus.apply(x).sum().backward()
    got = x.grad.numpy()
    expected = np.exp(-np.logaddexp(0.0, -x.detach().numpy()))  # sigmoid, with no overflow
    assert np.isfinite(got).all(), (
        f"Softplus's gradient at x = {x.detach().numpy()} is {got}: e^x overflows at x = 800 "
        "(inf / inf is nan); write the derivative in a form that never computes e^800"
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-300)


@pytest.mark.exercise("2.6")
def test_softplus_gradient_passes_gradcheck(impl):
    mg.manual_seed(0)
    x = mg.randn(6, dtype=mg.float64, requires_grad=True)
    assert mg.autograd.gradcheck(impl.Softplus.apply, (x,))
    y = impl.Softplus.apply(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 1 / (1 + np.exp(-x.detach().numpy())))


@pytest.mark.exercise("2.6")
def test_softplus_leaves_its_input_alone(impl):
    values = np.array([-3.0, -0.5, 0.0, 2.0])
    x = mg.tensor(values, dtype=mg.float64, requires_grad=True)
    impl.Softplus.apply(x).sum().backward()
    assert np.array_equal(x.detach().numpy(), values), (
        f"Softplus changed its input x from {values} to {x.detach().numpy()}: an in-place op in "
        "forward (clamp_, abs_, ...) writes into the caller's tensor and into the x saved for "
        "backward; use the out-of-place ops (x.clamp(min=0), x.abs())"
    )
    np.testing.assert_allclose(x.grad.numpy(), 1 / (1 + np.exp(-values)), rtol=1e-12)


@pytest.mark.exercise("2.6")
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
    yield w, {"w": w}  # a leaf as the root: it has no grad_fn, its graph is its own box


# The boxes and arrows of _graph_cases(), written out by hand from the expressions (an arrow goes
# from an input to the op that used it; a leaf's box is its name, an unnamed leaf is "tensor").
_EXPECTED_GRAPHS = [
    (
        {"a": 1, "b": 1, "c": 1, "Mul": 2, "Exp": 1, "Add": 1},  # u = a*b; exp(u) + u*c
        {
            ("a", "Mul"): 1,
            ("b", "Mul"): 1,
            ("Mul", "Exp"): 1,
            ("Mul", "Mul"): 1,  # u feeds u * c
            ("c", "Mul"): 1,
            ("Exp", "Add"): 1,
            ("Mul", "Add"): 1,
        },
    ),
    (
        # (x*x).sum() + (w*ones).sum() with only x named: w is an unnamed leaf, ones needs no
        # gradient and is not drawn; x*x has x as both inputs: one arrow
        {"x": 1, "tensor": 1, "Mul": 2, "Sum": 2, "Add": 1},
        {("x", "Mul"): 1, ("tensor", "Mul"): 1, ("Mul", "Sum"): 2, ("Sum", "Add"): 2},
    ),
    ({"w": 1}, {}),  # a bare leaf: one box, no arrow
]


@pytest.mark.exercise("2.5")
def test_graph_lists_match_the_drawn_graph(impl):
    for (root, names), (boxes_want, arrows_want) in zip(_graph_cases(), _EXPECTED_GRAPHS):
        if root.grad_fn is None:
            try:
                boxes, arrows = impl.graph_lists(root, names)
            except (AttributeError, TypeError) as err:
                raise AssertionError(
                    f"graph_lists failed on a leaf root ({err!r}): a tensor made by no op has no "
                    "grad_fn, and its graph is the leaf's own box"
                ) from err
        else:
            boxes, arrows = impl.graph_lists(root, names)
        assert Counter(boxes) == Counter(boxes_want)
        assert Counter(arrows) == Counter(arrows_want)


@pytest.mark.exercise("2.5")
def test_graph_lists_walks_the_graph_itself(impl):
    """The exercise is the walk over ``grad_fn.next_edges``: mg.viz is what it rebuilds, so no
    code of minigenesis/viz may run while graph_lists does."""
    viz_dir = Path(mg.viz.__file__).parent
    for root, names in _graph_cases():
        with watch_calls() as seen:
            impl.graph_lists(root, names)
        used = [Path(f).name for f in seen.ran_code_under(viz_dir)]
        assert not used, f"graph_lists called mg.viz ({', '.join(used)}): walk next_edges yourself"


# ----------------------------------------------------------------------------- 2.7
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("b3d75560d74cbdd9", "3b13341bddccc41673c58358527e88c027c85da5841b4c0105c4de502d5c2a4f"),
    "q2": ("28b35fb41e43e2fe", "5bfc6cc7b3f9de6423db7a21cff822e371374b091626c3fc4a72e10b14eb47fe"),
    "q3": ("395f660d9f0d1eb3", "b65eac0f44dff062ef252b5ff2f24670ea1266a504516ffdbcb0a5db380f1d97"),
    "q4": ("b8f8efe1fdb39a76", "78436bdb42c18d0d2b6ba0808ace0ceec5955dbfec9df7b1991f388533b1e7f9"),
}
QUIZ_HINTS = {
    "q1": (
        "Look again at 'Gradients of a value used several times add up' in the Summary, and at "
        "what mul's backward_fn returns when both of its inputs are the same node."
    ),
    "q2": (
        "A node may pass its gradient on only once it is complete: which of mul and tanh runs "
        "first in topological order, and what is mul.grad at that moment?"
    ),
    "q3": (
        "Think of a graph 100,000 nodes deep: what does each level of a recursive call cost, "
        "and what does Python do after about 1,000 of them?"
    ),
    "q4": (
        "Re-read 'A design decision: backward is written with Tensor ops' and what the graph of "
        "g drawn there is made of."
    ),
}


@pytest.mark.exercise("2.7")
@pytest.mark.parametrize("question", list(QUIZ))
def test_2_7_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
