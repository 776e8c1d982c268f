"""The backward pass: reverse-mode automatic differentiation over the recorded graph.

micrograd's idea in two passes, written without recursion so a 10,000-op chain works:

1. walk the graph once from the output and count, for every node, how many edges lead into it;
2. start at the output; a node runs its backward only when every node that feeds it a gradient has
   done so (its count reached zero), then hands each input its share.

This file is also the ONE place where broadcasting is undone: a gradient arriving for an input of
shape (3, 1) from an output of shape (3, 4) is summed back to (3, 1) here (``sum_to``), and cast
back to the input's dtype, so no op has to repeat that logic.
"""

from __future__ import annotations

from collections.abc import Sequence
from sys import getrefcount as _getrefcount
from types import GeneratorType as _GeneratorType
from typing import Any

from ..backend import get_array_module
from .function import Function, _check_finite
from .grad_mode import set_grad_enabled, state
from .tensor_base import TensorBase


def _count_dependencies(roots: list) -> dict[Any, int]:
    """For each vertex (node or leaf tensor) reachable from ``roots``: how many edges enter it."""
    deps: dict[Any, int] = {}
    stack = [r for r in roots if isinstance(r, Function)]
    root_nodes = set(stack)
    while stack:
        node = stack.pop()
        for edge in node.next_edges:
            if edge is None:
                continue
            nxt = edge[0]
            count = deps.get(nxt)
            if count is None:  # first visit: walk on from it (leaf tensors end the walk)
                deps[nxt] = 1
                if isinstance(nxt, Function) and nxt not in root_nodes:
                    stack.append(nxt)
            else:
                deps[nxt] = count + 1
    return deps


def seed_grads(outputs: list, grad_outputs: list | None) -> list:
    """The gradients backward starts from: ``gradient=`` as given, or 1 for a scalar output."""
    grads = []
    for i, out in enumerate(outputs):
        if not out.requires_grad:
            raise RuntimeError(
                f"element {i} of the tensors to differentiate does not require grad and has no "
                f"grad_fn: was it computed under no_grad(), or from tensors without "
                f"requires_grad=True?"
            )
        g = grad_outputs[i] if grad_outputs is not None else None
        if g is None:
            if out._data.size != 1:
                raise RuntimeError(
                    f"backward() needs a `gradient` argument for a non-scalar output (shape "
                    f"{tuple(out.shape)}): gradients can be created implicitly only for scalars. "
                    f"Call out.sum().backward(), or out.backward(gradient=mg.ones_like(out))."
                )
            g = TensorBase._make(get_array_module(out._data).ones_like(out._data), False)
        elif not isinstance(g, TensorBase):
            g = TensorBase._make(
                get_array_module(out._data).asarray(g, dtype=out._data.dtype), False
            )
        if g._data.shape != out._data.shape:
            raise RuntimeError(
                f"gradient has shape {tuple(g.shape)} but the output has shape {tuple(out.shape)}"
            )
        grads.append(g)
    return grads


