"""The backward pass: reverse-mode automatic differentiation over the recorded graph.

The graph's vertices are nodes (``Function`` objects) and leaf tensors; each node's
``next_edges`` lead to the vertices its inputs came from. micrograd's idea in two passes, written
without recursion so a 100,000-op chain works:

1. walk the graph once from the outputs and count, for every vertex, how many edges lead into it;
2. send the starting gradients along; a vertex whose every incoming edge has been served is
   complete: a node then runs its backward and sends each input its share, a leaf tensor adds its
   gradient into ``.grad`` (or hands it to ``autograd.grad``).

This is Kahn's topological order: a node's gradient is complete before it is used.

This file is also the ONE place where broadcasting is undone: a gradient arriving for an input of
shape (3, 1) from an output of shape (3, 4) is summed back to (3, 1) here (``_Backward.send``),
and cast back to the input's dtype, so no op has to repeat that logic.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import GeneratorType
from typing import Any

from ..backend import get_array_module, quiet_fp
from . import grad_reuse, node_hooks
from .function import Function, _check_finite
from .grad_mode import state
from .tensor_base import TensorBase


def seed_grads(outputs: list, grad_outputs: list | None) -> list:
    """The gradients backward starts from: ``gradient=`` as given, or 1 for a scalar output."""
    grads = []
    for i, out in enumerate(outputs):
        g = grad_outputs[i] if grad_outputs is not None else None
        if not out.requires_grad or (g is None and out._data.size != 1):
            raise _seed_error(i, out)
        xp = get_array_module(out._data)
        if g is None:
            g = TensorBase._make(xp.ones_like(out._data))
        elif not isinstance(g, TensorBase) or g._data.dtype != out._data.dtype:
            g = _in_output_dtype(g, out)
        if g._data.shape != out._data.shape:
            raise _seed_shape_error(g, out)
        grads.append(g)
    return grads


def _in_output_dtype(g: Any, out: Any) -> Any:
    """A given gradient as a tensor of the output's dtype, as PyTorch casts it: every backward
    then sees its own output's dtype (the cast is differentiable, for create_graph)."""
    if not isinstance(g, TensorBase):
        return TensorBase._make(get_array_module(out._data).asarray(g, dtype=out._data.dtype))
    return g._cast(out._data.dtype)


def _seed_shape_error(g: Any, out: Any) -> RuntimeError:
    return RuntimeError(
        f"gradient has shape {tuple(g.shape)} but the output has shape {tuple(out.shape)}"
    )


def _seed_error(i: int, out: Any) -> RuntimeError:
    """Why backward cannot start from output ``i``: it needs no gradient, or it is not a scalar
    and no ``gradient`` was given."""
    if not out.requires_grad:
        return RuntimeError(
            f"element {i} of the tensors to differentiate does not require grad and has no "
            f"grad_fn: was it computed under no_grad(), or from tensors without "
            f"requires_grad=True?"
        )
    return RuntimeError(
        f"backward() needs a `gradient` argument for a non-scalar output (shape "
        f"{tuple(out.shape)}): gradients can be created implicitly only for scalars. "
        f"Call out.sum().backward(), or out.backward(gradient=mg.ones_like(out))."
    )


@quiet_fp  # summed gradients overflow to inf, inf - inf is NaN: silently, as in PyTorch
def run_backward(
    tensors: Sequence[Any],
    grad_tensors: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Any] | None = None,
    allow_unused: bool = False,
    into_grad: bool = False,
) -> tuple | None:
    """Send ``grad_tensors`` back from ``tensors``: into the ``.grad`` of the leaf tensors
    (``Tensor.backward``), or, given ``inputs``, returned for those (``autograd.grad``)."""
    # The edges the starting gradients are sent along (taken as they are: seed_grads checked them)
    starts = [
        (t.grad_fn or t, t._output_nr, g._data.shape, g._data.dtype)
        for t, g in zip(tensors, grad_tensors)
    ]
    task = _Backward(starts, create_graph, inputs)
    task.into_grad = into_grad
    # detect_anomaly checks what each backward returns (run_ready), not each op inside it; the
    # ops inside a backward record a graph only for create_graph.
    task.anomaly, state.anomaly = state.anomaly, False
    grad_enabled, state.grad_enabled = state.grad_enabled, create_graph
    outer, state.backward = state.backward, task  # (a backward may run inside a backward)
    try:
        for edge, g in zip(starts, grad_tensors):
            task.send(edge, g)
        task.run_ready(retain_graph)
    finally:
        state.anomaly, state.grad_enabled, state.backward = task.anomaly, grad_enabled, outer
    return task.grads_of_inputs(allow_unused) if inputs is not None else None


