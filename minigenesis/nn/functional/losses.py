"""The losses (cross_entropy, nll_loss, mse_loss, l1_loss, binary cross entropy, smooth L1, Huber,
kl_div): short compositions of ops with stable forwards (their own ops: ops/loss.py), PyTorch's
reductions, and one float32 autocast unit each.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ... import dtypes as _dt
from ..._tensor import Tensor
from ...autocast_policy import CPU_FLOAT32, FLOAT32, autocast_function, cast_args, on_for
from ...autograd.grad_mode import state
from ...backend import get_array_module, quiet_fp
from ...conversions import as_array
from ...functions import where
from ...ops.anchor import anchor
from ...ops.indexing import check_index_dtype, check_index_range
from ...ops.loss import BinaryCrossEntropy, CrossEntropyIndices, LogSigmoid, PickClass
from ...ops.round_once import in_float32, same_two_byte_float
from ...ops.same_dtype import check_floating, check_same_dtype
from ...promotion import result_type
from ...size import broadcast_error

# A loss reduces its per-element values with reduction="none" (keep them), "mean" or "sum"
# (shared with the loss modules of nn/loss.py). Before ``reduction`` existed PyTorch spelled it
# with two flags, size_average and reduce; they still work and, when given, decide.
REDUCTIONS = ("none", "mean", "sum")


def reduction_mode(size_average, reduce, reduction: str, name: str) -> str:
    """PyTorch's legacy ``size_average``/``reduce`` flags (``reduce=False`` keeps the values, else
    ``size_average=False`` sums), else ``reduction`` checked (``name``: the loss, for the error)."""
    if size_average is not None or reduce is not None:
        if reduce is False:
            return "none"
        return "sum" if size_average is False else "mean"
    if reduction not in REDUCTIONS:
        raise ValueError(f"{name}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
    return reduction


# ----------------------------------------------------------------------------------------------
# Losses (their own ops: ops/loss.py)
# ----------------------------------------------------------------------------------------------
# Cross entropy, NLL, MSE, L1, binary cross entropy (on probabilities and on logits). Each loss is
# a short composition of ops whose forward is numerically stable:
#
# - cross_entropy = nll_loss(log_softmax(x)): log_softmax subtracts the row max before exp, so a
#   logit of 1000 gives a finite loss where softmax-then-log would give inf;
# - binary_cross_entropy_with_logits uses log sigmoid(x) = min(x, 0) - log(1 + e^-|x|), never
#   exp of a large positive number;
# - binary_cross_entropy clamps its logs at -100 (PyTorch's rule): x = 0 or 1 gives a finite loss.
#
# Composing from ops means every loss has second derivatives for free. Weights and masks are
# constants (no gradient flows to ``weight``, as in PyTorch). Under autocast each loss is one
# FLOAT32 policy unit: float16/bfloat16 inputs are promoted to float32 first, since a loss sums
# many terms, which 2-byte floats would round badly. The others are marked with the decorator
# ``autocast_function``; cross_entropy, the loss of every classifier, casts in its first line,
# so that with autocast off its call enters nothing of autocast.
#
# Reductions follow PyTorch exactly, including the weighted mean of nll_loss/cross_entropy:
# ``sum_i w[t_i] l_i / sum_i w[t_i]`` over the samples whose target is not ``ignore_index``.
def _reduce(loss, reduction: str):
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _tensor(x, like, name: str):
    """Targets given as arrays or lists become tensors on ``like``'s device."""
    Tensor = type(like)
    if x is None or isinstance(x, Tensor):
        return x
    try:
        return Tensor._make(as_array(x, None, like.device), False)
    except Exception as err:
        raise TypeError(f"{name}: expected a Tensor, got {type(x).__name__}") from err


def _same_shape(input, target, name: str, strict: bool) -> None:
    if tuple(input.shape) == tuple(target.shape):
        return
    msg = (
        f"{name}: target shape {tuple(target.shape)} differs from input shape {tuple(input.shape)}"
    )
    if strict:
        raise ValueError(msg + ": they must be the same")
    try:
        np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    except ValueError:  # PyTorch's broadcast error (RuntimeError); kl_div names target first
        pair = (target.shape, input.shape) if name == "kl_div" else (input.shape, target.shape)
        raise RuntimeError(f"{broadcast_error(*pair)} ({msg})") from None
    warnings.warn(msg + "; they are broadcast, which is likely not what you want", stacklevel=3)