def run_backward(
    tensors: Sequence[Any],
    grad_tensors: Sequence[Any],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Any] | None = None,
    allow_unused: bool = False,
) -> tuple | None:
    """Propagate ``grad_tensors`` back from ``tensors``.

    Without ``inputs`` the gradients accumulate into the ``.grad`` of leaf tensors
    (``Tensor.backward``). With ``inputs`` nothing accumulates: the gradients reaching those tensors
    are returned instead (``autograd.grad``).
    """
    # Vertices key these dicts by identity: nodes and tensors hash by id (see Tensor.__hash__).
    buffers: dict[Any, list] = {}  # vertex -> the gradients of its outputs, summed so far
    roots = []
    for t, g in zip(tensors, grad_tensors):
        vertex, nr = (t.grad_fn, t._output_nr) if t.grad_fn is not None else (t, 0)
        buf = buffers.setdefault(vertex, [None] * getattr(vertex, "_n_outputs", 1))
        buf[nr] = g if buf[nr] is None else buf[nr] + g
        if all(r is not vertex for r in roots):
            roots.append(vertex)

    capture: dict | None = None
    results: list | None = None
    if inputs is not None:
        capture = {}
        for i, t in enumerate(inputs):
            key = (id(t.grad_fn), t._output_nr) if t.grad_fn is not None else (id(t), 0)
            capture[key] = i
        results = [None] * len(inputs)

    deps = _count_dependencies(roots)
    ready = [r for r in roots if deps.get(r, 0) == 0]
    # detect_anomaly checks what each node's backward returns (below), not the ops that run
    # inside those backwards: the per-op check is off for the whole pass.
    anomaly = state.anomaly
    state.anomaly = False
    try:
        with set_grad_enabled(create_graph):
            while ready:
                vertex = ready.pop()
                grads = buffers.pop(vertex, None)

                if not isinstance(vertex, Function):  # a leaf tensor: the end of a path
                    if grads is not None:
                        _finish_leaf(vertex, grads, capture, results, create_graph)
                    grads = None  # (the gradient itself is gone with _finish_leaf's frame)
                    continue

                node = vertex
                edges = node.next_edges
                if grads is None:  # no gradient reached this node: just release its inputs
                    in_grads = (None,) * len(edges)
                else:
                    if node._n_outputs == 1 and not node._grad_hooks and capture is None:
                        in_grads = node.backward(node, grads[0])  # the common case, inline
                    else:  # hooks to run, gradients to capture, or several outputs
                        in_grads = _node_backward(node, grads, capture, results)
                    if type(in_grads) is not tuple:
                        if type(in_grads) is _GeneratorType:  # gradients handed over one by one
                            in_grads, edges = _stream(
                                node, in_grads, buffers, deps, ready, capture, results,
                                create_graph, anomaly,
                            )  # fmt: skip
                        else:
                            in_grads = (in_grads,)
                    if len(in_grads) != len(edges):
                        raise RuntimeError(
                            f"{node.name}.backward returned {len(in_grads)} gradients but its "
                            f"forward took {len(edges)} arguments"
                        )
                    if anomaly:
                        _check_finite(node.name + "Backward", "backward", in_grads)
                    if not retain_graph:  # free the saved arrays: their memory is needed no more
                        node._saved = None

                for edge, g in zip(edges, in_grads):
                    if edge is not None:
                        _send(edge, g, buffers, deps, ready, create_graph)
                in_grads = g = grads = None  # keep no stale references to gradients
    finally:
        state.anomaly = anomaly

    if results is not None and not allow_unused:
        for i, r in enumerate(results):
            if r is None:
                raise RuntimeError(
                    f"input {i} of autograd.grad was not used to compute the outputs (or needs "
                    f"no grad). Pass allow_unused=True if that is intended."
                )
    return tuple(results) if results is not None else None


def _node_backward(node: Function, grads: list, capture: dict | None, results: list | None) -> Any:
    """Call a node's backward where the loop's inline case does not do: first the hooks on its
    outputs' gradients (register_hook, retain_grad) and the gradients autograd.grad asked for;
    an output that got no gradient counts as zeros (a multi-output op)."""
    if node._grad_hooks:
        for nr, fns in node._grad_hooks.items():
            if grads[nr] is not None:
                grads[nr] = _run_hooks(fns, grads[nr])
    if capture is not None:
        for nr, g in enumerate(grads):
            slot = capture.get((id(node), nr))
            if slot is not None:
                results[slot] = g
    present = [g for g in grads if g is not None]
    if not present:
        return (None,) * len(node.next_edges)
    if len(present) < len(grads):
        xp = get_array_module(present[0]._data)
        grads = [
            g if g is not None else TensorBase._make(xp.zeros(m[0], m[1]), False)
            for g, m in zip(grads, node._out_meta)
        ]
    return node.backward(node, *grads)


def _run_hooks(hooks: list | None, g: Any) -> Any:
    if hooks:
        for hook in hooks:
            r = hook(g)
            if r is not None:
                g = r
    return g