class _Backward:
    """The state of one backward pass."""

    def __init__(self, starts: list, create_graph: bool, inputs: Sequence[Any] | None) -> None:
        self.create_graph = create_graph
        self.anomaly = False
        self.waiting = _count_edges_into(starts)  # vertex -> its edges not yet served
        self.buffers: dict[Any, list] = {}  # vertex -> the gradient of each output, summed so far
        self.ready: list[Function] = []  # nodes whose gradients are complete
        self.private: set = set()  # leaves whose buffered gradient nothing else holds
        self.sums: set = set()  # (vertex, output_nr) whose buffer holds a sum made by this pass
        # autograd.grad: (id of vertex, output_nr) of each input -> its places in the results
        self.capture = inputs is not None
        self.wanted = _places(inputs) if inputs is not None else {}
        self.results = [None] * len(inputs or ())
        self.leads = _leading_to(self.wanted, self.waiting) if self.capture else None

    def run_ready(self, retain_graph: bool) -> None:
        """Run each complete node's backward and send each of its inputs its gradient, until no
        node is left ready (sending completes more of them)."""
        ready, buffers, wanted, anomaly = self.ready, self.buffers, self.wanted, self.anomaly
        while ready:
            node = ready.pop()
            edges = node.next_edges
            grads = buffers.pop(node, None)
            if grads is None or (wanted and not self._runs(node, grads)):
                in_grads = (None,) * len(edges)  # it only releases its inputs
            else:
                if len(grads) > 1 or node._grad_hooks or wanted:  # (a slot per output)
                    grads = self._grad_outputs(node, grads)
                in_grads = node.backward(node, *grads)
                grads = None  # (not held here while its inputs' gradients are sent)
            if type(in_grads) is not tuple:
                if type(in_grads) is GeneratorType:  # each gradient sent on as it is yielded
                    self.send_as_yielded(node, in_grads)
                    in_grads = edges = ()  # (all sent: nothing left to send below)
                else:
                    in_grads = (in_grads,)
            if len(in_grads) != len(edges):
                in_grads = _drop_extra_nones(node, in_grads, edges)
            if anomaly:
                _check_finite(type(node).__name__, "backward", enumerate(in_grads))
            for k, edge in enumerate(edges):  # (not zip: its reused tuple would hold a g)
                if edge is not None:
                    g = in_grads[k]
                    # (a leaf may keep its last gradient as it is; in_grads and g hold it here)
                    last = not isinstance(edge[0], Function) and self.waiting[edge[0]] == 1
                    private = last and grad_reuse.held_only_here(g, held_here=2)
                    self.send(edge, g, private)
            g = None  # (a gradient held here would not count as private later)
            if not retain_graph:  # free the saved values: their memory is needed no more
                node._saved = None

    def _runs(self, node: Function, grads: list) -> bool:
        """Given inputs: whether ``node``'s backward runs (a path from it leads to an input).
        A node that is an input's grad_fn and leads to no other runs the hooks of that tensor
        and gives it its gradient (not the node's own hooks: its backward does not run); a node
        off every path to an input does nothing."""
        if node in self.leads:
            return True
        if any(key[0] == id(node) for key in self.wanted):
            self._capture(node, grads)
        return False

    def send_as_yielded(self, node: Function, in_grads: GeneratorType) -> None:
        """A backward written as a generator yields ``(input index, gradient)`` pairs: each
        gradient is sent on before the next is computed, so a leaf's is added into its .grad and
        freed first (AutocastLinear yields its weight's gradient before computing the input's)."""
        pending = list(node.next_edges)  # the edges no gradient was yielded for yet
        for i, g in in_grads:
            if self.anomaly:
                _check_finite(type(node).__name__, "backward", [(i, g)])
            if pending[i] is not None:
                leaf = not isinstance(pending[i][0], Function)
                private = leaf and grad_reuse.held_only_here(g, held_here=1)  # (g holds it)
                self.send(pending[i], g, private)
                pending[i] = None
            del g  # (this name must not keep the gradient alive while the next is computed)
        for edge in pending:
            if edge is not None:
                self.send(edge, None)

    def _grad_outputs(self, node: Function, grads: list) -> list:
        """The gradients node.backward receives: after the hooks on them, captured for
        autograd.grad, and zeros for an output that got none (a multi-output op; None if the
        node asked for that, see Function.set_materialize_grads)."""
        grads = self._capture(node, grads)
        if node._node_pre_hooks or node._node_post_hooks:  # (they see None where none came)
            grads = node_hooks.before_materializing(node, grads)
        if node._materialize_grads and any(g is None for g in grads):
            xp = get_array_module(next(g for g in grads if g is not None)._data)
            grads = [
                g if g is not None else TensorBase._make(xp.zeros(shape, dtype))
                for g, (shape, dtype) in zip(grads, node._out_meta)
            ]
        return grads

    def _capture(self, node: Function, grads: list) -> list:
        """The gradients of node's outputs after the hooks on those tensors, kept as results
        for autograd.grad where an output is one of its inputs. The node's own hooks run only
        where its backward runs (a node that only gives an input its gradient skips them)."""
        if node._grad_hooks:
            for nr, hooks in node._grad_hooks.items():
                if grads[nr] is not None:
                    grads[nr] = _run_hooks(hooks, grads[nr])
        for nr, g in enumerate(grads):
            for i in self.wanted.get((id(node), nr), ()):
                self.results[i] = g
        return grads

    def send(self, edge: tuple, g: Any, private: bool = False) -> None:
        """Pass the gradient ``g`` (None: no gradient) along ``edge`` into the buffer of the vertex
        it leads to; the last edge into a vertex completes it: a node is then ready to run, and a
        leaf tensor gets its gradient at once. ``private``: nothing but this pass holds ``g``, so
        a leaf may keep it as its .grad without a copy (see grad_reuse.py)."""
        vertex, nr, shape, dtype = edge
        is_node = isinstance(vertex, Function)  # (else a leaf tensor)
        if g is not None:
            data = g._data
            if data.shape != shape:  # the input was broadcast: sum over the broadcast axes
                g, private = g.sum_to_shape(shape), True  # (a new array, or a view: see below)
            if data.dtype is not dtype and data.dtype != dtype:  # the input was promoted: back
                g, private = g._cast(dtype), True  # to its own dtype
            buffer = self.buffers.get(vertex)
            if buffer is None:  # one slot per output of a node (a leaf tensor has one)
                buffer = self.buffers[vertex] = [None] * vertex._n_outputs
            elif buffer[nr] is not None:
                g, private = self._sum(buffer[nr], g, (vertex, nr)), True
            buffer[nr] = g
            if not is_node:
                (self.private.add if private else self.private.discard)(vertex)
        waiting = self.waiting
        left = waiting[vertex] = waiting[vertex] - 1
        if left == 0:
            if is_node:
                self.ready.append(vertex)
            else:
                self._finish_leaf(vertex)

    def _sum(self, a: Any, b: Any, slot: tuple) -> Any:
        """Two gradients of one output (``slot``: its vertex and output_nr), summed. With
        create_graph the sum is an op of the graph (it may be differentiated); otherwise nothing
        records, and the arrays are added directly (the op machinery costs far more than the
        addition on small arrays): into a new array the first time, and from then on into that
        same array, which nothing outside this pass can see until the vertex is complete (a
        weight used at each of 32 time steps: one weight-sized array made, not 31)."""
        if self.create_graph:
            return a + b
        if slot in self.sums:
            a._data += b._data
            return a
        self.sums.add(slot)
        total = a._data + b._data
        if total.ndim == 0:  # NumPy sums two 0-d arrays to a scalar
            total = get_array_module(a._data).asarray(total)
        return TensorBase._make(total)

    def _finish_leaf(self, leaf: Any) -> None:
        """All gradients for ``leaf`` are in: run its hooks, then add the gradient into ``.grad``,
        or keep it as a result of ``autograd.grad``."""
        buffer = self.buffers.pop(leaf, None)
        g = None if buffer is None else buffer[0]
        private = leaf in self.private and not leaf._hooks  # (a hook may keep the gradient)
        self.private.discard(leaf)
        if g is None or (self.capture and (id(leaf), 0) not in self.wanted):
            return  # (given inputs, a leaf not among them: its hooks do not run, as PyTorch's)
        if leaf._hooks:
            g = _run_hooks(leaf._hooks, g)
        if self.capture:  # autograd.grad: a result, if this leaf is one of its inputs
            for i in self.wanted.get((id(leaf), 0), ()):
                self.results[i] = g
        else:
            _accumulate(leaf, g, self.create_graph, private)
            for hook in list(leaf._post_accumulate_grad_hooks or ()):
                hook(leaf)  # DistributedDataParallel starts a bucket's all-reduce from here

    def grads_of_inputs(self, allow_unused: bool) -> tuple:
        """autograd.grad's answer: the gradient that reached each input."""
        for i, r in enumerate(self.results):
            if r is None and not allow_unused:
                raise RuntimeError(
                    f"input {i} of autograd.grad was not used to compute the outputs (or needs "
                    f"no grad). Pass allow_unused=True if that is intended."
                )
        return tuple(self.results)


