"""Higher-order autograd on whole functions: jacobian, hessian, vjp, jvp, hvp, vhp.

``torch.autograd.functional``'s API, built on one primitive, ``autograd.grad`` (reverse mode):

- ``vjp(f, x, v)``  = v^T J_f(x)                      one backward pass
- ``jvp(f, x, v)``  = J_f(x) v                        two backward passes (the double-vjp trick)
- ``jacobian(f, x)``: J[i, j] = d f_i / d x_j         one backward pass per output element
- ``vhp(f, x, v)``  = v^T H_f(x),  ``hvp`` = H_f(x) v   grad of (grad f) . v
- ``hessian(f, x)`` = the jacobian of the gradient

**The double-vjp trick.** Reverse mode gives u -> u^T J for any u. That map is linear in u, so
g(u) = J^T u is itself a function whose vjp with v is v^T J^T = (J v)^T: a forward-mode product
from two reverse passes. We record the first backward (``create_graph=True``) from a dummy u
(ones that require grad: its value never enters the result, since g is linear in u; not zeros,
where a backward that is linear in u but computed piecewise by u's sign, as logcumsumexp's
is, has a kink and autograd would take its slope as 0) and
differentiate it with respect to u.

Inputs and outputs follow PyTorch: a Tensor or a tuple of Tensors (a list is refused, as
PyTorch refuses it); a result has the same nesting, e.g. ``jacobian`` of a function with a tuple
of outputs and a tuple of inputs is a tuple (per output) of tuples (per input), entry [i][j] of
shape ``outputs[i].shape + inputs[j].shape``. Without ``create_graph`` every result is detached.
``strict=True`` raises when an output does not depend on an input (PyTorch's messages) instead of
returning zeros.

This module works on tensors through their methods and ``autograd.grad`` only, so it sits in the
``autograd`` layer without importing the layers above it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled
from .tensor_base import TensorBase

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ----------------------------------------------------------------------------- tuple handling
def _as_tuple(value: Any, what: str, fn: str) -> tuple[bool, tuple]:
    """(was it a tuple, the tensors as a tuple); anything but Tensors is a TypeError."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, el in enumerate(items):
        if not isinstance(el, TensorBase):
            where = f"the value at index {i}" if is_tuple else f"the given {what}"
            raise TypeError(
                f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but "
                f"{where} has type {type(el)}."
            )
    return is_tuple, items


def _unpack(res: tuple, is_tuple: bool) -> Any:
    """Undo _as_tuple on a result: a single tensor when the argument was a single tensor."""
    return res if is_tuple else res[0]


def _unpack2(res: tuple, outer_is_tuple: bool, inner_is_tuple: bool) -> Any:
    """The same for a tuple (per output) of tuples (per input)."""
    if not inner_is_tuple:
        res = tuple(row[0] for row in res)
    return res if outer_is_tuple else res[0]