def _class_weight(weight, c: int, like, name: str):
    """A loss's per-class ``weight`` (not None) as a tensor of shape (C,)."""
    if isinstance(weight, Tensor):  # one kernel over input and weight: one dtype (PyTorch)
        check_same_dtype(name, input=like, weight=weight)
    weight = _tensor(weight, like, name)
    if tuple(weight.shape) != (c,):  # RuntimeError, as PyTorch
        raise RuntimeError(
            f"{name}: weight must have shape ({c},), one entry per class, got {tuple(weight.shape)}"
        )
    return weight


def _check_class_target(input, target, name: str) -> None:
    """Class-index targets: integer dtype and shape (N, d1, ...) for an (N, C, d1, ...) input."""
    check_index_dtype(target, ("int64", "uint8"), name, "class-index targets")
    shape = tuple(input.shape)
    expected = shape[:1] + shape[2:]
    if tuple(target.shape) != expected:
        # PyTorch: ValueError for a batch size that differs, RuntimeError for the other dims
        batch_differs = target.ndim > 0 and target.shape[0] != shape[0]
        raise (ValueError if batch_differs else RuntimeError)(
            f"{name}: for an input of shape {tuple(input.shape)} (N, C, d1, ...) the target must "
            f"have shape {expected} (N, d1, ...), got {tuple(target.shape)}"
        )


@quiet_fp
def _weighted_mean(total, w_t):
    """total / sum_i w[t_i]. When every target is ignored that is 0/0: the value is NaN (as in
    PyTorch) but the gradient is 0, so the division uses 1 and a constant NaN is added instead."""
    xp = get_array_module(w_t._data)
    w_sum = w_t._data.sum()
    divisor = xp.where(w_sum > 0, w_sum, xp.ones((), dtype=w_sum.dtype))
    offset = xp.where(w_sum > 0, xp.zeros((), w_sum.dtype), xp.full((), xp.nan, w_sum.dtype))
    Tensor = type(total)
    return total / Tensor._make(divisor, False) + Tensor._make(offset, False)


@quiet_fp
def _nll(logp, target, weight, ignore_index: int, reduction: str, name: str):
    """nll_loss on a batched (N, C, d...) input: the shared core of nll_loss and cross_entropy.
    Returns (loss, per-sample weights w[t_i] (0 where ignored), valid mask)."""
    xp = get_array_module(logp._data)
    c = logp.shape[1]
    t = target._data
    valid = t != ignore_index
    safe = xp.where(valid, t, 0)
    check_index_range(safe, c, name, "target", f" or ignore_index={ignore_index}")
    dtype = logp._data.dtype
    if weight is None:
        w_t = valid.astype(dtype)
    else:
        w_t = weight._data.astype(dtype)[safe] * valid
    w_t = type(logp)._make(w_t, False)
    loss = -PickClass.apply(logp, safe, valid)
    if weight is not None:
        loss = loss * w_t
    if reduction == "none":
        return loss, w_t, valid
    total = loss.sum()
    return (_weighted_mean(total, w_t) if reduction == "mean" else total), w_t, valid


def _batched(input, target, name: str):
    """An unbatched (C,) input with a 0-d (or (1,)) target is treated as a batch of one."""
    if input.ndim == 0:
        raise ValueError(f"{name}: input must have a class dim, got a 0-d tensor")
    if not input.is_floating_point():  # PyTorch's log_softmax / nll kernels: floating only
        kernel = "nll_loss_out_frame" if name == "nll_loss" else "log_softmax_lastdim_kernel_impl"
        check_floating(kernel, input)
        raise TypeError(f"{name}: input must be floating point (logits), got {input.dtype.name}")
    if target.device != input.device:  # PyTorch's error, naming both devices
        raise RuntimeError(
            "Expected all tensors to be on the same device, but found at least two devices, "
            f"{input.device} and {target.device}! ({name}: input and target; move one of them, "
            "e.g. target.to(input.device))"
        )
    if input.ndim == 1:
        if target._data.dtype.kind in "iu" and target.ndim == 1 and target.shape[0] == 1:
            return input.unsqueeze(0), target, True  # PyTorch also takes a target of shape (1,)
        if target.ndim != 0 and target._data.dtype.kind in "iu":
            raise ValueError(
                f"{name}: for an unbatched input of shape {tuple(input.shape)} the class-index "
                f"target must be 0-d or of shape (1,), got shape {tuple(target.shape)}"
            )
        return input.unsqueeze(0), target.unsqueeze(0), True
    return input, target, False


