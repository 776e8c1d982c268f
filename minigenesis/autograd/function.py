"""Function: one differentiable operation, and one node of the backward graph.

Calling ``SomeOp.apply(x, y)`` does three things (DeZero's ``Function.__call__``):

1. runs ``forward`` on the raw arrays (fast: no graph is built inside),
2. wraps the result in Tensors,
3. if grad mode is on and an input requires grad, remembers how to go back: the node *is* the
   ``ctx`` object that forward saw, so what forward saved is there for ``backward``.

Backward is written with **Tensor** ops (not raw arrays). With ``create_graph=False`` the engine
runs it under ``no_grad`` and those ops just compute; with ``create_graph=True`` they record a
graph of their own, which is how second derivatives work, for every op, with no extra code.

Two flavours share this class:

- internal ops (``ops/``) set ``_array_forward = True``: ``forward`` receives NumPy/CuPy arrays and
  returns arrays;
- a user's custom op subclasses :class:`Function` as in PyTorch: ``forward`` receives Tensors (with
  recording switched off) and returns Tensors.

Tensors are known here as :class:`TensorBase` (``tensor_base.py`` says why).
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from ..backend import get_array_module
from ..meta_array import keep_on_meta
from ..meta_array import made as meta_made
from . import tensor_base
from .accumulate_grad import accumulate_grad_node
from .device_mixing import raise_if_devices_differ
from .grad_mode import no_grad, state
from .node_hooks import NodeHooks
from .node_names import listed_places, node_name
from .tensor_base import TensorBase
from .vmap_samples import RUNNING as vmap_running
from .vmap_samples import samples_hidden_for
from .vmap_samples import spread as spread_vmap_sample

_FLOAT_KINDS = frozenset("fV")  # 'V' is how NumPy reports ml_dtypes' bfloat16


class Function(NodeHooks):
    """Base class of every differentiable op; an instance is a node of the graph."""

    _array_forward = False
    # Under autocast: "lower", "float32" or "promote" (autocast_policy.py says what each does);
    # None runs the op in whatever dtypes its arguments have.
    autocast: str | None = None

    # Per-node fields, set in apply() when the call is recorded; the defaults live on the class.
    # Per forward argument, where its gradient goes: the edge (vertex, output_nr, shape, dtype),
    # with vertex the node that made the argument (or the argument itself, a leaf tensor), and
    # output_nr which of that node's outputs it is; the engine reduces and casts the gradient to
    # that shape and dtype, which undoes broadcasting and type promotion. None: no gradient.
    next_edges: list
    _n_outputs = 1  # how many outputs carry gradients back into this node
    _out_meta = None  # several outputs: (shape, dtype) of each, to zero-fill a missing gradient
    _to_save: tuple = ()  # what forward passed to save_for_backward ...
    _saved: list | tuple | None = ()  # ... as records (_resolve_saved); None once freed
    _non_diff = None  # ids of the outputs marked non-differentiable
    _dirty = None  # the inputs forward wrote into (mark_dirty)
    _materialize_grads = True  # an output no gradient reached: zeros for backward (else None)
    _grad_hooks = None  # output_nr -> hooks (Tensor.register_hook / retain_grad on non-leaves)
    # The class apply records a call with: a subclass named as PyTorch names the node
    # (MulBackward0, node_names.py), made for each op class by __init_subclass__.
    _node_class: type
    _op: type  # the op class a node belongs to (Mul for a MulBackward0 node)
    _is_node_class = False  # True on the classes __init_subclass__ makes

    def __init_subclass__(cls, _node_of: type | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if _node_of is not None:  # this is the node class of op _node_of
            return
        cls._op = cls
        name = node_name(cls, internal=cls._array_forward)
        cls._node_class = types.new_class(
            name,
            (cls,),
            {"_node_of": cls},
            lambda ns: ns.update(__module__=cls.__module__, _is_node_class=True),
        )
        if "jvp" in cls.__dict__ and cls.backward is Function.backward:
            # forward-mode only (a jvp and no backward): under a dual level its jvp gives the
            # output's tangent (forward_ad.apply_by_jvp); reverse mode has nothing to run
            cls.apply = classmethod(_apply_forward_mode_first)

    # ------------------------------------------------------------------ the op author's interface
    @staticmethod
    def forward(ctx: Function, *args: Any) -> Any:
        raise NotImplementedError

    @staticmethod
    def setup_context(ctx: Function, inputs: tuple, output: Any) -> None:
        """Override it to write ``forward(*args)`` without ``ctx``: it is called after forward
        with the arguments of ``apply`` and forward's result, and saves for backward."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Function, *grad_outputs: Any) -> Any:
        """The gradient of each forward argument (None where none is wanted), returned as a
        tuple; or, written as a generator, yielded one at a time as ``(argument index, grad)``:
        the engine passes each on at once, so large gradients need not all be alive together
        (``ops/linear.py``)."""
        raise NotImplementedError

    def save_for_backward(self, *values: Any) -> None:
        """Keep inputs, outputs or intermediate arrays for backward (read via ``saved_tensors``).

        Saving an input or output keeps the real graph Tensor, so a second-order backward can
        differentiate through it; its version is checked when backward reads it back.
        """
        self._to_save = values

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """Outputs (e.g. argmax indices) that never require grad. (Only outputs may be marked:
        an op with one output that marks anything has a non-differentiable output.)"""
        self._non_diff = {id(o._data if isinstance(o, TensorBase) else o) for o in outputs}

    def mark_dirty(self, *tensors: Any) -> None:
        """Inputs that forward modified in place and returns: the call returns those very
        tensors, whose history is now this node (PyTorch's ``ctx.mark_dirty``); a leaf that
        requires grad cannot be one."""
        self._dirty = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether backward gets zeros (True, the default) or None for an output that no gradient
        reached (several outputs only): an op whose backward ignores such a gradient, such as
        the gradient of its argmax indices, saves making the zeros (PyTorch's
        ``ctx.set_materialize_grads``)."""
        self._materialize_grads = value

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """Per forward argument: does it want a gradient? (Forward can ask too, to save less.)"""
        edges = self.next_edges
        if len(edges) == 2:  # most ops take two arguments, Linear three: written out for those
            return (edges[0] is not None, edges[1] is not None)
        if len(edges) == 3:  # (a comprehension is a call of its own, 10x the cost of this)
            return (edges[0] is not None, edges[1] is not None, edges[2] is not None)
        return tuple([edge is not None for edge in edges])

    @property
    def saved_tensors(self) -> tuple:
        """What forward saved, in its order: each input or output tensor checked to be unchanged
        since (its version then and now, see _resolve_saved)."""
        saved = self._saved
        if type(saved) is tuple:  # plain constants, kept as forward saved them
            return saved
        if saved is None:
            raise _freed_error(self)
        values = []
        for kind, value, vc, version in saved:  # (a constant: vc is None, nothing to check)
            if kind == _INPUT:
                vc = value._vc  # (None while nothing was written into it: never changed)
            elif kind == _OUTPUT:  # output nr of this node: a tensor standing in for it
                nr, array, differentiable = value
                value = TensorBase._make(array)
                if differentiable:
                    value.requires_grad, value.grad_fn, value._output_nr = True, self, nr
                value._vc = vc
            elif kind == _PACKED:  # saved_tensors_hooks: vc holds unpack; no version check
                value, vc = _unpacked(self, value, vc, version), None
            if vc is not None and vc[0] != version:
                raise _modified_error(self, vc[0], version, value)
            values.append(value)
        return tuple(values)

    @property
    def name(self) -> str:
        """Our op's name (``"Mul"``); PyTorch's name for the node is ``type(self).__name__``
        (``"MulBackward0"``)."""
        return self._op.__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def next_functions(self) -> tuple:
        """Per input, ``(node, output_nr)`` as PyTorch shows it: the node that made the input,
        an ``AccumulateGrad`` node for a leaf that requires grad, ``(None, 0)`` where no
        gradient flows. The inputs are those PyTorch's node lists (``node_names.py``): not
        arguments such as ``dim``, but always any argument a gradient flows to."""
        edges = getattr(self, "next_edges", None) or ()
        listed = listed_places(self)
        return tuple(
            (None, 0)
            if edge is None
            else (accumulate_grad_node(edge[0]), 0)
            if isinstance(edge[0], TensorBase)
            else (edge[0], edge[1])
            for i, edge in enumerate(edges)
            if listed is None or i in listed or edge is not None
        )

    # ------------------------------------------------------------------ running it
    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Run the op on ``args`` (Tensors and plain values); when any of them wants a gradient,
        the outputs remember this call as their ``grad_fn``."""
        if cls.autocast is not None:  # amp: cast by the op's rule while autocast is on
            setting = state.autocast_dtype
            if setting is not None:
                args = setting.cast(cls.autocast, args)
        modes = state.__dict__  # this thread's grad and anomaly modes (grad_mode.state says why)
        node = cls._node_class()
        arrays, record = _unwrap(node, args, modes["grad_enabled"])
        try:
            if cls._array_forward:
                result = cls.forward(node, *arrays)
            else:
                result = _tensor_forward(cls, node, args)
        except TypeError as error:  # CuPy's refusal of a host array: PyTorch's device error
            raise_if_devices_differ(args, error)  # (else re-raises error itself)
        if meta_made[0]:  # once a meta array exists: an op of meta tensors stays on meta
            result = keep_on_meta(result, arrays)
        if type(result) is not tuple:  # one output: the common case
            # TensorBase._make(result) written out: every op passes here (NumPy scalars: _make)
            out = tensor_base._new(tensor_base._ops_return)
            if type(result) is np.ndarray or not isinstance(result, np.generic):
                out._data = result
            else:  # (result itself is kept: forward may have saved it, see _resolve_saved)
                out._data = np.asarray(result)
            if tensor_base._inference:
                out._inference_tensor = True
            if record:
                if result.dtype.kind in _FLOAT_KINDS and node._non_diff is None:
                    # (_output_nr though 0 is the default: an own field reads faster, next op)
                    out.requires_grad, out.grad_fn, out._output_nr = True, node, 0
                if node._to_save:
                    node._saved = _resolve_saved(node, args, (result,), (out,))
            if modes["anomaly"]:
                _check_finite(cls.__name__, "forward", ((0, out),))
            if vmap_running:  # inside vmap: an output of a sample is of that sample
                spread_vmap_sample(args, out)
            return out if node._dirty is None else _dirty_outputs(node, (out,), record)[0]
        outputs = _outputs(node, args, result, record)
        if vmap_running:
            spread_vmap_sample(args, outputs)
        if modes["anomaly"]:
            _check_finite(cls.__name__, "forward", enumerate(outputs))
        return outputs if node._dirty is None else _dirty_outputs(node, outputs, record)