def backward_into(
    tensors: Sequence[Any],
    grad_tensors: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Any,
) -> None:
    """backward(inputs=...): the gradients of ``tensors`` accumulated into the ``.grad`` of
    ``inputs`` only (leaves or not), every other tensor's ``.grad`` left as it is."""
    inputs = [inputs] if isinstance(inputs, TensorBase) else list(inputs)
    if not inputs:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    unique = list({id(t): t for t in inputs}.values())
    for t in unique:
        if not t.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    # (into_grad: register_multi_grad_hook tells this pass from autograd.grad's)
    results = run_backward(tensors, grad_tensors, retain_graph, create_graph, unique, True, True)
    for t, g in zip(unique, results, strict=True):
        if g is not None and not _retains_grad(t):  # (retain_grad's hook has stored it)
            _accumulate(t, g, create_graph)
            for hook in list(t._post_accumulate_grad_hooks or ()):
                hook(t)


def _places(inputs: Sequence[Any]) -> dict[tuple, list[int]]:
    """Each input's (id of vertex, output_nr) -> its indices in ``inputs`` (a list: the same
    tensor may be asked for twice, and gets its gradient twice)."""
    places: dict[tuple, list[int]] = {}
    for i, t in enumerate(inputs):
        places.setdefault((id(t.grad_fn or t), t._output_nr), []).append(i)
    return places