@autocast_function(FLOAT32)
def nll_loss(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
):
    """l_i = -w[t_i] input[i, t_i] (input holds log-probabilities); 0 where t_i == ignore_index.
    mean = sum_i l_i / sum_i w[t_i] over the non-ignored samples."""
    reduction = reduction_mode(size_average, reduce, reduction, "nll_loss")
    if same_two_byte_float(input, weight):  # the weighted mean in float32, rounded once
        return in_float32(nll_loss, input, target, weight, None, ignore_index, None, reduction)
    target = _tensor(target, input, "nll_loss")
    x, t, unbatched = _batched(input, target, "nll_loss")
    _check_class_target(x, t, "nll_loss")
    if weight is not None:
        weight = _class_weight(weight, x.shape[1], x, "nll_loss")
    loss, _, _ = _nll(x, t, weight, ignore_index, reduction, "nll_loss")
    node = "NllLoss" if input.ndim <= 2 else "NllLoss2D"  # PyTorch's grad_fn name
    return anchor(loss.squeeze(0) if unbatched and reduction == "none" else loss, input, node=node)


def cross_entropy(
    input,
    target,
    weight=None,
    size_average=None,
    ignore_index: int = -100,
    reduce=None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
):
    """Cross entropy of logits ``input`` (N, C) against class indices ``target`` (N,):
    l_i = log sum_c e^(x[i, c]) - x[i, t_i] (0 where t_i == ignore_index), reduced by
    ``reduction`` ("mean": over the samples not ignored), one op (CrossEntropyIndices). All else
    PyTorch's takes (class weights, label smoothing, probabilities, (C,) or (N, C, d1, ...)
    inputs, the legacy flags, autocast) is checked and computed by ``_cross_entropy_in_full``."""
    usual = weight is None and not label_smoothing and size_average is None and reduce is None
    if not (usual and reduction in REDUCTIONS and _logits_and_indices(input, target)):
        return _cross_entropy_in_full(
            input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing
        )
    t, c = target._data, input._data.shape[1]
    if t.size and not 0 <= ignore_index < c and int(t.view("uint64").max()) < c:
        return CrossEntropyIndices.apply(input, t, None, reduction)  # every target a class
    return _cross_entropy_masked(input, t, ignore_index, reduction)


def _cross_entropy_masked(input, t, ignore_index: int, reduction: str):
    """cross_entropy's op where a target may be ignore_index (or out of range: refused)."""
    c = input._data.shape[1]
    valid = t != ignore_index
    safe = get_array_module(valid).where(valid, t, 0)  # (ignored: class 0, masked)
    if safe.size and int(safe.view("uint64").max()) >= c:  # >= C, or < 0 (huge unsigned)
        check_index_range(safe, c, "cross_entropy", "target", f" or ignore_index={ignore_index}")
    return CrossEntropyIndices.apply(input, safe, valid, reduction)


def _logits_and_indices(input, target) -> bool:
    """The usual arguments: NumPy arrays (on the CPU, no autocast) of floating logits (N, C) and
    int64 class indices (N,)."""
    x, t = input._data, getattr(target, "_data", None)
    if type(x) is not np.ndarray or type(t) is not np.ndarray or state.autocast_dtype is not None:
        return False
    return x.ndim == 2 and x.dtype.kind == "f" and t.dtype == np.int64 and t.shape == x.shape[:1]


