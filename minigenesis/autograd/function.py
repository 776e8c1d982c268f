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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backend import get_array_module
from .grad_mode import state
from .tensor_base import TensorBase

_FLOAT_KINDS = frozenset("fV")  # 'V' is how NumPy reports ml_dtypes' bfloat16

_CONST, _INPUT, _OUTPUT, _PACKED = 0, 1, 2, 3
_PLAIN = frozenset((int, float, bool, tuple, str))


class Function:
    """Base class of every differentiable op; an instance is a node of the graph."""

    _array_forward = False

    # Per-node fields, set in apply() for recorded nodes. Defaults live on the class so that
    # creating a node only sets what differs (this is the hot path of every op).
    next_edges: list  # per forward argument: (node | leaf Tensor, output_nr, shape, dtype) or None
    _n_outputs = 1  # how many gradient slots the engine keeps for this node
    _out_meta = None  # multi-output ops: per output (shape, dtype), to zero-fill missing grads
    # What forward passed to save_for_backward (_to_save), resolved once the outputs exist into
    # _saved: None after a backward has freed it (retain_graph=False).
    _saved: list | None = ()
    _to_save: tuple = ()
    _non_diff = None
    _grad_hooks = None  # output_nr -> hooks (Tensor.register_hook / retain_grad on non-leaves)

    # ------------------------------------------------------------------ the op author's interface
    @staticmethod
    def forward(ctx: Function, *args: Any) -> Any:
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
        """Outputs (e.g. argmax indices) that never require grad."""
        self._non_diff = {id(o) for o in outputs}

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """Per forward argument: does it want a gradient? (Forward can ask too, to save less.)"""
        e = self.next_edges
        if len(e) == 2:  # the common binary op, without building a list
            return (e[0] is not None, e[1] is not None)
        return tuple([x is not None for x in e])

    @property
    def saved_tensors(self) -> tuple:
        saved = self._saved
        if saved is None:
            raise RuntimeError(
                f"Trying to backward through the graph a second time (the saved values of "
                f"{type(self).__name__} were freed by the first backward). Pass "
                f"retain_graph=True to the first backward() if you need to call it twice."
            )
        out = []
        for kind, a, b, c in saved:
            if kind == _CONST:
                out.append(a)
                continue
            if kind == _PACKED:  # saved under saved_tensors_hooks: a = what pack returned
                out.append(b(a))
                continue
            if b[0] != c:
                raise RuntimeError(
                    f"one of the tensors needed for {type(self).__name__}'s backward was "
                    f"modified by an in-place operation (its version is {b[0]}, expected {c}). "
                    f"Use the out-of-place op (e.g. `x = x + 1` instead of `x.add_(1)`), or clone "
                    f"the tensor before changing it."
                )
            if kind == _INPUT:
                out.append(a)
            else:  # an output: a tensor standing for output j of this node (see _resolve_saved)
                j, array, differentiable = a
                t = TensorBase._make(array)
                if differentiable:
                    t.requires_grad, t.grad_fn, t._output_nr = True, self, j
                t._vc = b
                out.append(t)
        return tuple(out)

    @property
    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__}Backward>"

    def register_hook(self, output_nr: int, hook) -> None:
        """Run ``hook(grad)`` on the gradient of output ``output_nr`` before this node uses it."""
        if self._grad_hooks is None:
            self._grad_hooks = {}
        self._grad_hooks.setdefault(output_nr, []).append(hook)

    # ------------------------------------------------------------------ running it
    @classmethod
    def apply(cls, *args: Any) -> Any:
        st = state
        if st.autocast_dtype is not None:  # amp.py decides per op class what to cast
            args = st.autocast_hook(cls, args)

        # This thread's grad mode and anomaly mode, read from its dict at once: every attribute
        # read on a threading.local looks up the calling thread first.
        flags = st.__dict__
        ctx = _new(cls)
        # Unwrap each Tensor to the array forward works on, and give every argument an edge:
        # where its gradient goes (see _edge), or None when it wants none. The edges exist before
        # forward runs, so forward can ask ctx.needs_input_grad and save only what backward needs.
        # (Plain loops, not comprehensions: in Python 3.11 a comprehension is a function call of
        # its own, and every op passes here.)
        inputs = []
        if flags["grad_enabled"]:
            edges = []
            record = False
            for a in args:
                if isinstance(a, TensorBase):
                    inputs.append(a._data)
                    if a.requires_grad:
                        edges.append(_edge(a))
                        record = True
                        continue
                else:
                    inputs.append(a)
                edges.append(None)
        else:  # no_grad, and every backward without create_graph: nothing to record
            for a in args:
                inputs.append(a._data if isinstance(a, TensorBase) else a)
            edges = _NO_EDGES[len(args)] if len(args) < 8 else (None,) * len(args)
            record = False
        ctx.next_edges = edges
        if cls._array_forward:
            result = cls.forward(ctx, *inputs)
        else:
            result = _tensor_forward(cls, ctx, args)

        if type(result) is not tuple:  # the common case: one output
            if isinstance(result, _np_generic):  # NumPy ufuncs turn 0-d arrays into scalars
                result = _rewrap_scalar(ctx, result)
            out = TensorBase._make(result)
            if record and result.dtype.kind in _FLOAT_KINDS:
                out.requires_grad = True
                out.grad_fn = ctx
                if ctx._to_save:
                    _record(ctx, args, inputs, (result,), (out,))
            if flags["anomaly"]:
                _check_finite(cls.__name__, "forward", (result,))
            return out

        outs = []
        non_diff = ctx._non_diff
        for i, r in enumerate(result):
            if isinstance(r, _np_generic):
                r = _rewrap_scalar(ctx, r)
            t = TensorBase._make(r)
            if (
                record
                and r.dtype.kind in _FLOAT_KINDS
                and (non_diff is None or id(r) not in non_diff)
            ):
                t.requires_grad = True
                t.grad_fn = ctx
                t._output_nr = i
            outs.append(t)
        if record:
            ctx._n_outputs = len(result)
            ctx._out_meta = [(r.shape, r.dtype) for r in result]
            if ctx._to_save:
                _record(ctx, args, inputs, result, outs)
        if flags["anomaly"]:
            _check_finite(cls.__name__, "forward", result)
        return tuple(outs)