def _retains_grad(t: Any) -> bool:
    hooks = (t.grad_fn._grad_hooks or {}).get(t._output_nr, ()) if t.grad_fn is not None else ()
    return any(getattr(h, "retains_grad", False) for h in hooks)


def _drop_extra_nones(node: Function, in_grads: tuple, edges: Any) -> tuple:
    """A backward may return more gradients than its forward took arguments when the extra ones
    are None (``forward(ctx, x, w, bias=None)`` called without ``bias``, whose backward returns
    three): PyTorch drops them. Too few, or an extra that is not None, is an error."""
    if len(in_grads) > len(edges) and all(g is None for g in in_grads[len(edges) :]):
        return in_grads[: len(edges)]
    raise _count_error(node, in_grads, edges)


def _count_error(node: Function, in_grads: tuple, edges: Any) -> RuntimeError:
    return RuntimeError(
        f"{node.name}.backward returned {len(in_grads)} gradients but its forward took "
        f"{len(edges)} arguments"
    )


def _count_edges_into(starts: list) -> dict[Any, int]:
    """How many edges lead into each vertex (node or leaf) reachable from ``starts`` (included)."""
    count, to_walk, edges = {}, [], starts  # (to_walk: nodes whose edges are not counted yet)
    while True:
        for edge in filter(None, edges):  # (None: an argument that wants no gradient)
            if (vertex := edge[0]) in count:
                count[vertex] += 1
            else:  # its first edge: walk on from it (a leaf ends the walk)
                count[vertex] = 1
                if isinstance(vertex, Function):
                    to_walk.append(vertex)
        if not to_walk:
            return count
        edges = to_walk.pop().next_edges