def _cross_entropy_in_full(
    input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing
):
    """cross_entropy for every argument PyTorch's takes, each checked:

    Indices:  l_i = (1 - eps) nll_i + eps/C * s_i,  nll_i = -w[t_i] log p[i, t_i],
              s_i = -sum_c w[c] log p[i, c]  (0 where ignored);  mean divides both sums by
              sum_i w[t_i] (by the count of non-ignored samples when there is no weight).
    Probabilities:  q = (1 - eps) target + eps/C,  l_i = -sum_c w[c] q[i, c] log p[i, c];
              mean divides by the number of samples N*d1*... (not by the weights).
    log p = log_softmax(input, dim=1), computed stably."""
    if state.autocast_dtype is not None:  # autocast: the loss is one float32 unit (see above)
        input, target, weight = cast_args(FLOAT32, (input, target, weight))
    name = "cross_entropy"
    reduction = reduction_mode(size_average, reduce, reduction, name)
    if label_smoothing > 1.0:
        raise RuntimeError(  # PyTorch's type
            f"{name}: label_smoothing must be between 0.0 and 1.0, got {label_smoothing}"
        )
    if not label_smoothing > 0.0:  # PyTorch smooths only for a positive amount: a negative
        label_smoothing = 0.0  # one (or NaN) is no smoothing, not an error
    target = _tensor(target, input, name)
    x, t, unbatched = _batched(input, target, name)
    shape = tuple(x.shape)
    c = shape[1]
    if weight is not None:
        weight = _class_weight(weight, c, x, name)
    index_shape = shape[:1] + shape[2:]  # (N, d1, ...)
    probabilities = t.is_floating_point() and tuple(t.shape) != index_shape
    if not probabilities and weight is None and label_smoothing == 0:  # the common case
        _check_class_target(x, t, name)
        valid = t._data != ignore_index
        safe = get_array_module(valid).where(valid, t._data, 0)
        check_index_range(safe, c, name, "target", f" or ignore_index={ignore_index}")
        loss = CrossEntropyIndices.apply(x, safe, valid, reduction)
        return loss.squeeze(0) if unbatched and reduction == "none" else loss
    logp = x.log_softmax(dim=1)
    w_b = None if weight is None else weight.reshape((1, c) + (1,) * (x.ndim - 2))
    if w_b is not None and w_b._data.dtype != logp._data.dtype:
        w_b = w_b._cast(logp._data.dtype)

    if probabilities:
        if ignore_index >= 0:  # PyTorch's check: no class to ignore among probabilities
            raise RuntimeError("ignore_index is not supported for floating point target")
        if tuple(t.shape) != tuple(x.shape):
            # PyTorch: ValueError for a batch size that differs, RuntimeError otherwise
            batch_differs = t.ndim > 0 and x.ndim > 0 and t.shape[0] != x.shape[0]
            raise (ValueError if batch_differs else RuntimeError)(
                f"{name}: class-probability targets must have the input's shape "
                f"{tuple(input.shape)}, got {tuple(target.shape)}"
            )
        q = t if t._data.dtype == logp._data.dtype else t._cast(logp._data.dtype)
        if label_smoothing > 0:
            q = q * (1 - label_smoothing) + label_smoothing / c
        terms = logp * q if w_b is None else logp * q * w_b
        loss = -terms.sum(dim=1)
        loss = _reduce(loss, reduction)
        return loss.squeeze(0) if unbatched and reduction == "none" else loss

    _check_class_target(x, t, name)
    nll, w_t, valid = _nll(logp, t, weight, ignore_index, reduction, name)
    if label_smoothing > 0:
        smooth = -(logp if w_b is None else logp * w_b).sum(dim=1)
        smooth = smooth.masked_fill(~valid, 0.0)
        if reduction != "none":
            smooth = smooth.sum()
        if reduction == "mean":  # w_t is the valid mask when there is no weight
            smooth = _weighted_mean(smooth, w_t)
        nll = (1 - label_smoothing) * nll + (label_smoothing / c) * smooth
    return nll.squeeze(0) if unbatched and reduction == "none" else nll


@autocast_function(FLOAT32)
def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """l_i = (x_i - y_i)^2;   dl/dx = 2 (x - y). With ``weight``: w_i l_i, and the mean is
    the weighted one, sum(w l) / sum(w)."""
    reduction = reduction_mode(size_average, reduce, reduction, "mse_loss")
    check_floating("mse_cpu", input, target)
    target = _tensor(target, input, "mse_loss")
    _same_shape(input, target, "mse_loss", strict=False)
    diff = input - target
    return _weighted_reduce(diff * diff, weight, input, reduction)


