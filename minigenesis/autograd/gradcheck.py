"""gradcheck: compare backward's gradients with central finite differences.

For each input element x_i:   dL/dx_i ~ (f(x + eps e_i) - f(x - eps e_i)) / (2 eps)
The check is only meaningful in float64: in float32 the rounding error of f swamps eps.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..backend import get_array_module, to_numpy
from .engine import run_backward
from .tensor_base import TensorBase


class GradcheckError(RuntimeError):
    """Analytical and numerical gradients disagree."""


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def numerical_jacobian(fn: Callable, inputs: Sequence[Any], eps: float) -> list[np.ndarray]:
    """J[k][i, j] = d out_j / d input_k[i], by central differences (one input element at a time)."""
    jacobians = []
    # no no_grad() here: fn may itself use autograd (checking a gradient of a gradient)
    n_out = sum(o.numel() for o in _as_tuple(fn(*inputs)))
    for t in inputs:
        if not (isinstance(t, TensorBase) and t.requires_grad):
            continue
        flat = t._data.reshape(-1)  # a view: writing to it perturbs the input in place
        jac = np.zeros((flat.size, n_out))
        for i in range(flat.size):
            orig = flat[i].item()
            flat[i] = orig + eps
            plus = np.concatenate([to_numpy(o._data).ravel() for o in _as_tuple(fn(*inputs))])
            flat[i] = orig - eps
            minus = np.concatenate([to_numpy(o._data).ravel() for o in _as_tuple(fn(*inputs))])
            flat[i] = orig
            jac[i] = (plus.astype(np.float64) - minus) / (2 * eps)
        jacobians.append(jac)
    return jacobians


def analytical_jacobian(fn: Callable, inputs: Sequence[Any]) -> list[np.ndarray]:
    """The same Jacobians from backward: one vector-Jacobian product per output element."""
    diff_inputs = [t for t in inputs if isinstance(t, TensorBase) and t.requires_grad]
    outputs = [o for o in _as_tuple(fn(*inputs))]
    n_out = sum(o.numel() for o in outputs)
    jacs = [np.zeros((t.numel(), n_out)) for t in diff_inputs]
    col = 0
    for o in outputs:
        for j in range(o.numel()):
            if o.requires_grad:
                xp = get_array_module(o._data)
                seed = xp.zeros(o.shape, dtype=o._data.dtype)
                seed.reshape(-1)[j] = 1
                seed_t = TensorBase._make(seed, False)
                grads = run_backward(
                    [o], [seed_t], True, False, inputs=diff_inputs, allow_unused=True
                )
                for k, g in enumerate(grads):
                    if g is not None:
                        jacs[k][:, col] = to_numpy(g._data).astype(np.float64).ravel()
            col += 1
    return jacs


def gradcheck(
    fn: Callable,
    inputs: Any,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    *,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
) -> bool:
    """Check backward against finite differences for every input that requires grad.

    Returns True when ``|analytical - numerical| <= atol + rtol |numerical|`` everywhere; otherwise
    raises GradcheckError naming the input and the worst element (or returns False when
    ``raise_exception=False``).

    PyTorch's other keywords are accepted: the backward here is deterministic (``nondet_tol``),
    casts each gradient to its input's dtype (``check_grad_dtypes``) and gives zeros for an
    output no gradient reached (``check_undefined_grad``); ``fast_mode`` makes the full check
    (stricter than its random projection); ``masked`` concerns sparse inputs only. The checks
    that need vmap or forward-mode AD, which minigenesis does not have, raise when asked for.
    """
    _refuse(
        "gradcheck",
        check_batched_grad=check_batched_grad,
        check_batched_forward_grad=check_batched_forward_grad,
    )
    if not (check_backward_ad or check_forward_ad):
        return True
    inputs = _as_tuple(inputs)
    _warn_unless_float64(inputs)
    sizes = [o.numel() for o in _as_tuple(fn(*inputs))]
    numerical = numerical_jacobian(fn, inputs, eps)
    if check_forward_ad:
        forward = forward_jacobian(fn, inputs, sum(sizes))
        if not _agree(forward, numerical, sizes, atol, rtol, raise_exception):
            return False
    if check_backward_ad:
        analytical = analytical_jacobian(fn, inputs)
        return _agree(analytical, numerical, sizes, atol, rtol, raise_exception)
    return True


def _warn_unless_float64(inputs: tuple) -> None:
    for t in inputs:
        if isinstance(t, TensorBase) and t.requires_grad and t.dtype.name != "float64":
            warnings.warn(
                f"gradcheck input has dtype {t.dtype.name}: finite differences need float64",
                stacklevel=3,
            )


def forward_jacobian(fn: Callable, inputs: Sequence[Any], n_out: int) -> list[np.ndarray]:
    """The Jacobians by forward-mode AD: row i of input k's is the tangent of the outputs when
    element i of input k carries tangent 1 (one dual evaluation per input element)."""
    from . import forward_ad as fwAD

    jacobians = []
    for k, t in enumerate(inputs):
        if not (isinstance(t, TensorBase) and t.requires_grad):
            continue
        jac = np.zeros((t.numel(), n_out))
        for i in range(t.numel()):
            seed = get_array_module(t._data).zeros(t.shape, dtype=t._data.dtype)
            seed.reshape(-1)[i] = 1
            with fwAD.dual_level():
                args = list(inputs)
                args[k] = fwAD.make_dual(t.detach(), TensorBase._make(seed))
                outs = _as_tuple(fn(*args))
                tangents = [fwAD.unpack_dual(o).tangent for o in outs]
            jac[i] = np.concatenate(
                [
                    np.zeros(o.numel()) if d is None else to_numpy(d._data).ravel()
                    for o, d in zip(outs, tangents)
                ]
            )
        jacobians.append(jac)
    return jacobians


def _agree(
    analytical: list,
    numerical: list,
    sizes: list[int],
    atol: float,
    rtol: float,
    raise_exception: bool,
) -> bool:
    """gradcheck's verdict on the two lists of Jacobians (see gradcheck). A mismatch is reported
    as PyTorch reports it: the output and input it concerns, then both Jacobians of that pair
    (rows: the input's elements, columns: the output's)."""
    starts = np.cumsum([0] + sizes)
    for k, (a, n) in enumerate(zip(analytical, numerical)):
        bad = np.abs(a - n) > atol + rtol * np.abs(n)
        if bad.any():
            j = int(np.searchsorted(starts, np.argwhere(bad)[0][1], side="right") - 1)
            cols = slice(starts[j], starts[j + 1])
            msg = (
                f"Jacobian mismatch for output {j} with respect to input {k},\n"
                f"numerical:{n[:, cols]}\nanalytical:{a[:, cols]}\n"
            )
            if raise_exception:
                raise GradcheckError(msg)
            return False
    return True


def gradgradcheck(
    fn: Callable,
    inputs: Any,
    grad_outputs: Any = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: gradcheck of the map (inputs, v) -> v^T J(inputs), the
    vector-Jacobian product that backward computes with ``create_graph=True``. Its Jacobian
    holds the Hessian-vector products (d/d inputs) and J itself (d/d v), so the check covers
    backward's own backward. ``v`` (``grad_outputs``) defaults to random values in [-1, 1) in
    each output's dtype, themselves requiring grad (PyTorch draws them from its global
    generator; here from a fixed stream: a check does not advance the program's RNG).
    ``gen_non_contig_grad_outputs`` changes nothing here (arrays are laid out by NumPy)."""
    _refuse(
        "gradgradcheck",
        check_batched_grad=check_batched_grad,
        check_fwd_over_rev=check_fwd_over_rev,
    )
    if not check_rev_over_rev:
        return True
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = _random_cotangents([o for o in _as_tuple(fn(*inputs)) if o.requires_grad])
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def vjp(*args: Any) -> tuple:
        primal, cotangents = args[:n], args[n:]
        outs = [o for o in _as_tuple(fn(*primal)) if o.requires_grad]
        diff = [t for t in primal if isinstance(t, TensorBase) and t.requires_grad]
        grads = run_backward(outs, list(cotangents), True, True, diff, True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(
        vjp, inputs + grad_outputs, eps, atol, rtol, raise_exception, nondet_tol=nondet_tol
    )


def _random_cotangents(outputs: list) -> list:
    """One tensor per output, values uniform in [-1, 1) in its dtype and device, requiring grad."""
    rng = np.random.default_rng(0)
    cotangents = []
    for o in outputs:
        xp = get_array_module(o._data)
        v = xp.asarray(rng.uniform(-1.0, 1.0, o.shape)).astype(o._data.dtype)
        cotangents.append(TensorBase._make(v, True))
    return cotangents


def _refuse(caller: str, **checks: bool) -> None:
    """The checks that need vmap's batched gradients, which this gradcheck does not make: asked
    for (True), they raise rather than pass unmade."""
    for name, wanted in checks.items():
        if wanted:
            raise NotImplementedError(
                f"{caller}: {name}=True (batched gradients through vmap) is not checked "
                f"here; pass {name}=False"
            )
