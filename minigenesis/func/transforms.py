"""``torch.func``'s transforms, built on reverse-mode ``autograd.grad`` and a Python loop.

- ``grad(f)(x)`` = df/dx for a scalar f: one backward pass. Nested transforms compose: when x
  already requires grad (an outer ``grad`` or ``jacrev`` is watching it), the backward is
  recorded (``create_graph=True``) so the outer transform can differentiate the result again.
- ``jacrev(f)(x)``: J[i, ...] = d out_i / dx, one backward pass per output element, shaped
  ``out.shape + x.shape``. ``jacfwd`` returns the same matrix (PyTorch builds it column by
  column with forward-mode AD; this engine has reverse mode only, so it builds it row by row).
- ``hessian(f)`` = ``jacfwd(jacrev(f))``.
- ``vmap(f, in_dims, out_dims)(*args)``: f applied to each slice along the mapped dims, results
  stacked along ``out_dims``. PyTorch rewrites every op to work on the whole batch at once; here
  the batch is a loop over ``select``, so it is as fast as that loop and gives the same numbers
  (f sees one unbatched sample, exactly as it does under PyTorch's vmap).

Arguments and results may be pytrees: tensors inside (nested) tuples, lists and dicts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import autograd
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad
from ..functions.joining import stack

# ------------------------------------------------------------------------------------- pytrees


def _leaves(tree: Any) -> list:
    """The tensors (and other leaves) of a pytree, in order."""
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _leaves(item)]
    return [tree]


def _rebuild(tree: Any, leaves: Any) -> Any:
    """``tree``'s structure with its leaves taken, in order, from the iterator ``leaves``."""
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(item, leaves) for item in tree)
    if isinstance(tree, dict):
        return {k: _rebuild(v, leaves) for k, v in tree.items()}
    return next(leaves)


def _map(fn: Callable, tree: Any) -> Any:
    return _rebuild(tree, iter([fn(leaf) for leaf in _leaves(tree)]))


# ------------------------------------------------------------------------------ grad and jacobians


def _argnums_tuple(argnums: int | tuple, nargs: int, fn: str) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums or any(not isinstance(a, int) or not -nargs <= a < nargs for a in nums):
        raise RuntimeError(f"{fn}: argnums {argnums} out of range for {nargs} positional args")
    return tuple(a % nargs for a in nums)


def _watch(args: tuple, nums: tuple) -> tuple[tuple, bool]:
    """args with the pytrees at ``nums`` made differentiable; and whether any of those leaves
    already required grad (an outer transform watches them: then results keep their graph)."""
    nested = any(t.requires_grad for a in nums for t in _leaves(args[a]) if isinstance(t, Tensor))
    args = list(args)
    for a in nums:
        args[a] = _map(lambda t: t if t.requires_grad else t.detach().requires_grad_(), args[a])
    return tuple(args), nested


def _differentiate(out: Tensor, wrt: list, nested: bool, retain: bool = False) -> list:
    """d out / d each tensor of ``wrt`` (zeros where out does not depend on it)."""
    grads = autograd.grad(
        out, wrt, retain_graph=retain or nested, create_graph=nested, allow_unused=True
    )
    grads = [g if g is not None else w.detach() * 0 for g, w in zip(grads, wrt)]
    return grads if nested else [g.detach() for g in grads]


