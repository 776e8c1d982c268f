"""What ``lessons capstone --mine`` (lessons/_capstone_mine.py) plugs into minigenesis for a run
of the capstone, and how each piece of the learner's is watched.

- ``Guard`` counts the calls of each piece and turns what it raises, or NaN/inf it makes from
  finite inputs, into ``PieceFailed`` naming the piece.
- ``make_walk``, ``make_sum_to_shape``, ``make_linear``: minigenesis's backward walk,
  ``Tensor.sum_to_shape`` and ``F.linear`` rebuilt on the learner's chapter 2 walk, 3.2 sum_to
  and 3.4 linear_backward (each works on NumPy arrays, as the exercises do).
- ``plugged``: the context manager that sets them for one run and puts back what was there.

Nothing here changes minigenesis's files; the patches live only inside ``with plugged(...)``.
"""

from __future__ import annotations

import contextlib
import traceback
from collections import Counter
from types import FunctionType, GeneratorType
from typing import Any

import numpy as np

import minigenesis as mg
from minigenesis.autocast_policy import LOWER, autocast_function
from minigenesis.autograd import engine
from minigenesis.autograd.function import Function


class PieceFailed(Exception):
    """A learner's piece raised, or made NaN/inf from finite inputs."""

    def __init__(self, numbers: tuple[str, ...], why: str) -> None:
        super().__init__(f"{', '.join(numbers)}: {why}")
        self.numbers, self.why = numbers, why


# ----------------------------------------------------------------------------------------------
# Guards: a piece that raises or makes NaN is named
# ----------------------------------------------------------------------------------------------
def finite(*arrays: Any) -> bool:
    return all(bool(np.isfinite(np.asarray(a, dtype=np.float64)).all()) for a in arrays)


def to_array(t: Any) -> np.ndarray:
    return t.detach().float().numpy() if isinstance(t, mg.Tensor) else np.asarray(t)


class Guard:
    """Counts the calls of each piece and turns its errors into PieceFailed."""

    def __init__(self) -> None:
        self.calls: Counter = Counter()

    def wrap(self, numbers: tuple[str, ...], fn, check=None):
        def guarded(*args, **kwargs):
            for n in numbers:
                self.calls[n] += 1
            try:
                out = fn(*args, **kwargs)
            except PieceFailed:
                raise
            except Exception as err:  # noqa: BLE001  (the learner's code: any error is theirs)
                raise PieceFailed(numbers, f"raised {type(err).__name__}: {err}") from err
            problem = check(out, *args, **kwargs) if check is not None else None
            if problem:
                raise PieceFailed(numbers, problem)
            return out

        return guarded


# ----------------------------------------------------------------------------------------------
# The patches: the backward walk, the sum-back and Linear's backward
# ----------------------------------------------------------------------------------------------
class _Vertex:
    """A vertex of minigenesis's graph in chapter 2's shape (``data``, ``grad``, ``parents``,
    ``backward_fn``), for the learner's ``backward``; ``data`` holds zeros of the gradient's
    shape and dtype (the walk reads only those)."""

    def __init__(self, thing: Any, shape: tuple, dtype: Any) -> None:
        self.thing = thing
        self.data = np.zeros(shape, dtype)
        self.grad = np.zeros_like(self.data)
        self.parents: tuple = ()
        self.backward_fn = None
        self.op = type(thing).__name__ if isinstance(thing, Function) else ""


def _node_backward(node: Function, edges: list):
    """The chain rule's local step of a minigenesis node, on arrays: the gradient of its
    output in, one gradient per input that needs one out, each summed back to the input's
    shape (``Tensor.sum_to_shape``, yours when 3.2 is plugged in) and cast to its dtype."""

    others = []  # a node of several outputs (max pooling's values and indices): only output 0
    for shape, dtype in (node._out_meta or [])[1:]:  # is differentiated; the rest get zeros
        others.append(mg.Tensor._make(np.zeros(shape, dtype)) if node._materialize_grads else None)

    def backward_fn(gz: np.ndarray) -> tuple:
        out = node.backward(node, mg.Tensor._make(gz), *others)
        if type(out) is GeneratorType:  # a backward that yields (input index, gradient)
            grads = [None] * len(node.next_edges)
            for i, g in out:
                grads[i] = g
            out = tuple(grads)
        elif type(out) is not tuple:
            out = (out,)
        result = []
        for edge, g in zip(node.next_edges, out):
            if edge is None:
                continue
            _, _, shape, dtype = edge
            if g is None:
                result.append(np.zeros(shape, dtype))
                continue
            if tuple(g.shape) != tuple(shape):
                g = g.sum_to_shape(shape)
            result.append(np.asarray(g._data).astype(dtype, copy=False))
        return tuple(result)

    return backward_fn