def _dirty_outputs(node: Function, outputs: tuple, record: bool) -> tuple:
    """The outputs with each input marked dirty put back in place of the output that holds its
    array: the same tensor, its version bumped, its history now ``node`` when recorded."""
    for t in node._dirty:
        if record and t.requires_grad and t.grad_fn is None:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation."
            )
    replaced = []
    for out in outputs:
        src = next((t for t in node._dirty if t._data is out._data), None)
        if src is None:
            replaced.append(out)
            continue
        source = src.__dict__.get("_view_src") if src._is_view else None
        if out.grad_fn is node and source is not None:
            # A view written in place: its base's history records the write (the node's output
            # put at the view's places), and the view is made again from the base, as for any
            # in-place op on a view (Tensor._inplace_on_view: PyTorch's rebase).
            if getattr(source[1], "multiple_views", False):
                raise RuntimeError(
                    "a view made by a function that returns several views (split, chunk) is "
                    "being modified in place by a custom Function (mark_dirty); as PyTorch, "
                    "this is refused"
                )
            src._inplace_on_view(lambda _old, written=out: written, (), *source)
        else:
            src._bump_version()
            if out.grad_fn is node:
                src.requires_grad, src.grad_fn, src._output_nr = True, node, out._output_nr
        replaced.append(src)
    return tuple(replaced)