def _leading_to(wanted: dict, vertices: dict) -> set:
    """The nodes among ``vertices`` with a path (one edge or more) to an input of ``wanted``
    (keyed by (id of vertex, output_nr)): given inputs, only those run, as in PyTorch's engine
    (their hooks too), and only the leaves among the inputs run their hooks. A depth-first
    walk, each node's answer from its inputs' answers."""
    targets = {key[0] for key in wanted}
    reaches: dict = {}  # vertex -> whether it is a target or leads to one
    leads = set()
    for root in vertices:
        stack = [root]
        while stack:
            v = stack[-1]
            if v in reaches:
                stack.pop()
                continue
            if not isinstance(v, Function):  # a leaf: a target or not
                reaches[stack.pop()] = id(v) in targets
                continue
            todo = [e[0] for e in v.next_edges if e is not None and e[0] not in reaches]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            if any(e is not None and reaches[e[0]] for e in v.next_edges):
                leads.add(v)
            reaches[v] = v in leads or id(v) in targets
    return leads


def _run_hooks(hooks: list | None, g: Any) -> Any:
    """Each hook sees the gradient; one that returns a tensor replaces it (a tensor of the same
    shape, dtype and device, as PyTorch checks: anything else would reach .grad unnoticed)."""
    for hook in hooks or ():
        r = hook(g)
        if r is not None:
            _check_hook_result(hook, g, r)
            g = r
    return g


def _check_hook_result(hook: Any, g: Any, r: Any) -> None:
    name = getattr(hook, "__name__", type(hook).__name__)
    if not isinstance(r, TensorBase):
        raise TypeError(f"expected Tensor, but hook returned '{type(r).__name__}'")
    a, b = g._data, r._data
    for what, was, got in (("size", a.shape, b.shape), ("type", a.dtype, b.dtype),
                           ("device", type(a).__module__, type(b).__module__)):  # fmt: skip
        if was != got:
            raise RuntimeError(
                f"hook '{name}' has changed the {what} of value (was {was}, got {got})"
            )


def _accumulate(leaf: Any, g: Any, create_graph: bool, private: bool = False) -> None:
    """leaf.grad += g: the first gradient kept as it is when nothing else holds it (``private``,
    see grad_reuse.py), else copied; later ones added in place, as PyTorch does (a grad tensor
    held elsewhere sees the sum); recorded with ``create_graph``, so it can be differentiated.
    (``leaf._grad``, not the property, whose checks are for what a user assigns.)"""
    grad = leaf._grad
    if create_graph:
        leaf._grad = g if grad is None else grad + g
    elif grad is None:
        leaf._grad = TensorBase._make(grad_reuse.array_to_keep(g, private))
    else:
        try:
            grad._data += g._data
            grad._bump_version()
        except (ValueError, TypeError):  # read-only (an expanded tensor) or a dtype that can't
            leaf._grad = TensorBase._make(grad._data + g._data)