@autocast_function(FLOAT32)
def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", weight=None):
    """l_i = |x_i - y_i|;   dl/dx = sign(x - y) (0 at x == y, as PyTorch). With ``weight``:
    w_i l_i, and the mean is the weighted one, sum(w l) / sum(w)."""
    reduction = reduction_mode(size_average, reduce, reduction, "l1_loss")
    target = _tensor(target, input, "l1_loss")
    _same_shape(input, target, "l1_loss", strict=False)
    return _weighted_reduce((input - target).abs(), weight, input, reduction)


def _weighted_reduce(loss: Tensor, weight, input: Tensor, reduction: str) -> Tensor:
    """mse_loss's and l1_loss's ``weight`` (one per element of the input): the losses scaled by
    it, their mean divided by the weights' sum (PyTorch's rule for these two; huber_loss's
    weighted mean divides by the count)."""
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    loss = loss * weight
    return loss.sum() / weight.sum() if reduction == "mean" else _reduce(loss, reduction)


@quiet_fp
def _all_in_unit_interval(a) -> bool:
    """Every entry in [0, 1] (False for NaN): PyTorch's check of probabilities."""
    return not a.size or bool(((a >= 0) & (a <= 1)).all())


@autocast_function(CPU_FLOAT32)  # CPU's float32 list (PyTorch's CUDA autocast refuses it)
def binary_cross_entropy(
    input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"
):
    """l_i = -w_i (y_i log x_i + (1 - y_i) log(1 - x_i)), x a probability in [0, 1]; each log
    is clamped at -100 so x = 0 or 1 stays finite (PyTorch's rule)."""
    name = "binary_cross_entropy"
    if isinstance(input, Tensor) and on_for(input, "cuda"):  # PyTorch's CUDA autocast refuses
        raise RuntimeError(
            "minigenesis.nn.functional.binary_cross_entropy and minigenesis.nn.BCELoss are unsafe "
            "to autocast on CUDA: in float16, log x of a probability near 0 or 1 loses its "
            "digits. Combine the sigmoid and the loss with binary_cross_entropy_with_logits "
            "(nn.BCEWithLogitsLoss), which is safe to autocast."
        )
    reduction = reduction_mode(size_average, reduce, reduction, name)
    check_floating(name, input)
    if same_two_byte_float(input, target, weight):  # PyTorch's kernel: float32, rounded once
        return in_float32(binary_cross_entropy, input, target, weight, None, None, reduction)
    if isinstance(target, Tensor):  # one kernel over input and target: one dtype (PyTorch)
        check_same_dtype(name, input=input, target=target)
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=True)
    x = input._data
    if not _all_in_unit_interval(x):
        raise RuntimeError(
            f"{name}: all elements of input should be between 0 and 1 (probabilities; for "
            f"logits use binary_cross_entropy_with_logits)"
        )
    if not _all_in_unit_interval(target._data):
        raise RuntimeError(f"{name}: all elements of target should be between 0 and 1")
    if target._data.dtype != x.dtype:
        target = target._cast(x.dtype)
    loss = BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        loss = loss * _tensor(weight, input, name)
    return _reduce(loss, reduction)


@autocast_function(FLOAT32)
def binary_cross_entropy_with_logits(
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
    pos_weight=None,
):
    """l_i = -w_i (p y_i log sigmoid(x_i) + (1 - y_i) log(1 - sigmoid(x_i))), p = pos_weight
        = w_i ((1 - y_i) x_i - (1 + (p - 1) y_i) log sigmoid(x_i))
    (using log(1 - sigmoid(x)) = log sigmoid(x) - x), with the stable log sigmoid."""
    name = "binary_cross_entropy_with_logits"
    reduction = reduction_mode(size_average, reduce, reduction, name)
    check_floating("log_sigmoid_cpu", input)
    if same_two_byte_float(input, target, weight, pos_weight):  # in float32, rounded once
        args = (input, target, weight, None, None, reduction, pos_weight)
        return in_float32(binary_cross_entropy_with_logits, *args)
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=True)
    # PyTorch builds the loss in a buffer of the target's dtype ((1 - target).mul_(input)...): a
    # floating target decides the result's dtype (float16 logits, float32 target: float32)
    out_dtype = input._data.dtype
    if target._data.dtype != input._data.dtype:
        if target._data.dtype.kind in "fV":
            out_dtype = target._data.dtype
            both = _dt.promote_types(input.dtype, target.dtype).numpy_dtype
            input, target = input._cast(both), target._cast(both)
        else:
            target = target._cast(input._data.dtype)
    log_sig = LogSigmoid.apply(input)
    if pos_weight is None:
        loss = (1 - target) * input - log_sig
    else:
        pos_weight = _tensor(pos_weight, input, name)
        loss = (1 - target) * input - ((pos_weight - 1) * target + 1) * log_sig
    if weight is not None:
        loss = loss * _tensor(weight, input, name)
    return _reduce(loss._cast(out_dtype), reduction)