def _unwrap(node: Function, args: tuple, grad_enabled: bool) -> tuple[list, bool]:
    """(The array of each Tensor in ``args``, the other arguments as they are; whether the call
    is recorded). When grad mode is on, each argument also gets an edge in ``node.next_edges``:
    where its gradient goes, or None when it wants none. The edges exist before forward runs,
    so forward can ask needs_input_grad and save only what backward will need."""
    arrays, record = [], False
    if not grad_enabled:  # not recorded (no_grad, a backward without create_graph): no edges
        for a in args:
            arrays.append(a._data if isinstance(a, TensorBase) else a)
        node.next_edges = (None,) * len(arrays)
        return arrays, False
    edges = []
    for a in args:
        if isinstance(a, TensorBase):
            data = a._data
            arrays.append(data)
            if a.requires_grad:  # its edge: (vertex, output_nr, shape, dtype)
                edges.append((a.grad_fn or a, a._output_nr, data.shape, data.dtype))
                record = True
                continue
        else:
            arrays.append(a)
        edges.append(None)
    node.next_edges = edges
    return arrays, record


def _outputs(node: Function, args: tuple, results: tuple, record: bool) -> tuple:
    """The Tensors of an op with several outputs (see _output); when recorded, the node keeps
    their shapes (the engine zero-fills a gradient that reaches none of them) and its saved
    values."""
    outputs = tuple([_output(node, nr, r, record) for nr, r in enumerate(results)])
    if record:
        if len(outputs) > 1:
            node._n_outputs = len(outputs)
            node._out_meta = [(out._data.shape, out._data.dtype) for out in outputs]
        if node._to_save:
            node._saved = _resolve_saved(node, args, results, outputs)
    return outputs


