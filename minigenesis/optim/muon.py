"""Muon (Keller Jordan, 2024), as PyTorch's ``torch.optim.Muon``: momentum SGD for weight
matrices whose step is orthogonalised first, by a quintic Newton-Schulz iteration run in bfloat16,
so every direction of the matrix moves by about the same amount."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..backend import Array, get_array_module
from .optimizer import Optimizer, lerp_

# Keller Jordan's constants (kellerjordan.github.io/posts/muon), PyTorch's defaults
EPS = 1e-7
NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
NS_STEPS = 5
ADJUST_LR_FNS = ("original", "match_rms_adamw")


def round_to_bfloat16(x: Array) -> Array:
    """The float32 array ``x`` rounded to the nearest bfloat16 value (ties to even), kept in
    float32. bfloat16 is float32's top 16 bits, so rounding is integer arithmetic on the bits:
    add 0x7FFF plus the lowest kept bit, then clear the low 16 bits. Works on NumPy and CuPy
    arrays alike (CuPy has no bfloat16 dtype); NaN stays NaN."""
    xp = get_array_module(x)
    bits = xp.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = (bits + (np.uint32(0x7FFF) + ((bits >> 16) & np.uint32(1)))) & np.uint32(0xFFFF0000)
    return xp.where(xp.isnan(x), x, rounded.view(np.float32))


def zeropower_via_newtonschulz(
    g: Array, coefficients: tuple[float, float, float], steps: int, eps: float, bf16: bool = True
) -> Array:
    """An approximately orthogonal matrix pointing along ``g``: about U V^T of g = U S V^T.

    .. code-block:: text

        X <- g / max(||g||_F, eps)         (transposed first when g is tall, so X X^T is small)
        repeat steps times:
            A <- X X^T
            B <- b A + c A A
            X <- a X + B X                 (X's singular values s -> a s + b s^3 + c s^5)

    The quintic's slope at zero is large (a = 3.4445), so small singular values grow fast; it
    does not converge to 1 exactly but leaves them roughly in [0.7, 1.2]. As in PyTorch the
    iteration runs in bfloat16: each product-and-sum (PyTorch's ``addmm``) is computed in
    float32 and rounded to bfloat16 once; ``bf16=False`` skips the rounding (float32 or float64
    throughout, the formulas alone). Returns a float32 (or g's dtype) array of g's shape."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if g.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = coefficients
    xp = get_array_module(g)
    if bf16:  # the float32 numbers of bfloat16 values; PyTorch's double -> bfloat16 goes via float
        r = round_to_bfloat16
        x, dt = r(g.astype(np.float32)), np.dtype(np.float32)
    else:
        r = lambda v: v  # noqa: E731
        x, dt = g, g.dtype
    tall = g.shape[0] > g.shape[1]
    if tall:
        x = x.T
    norm = r(xp.sqrt(xp.sum(x * x, dtype=dt)).reshape(1, 1))
    norm = xp.maximum(norm, r(xp.asarray(eps, dtype=dt)))  # PyTorch's clamp(min=eps)
    x = r(x / norm)
    a, b, c = (
        dt.type(a),
        dt.type(b),
        dt.type(c),
    )  # (float32 multipliers, as PyTorch's kernel takes them)
    for _ in range(steps):
        gram = r(x @ x.T)
        poly = r(b * gram + c * (gram @ gram))
        x = r(a * x + poly @ x)
    return x.T if tall else x


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """The learning rate a matrix of ``shape`` (A rows, B columns) takes, so that the
    orthogonalised step has a like RMS whatever its shape: ``"original"`` (or None, Keller
    Jordan's) lr * sqrt(max(1, A / B)); ``"match_rms_adamw"`` (Moonshot's) lr * 0.2 *
    sqrt(max(A, B)), the RMS of an AdamW step, so AdamW's lr and weight decay carry over."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")


class Muon(Optimizer):
    r"""Muon as PyTorch computes it, for 2-D parameters (hidden layers' weight matrices; give
    biases, embeddings and the output layer to AdamW). For ``p`` (A x B) with gradient ``g``:

    .. code-block:: text

        m <- momentum * m + (1 - momentum) * g          (m.lerp_(g, 1 - momentum))
        u <- (1 - momentum) * g + momentum * m   if nesterov   else   m
        O <- NS(u)                                      (zeropower_via_newtonschulz, bfloat16)
        p <- p * (1 - lr * weight_decay)                (decoupled decay, the unadjusted lr)
        p <- p - adjusted_lr(lr, adjust_lr_fn, (A, B)) * O

    NS is ``ns_steps`` Newton-Schulz iterations with ``ns_coefficients`` (a, b, c) and ``eps``
    guarding the first normalisation. State per parameter: ``momentum_buffer``. A parameter that
    is not a matrix is refused (ValueError), as are sparse gradients (RuntimeError). A float16 or
    bfloat16 parameter takes each line in float32, rounded once to its dtype, as in PyTorch
    (whose bfloat16 path with nesterov=False also normalises ``m`` in place; not copied here).
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = NS_COEFFICIENTS,
        eps: float = EPS,
        ns_steps: int = NS_STEPS,
        adjust_lr_fn: str | None = None,
    ) -> None:
        # PyTorch's checks and words (the base class then checks the options are finite)
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ADJUST_LR_FNS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(
            lr=lr,
            weight_decay=weight_decay,
            momentum=momentum,
            nesterov=nesterov,
            ns_coefficients=ns_coefficients,
            eps=eps,
            ns_steps=ns_steps,
            adjust_lr_fn=adjust_lr_fn,
        )
        super().__init__(params, defaults)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group (see Optimizer); every parameter must be a matrix."""
        super().add_param_group(param_group)
        for p in self.param_groups[-1]["params"]:
            if p.ndim != 2:
                self.param_groups.pop()
                raise ValueError(
                    "Muon only supports 2D parameters whereas we found a parameter with size: "
                    f"{p.size()} (give biases, embeddings and other non-2D parameters to AdamW)"
                )

    def init_state(self, p: Tensor, group: dict[str, Any]) -> dict[str, Any]:
        xp = get_array_module(p._data)
        return {"momentum_buffer": Tensor._make(xp.zeros_like(p._data), False)}

    def update(self, param: Array, grad: Array, state: dict[str, Any], group: dict[str, Any]):
        """One Muon step of the arrays, in place (see the class docstring)."""
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        momentum, lr = group["momentum"], float(group["lr"])
        # float16/bfloat16: PyTorch computes each op in float32 and rounds its result once
        low = param.dtype.itemsize < 4
        wide = (lambda a: a.astype(np.float32)) if low else (lambda a: a)
        buf = state["momentum_buffer"]._data
        work = wide(buf)  # (buf itself when not low: updated in place)
        lerp_(work, wide(grad), 1 - momentum)
        if low:
            buf[...] = work.astype(buf.dtype)
        if group["nesterov"]:
            u = wide(grad) if low else grad.copy()  # (p.grad is never written)
            lerp_(u, wide(buf), momentum)
            u = u.astype(param.dtype) if low else u  # grad.lerp(buf, momentum): grad's dtype
        else:
            u = buf
        ortho = zeropower_via_newtonschulz(
            u, group["ns_coefficients"], group["ns_steps"], group["eps"]
        )
        step_lr = adjusted_lr(lr, group["adjust_lr_fn"], param.shape)
        if low:
            decayed = (wide(param) * np.float32(1 - lr * group["weight_decay"])).astype(param.dtype)
            param[...] = (wide(decayed) + np.float32(-step_lr) * ortho).astype(param.dtype)
        else:
            param *= 1 - lr * group["weight_decay"]
            param += (-step_lr) * ortho.astype(param.dtype)
