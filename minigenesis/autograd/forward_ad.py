"""Forward-mode AD with dual numbers (PyTorch's ``torch.autograd.forward_ad``).

A dual tensor carries a primal value x and a tangent t; every function f applied to it should
carry the tangent J_f(x) t along, the Jacobian-vector product, without ever forming J_f:

    with fwAD.dual_level():
        x = fwAD.make_dual(primal, tangent)
        y = f(x)
        y_tangent = fwAD.unpack_dual(y).tangent      # = J_f(primal) @ tangent

This engine records only reverse-mode graphs, so the tangent is computed from them by the
"double-backward trick": for any v, the vector-Jacobian product g(v) = J^T v is linear in v,
and so is s(v) = <g(v), t> = <v, J t>; its gradient with respect to v is exactly J t. One
backward with ``create_graph=True`` (the graph of g as a function of v) and one more backward
of s give the forward-mode tangent. The cost is two backward passes per ``unpack_dual``
instead of one forward pass, and every op on the way must be twice differentiable, which is
what ``create_graph`` already asks of them.

``make_dual`` returns a tensor that requires grad (it is what the graph differentiates with
respect to), so forward-mode AD needs grad mode on, unlike PyTorch's (which has its own
tangent-propagation rules per op and also works under ``no_grad``); ``unpack_dual`` under
``no_grad`` says so rather than return a tangent of None.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

from .grad_mode import enable_grad, is_grad_enabled
from .reach import reaches_other_leaves, retire

UnpackedDualTensor = namedtuple("UnpackedDualTensor", ["primal", "tangent"])

# One dict per open level (innermost last): id(dual) -> (dual, variable, tangent, given,
# version): the variable is what tangents are taken with respect to, ``given`` the tensor
# make_dual got, ``version`` the dual's version then (an in-place write changes its tangent).
_levels: list[dict] = []


def enter_dual_level() -> int:
    """Open a new dual level and return its index (``dual_level`` does this for a block)."""
    if _levels:  # PyTorch supports a single level at a time
        raise RuntimeError(
            "Entering a new forward AD level but the current level is not valid. "
            "Make sure you did not modified it directly."
        )
    _levels.append({})
    return len(_levels) - 1


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the current level: its dual tensors stop carrying tangents, and their variables are
    no longer anyone's to differentiate (an enclosing transform does not count them as tracked:
    see reach.py)."""
    if not _levels:
        raise RuntimeError("Trying to exit a forward AD level that was not entered")
    retire([made[1] for made in _levels.pop().values()])


class dual_level:  # noqa: N801 (PyTorch's name)
    """Context manager for a forward-AD level: dual tensors made inside live until it ends."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()


def _current(level: int | None) -> dict:
    if not _levels:
        raise RuntimeError(
            "To create or unpack a dual tensor, you need to be inside a forward AD level: "
            "use `with forward_ad.dual_level():`"
        )
    return _levels[-1]


def make_dual(tensor: Any, tangent: Any, *, level: int | None = None) -> Any:
    """A tensor equal to ``tensor`` whose forward-mode derivative is ``tangent``."""
    duals = _current(level)
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}."
        )
    if not tensor.dtype.is_floating_point:
        raise ValueError(f"Expected primal to be floating point, but got: {tensor.dtype}")
    # The variable to differentiate with respect to: a fresh leaf, or, for a tensor that
    # requires grad, an alias of it (view_as), so that reverse mode still reaches the tensor
    # through the dual and a tangent counts only the uses of the dual. The caller gets a
    # non-leaf copy (in-place ops on it are then allowed, as on any intermediate result),
    # recorded even under no_grad: a dual always carries its tangent.
    with enable_grad():
        variable = (
            tensor.view_as(tensor) if tensor.requires_grad else tensor.detach().requires_grad_()
        )
        dual = variable.clone()
    duals[id(dual)] = (dual, variable, tangent, tensor, dual._version)  # (tangent as given)
    return dual


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent) of ``tensor``; the tangent is None when it does not depend on any dual
    tensor of the current level. The primal carries no tangent (computing with it gives no
    tangent), except for a tensor that also depends on a tensor the caller's autograd tracks:
    its primal is the tensor itself, as cutting it from the dual variables would cut it from
    that graph too."""
    if not _levels:
        return UnpackedDualTensor(tensor, None)
    duals = _levels[-1]
    made = duals.get(id(tensor))
    if made is not None and made[0] is tensor and made[4] == tensor._version:
        _, _, tangent, given, _ = made
        primal = given.view_as(given) if given.requires_grad else tensor.detach()
        return UnpackedDualTensor(primal, tangent)
    if not getattr(tensor, "requires_grad", False) or not duals:
        if duals and not is_grad_enabled():
            raise RuntimeError(
                "unpack_dual: forward AD in this engine reads tangents off the recorded "
                "reverse graph, and grad mode is off (no_grad), so ops on dual tensors were "
                "not recorded; compute with grad mode on inside the dual level"
            )
        return UnpackedDualTensor(tensor, None)
    variables = [made[1] for made in duals.values()]
    primal = tensor if reaches_other_leaves(tensor, variables) else tensor.detach()
    return UnpackedDualTensor(primal, _jvp(tensor, list(duals.values())))