def _output(node: Function, nr: int, array: Any, record: bool) -> Any:
    """Output ``nr`` of ``node`` as a Tensor. When the call is recorded, the output remembers
    the node as its grad_fn (and that it is output nr), unless it cannot carry a gradient."""
    out = TensorBase._make(array)
    if record and _is_differentiable(node, array):
        out.requires_grad, out.grad_fn, out._output_nr = True, node, nr
    return out


def _is_differentiable(node: Function, array: Any) -> bool:
    """Only floating-point outputs carry gradients, and not those marked non-differentiable."""
    return array.dtype.kind in _FLOAT_KINDS and (
        node._non_diff is None or id(array) not in node._non_diff
    )


def _apply_forward_mode_first(cls: type, *args: Any) -> Any:
    """``apply`` of a Function that defines ``jvp`` and no ``backward``."""
    from .forward_ad import apply_by_jvp  # (here: forward_ad imports autograd's grad lazily too)

    out = apply_by_jvp(cls, args)
    return out if out is not None else Function.apply.__func__(cls, *args)


class Op(Function):
    """An internal op: ``forward`` works on raw NumPy/CuPy arrays (the fast path)."""

    _array_forward = True


def user_forward(cls, ctx: Function, inputs: tuple) -> Any:
    """A user's ``forward`` under no_grad: ``forward(ctx, *inputs)``, or for a class with
    ``setup_context`` (PyTorch 2's form) ``forward(*inputs)`` then ``setup_context``."""
    with no_grad():
        if cls.setup_context is Function.setup_context:
            return cls.forward(ctx, *inputs)
        result = cls.forward(*inputs)
        cls.setup_context(ctx, inputs, result)
        return result


def _tensor_forward(cls, ctx: Function, inputs: tuple) -> Any:
    """Run a user's PyTorch-style forward (Tensors in, Tensors out) and return its arrays.

    A class that defines ``setup_context(ctx, inputs, output)`` (PyTorch 2's form) has a
    forward without ``ctx``; setup_context then saves what backward needs."""
    ctx._tensor_places = tuple(i for i, a in enumerate(inputs) if isinstance(a, TensorBase))
    with samples_hidden_for(cls):  # inside vmap, a Function with its own vmap rule
        result = user_forward(cls, ctx, inputs)
    results = result if isinstance(result, tuple) else (result,)
    if not all(isinstance(r, TensorBase) for r in results):
        raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple of Tensors")
    arrays = tuple(r._data for r in results)
    return arrays if isinstance(result, tuple) else arrays[0]


# ---------------------------------------------------------------------- saved values
# What forward saved is kept as records (kind, value, version counter, version then):
#   (_CONST, value, None, None)      a constant of this op (a number, a shape, an inner array)
#   (_INPUT, tensor, None, version)    an input tensor; backward compares its version then
#   (_OUTPUT, (nr, array, differentiable), vc, 0)    output nr of this very node
#   (_PACKED, what pack returned, unpack, None)    under autograd.graph.saved_tensors_hooks
# in a list; or, when forward saved only plain constants, the tuple it saved (no records).
# An input is kept with the version it had (0 while it has no version counter: most tensors
# are never written in place, and a counter is made at the first write or view, see
# TensorBase._version_counter). Versions only grow, so a write after the save shows as a
# different version. An output cannot be kept itself (see _resolve_saved), so it is kept as
# its array and a counter it shares with the output tensor.
_CONST, _INPUT, _OUTPUT, _PACKED = 0, 1, 2, 3
_PLAIN = frozenset((int, float, bool, tuple, str))