@autocast_function(FLOAT32)
def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """l_i = 0.5 d_i^2 / beta where |d_i| < beta, else |d_i| - 0.5 beta  (d = x - y; beta = 0
    is the L1 loss)."""
    name = "smooth_l1_loss"
    reduction = reduction_mode(size_average, reduce, reduction, name)
    if beta < 0:
        raise RuntimeError(f"{name} does not support negative values for beta, got {beta}")
    check_floating("smooth_l1_cpu", input, target)
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=False)
    if beta == 0.0:
        return _reduce((input - target).abs(), reduction)
    dtype = result_type(input, target).numpy_dtype  # (float32 and float64 give float64)
    input, target = input._cast(dtype), target._cast(dtype)

    def elementwise(x: Tensor) -> Tensor:  # (2-byte floats in float32, rounded once)
        d = x - target._cast(x._data.dtype)
        a = d.abs()
        return where(a < beta, d * d * (0.5 / beta), a - 0.5 * beta)

    return _reduce(in_float32(elementwise, input), reduction)


@autocast_function(FLOAT32)
def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """l_i = w_i (0.5 d_i^2 where |d_i| <= delta, else delta (|d_i| - 0.5 delta)) (d = x - y):
    smooth_l1_loss scaled by delta (beta = delta); mean = sum(l) / numel."""
    name = "huber_loss"
    reduction = reduction_mode(None, None, reduction, name)
    if delta <= 0:
        raise RuntimeError(f"{name} does not support non-positive values for delta, got {delta}")
    check_floating("huber_cpu", input, target)
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=False)

    def elementwise(x: Tensor) -> Tensor:  # (2-byte floats in float32, rounded once)
        d = x - target._cast(x._data.dtype)
        a = d.abs()
        return where(a <= delta, d * d * 0.5, (a - 0.5 * delta) * delta)

    loss = in_float32(elementwise, input)
    if weight is not None:
        if tuple(weight.shape) != tuple(input.shape):
            raise ValueError("Weights and input must have the same size.")
        loss = loss * weight
    return _reduce(loss, reduction)


@autocast_function(FLOAT32)
def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """KL(target || model) with ``input`` = log q:  l_i = p_i (log p_i - log q_i), 0 where
    p_i = 0 (``log_target=True``: target holds log p). 'batchmean' divides the sum by the batch
    size (dim 0): the true KL divergence per sample; 'mean' divides by every element."""
    name = "kl_div"
    if size_average is not None or reduce is not None:
        reduction = reduction_mode(size_average, reduce, reduction, name)
    elif reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(
            f"{name}: {reduction} is not a valid value for reduction (use 'none', 'mean', 'sum' "
            f"or 'batchmean')"
        )
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size. 'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.",
            stacklevel=2,
        )
    for t in (input, target):  # PyTorch refuses an integer or bool input or target
        if isinstance(t, Tensor) and t._data.dtype.kind not in "fcV":
            raise RuntimeError(f"{name}: Integral inputs not supported.")
    target = _tensor(target, input, name)
    _same_shape(input, target, name, strict=False)
    if same_two_byte_float(input, target):  # (x)logy and the sum in float32, rounded once
        return in_float32(_kl_div, input, target, reduction, log_target)
    return _kl_div(input, target, reduction, log_target)


def _kl_div(input: Tensor, target: Tensor, reduction: str, log_target: bool) -> Tensor:
    """kl_div's loss on checked arguments."""
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy(p, p) - p log q, as PyTorch: 0 where p = 0, NaN where p < 0 (no log of it)
        loss = target.xlogy(target) - target * input
    if reduction == "batchmean":
        batch = input.shape[0] if input.ndim else 1
        return loss.sum() / batch
    return _reduce(loss, reduction)