def _jvp(output: Any, duals: list) -> Any:
    """J t for the Jacobian J of ``output`` with respect to the duals' leaves, by two backward
    passes: g = J^T v with v a variable, then d<g, t>/dv."""
    from . import grad  # the package's autograd.grad (imported here: it imports this module)

    leaves = [made[1] for made in duals]
    # v = ones: any v gives the same J t (g is linear in v), but not 0, where a backward
    # computed piecewise by the sign of its cotangent (logcumsumexp's) has a kink
    v = output.detach().new_ones(output.shape).requires_grad_(True)
    vjps = grad(output, leaves, v, create_graph=True, allow_unused=True)
    # the tangent stays differentiable where the output also depends on tensors the caller
    # tracks (reverse mode over forward mode), or where a tangent itself requires grad
    tangents = [made[2] for made in duals]
    keep = reaches_other_leaves(output, leaves) or any(t.requires_grad for t in tangents)
    terms = [(g * t).sum() for g, t in zip(vjps, tangents) if g is not None]
    if not terms:
        return None
    s = terms[0]
    for term in terms[1:]:
        s = s + term
    if not s.requires_grad:  # J^T v did not depend on v: J t is zero
        return output.detach().new_zeros(output.shape)
    (tangent,) = grad(s, [v], allow_unused=True, create_graph=keep)
    retire([v])  # (the tangent's graph may hang off v, which nothing outside tracks)
    if tangent is None:
        return output.detach().new_zeros(output.shape)
    return tangent if keep else tangent.detach()


def apply_by_jvp(cls: type, args: tuple) -> Any:
    """Run a custom Function that defines ``jvp(ctx, *input_tangents)`` on dual inputs: forward
    on the primals, then jvp on the inputs' tangents (zeros for an input without one) gives the
    output's tangent, and the output is a dual tensor with it. None when no input carries a
    tangent (the caller then applies the Function as usual)."""
    from ..backend import get_array_module
    from .function import user_forward
    from .grad_mode import no_grad
    from .tensor_base import TensorBase

    if not _levels:
        return None
    tangents = [unpack_dual(a).tangent if isinstance(a, TensorBase) else None for a in args]
    if all(t is None for t in tangents):
        return None
    primals = tuple(a.detach() if isinstance(a, TensorBase) else a for a in args)
    ctx = cls._node_class()
    out = user_forward(cls, ctx, primals)
    with no_grad():
        zeros = [
            TensorBase._make(get_array_module(a._data).zeros_like(a._data))
            if isinstance(a, TensorBase) and t is None
            else t
            for a, t in zip(primals, tangents)
        ]
        tangent_out = cls.jvp(ctx, *zeros)
    if isinstance(out, tuple):
        tangent_out = tangent_out if isinstance(tangent_out, tuple) else (tangent_out,)
        return tuple(make_dual(o, t) for o, t in zip(out, tangent_out))
    return make_dual(out, tangent_out)


__all__ = [
    "UnpackedDualTensor",
    "dual_level",
    "enter_dual_level",
    "exit_dual_level",
    "make_dual",
    "unpack_dual",
]