def _prepare(tensors: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh tensors to differentiate with respect to.

    With ``create_graph`` an input that requires grad stays connected to the caller's graph (a
    view of it), so the results can be differentiated further back to it; otherwise it is cut
    off (``detach``) and, when ``need_graph``, made a new leaf that requires grad.
    """
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(tensors: Any, create_graph: bool) -> Any:
    """Results handed back: detached unless the caller asked for a graph (nested tuples too)."""
    if isinstance(tensors, tuple):
        return tuple(_finish(t, create_graph) for t in tensors)
    if tensors is None or create_graph:
        return tensors
    return tensors.detach()


def _check_v(v: tuple, refs: tuple, refs_is_tuple: bool) -> None:
    if len(v) != len(refs):
        if refs_is_tuple:
            raise RuntimeError(
                f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}."
            )
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, ref) in enumerate(zip(v, refs)):
        if el_v.shape != ref.shape:
            prefix = f"Entry {i} in " if refs_is_tuple else ""
            raise RuntimeError(
                f"{prefix}v has invalid size: should be {ref.shape} but got {el_v.shape}."
            )


def _v_or_default(v: Any, refs: tuple, refs_is_tuple: bool, fn: str, of: str, create_graph: bool):
    """Check ``v`` against ``refs``; ``v=None`` is allowed only for one single-element tensor."""
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(
                f"The vector v can only be None if the {of} a single Tensor with a single element."
            )
        return None
    _, v = _as_tuple(v, "v", fn)
    v = _prepare(v, create_graph, need_graph=False)
    _check_v(v, refs, refs_is_tuple)
    return v


# ----------------------------------------------------------------------------- strict checks
def _require_grad(tensors: tuple, kind: str, strict: bool) -> None:
    """In strict mode, every tensor of ``tensors`` must depend differentiably on the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This "
                f"is not allowed in strict mode."
            )
        if t.requires_grad:
            continue
        if kind == "outputs":
            raise RuntimeError(
                f"Output {i} of the user-provided function does not require gradients. The "
                f"outputs must be computed in a differentiable manner from the input when "
                f"running in strict mode."
            )
        if kind == "grad_inputs":
            raise RuntimeError(
                f"The gradient with respect to input {i} is independent of the inputs of the "
                f"user-provided function. This is not allowed in strict mode."
            )
        if kind == "jacobian":
            raise RuntimeError(
                f"While computing the hessian, found that the jacobian of the user-provided "
                f"function with respect to input {i} is independent of the input. This is not "
                f"allowed in strict mode. You should ensure that your function is twice "
                f"differentiable and that the jacobian depends on the inputs (this would be "
                f"violated by a linear function for example)."
            )
        raise RuntimeError(  # kind == "hessian"
            f"The hessian of the user-provided function with respect to input {i} is "
            f"independent of the input. This is not allowed in strict mode. You should ensure "
            f"that your function is thrice differentiable and that the hessian depends on the "
            f"inputs."
        )


_NONE_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
    "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
    "grad_outputs when using the double backward trick to compute forward mode gradients. This "
    "is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
    "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
    "{i} in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
    "double backward trick to replace forward mode AD.",
}


def _zeros_for_none(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str):
    """A gradient that never reached an input (None) is zero there, unless ``strict``."""
    out = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_NONE_MESSAGES[stage].format(i=i))
            g = refs[i].new_zeros(refs[i].shape)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This "
                f"is not allowed in strict mode when create_graph=True."
            )
        out.append(g)
    return tuple(out)


def _grads(
    outputs: tuple,
    inputs: tuple,
    grad_outputs: tuple | None = None,
    create_graph: bool = False,
    retain_graph: bool | None = None,
) -> tuple:
    """``autograd.grad`` over the outputs that require grad; None for an unreached input."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, gouts = zip(*pairs)
    return _grad(
        list(outs),
        list(inputs),
        list(gouts),
        retain_graph=retain_graph,
        create_graph=create_graph,
        allow_unused=True,
    )


# ----------------------------------------------------------------------------- the products
def vjp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), v^T J)``: the vector-Jacobian product, one backward pass.

    ``v`` has the outputs' shapes (it may be left out when the output has one element); the
    product has the inputs' shapes.
    """
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_is_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "vjp"
        )
        _require_grad(outputs, "outputs", strict)
        v = _v_or_default(
            v, outputs, outputs_is_tuple, "vjp", "user-provided function returns", create_graph
        )
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _grads(outputs, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "back")
    return (
        _unpack(_finish(outputs, create_graph), outputs_is_tuple),
        _unpack(_finish(res, create_graph), inputs_is_tuple),
    )


def jvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-vjp trick.

    g(u) = u^T J is computed with a recorded backward from u = 0 (requiring grad); g is linear in
    u, so the gradient of g . v with respect to u is J v, whatever u's value. Two reverse passes
    instead of one forward-mode pass: same numbers, about twice the cost.
    """
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _v_or_default(
            v,
            inputs,
            inputs_is_tuple,
            "jvp",
            "input to the user-provided function is",
            create_graph,
        )
        outputs_is_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jvp"
        )
        _require_grad(outputs, "outputs", strict)
        # u: ones (finite, so no NaN can leak into the second pass; away from 0, where a
        # piecewise backward has a kink) that require grad
        u = tuple(o.new_ones(o.shape).requires_grad_(True) for o in outputs)
        u_transpose_j = _grads(outputs, inputs, u, create_graph=True)
        _require_grad(u_transpose_j, "grad_inputs", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _grads(u_transpose_j, u, v, create_graph=create_graph)
        res = _zeros_for_none(res, outputs, strict, create_graph, "back_trick")
    return (
        _unpack(_finish(outputs, create_graph), outputs_is_tuple),
        _unpack(_finish(res, create_graph), outputs_is_tuple),
    )


def jacobian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape
    ``outputs[i].shape + inputs[j].shape``, ``J[i][j][a, b] = d outputs[i][a] / d inputs[j][b]``.

    Built row by row: one vector-Jacobian product per output element (the one-hot v), each row
    written into the result (in-place writes are recorded, so with ``create_graph`` the
    Jacobian is differentiable).

    ``vectorize=True`` is accepted and gives the same result from the same loop (PyTorch batches
    the rows with vmap, which this engine does not have). ``strategy="forward-mode"`` needs
    ``vectorize=True`` as in PyTorch and also runs the reverse-mode loop; the result is laid out
    as PyTorch's forward mode lays it out (see ``_forward_mode_layout``).
    """
    _check_strategy(strategy, create_graph, strict, vectorize)
    with enable_grad():
        inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        outputs_is_tuple, outputs = _as_tuple(
            func(*inputs), "outputs of the user-provided function", "jacobian"
        )
        _require_grad(outputs, "outputs", strict)
        if vectorize and strict:
            raise RuntimeError(
                "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                "supported together. Please either set `strict=False` or `vectorize=False`."
            )
        result = tuple(
            _jacobian_rows(i, out, inputs, create_graph, strict) for i, out in enumerate(outputs)
        )
    result = _finish(result, create_graph)
    if strategy == "forward-mode":
        return _forward_mode_layout(result, outputs, outputs_is_tuple, inputs_is_tuple)
    return _unpack2(result, outputs_is_tuple, inputs_is_tuple)


def _forward_mode_layout(
    result: tuple, outputs: tuple, outputs_is_tuple: bool, inputs_is_tuple: bool
) -> Any:
    """PyTorch's forward-mode Jacobian as it hands it back: each block in its OUTPUT's dtype (a
    forward tangent takes the output's dtype; reverse mode gives the input's), nested in lists
    (one per output, of one block per input) where reverse mode gives tuples."""
    rows = [[b.to(out.dtype) for b in row] for row, out in zip(result, outputs)]
    if outputs_is_tuple and inputs_is_tuple:
        return rows
    if outputs_is_tuple:
        return tuple(row[0] for row in rows)
    return rows[0] if inputs_is_tuple else rows[0][0]


def _jacobian_rows(i: int, out: Any, inputs: tuple, create_graph: bool, strict: bool) -> tuple:
    """The Jacobian of output ``i`` with respect to each input: one vector-Jacobian product per
    element of ``out``, written as a row of one ``(n, *input.shape)`` block per input (row a is
    d out.flat[a] / d input), each block shaped ``out.shape + input.shape`` at the end."""
    n = out.numel()
    blocks = [inp.new_zeros((n, *inp.shape)) for inp in inputs]
    flat = out.reshape(-1)
    for a in range(n):
        rows = _grads((flat[a],), inputs, retain_graph=True, create_graph=create_graph)
        for j, row in enumerate(rows):
            if row is None:
                if strict:
                    raise RuntimeError(
                        f"Output {i} of the user-provided function is independent of "
                        f"input {j}. This is not allowed in strict mode."
                    )
                continue  # the block is already zero there
            if strict and create_graph and not row.requires_grad:
                raise RuntimeError(
                    f"The jacobian of the user-provided function is independent of "
                    f"input {j}. This is not allowed in strict mode when "
                    f"create_graph=True."
                )
            blocks[j][a] = row
    return tuple(b.reshape(*out.shape, *inp.shape) for b, inp in zip(blocks, inputs))