def make_walk(walk_backward, guard: Guard, numbers: tuple[str, ...]):
    """``_tensor.run_backward`` as the learner's walk: chapter 2's ``backward(root)`` on the
    graph seen as _Vertex objects, then each leaf's gradient added into its ``.grad``. What the
    walk does not cover (``autograd.grad``, ``create_graph``, hooks, several outputs, a GPU)
    runs minigenesis's own walk."""
    original = engine.run_backward

    def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs=None,
                     allow_unused=False):  # fmt: skip
        graph = _as_vertices(tensors, grad_tensors) if inputs is None and not create_graph else None
        if graph is None:
            return original(tensors, grad_tensors, retain_graph, create_graph, inputs, allow_unused)
        root, vertices = graph
        with mg.no_grad():
            try:
                guard.wrap(numbers, walk_backward)(root)
            except PieceFailed as failed:  # name the piece that raised, not both
                raise PieceFailed(_blame(failed, numbers), failed.why) from failed.__cause__
        leaves = [v for v in vertices.values() if not isinstance(v.thing, Function)]
        bad = [v for v in leaves if not finite(v.grad)]
        if bad:  # the learner's walk, or the model? minigenesis's walk on the same graph says
            truth = mg.autograd.grad(tensors, [v.thing for v in leaves], grad_tensors,
                                     retain_graph=retain_graph, allow_unused=True)  # fmt: skip
            if all(t is None or finite(t._data) for t in truth):
                raise PieceFailed(numbers, "gave NaN/inf gradients where minigenesis's are finite")
        for v in leaves:
            engine._accumulate(v.thing, mg.Tensor._make(np.array(v.grad)), False)
        if not retain_graph:
            for v in vertices.values():
                if isinstance(v.thing, Function):
                    v.thing._saved = None
        return None

    return run_backward


def walk_of(learner02: Any, reference02: Any, mine: set[str]):
    """Chapter 2's ``backward(root)``: the learner's 2.4 if it is in ``mine``, else the reference
    answer, calling the learner's 2.3 if that is in ``mine``, else the reference's. A piece taken
    out after it raised thus no longer runs inside the other one."""
    backward = (learner02 if "2.4" in mine else reference02).backward
    order = (learner02 if "2.3" in mine else reference02).topological_order
    if backward.__globals__.get("topological_order") is order:
        return backward
    names = {**backward.__globals__, "topological_order": order}  # backward calls it by name
    return FunctionType(
        backward.__code__, names, backward.__name__, backward.__defaults__, backward.__closure__
    )


def _blame(failed: PieceFailed, numbers: tuple[str, ...]) -> tuple[str, ...]:
    """Which of the walk's pieces raised: 2.3 when the error came from inside
    ``topological_order``, else 2.4 when it is the learner's (the order can only be 2.3's
    fault when the backward is the reference answer)."""
    if len(numbers) < 2 or failed.__cause__ is None:
        return numbers
    frames = traceback.extract_tb(failed.__cause__.__traceback__)
    return ("2.3",) if any(f.name == "topological_order" for f in frames) else ("2.4",)