def _resolve_saved(node: Function, args: tuple, results: tuple, outputs: tuple) -> list | tuple:
    """Turn what forward saved into records, now that the outputs exist (``results``: the
    arrays forward returned, ``outputs``: the tensors made of them): is each value a constant,
    an input, an output, or made inside forward? When all are plain constants (None, numbers,
    shapes: what Mul saves for ``x * 2.0``), the tuple forward saved is kept as it is, and
    ``saved_tensors`` returns it as it is."""
    to_save, node._to_save = node._to_save, ()
    for value in to_save:
        if value is not None and type(value) not in _PLAIN:
            break
    else:
        return to_save
    records, hooks = [], state.saved_tensors_hooks
    for value in to_save:
        if value is None or type(value) in _PLAIN:  # a constant: the common case, at once
            records.append((_CONST, value, None, None))
            continue
        for a in args:
            if isinstance(a, TensorBase) and (value is a or value is a._data):
                if a._inference_tensor:  # its values may change in place unseen (no counter)
                    raise _inference_saved_error(node)
                vc = a._vc
                record = (_INPUT, a, None, 0 if vc is None else vc[0])
                break
        else:
            for nr in range(len(results)):
                if value is results[nr] or (
                    isinstance(value, TensorBase) and value._data is results[nr]
                ):
                    # Not the output tensor itself: it points to this node (grad_fn), and this
                    # node pointing back would make a reference cycle that only the garbage
                    # collector frees. Its array and a version counter shared with it stand in
                    # for it.
                    out = outputs[nr]
                    vc = out._vc = [0]  # (a new tensor: no counter yet, version 0)
                    record = (_OUTPUT, (nr, out._data, out.requires_grad), vc, 0)
                    break
            else:  # made inside forward: a tensor kept detached, or an intermediate array
                value = value.detach() if isinstance(value, TensorBase) else TensorBase._make(value)
                records.append((_CONST, value, None, None))
                continue
        records.append(record if hooks is None else _pack(record, hooks))
    return records


def follow_counter(node: Any, old_vc: list, vc: list) -> None:
    """``node``'s saved outputs counted by ``old_vc`` are counted by ``vc`` from its present
    version on. An in-place op whose out-of-place op saved its result (``y.exp_()``: Exp keeps
    y) makes that result the tensor written into: the record must follow the tensor's own
    counter, so that a later write into it is refused at backward (``y.exp_(); y += 1``), while
    the tensor keeps that counter, which its views, its detached aliases and the nodes that
    saved its old value go on reading (``y = b * b; b.exp_()``: Mul's b has changed)."""
    saved = getattr(node, "_saved", None)
    if type(saved) is not list:
        return
    for i, record in enumerate(saved):
        if record[0] == _OUTPUT and record[2] is old_vc:
            saved[i] = (_OUTPUT, record[1], vc, vc[0])


def _inference_saved_error(node: Function) -> RuntimeError:
    return RuntimeError(
        f"Inference tensors cannot be saved for backward ({type(node).__name__} needs one). "
        "Please do not use Tensors created in inference mode in computation tracked by "
        "autograd. To work around this, you can make a clone to get a normal tensor and use "
        "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
    )


def _freed_error(node: Function) -> RuntimeError:
    return RuntimeError(
        f"Trying to backward through the graph a second time (the saved values of "
        f"{type(node).__name__} were freed by the first backward). Pass "
        f"retain_graph=True to the first backward() if you need to call it twice."
    )


def _modified_error(node: Function, version: int, expected: int, value: Any) -> RuntimeError:
    """PyTorch's words (programs and answers quote them), then what to do about it."""
    typename = value.type().replace("minigenesis", "torch")
    producer = value.grad_fn  # named as PyTorch 2.13 names it here: ExpBackward0 -> "Exp"
    name = type(producer).__name__.rsplit("Backward", 1)[0]
    which = f", which is output {value._output_nr} of {name}," if producer else ""
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{typename} {list(value.shape)}]{which} is at version {version}; expected "
        f"version {expected} instead. Hint: {type(node).__name__} saved this tensor and it was "
        "modified by an in-place operation since: use the out-of-place op (e.g. `x = x + 1` "
        "instead of `x.add_(1)`) or clone the tensor before changing it; "
        "torch.autograd.set_detect_anomaly(True) shows the forward op that saved it."
    )