_new = object.__new__
_NO_EDGES = [(None,) * n for n in range(8)]
_np_generic, _np_asarray = np.generic, np.asarray


def _rewrap_scalar(ctx: Function, scalar: Any) -> Any:
    """A 0-d array for NumPy's scalar output, swapped into what forward saved as well: a saved
    scalar that is not the output array would be kept as a constant (wrong second derivatives)."""
    arr = _np_asarray(scalar)
    if ctx._to_save:
        ctx._to_save = tuple(arr if s is scalar else s for s in ctx._to_save)
    return arr


class Op(Function):
    """An internal op: ``forward`` works on raw NumPy/CuPy arrays (the fast path)."""

    _array_forward = True


def _tensor_forward(cls, ctx: Function, inputs: tuple) -> Any:
    """Run a user's PyTorch-style forward (Tensors in, Tensors out) and return its arrays."""
    from .grad_mode import no_grad

    with no_grad():
        result = cls.forward(ctx, *inputs)
    results = result if isinstance(result, tuple) else (result,)
    if not all(isinstance(r, TensorBase) for r in results):
        raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple of Tensors")
    arrays = tuple(r._data for r in results)
    return arrays if isinstance(result, tuple) else arrays[0]


def _edge(t: Any) -> tuple:
    """Where the gradient of input ``t`` goes: (its node, or t itself for a leaf; output_nr;
    shape; dtype). Shape and dtype are what the engine reduces and casts that gradient to."""
    data = t._data
    fn = t.grad_fn
    if fn is None:
        return (t, 0, data.shape, data.dtype)
    return (fn, t._output_nr, data.shape, data.dtype)


def _record(ctx: Function, args: tuple, inputs: list, raw: tuple, outs: Any) -> None:
    """Resolve what forward saved, now that the outputs exist: each value becomes a record
    (kind, value, version counter, version then), which saved_tensors checks and unpacks. The
    value is the constant itself, the input Tensor, or (j, array, differentiable) for output j.
    Under saved_tensors_hooks a record is (_PACKED, what pack returned, unpack, None)."""
    saved = []
    hooks = state.saved_tensors_hooks
    for s in ctx._to_save:
        if s is None or type(s) in _PLAIN:  # a constant (e.g. the 2 of x * 2): kept as it is
            saved.append((_CONST, s, None, None))
        else:
            record = _resolve_saved(s, args, inputs, raw, outs)
            saved.append(record if hooks is None else _pack(record, hooks))
    ctx._saved = saved
    ctx._to_save = ()  # _saved holds them now (and backward frees _saved)


def _resolve_saved(s: Any, args: tuple, inputs: list, raw: tuple, outs: Any) -> tuple:
    """Decide whether a saved value is an input, an output, or a constant of this op."""
    for i, a in enumerate(inputs):
        if (s is a or s is args[i]) and isinstance(args[i], TensorBase):
            t = args[i]
            vc = t._version_counter()
            return (_INPUT, t, vc, vc[0])
    for j, r in enumerate(raw):
        if s is r or (isinstance(s, TensorBase) and s._data is r):  # (a custom forward's output)
            # Not the output tensor itself: it points to this node (grad_fn), and this node
            # pointing back would make a reference cycle that only the garbage collector frees.
            # Its array and version counter are enough to stand in for it in backward.
            t = outs[j]
            vc = t._version_counter()
            return (_OUTPUT, (j, r, t.requires_grad), vc, vc[0])
    if isinstance(s, TensorBase):  # a tensor made inside forward: keep it, detached
        return (_CONST, s.detach(), None, None)
    return (_CONST, TensorBase._make(s, False), None, None)  # an intermediate array


def _pack(record: tuple, hooks: tuple) -> tuple:
    """The record of a saved value under ``saved_tensors_hooks``: only what ``pack`` returned
    is kept (and ``unpack``, to turn it back into a tensor in backward). The hooks take charge of
    the value from here on, so there is no version check (as in PyTorch)."""
    kind, value = record[0], record[1]
    if kind == _OUTPUT:  # a tensor for the output's array, not the output: no reference cycle
        value = TensorBase._make(value[1], value[2])
    pack, unpack = hooks
    return (_PACKED, pack(value), unpack, None)


def _check_finite(op: str, where: str, arrays) -> None:
    """detect_anomaly: name the first op whose forward or backward produced NaN/Inf."""
    for i, a in enumerate(arrays):
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
