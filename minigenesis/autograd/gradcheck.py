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
) -> bool:
    """Check backward against finite differences for every input that requires grad.

    Returns True when ``|analytical - numerical| <= atol + rtol |numerical|`` everywhere; otherwise
    raises GradcheckError naming the input and the worst element (or returns False when
    ``raise_exception=False``).
    """
    inputs = _as_tuple(inputs)
    for t in inputs:
        if isinstance(t, TensorBase) and t.requires_grad and t.dtype.name != "float64":
            warnings.warn(
                f"gradcheck input has dtype {t.dtype.name}: finite differences need float64",
                stacklevel=2,
            )
    numerical = numerical_jacobian(fn, inputs, eps)
    analytical = analytical_jacobian(fn, inputs)
    for k, (a, n) in enumerate(zip(analytical, numerical)):
        bad = np.abs(a - n) > atol + rtol * np.abs(n)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            msg = (
                f"Jacobian mismatch for differentiable input {k}, element {i}, output {j}: "
                f"backward gives {a[i, j]:.8g}, finite differences give {n[i, j]:.8g}"
            )
            if raise_exception:
                raise GradcheckError(msg)
            return False
    return True