def _send(edge: tuple, g: Any, buffers: dict, deps: dict, ready: list, create_graph: bool) -> None:
    """Pass the gradient ``g`` (None: no gradient) along ``edge`` into its vertex's buffer; once
    every edge into that vertex has been served, the vertex is ready to run.

    This is the one place where broadcasting and dtype promotion are undone."""
    nxt, nr, shape, dtype = edge
    if g is not None:
        data = g._data
        if data.shape != shape:
            g = g.sum_to_shape(shape)
        if data.dtype != dtype:
            g = g._cast(dtype)
        buf = buffers.get(nxt)
        if buf is None:  # (a leaf tensor counts as a vertex with one output)
            buf = buffers[nxt] = [None] * getattr(nxt, "_n_outputs", 1)
        prev = buf[nr]
        if prev is None:
            buf[nr] = g
        elif create_graph:  # the sum must itself be differentiable
            buf[nr] = prev + g
        else:  # plain arrays: nothing records, so skip the op machinery
            acc = prev._data + g._data
            if not acc.ndim:  # NumPy sums 0-d arrays to a scalar: re-wrap it
                acc = get_array_module(prev._data).asarray(acc)
            buf[nr] = TensorBase._make(acc, False)
    left = deps[nxt] - 1
    deps[nxt] = left
    if left == 0:
        ready.append(nxt)


def _stream(
    node: Function,
    gen: Any,
    buffers: dict,
    deps: dict,
    ready: list,
    capture: dict | None,
    results: list | None,
    create_graph: bool,
    anomaly: bool,
) -> tuple[tuple, list]:
    """Run a backward written as a generator of ``(input index, gradient)`` pairs, passing each
    gradient on as soon as it is yielded, and finishing a leaf at once when that was the last
    gradient it waited for.

    Why: an op whose backward computes several large gradients would otherwise hold all of them
    at once. Linear yields its weight gradient first; it is added into ``weight.grad`` (and the
    temporary freed) before the input gradient is even computed, so backward's peak memory holds
    one weight-sized temporary fewer. Returns the gradients (all None) and the edges still to be
    served (those not yielded, for the caller to release as usual)."""
    edges = list(node.next_edges)
    for i, g in gen:
        edge = edges[i]
        if edge is None or g is None:  # an input that wants no gradient (or was served)
            continue
        if anomaly:
            _check_finite(node.name + "Backward", "backward", (g,))
        edges[i] = None
        _send(edge, g, buffers, deps, ready, create_graph)
        g = None  # the buffer holds it now (and _accumulate may take it over only if we don't)
        vertex = edge[0]
        if ready and ready[-1] is vertex and not isinstance(vertex, Function):
            ready.pop()
            _finish_leaf(vertex, buffers.pop(vertex), capture, results, create_graph)
    return (None,) * len(edges), edges


def _finish_leaf(
    leaf: Any, grads: list, capture: dict | None, results: list | None, create_graph: bool
) -> None:
    """Every gradient for a leaf tensor is in (``grads``, its one-slot buffer): run its hooks,
    then accumulate into ``.grad``, or, for ``autograd.grad``, keep it as a result."""
    g = grads.pop()  # out of the buffer: this frame holds the only reference the engine has
    if g is None:
        return
    g = _run_hooks(leaf._hooks, g)
    if capture is not None:
        slot = capture.get((id(leaf), 0))
        if slot is not None:
            results[slot] = g
    else:
        _accumulate(leaf, g, create_graph)


def _accumulate(leaf: Any, g: Any, create_graph: bool) -> None:
    """leaf.grad += g.

    The first gradient becomes ``leaf.grad``. It is copied unless nothing else can see it: ``a + b``
    hands the same gradient to both inputs, and ``p.grad.data.div_(s)`` on one must not change the
    other. "Nothing else" is read off reference counts (as PyTorch's AccumulateGrad does with
    use_count): the array must own its memory, and only ``g`` (held by the engine and by this
    call) may point to it. A fresh matmul output is taken as it is, saving a copy per parameter.
    """
    if create_graph:
        leaf.grad = g if leaf.grad is None else leaf.grad + g
    elif leaf.grad is None:
        arr = g._data
        # array refs: g's, `arr`, getrefcount's argument; tensor refs: _finish_leaf's, ours,
        # argument (+1 that CPython holds while calling): anything more is someone else's
        owned = (
            getattr(arr, "base", None) is None
            and _getrefcount(arr) <= 3
            and _getrefcount(g) <= 4
            and getattr(arr, "flags", None) is not None
            and arr.flags.writeable
        )
        leaf.grad = TensorBase._make(arr if owned else arr.copy(), False)
    else:  # accumulate in place, as PyTorch does (a grad tensor held elsewhere sees the sum)
        cur = leaf.grad._data
        try:
            cur += g._data
            leaf.grad._bump_version()
        except (ValueError, TypeError):  # read-only (an expanded tensor) or a dtype that can't
            leaf.grad = TensorBase._make(cur + g._data, False)
