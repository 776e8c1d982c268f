"""``torch.func``'s transforms, built on reverse-mode ``autograd.grad`` and a Python loop.

- ``grad(f)(x)`` = df/dx for a scalar f: one backward pass, with respect to a variable of its
  own (a fresh leaf, or an alias of x when x already requires grad), so an inner transform
  treats what it captured from an outer one as a constant. Nested transforms compose: when
  f's output depends on a tensor that requires grad outside the transform (an outer ``grad``'s
  variable, a captured parameter), the backward is recorded (``create_graph=True``) so the
  outer level can differentiate the result again; otherwise results leave as plain tensors.
- ``jacrev(f)(x)``: J[i, ...] = d out_i / dx, one backward pass per output element, shaped
  ``out.shape + x.shape``. ``jacfwd`` returns the same matrix (PyTorch builds it column by
  column with forward-mode AD; this engine has reverse mode only, so it builds it row by row).
- ``hessian(f)`` = ``jacfwd(jacrev(f))``.
- ``vmap(f, in_dims, out_dims)(*args)``: f applied to each slice along the mapped dims, results
  stacked along ``out_dims``. PyTorch rewrites every op to work on the whole batch at once; here
  the batch is a loop over ``select``, so it is as fast as that loop and gives the same numbers
  (f sees one unbatched sample, exactly as it does under PyTorch's vmap). An in-place write
  into a tensor that is not mapped would repeat per sample, so it is refused (vmap_writes.py).

Arguments and results may be pytrees: tensors inside (nested) tuples, lists and dicts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import autograd
from .. import random as _random
from .._tensor import Tensor
from ..autograd import vmap_samples
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..autograd.reach import reaches_other_leaves, retire
from ..functions.joining import stack
from ..ops.as_strided import storage_owner
from .vmap_writes import UnmappedWrites

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


class _Variables(list):
    """A transform's own variables, and whether its caller records a graph (grad mode was on
    when the transform was called: under ``no_grad`` nothing outside differentiates its
    results, so they leave it as plain tensors whatever they depend on)."""

    def __init__(self, variables: list, recording: bool) -> None:
        super().__init__(variables)
        self.recording = recording


def _tracked_outside(tensor: Any, own: _Variables) -> bool:
    """Whether ``tensor`` depends on a leaf that requires grad other than the transform's own
    fresh leaves ``own``: an outer transform's variable, or a tensor the caller's autograd
    tracks (a parameter captured by the function), while the caller records. Then the
    transform's results must keep their graph, so that the outer level can differentiate them
    further; otherwise they leave the transform as plain tensors."""
    return own.recording and reaches_other_leaves(tensor, own)


def _finish(tree: Any, own: _Variables) -> Any:
    """The tree's tensors as results of the transform: each keeps its graph where it is tracked
    outside (see ``_tracked_outside``) and is detached otherwise."""
    return _map(
        lambda t: t if not isinstance(t, Tensor) or _tracked_outside(t, own) else t.detach(), tree
    )


# ------------------------------------------------------------------------------ grad and jacobians


def _argnums_tuple(argnums: int | tuple, nargs: int, fn: str) -> tuple:
    """``argnums`` as a tuple of non-negative positions, checked as torch.func checks it: an int
    or a tuple of distinct ints, each naming one of the ``nargs`` positional arguments."""
    is_int = lambda a: isinstance(a, int) and not isinstance(a, bool)  # noqa: E731
    if not is_int(argnums) and not (isinstance(argnums, tuple) and all(is_int(a) for a in argnums)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    nums = (argnums,) if is_int(argnums) else argnums
    if not nums or any(not -nargs <= a < nargs for a in nums):
        raise RuntimeError(f"{fn}: argnums {argnums} out of range for {nargs} positional args")
    nums = tuple(a % nargs for a in nums)
    if len(set(nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return nums


def _watch(args: tuple, nums: tuple, recording: bool) -> tuple[tuple, _Variables]:
    """args with each tensor of the pytrees at ``nums`` replaced by the variable the transform
    differentiates with respect to, and the list of those variables (``recording``: whether
    the caller's grad mode was on, see ``_Variables``).

    The variable is a fresh leaf for a tensor that nothing outside tracks, and an alias
    (``view_as``) for one that requires grad (an outer transform's variable, or a tensor of the
    caller's graph): the alias keeps the link to the outer level, and differentiating with
    respect to the alias counts only the uses of this argument, not other uses of the same
    tensor that the function captured (grad(lambda x: grad(lambda y: x * y)(x))(x0) is 1, not
    2: the inner derivative treats the captured x as a constant)."""
    for a in nums:
        for t in _leaves(args[a]):
            if not isinstance(t, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    args = list(args)
    for a in nums:
        args[a] = _map(
            lambda t: t.view_as(t) if t.requires_grad else t.detach().requires_grad_(), args[a]
        )
    return tuple(args), _Variables([t for a in nums for t in _leaves(args[a])], recording)


def _check_floating(tree: Any, what: str) -> None:
    """PyTorch's refusal of integer (and bool) tensors where a derivative is taken."""
    for t in _leaves(tree):
        if isinstance(t, Tensor) and not t.is_floating_point():
            name = str(t.dtype).replace("minigenesis", "torch")
            if what == "primal":
                raise ValueError(
                    f"Expected primal to be floating point or complex, but got: {name}"
                )
            raise RuntimeError(
                f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                f"Tensor with dtype {name}"
            )


def _differentiate(out: Tensor, wrt: list, nested: bool, retain: bool = False) -> list:
    """d out / d each tensor of ``wrt`` (zeros where out does not depend on it), recorded
    (``create_graph``) when ``nested``: an outer level differentiates the result further."""
    if not out.requires_grad:  # computed from none of the inputs (a constant): all zeros
        return [w.detach() * 0 for w in wrt]
    grads = autograd.grad(
        out, wrt, retain_graph=retain or nested, create_graph=nested, allow_unused=True
    )
    return [g if g is not None else w.detach() * 0 for g, w in zip(grads, wrt)]


def grad_and_value(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """``(grad, value)`` (or ``(grad, (value, aux))``) of a function returning a 0-d
    tensor: the gradient with respect to the argument(s) ``argnums``, shaped like them."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "grad")
        recording = is_grad_enabled()
        with enable_grad():
            args, wrt = _watch(args, nums, recording)
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
            if not isinstance(out, Tensor) or out.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got "
                    + (
                        f"tensor with {out.dim()} dims"
                        if isinstance(out, Tensor)
                        else type(out).__name__
                    )
                )
            flat = iter(_differentiate(out, wrt, _tracked_outside(out, wrt)))
            grads = _finish(tuple(_rebuild(args[a], flat) for a in nums), wrt)
        grads = grads[0] if isinstance(argnums, int) else grads
        value = _finish(out, wrt)
        retire(wrt)
        return (grads, (value, _finish(aux, wrt))) if has_aux else (grads, value)

    return wrapper


def grad(func: Callable, argnums: int | tuple = 0, has_aux: bool = False) -> Callable:
    """The gradient of a function returning a 0-d tensor (``(grad, aux)`` with has_aux)."""
    both = grad_and_value(func, argnums, has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = both(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def jacrev(
    func: Callable,
    argnums: int | tuple = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    **_: Any,
) -> Callable:
    """The Jacobian of ``func`` (a tensor or pytree of tensors out) with respect to the
    argument(s) ``argnums``: for output o and input x, a tensor of shape o.shape + x.shape.
    (``chunk_size`` bounds PyTorch's batched rows; here rows are computed one by one.)"""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "jacrev")
        recording = is_grad_enabled()
        with enable_grad():
            args, wrt = _watch(args, nums, recording)
            result = func(*args, **kwargs)
            out, aux = result if has_aux else (result, None)
            _check_floating(out, "output")
            nested = any(_tracked_outside(o, wrt) for o in _leaves(out))

            def jacobian_of(o: Tensor) -> Any:
                if not isinstance(o, Tensor):
                    raise RuntimeError(
                        "jacrev(f, *primals): expected f(*primals) to return only tensors, got "
                        f"unsupported type {type(o)}"
                    )
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

            jac = _finish(_map(jacobian_of, out), wrt)
        retire(wrt)
        return (jac, _finish(aux, wrt)) if has_aux else jac

    return wrapper


def jacfwd(func: Callable, argnums: int | tuple = 0, has_aux: bool = False, **_: Any) -> Callable:
    """The same Jacobian as ``jacrev`` (computed here by reverse mode, row by row)."""
    reverse = jacrev(func, argnums, has_aux=has_aux)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), "jacfwd")
        _check_floating([args[a] for a in nums], "primal")  # (forward mode's own refusal)
        return reverse(*args, **kwargs)

    return wrapper


def hessian(func: Callable, argnums: int | tuple = 0) -> Callable:
    """The matrix of second derivatives of a scalar function: the Jacobian of its gradient."""
    return jacfwd(jacrev(func, argnums), argnums)


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(output, vjp_fn)``: vjp_fn(v) = v^T J, one tuple entry per primal."""
    recording = is_grad_enabled()
    with enable_grad():
        primals, wrt = _watch(primals, tuple(range(len(primals))), recording)
        result = func(*primals)
    out, aux = result if has_aux else (result, None)
    _check_floating(out, "output")
    nested = any(_tracked_outside(o, wrt) for o in _leaves(out))

    def vjp_fn(cotangents: Any) -> tuple:
        if _structure(cotangents) != _structure(out):
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of "
                "outputs to the function"
            )
        # outputs computed from none of the primals (constants) contribute nothing
        pairs = [(o, c) for o, c in zip(_leaves(out), _leaves(cotangents)) if o.requires_grad]
        g = [None] * len(wrt)
        if pairs:
            with enable_grad():
                g = autograd.grad(
                    [o for o, _ in pairs],
                    wrt,
                    [c for _, c in pairs],
                    retain_graph=True,
                    create_graph=nested or any(c.requires_grad for _, c in pairs),
                    allow_unused=True,
                )
        g = iter([x if x is not None else w.detach() * 0 for x, w in zip(g, wrt)])
        return _finish(tuple(_rebuild(p, g) for p in primals), wrt)

    value = _finish(out, wrt)
    retire(wrt)  # (vjp_fn still differentiates with respect to them: they are its own)
    return (value, vjp_fn, _finish(aux, wrt)) if has_aux else (value, vjp_fn)


def _structure(tree: Any) -> Any:
    """A pytree's containers with every leaf replaced by None (equal structures compare equal)."""
    return _map(lambda _: None, tree)


def jvp(
    func: Callable, primals: tuple, tangents: tuple, *, strict: bool = False, has_aux: bool = False
) -> tuple:
    """``(output, J v)`` (``(output, J v, aux)`` with has_aux), output and J v pytrees shaped
    alike. Computed by the double-vjp trick: g(u) = u^T J is linear in u, so the gradient of
    g(u) . v with respect to u is J v (two reverse passes instead of one forward pass)."""
    where = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(
            f"{where}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    if _structure(primals) != _structure(tangents):
        raise RuntimeError(
            f"{where}: Expected primals and tangents to have the same python structure. For "
            "example, if primals is a tuple of 3 tensors, tangents also must be."
        )
    _check_floating(primals, "primal")
    for p, t in zip(_leaves(primals), _leaves(tangents)):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor: {list(p.shape)} against {list(t.shape)}"
            )
    recording = is_grad_enabled()
    with enable_grad():
        primals, wrt = _watch(primals, tuple(range(len(primals))), recording)
        # f gets copies (forward mode lets it write into its inputs in place)
        result = func(*_rebuild(primals, iter([w.clone() for w in wrt])))
        if has_aux and not (isinstance(result, tuple) and len(result) == 2):
            raise RuntimeError(
                f"{where}: output of function f should be a tuple: (output, aux) if has_aux is True"
            )
        out, aux = result if has_aux else (result, None)
        outs = _leaves(out)
        live = [o for o in outs if o.requires_grad]  # the others do not depend on the primals
        # u = ones: J v does not depend on u (linear), but u = 0 sits on the kink of a
        # backward computed piecewise by the cotangent's sign (logcumsumexp's)
        u = [o.new_ones(o.shape).requires_grad_() for o in live]
        u_t_j = autograd.grad(live, wrt, u, create_graph=True, allow_unused=True)
        nested = any(_tracked_outside(o, wrt) for o in live) or (
            recording and any(t.requires_grad for t in _leaves(tangents))
        )
        pairs = [
            (g, t) for g, t in zip(u_t_j, _leaves(tangents)) if g is not None and g.requires_grad
        ]
        jv = [None] * len(u)
        if pairs:
            jv = autograd.grad(
                [g for g, _ in pairs],
                u,
                [t for _, t in pairs],
                create_graph=nested,
                allow_unused=True,
            )
    by_output = dict(zip(map(id, live), jv))
    tangents_out = [
        by_output.get(id(o)) if by_output.get(id(o)) is not None else o.detach() * 0 for o in outs
    ]
    value = _finish(out, wrt)
    tangent = _finish(_rebuild(out, iter(tangents_out)), _Variables(wrt + u, recording))
    retire(wrt + u)
    return (value, tangent, _finish(aux, wrt)) if has_aux else (value, tangent)


def linearize(func: Callable, *primals: Any) -> tuple:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is J(primals) @ tangents, ``func``
    linearised at ``primals`` (each call is a ``jvp`` at that point)."""
    output = func(*primals)

    def jvp_fn(*tangents: Any) -> Any:
        for i, (p, t) in enumerate(zip(_leaves(primals), _leaves(tangents))):
            if p.dtype != t.dtype:
                names = [str(x.dtype).replace("minigenesis", "torch") for x in (t, p)]
                raise RuntimeError(
                    f"tangent:{i} with dtype {names[0]} in flattened pytree doesn't match the "
                    f"dtype {names[1]} of the corresponding primal."
                )
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


# ------------------------------------------------------------------------------------------ vmap


def _broadcast_dims(dims: Any, tree: Any) -> list | None:
    """``dims`` spread over ``tree``'s leaves, one dim (or None) per leaf: an int or None covers
    a whole subtree, a tuple/list/dict must match the tree's container there. None when the
    structures do not match."""
    if dims is None or isinstance(dims, int):
        return [dims] * len(_leaves(tree))
    if isinstance(dims, (tuple, list)) and isinstance(tree, (tuple, list)):
        if len(dims) != len(tree):
            return None
        parts = [_broadcast_dims(d, t) for d, t in zip(dims, tree)]
    elif isinstance(dims, dict) and isinstance(tree, dict) and set(dims) == set(tree):
        parts = [_broadcast_dims(dims[k], t) for k, t in tree.items()]
    else:
        return None
    return None if any(p is None for p in parts) else [d for p in parts for d in p]


def _in_dims_for(in_dims: Any, args: tuple) -> list:
    """One dim (or None) per leaf of ``args``, checked against the leaves as PyTorch does."""
    dims = _broadcast_dims(in_dims, args)
    if dims is None:
        raise ValueError(
            f"vmap: in_dims={in_dims} is not compatible with the structure of the inputs: an int "
            "or None, or a (nested) tuple with one entry per positional argument"
        )
    for leaf, d in zip(_leaves(args), dims):
        if d is None:
            continue
        if not isinstance(leaf, Tensor):
            raise ValueError(
                f"vmap: Got in_dim={d} for an input but the input is of type {type(leaf)}. We "
                "cannot vmap over non-Tensor arguments, please use None as the respective in_dim"
            )
        if not -leaf.dim() <= d < leaf.dim():
            raise ValueError(
                f"vmap: Got in_dim={d} for some input, but that input is a Tensor of "
                f"dimensionality {leaf.dim()} so expected in_dim to satisfy "
                f"-{leaf.dim()} <= in_dim < {leaf.dim()}."
            )
    return dims


def _same_values(a: Tensor, b: Tensor) -> bool:
    """Equal shapes and elements, a NaN equal to a NaN in the same place (the same unbatched
    output of every sample may hold NaNs)."""
    return a.shape == b.shape and bool(((a == b) | (a.isnan() & b.isnan())).all())


def _stack_outputs(results: list, out_dims: Any) -> Any:
    """The per-sample results stacked leaf by leaf along ``out_dims``. A leaf with out_dim None
    is not batched: it must be the same in every sample, and is returned once."""
    dims = _broadcast_dims(out_dims, results[0])
    if dims is None:
        raise ValueError(
            f"vmap: out_dims={out_dims} is not compatible with the structure of the outputs"
        )
    per_sample = [_leaves(r) for r in results]
    stacked = []
    for i, d in enumerate(dims):
        column = [leaves[i] for leaves in per_sample]
        if not all(isinstance(t, Tensor) for t in column):
            raise ValueError(
                f"vmap: the function must only return Tensors, got type {type(column[0])}"
            )
        if d is None:
            if any(t is not column[0] and not _same_values(t, column[0]) for t in column):
                raise ValueError(
                    "vmap: the function can not return a batched Tensor when out_dim is None"
                )
            stacked.append(column[0])
        else:
            stacked.append(stack(column, dim=d))
    return _rebuild(results[0], iter(stacked))


def vmap(
    func: Callable,
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable:
    """``func`` mapped over dim ``in_dims`` of its arguments (None: not mapped), the results
    stacked along ``out_dims`` (None: an output that is the same for every sample).

    ``randomness`` (the CPU generator): "error" refuses a function that draws random numbers,
    "same" gives every sample the same draws (the generator rewound before each), "different"
    lets each sample draw its own."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            "Only allowed values for randomness are 'error', 'different', or 'same'. "
            f"Got {randomness}"
        )
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if isinstance(in_dims, bool) or not isinstance(in_dims, (int, tuple)):
            raise ValueError(  # (a list is a pytree node inside, but not the outer container)
                f"vmap(f, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                f"(potentially nested) tuple matching the structure of inputs, got: "
                f"{type(in_dims)}."
            )
        leaves = _leaves(args)
        dims = _in_dims_for(in_dims, args)
        sizes = {t.shape[d] for t, d in zip(leaves, dims) if d is not None}
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
        if size == 0:
            return _map_over_nothing(func, args, kwargs, leaves, dims, out_dims)
        start = _random.get_rng_state()
        writes = UnmappedWrites(func, [t for t, d in zip(leaves, dims) if d is None])
        results = []
        call = object()  # this call's mark on its samples (see autograd/vmap_samples.py)
        vmap_samples.RUNNING.append(call)
        try:
            for b in range(size):
                if randomness == "same":
                    _random.set_rng_state(start)
                sliced = [t if d is None else _sample(t, d, b, call) for t, d in zip(leaves, dims)]
                results.append(func(*_rebuild(args, iter(sliced)), **kwargs))
                writes.check()
                if randomness == "error" and _random.get_rng_state().tolist() != start.tolist():
                    raise RuntimeError(
                        "vmap: called random operation while in randomness error mode. Please "
                        "either use the 'same' or 'different' randomness flags on vmap or "
                        "perform the randomness operation out of vmap"
                    )
        finally:
            vmap_samples.RUNNING.remove(call)
        return _stack_outputs(results, out_dims)

    return wrapper


def _sample(t: Tensor, d: int, b: int, call: object) -> Tensor:
    """Sample b of ``t`` mapped along dim d, marked as one sample of ``call``: where it starts
    in the memory of t's owner, counted from sample 0 (plus an outer vmap's shift of t)."""
    s = t.select(d, b)
    owner = storage_owner(t._data)
    outer = vmap_samples.sample_of(t)
    shift = b * t.stride(d) + (outer.shift if outer is not None and outer.owner is owner else 0)
    s.__dict__["_vmap_sample"] = vmap_samples.Sample(call, owner, shift)
    return s


def _map_over_nothing(
    func: Callable, args: tuple, kwargs: dict, leaves: list, dims: list, out_dims: Any
) -> Any:
    """vmap over a batch of 0 samples: ``func`` runs once on a zero-filled sample, for the
    shapes and dtypes of its outputs, and each mapped output is that sample's shape with a dim
    of size 0 at its out_dim (as PyTorch's batched tensors of batch size 0)."""
    shapes = [None if d is None else list(t.shape) for t, d in zip(leaves, dims)]
    for shape, d in zip(shapes, dims):
        if shape is not None:
            del shape[d]  # (a negative in_dim counts from the end, as del does)
    samples = iter([t if s is None else t.new_zeros(s) for t, s in zip(leaves, shapes)])
    once = _stack_outputs([func(*_rebuild(args, samples), **kwargs)], out_dims)
    out_leaves = _leaves(once)
    batched = _broadcast_dims(out_dims, once)
    return _rebuild(
        once, iter([t if d is None else t.narrow(d, 0, 0) for t, d in zip(out_leaves, batched)])
    )