def _pack(record: tuple, hooks: tuple) -> tuple:
    """The record of a saved value under ``saved_tensors_hooks``: only what ``pack`` returned
    is kept (and ``unpack``, to turn it back into a tensor in backward). The hooks take charge of
    the value from here on, so there is no version check (as in PyTorch).

    The record's last slot keeps the saved tensor's place in the graph, not the tensor (whose
    memory the hooks exist to release): this node's output number for an output, (grad_fn,
    output_nr) for a computed input, the leaf itself for a leaf; None when it needs no grad.
    A backward that records (create_graph) then puts the unpacked value in that place, as
    PyTorch's SavedVariable does, so a second derivative flows through the saved value."""
    kind, value = record[0], record[1]
    place = None
    if kind == _OUTPUT:  # a tensor for the output's array, not the output: no reference cycle
        nr, array, differentiable = value
        value = TensorBase._make(array, differentiable)
        place = nr if differentiable else None
    elif value.requires_grad:
        place = value if value.grad_fn is None else (value.grad_fn, value._output_nr)
    pack, unpack = hooks
    return (_PACKED, pack(value), unpack, place)


def _unpacked(node: Function, packed: Any, unpack: Any, place: Any) -> Any:
    """``unpack(packed)``; in a backward that records (create_graph), put in the graph's place
    of the tensor that was saved (see _pack)."""
    value = unpack(packed)
    if place is None or not state.grad_enabled or not isinstance(value, TensorBase):
        return value
    if place.__class__ is int or place.__class__ is tuple:  # an output, a computed input
        fn, nr = (node, place) if place.__class__ is int else place
        out = TensorBase._make(value._data)
        out.requires_grad, out.grad_fn, out._output_nr = True, fn, nr
        return out
    return _SavedLeaf.apply(place, value._data)  # a leaf: its gradient must reach the leaf


class _SavedLeaf(Op):
    """z = the unpacked array (a saved leaf's value);   dL/dleaf = dL/dz."""

    @staticmethod
    def forward(ctx, leaf, unpacked):
        return unpacked

    @staticmethod
    def backward(ctx, gz):
        return gz, None


def _check_finite(op: str, where: str, numbered: Any) -> None:
    """detect_anomaly: name the first op whose forward or backward produced NaN/Inf.
    ``numbered``: (output index, tensor or None) pairs."""
    for i, a in numbered:
        if a is None:
            continue
        data = a._data if isinstance(a, TensorBase) else a
        if data.dtype.kind in _FLOAT_KINDS:
            xp = get_array_module(data)
            if not bool(xp.isfinite(data.astype(xp.float32, copy=False)).all()):
                raise RuntimeError(
                    f"Function '{op}' returned NaN or Inf values in its {where} output {i} "
                    f"(detected by minigenesis.autograd.detect_anomaly)"
                )


# ---------------------------------------------------------------------- once_differentiable
class _OnceDifferentiable(Function):
    """Stands between a @once_differentiable backward's gradients and a second backward: the
    gradients pass through unchanged, and differentiating them raises."""

    @staticmethod
    def forward(ctx: Function, grad: Any) -> Any:
        return grad.clone()

    @staticmethod
    def backward(ctx: Function, grad_output: Any) -> Any:
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


def once_differentiable(backward: Any) -> Any:
    """Decorate a custom Function's ``backward`` that is written in code autograd cannot follow
    (or need not): it runs without recording a graph, and a double backward through it
    (``create_graph=True``, then differentiating the gradients) raises instead of silently
    giving zero (PyTorch's ``torch.autograd.function.once_differentiable``)."""

    @functools.wraps(backward)
    def wrapper(ctx: Function, *grad_outputs: Any) -> Any:
        with no_grad():
            grads = backward(ctx, *grad_outputs)
        recording = state.grad_enabled and any(
            isinstance(g, TensorBase) and g.requires_grad for g in grad_outputs
        )
        if not recording:  # the usual backward (create_graph=False): nothing to guard
            return grads
        if not isinstance(grads, tuple):
            return _guard(grads)
        return tuple(_guard(g) for g in grads)

    return wrapper


def _guard(grad: Any) -> Any:
    """A gradient made without a graph, given one node that raises when it is differentiated
    (a detached alias that requires grad goes in, so the node is recorded)."""
    if not isinstance(grad, TensorBase):
        return grad
    alias = grad.detach()
    alias.requires_grad = True
    return _OnceDifferentiable.apply(alias)