def grad_and_value(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """``(grad, value)`` (or ``(grad, (value, aux))``) of a function returning a one-element
    tensor: the gradient with respect to the argument(s) ``argnums``, shaped like them."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "grad")
        with enable_grad():
            args, nested = _watch(args, nums)
            result = func(*args, **kwargs)
            if has_aux:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True"
                    )
                out, aux = result
            else:
                out, aux = result, None
            if not isinstance(out, Tensor) or out.numel() != 1:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    + (
                        f"tensor with {out.dim()} dims"
                        if isinstance(out, Tensor)
                        else type(out).__name__
                    )
                )
            wrt = [t for a in nums for t in _leaves(args[a])]
            flat = iter(_differentiate(out, wrt, nested))
            grads = tuple(_rebuild(args[a], flat) for a in nums)
        grads = grads[0] if isinstance(argnums, int) else grads
        value = out if nested else out.detach()
        return (grads, (value, aux)) if has_aux else (grads, value)

    return wrapper


def grad(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """The gradient of a function returning a one-element tensor (``(grad, aux)`` with has_aux)."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def jacrev(
    func: Callable, argnums: int | tuple = 0, *, has_aux: bool = False, **_: Any
) -> Callable:
    """The Jacobian of ``func`` (a tensor or pytree of tensors out) with respect to the
    argument(s) ``argnums``: for output o and input x, a tensor of shape o.shape + x.shape."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "jacrev")
        with enable_grad():
            args, nested = _watch(args, nums)
            result = func(*args, **kwargs)
            out, aux = result if has_aux else (result, None)
            wrt = [t for a in nums for t in _leaves(args[a])]

            def jacobian_of(o: Tensor) -> Any:
                flat_o = o.reshape(-1)
                rows = [
                    _differentiate(flat_o[i], wrt, nested, retain=True)
                    for i in range(flat_o.numel())
                ]
                per_input = iter(
                    [
                        stack([r[j] for r in rows]).reshape(*o.shape, *w.shape)
                        if rows
                        else w.new_zeros(*o.shape, *w.shape)
                        for j, w in enumerate(wrt)
                    ]
                )
                jac = tuple(_rebuild(args[a], per_input) for a in nums)
                return jac[0] if isinstance(argnums, int) else jac

            jac = _map(jacobian_of, out)
        return (jac, aux) if has_aux else jac

    return wrapper


def jacfwd(func: Callable, argnums: int | tuple = 0, has_aux: bool = False, **_: Any) -> Callable:
    """The same Jacobian as ``jacrev`` (computed here by reverse mode, row by row)."""
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func: Callable, argnums: int | tuple = 0) -> Callable:
    """The matrix of second derivatives of a scalar function: the Jacobian of its gradient."""
    return jacfwd(jacrev(func, argnums), argnums)


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(output, vjp_fn)``: vjp_fn(v) = v^T J, one tuple entry per primal."""
    with enable_grad():
        primals, nested = _watch(primals, tuple(range(len(primals))))
        result = func(*primals)
    out, aux = result if has_aux else (result, None)

    def vjp_fn(cotangents: Any) -> tuple:
        outs, cots = _leaves(out), _leaves(cotangents)
        wrt = _leaves(primals)
        g = autograd.grad(
            outs, wrt, cots, retain_graph=True, create_graph=nested, allow_unused=True
        )
        g = iter([x if x is not None else w.detach() * 0 for x, w in zip(g, wrt)])
        return tuple(_rebuild(p, g) for p in primals)

    value = out if nested else _map(lambda t: t.detach(), out)
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jvp(func: Callable, primals: tuple, tangents: tuple, *, has_aux: bool = False) -> tuple:
    """``(output, J v)`` for a tensor output, through ``autograd.functional.jvp``'s double-vjp."""
    from ..autograd.functional import jvp as _jvp

    value, tangent_out = _jvp(func, tuple(primals), tuple(tangents))
    return value, tangent_out


# ------------------------------------------------------------------------------------------ vmap


def _dims_for(in_dims: Any, args: tuple) -> list:
    """in_dims broadcast over the args' pytrees: one dim (or None) per leaf."""
    if isinstance(in_dims, int) or in_dims is None:
        return [in_dims] * len(_leaves(args))
    if not isinstance(in_dims, (tuple, list)) or len(in_dims) != len(args):
        raise ValueError(
            f"vmap: in_dims is not compatible with the structure of inputs: expected one entry per "
            f"positional argument ({len(args)}), got {in_dims}"
        )
    dims = []
    for d, a in zip(in_dims, args):
        n = len(_leaves(a))
        dims.extend([d] * n if isinstance(d, int) or d is None else _leaves(d))
    return dims


def vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable:
    """``func`` mapped over dim ``in_dims`` of its arguments (None: not mapped), the results
    stacked along ``out_dims``."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        leaves = _leaves(args)
        dims = _dims_for(in_dims, args)
        sizes = {
            t.shape[d] for t, d in zip(leaves, dims) if d is not None and isinstance(t, Tensor)
        }
        if not sizes:
            raise ValueError(
                "vmap: at least one input must be a Tensor mapped along a dim (in_dims all None)"
            )
        if len(sizes) > 1:
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, "
                f"got sizes {sorted(sizes)}"
            )
        (size,) = sizes
        results = []
        for b in range(size):
            sliced = iter([t.select(d, b) if d is not None else t for t, d in zip(leaves, dims)])
            results.append(func(*_rebuild(args, sliced), **kwargs))
        per_leaf = [_leaves(r) for r in results]
        outs = _leaves(out_dims) if not isinstance(out_dims, int) else [out_dims] * len(per_leaf[0])
        stacked = iter(
            [stack([r[i] for r in per_leaf], dim=outs[i]) for i in range(len(per_leaf[0]))]
        )
        return _rebuild(results[0], stacked)

    return wrapper