def _as_vertices(tensors, grad_tensors):
    """(root vertex, {id: vertex}) for a single scalar-seeded output on the CPU, else None."""
    if len(tensors) != 1:
        return None
    out, seed = tensors[0], grad_tensors[0]
    node = out.grad_fn
    if node is None or out._output_nr != 0 or not isinstance(out._data, np.ndarray):
        return None
    if not bool((np.asarray(seed._data) == 1).all()):
        return None
    vertices = {id(node): _Vertex(node, out._data.shape, out._data.dtype)}
    stack = [node]
    while stack:
        fn = stack.pop()
        if fn._grad_hooks:
            return None
        parents = []
        for edge in fn.next_edges:
            if edge is None:
                continue
            thing, nr, shape, dtype = edge
            if nr != 0:  # a gradient into a node's second output: minigenesis's walk
                return None
            if id(thing) not in vertices:
                if not isinstance(thing, Function) and (
                    thing._hooks or thing._post_accumulate_grad_hooks
                ):
                    return None
                vertices[id(thing)] = _Vertex(thing, shape, dtype)
                if isinstance(thing, Function):
                    stack.append(thing)
            parents.append(vertices[id(thing)])
        vertex = vertices[id(fn)]
        vertex.parents = tuple(parents)
        vertex.backward_fn = _node_backward(fn, [e for e in fn.next_edges if e is not None])
    return vertices[id(node)], vertices


def make_sum_to_shape(sum_to, guard: Guard):
    """``Tensor.sum_to_shape`` through the learner's ``sum_to`` on arrays (minigenesis's own
    when the result must be recorded for a second derivative)."""
    original = mg.Tensor.sum_to_shape

    def check(out, grad, shape):
        if tuple(np.shape(out)) != tuple(shape):
            return f"returned shape {tuple(np.shape(out))} for shape {tuple(shape)}"
        if finite(grad) and not finite(out):
            return "made NaN/inf from a finite gradient"
        return None

    plugged = guard.wrap(("3.2",), sum_to, check)

    def sum_to_shape(self, shape):
        if tuple(self.shape) == tuple(shape):
            return self
        if self.requires_grad and mg.is_grad_enabled():
            return original(self, shape)
        data = self._data
        return mg.Tensor._make(np.asarray(plugged(data, tuple(shape))).astype(data.dtype))

    return sum_to_shape


def make_linear(linear_backward, guard: Guard):
    """``F.linear`` as a Function whose backward is the learner's ``linear_backward`` (on
    float32 arrays; the results are cast back to each input's dtype). Autocast treats it as
    minigenesis's linear (the low-precision rule)."""

    def check(out, x, w, b, g):
        shapes = [np.shape(o) for o in out] if isinstance(out, tuple) and len(out) == 3 else None
        if shapes != [x.shape, w.shape, b.shape]:
            return f"returned shapes {shapes}, expected {[x.shape, w.shape, b.shape]}"
        if finite(x, w, b, g) and not finite(*out):
            return "made NaN/inf from finite inputs"
        return None

    plugged = guard.wrap(("3.4",), linear_backward, check)

    class LinearByHand(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x, w, b):
            ctx.save_for_backward(x, w, b)
            return x @ w.T + b

        @staticmethod
        def backward(ctx, g):
            x, w, b = ctx.saved_tensors
            x2 = x.detach().float().numpy().reshape(-1, w.shape[1])
            g2 = g.detach().float().numpy().reshape(-1, w.shape[0])
            gx, gw, gb = plugged(x2, w.detach().float().numpy(), b.detach().float().numpy(), g2)
            back = [(gx.reshape(x.shape), x), (gw, w), (gb, b)]
            return tuple(mg.tensor(np.asarray(a), dtype=t.dtype) for a, t in back)

    @autocast_function(LOWER)
    def linear(input, weight, bias=None):
        if bias is None:
            bias = mg.zeros(weight.shape[0], dtype=weight.dtype)
        return LinearByHand.apply(input, weight, bias)

    return linear


@contextlib.contextmanager
def plugged(patches: list[tuple[Any, str, Any]]):
    """Set each ``(object, attribute, value)`` for the block, then put back what was there
    (removing what was not: a class attribute that came from a base class)."""
    saved = []
    try:
        for obj, name, value in patches:
            saved.append((obj, name, name in vars(obj), vars(obj).get(name)))
            setattr(obj, name, value)
        yield
    finally:
        for obj, name, had, old in reversed(saved):
            if had:
                setattr(obj, name, old)
            else:
                delattr(obj, name)