def _check_strategy(strategy: str, create_graph: bool, strict: bool, vectorize: bool) -> None:
    """PyTorch's checks of jacobian's ``strategy`` and the options it cannot take with it."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError(
            f'jacobian: strategy must be "forward-mode" or "reverse-mode", got {strategy!r}'
        )
    if strategy != "forward-mode":
        return
    if create_graph:
        raise NotImplementedError(
            'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-'
            'mode"` are not supported together (yet). Please either set `create_graph=False` '
            'or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` '
            "are not supported together (yet). Please either set `strict=False` or "
            '`strategy="reverse-mode"`.'
        )
    if not vectorize:
        raise NotImplementedError(
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian is only "
            "implemented for `vectorize=True`."
        )


def _scalar_output(out: Any, fn: str, strict: bool) -> Any:
    """The checks hessian, hvp and vhp make of the function's value: one single-element tensor."""
    is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", fn)
    _require_grad(outs, "outputs", strict)
    if is_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outs[0].numel() != 1:
        raise RuntimeError(
            f"The Tensor returned by the function given to {fn} should contain a single element"
        )
    return outs[0]


def hessian(
    func: Callable,
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function: H[i][j] = d^2 f / d inputs[i] d inputs[j], of shape
    ``inputs[i].shape + inputs[j].shape``; the Jacobian of the gradient (recorded with
    ``create_graph=True`` so it can be differentiated once more).

    ``vectorize`` and ``outer_jacobian_strategy`` are passed to the outer ``jacobian`` (same
    results as the default loop)."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise ValueError(
            f'hessian: outer_jacobian_strategy must be "forward-mode" or "reverse-mode", got '
            f"{outer_jacobian_strategy!r}"
        )
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs: Any) -> tuple:
        if outer_jacobian_strategy == "forward-mode":
            xs = tuple(x.requires_grad_(True) for x in xs)

        def scalar(*ys: Any) -> Any:
            return _scalar_output(func(*ys), "hessian", strict).squeeze()

        g = jacobian(scalar, xs, create_graph=True)
        _require_grad(g, "jacobian", strict)
        return g

    res = jacobian(
        gradient,
        inputs,
        create_graph=create_graph,
        strict=strict,
        vectorize=vectorize,
        strategy=outer_jacobian_strategy,
    )
    return _unpack2(res, inputs_is_tuple, inputs_is_tuple)


def _first_gradient(func: Callable, inputs: Any, v: Any, fn: str, create_graph: bool, strict: bool):
    """The common start of vhp and hvp: prepared inputs, checked v, the output and its gradient
    (recorded, so it can be differentiated again)."""
    inputs_is_tuple, inputs = _as_tuple(inputs, "inputs", fn)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _v_or_default(
        v, inputs, inputs_is_tuple, fn, "input to the user-provided function is", create_graph
    )
    output = _scalar_output(func(*inputs), fn, strict)
    g = _grads((output,), inputs, create_graph=True)
    _require_grad(g, "jacobian", strict)
    return inputs_is_tuple, inputs, v, output, g


def vhp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), v^T H)``: the gradient of (grad f) . v, two backward passes."""
    with enable_grad():
        inputs_is_tuple, inputs, v, output, g = _first_gradient(
            func, inputs, v, "vhp", create_graph, strict
        )
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _grads(g, inputs, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back")
    return _finish(output, create_graph), _unpack(_finish(res, create_graph), inputs_is_tuple)


def hvp(
    func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False
) -> tuple:
    """``(func(inputs), H v)``: the Hessian-vector product.

    As in PyTorch, computed with the double-vjp trick on top of vhp (H v = (v^T H^T)^T, three
    backward passes), so it is right for any twice-differentiable function; for a symmetric
    Hessian ``vhp`` gives the same numbers with one pass less.
    """
    with enable_grad():
        inputs_is_tuple, inputs, v, output, g = _first_gradient(
            func, inputs, v, "hvp", create_graph, strict
        )
        u = tuple(x.new_ones(x.shape).requires_grad_(True) for x in inputs)
        u_transpose_h = _grads(g, inputs, u, create_graph=True)
        _require_grad(g, "hessian", strict)
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _grads(u_transpose_h, u, v, create_graph=create_graph)
        res = _zeros_for_none(res, inputs, strict, create_graph, "double_back_trick")
    return _finish(output, create_graph), _unpack(_finish(res, create_graph), inputs_is_tuple)
