"""The margin losses: scores pushed past a margin rather than fitted to a target.

With [z]+ = max(0, z), per sample (the reduction then averages or sums over samples):

    soft_margin_loss            log(1 + exp(-y x))                       mean over elements
    multilabel_soft_margin_loss -mean_c [y_c log s(x_c) + (1 - y_c) log s(-x_c)]   (s: sigmoid)
    multi_margin_loss           sum_{i != y} w_y [margin - x_y + x_i]+^p / C
    multilabel_margin_loss      sum_{j in targets} sum_{i not in targets} [1 - (x_j - x_i)]+ / C
    hinge_embedding_loss        x where y = 1,   [margin - x]+ where y = -1
    margin_ranking_loss         [-y (x1 - x2) + margin]+
    cosine_embedding_loss       1 - cos(x1, x2) where y = 1,   [cos(x1, x2) - margin]+ where y = -1
    triplet_margin_loss         [d(a, p) - d(a, n) + margin]+      (d: p-norm distance)

Each is composed of differentiable Tensor ops, so its gradient (and second derivative) follows.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..._tensor import Tensor
from ...autocast_policy import FLOAT32, autocast_function
from ...backend import get_array_module, to_numpy
from ...ops.round_once import in_float32, same_two_byte_float
from ...ops.same_dtype import SCALAR_NAMES, check_floating
from ...size import broadcast_error
from .losses import reduction_mode


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def _relu(z: Tensor) -> Tensor:
    return z.clamp(min=0)


@autocast_function(FLOAT32)
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):  # noqa: A002
    """log(1 + exp(-y x)) per element (y = +-1), computed as softplus(-y x)."""
    reduction = reduction_mode(size_average, reduce, reduction, "soft_margin_loss")
    if isinstance(input, Tensor) and input._data.dtype.kind not in "fcV":
        # PyTorch computes exp/log1p into an output of the input's dtype: refused for integers
        what = "Negation, the `-` operator, on a bool tensor is not supported."
        if input._data.dtype.kind != "b":
            what = f"result type Float can't be cast to the desired output type {input.dtype}"
        raise RuntimeError(f"soft_margin_loss: {what}")
    try:
        shape = np.broadcast_shapes(tuple(input.shape), tuple(target.shape))
    except ValueError:  # PyTorch's broadcast error (RuntimeError), not NumPy's ValueError
        raise broadcast_error(input.shape, target.shape) from None
    if shape != tuple(input.shape):
        # PyTorch writes the loss into an input-shaped output: a larger target is refused
        raise RuntimeError(
            f"soft_margin_loss: target of shape {tuple(target.shape)} does not broadcast to the "
            f"input's shape {tuple(input.shape)}"
        )
    if isinstance(target, Tensor):  # PyTorch computes in the input's dtype (a bool target too)
        target = target._cast(input._data.dtype)
    z = -target * input
    return _reduce(z.clamp(min=0) + (-z.abs()).exp().log1p(), reduction)


def multilabel_soft_margin_loss(  # on neither autocast list: its ops' rules apply
    input,
    target,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",  # noqa: A002
):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times ``weight`` per class, averaged over
    the classes (the input's last dim, as PyTorch; after broadcasting with a target of more dims
    that is not the last dim of the loss): one value per sample."""
    check_floating("log_sigmoid_cpu", input)
    reduction = reduction_mode(size_average, reduce, reduction, "multilabel_soft_margin_loss")
    log_p, log_not_p = _log_sigmoid(input), _log_sigmoid(-input)
    loss = -(target * log_p + (1 - target) * log_not_p)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss.sum(dim=input.ndim - 1) / input.shape[-1], reduction)


def _log_sigmoid(x: Tensor) -> Tensor:
    """log sigmoid(x) = -softplus(-x), without overflow: min(x, 0) - log(1 + exp(-|x|))."""
    return x.clamp(max=0) - (-x.abs()).exp().log1p()


@autocast_function(FLOAT32)
def multi_margin_loss(
    input,  # noqa: A002
    target,
    p: int = 1,
    margin: float = 1.0,
    weight=None,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
):
    """sum over the wrong classes i of w[y] [margin - x[y] + x[i]]+^p, divided by C: the
    multi-class hinge loss. input (N, C) or (C,), target (N,) or 0-d class indices."""
    check_floating("multi_margin_loss_cpu_kernel", input)
    reduction = reduction_mode(size_average, reduce, reduction, "multi_margin_loss")
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input.reshape(1, -1) if input.ndim <= 1 else input
    y = target.reshape(-1)
    if x.ndim != 2 or target.ndim > 1 or y.shape[0] != x.shape[0]:
        raise RuntimeError(
            f"multi_margin_loss: expected input (N, C) or (C,) and target (N,) or 0-d, got "
            f"{tuple(input.shape)} and {tuple(target.shape)}"
        )
    c = x.shape[1]
    xp = get_array_module(x._data)
    if bool(((y._data < 0) | (y._data >= c)).any()):
        raise RuntimeError(f"multi_margin_loss: target out of range [0, {c})")  # as PyTorch
    picked = x.gather(1, y.unsqueeze(1))  # x[y], (N, 1)
    terms = _relu(margin - picked + x)
    if p == 2:
        terms = terms * terms
    if weight is not None:
        if weight.ndim != 1:  # (PyTorch's ValueError)
            raise ValueError("multi_margin_loss: weight must be one-dimensional")
        if weight.numel() != c:  # (a gather would read a wrong-sized weight)
            raise RuntimeError(
                f"multi_margin_loss: inconsistent weight size, expected {c} but got "
                f"{list(weight.shape)}"
            )
        terms = terms * weight.gather(0, y.reshape(-1)).unsqueeze(1)
    wrong = Tensor._make(xp.arange(c)[None, :] != y._data[:, None])  # the true class adds 0
    loss = (terms * wrong).sum(dim=1) / c
    # reduction='none': one loss per target entry, shaped as the target (PyTorch's rule: a 0-d
    # target gives a 0-d loss, a (1,) target with a (C,) input a (1,) one)
    return _reduce(loss.reshape(target.shape), reduction)


@autocast_function(FLOAT32)
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):  # noqa: A002
    """sum over target classes j and non-target classes i of [1 - (x[j] - x[i])]+, divided by C.
    ``target`` holds class indices, read up to the first -1 (PyTorch's layout); j runs over
    that list, so a class listed twice counts twice."""
    check_floating("multilabel_margin_loss_forward_out_frame", input)
    reduction = reduction_mode(size_average, reduce, reduction, "multilabel_margin_loss")
    if tuple(target.shape) != tuple(input.shape) or input.ndim not in (1, 2):
        raise RuntimeError(
            f"multilabel_margin_loss: inconsistent target size: {tuple(target.shape)} for input "
            f"of size: {tuple(input.shape)} (both (C,) or (N, C))"
        )
    x = input.unsqueeze(0) if input.ndim == 1 else input
    y = target.unsqueeze(0) if target.ndim == 1 else target
    xp = get_array_module(x._data)
    n, c = x.shape
    idx = y._data.astype(xp.int64)
    # every entry in [-1, C), after the first -1 too, as PyTorch checks: idx + 1 read as unsigned
    # (-2 and below turn huge), one max read back (a GPU would otherwise compare past C silently)
    if idx.size and int(to_numpy((idx + 1).view("uint64").max())) > c:
        raise RuntimeError("argument #2 'target' is out of range")
    valid = xp.cumprod(idx >= 0, axis=1).astype(bool)  # up to the first -1
    # a class listed twice counts twice as j (PyTorch sums over the list's entries)
    listed = (idx[:, :, None] == xp.arange(c)) & valid[:, :, None]  # (N, list entry, class)
    count = listed.sum(1).astype(x._data.dtype)
    # pairs (j target, i not target): [1 - x_j + x_i]+, as an (N, C, C) grid masked to the pairs
    pairs = _relu(1 - x.unsqueeze(2) + x.unsqueeze(1))
    mask = Tensor._make(count[:, :, None] * (count == 0)[:, None, :])
    loss = (pairs * mask).sum(dim=(1, 2)) / c
    return _reduce(loss if input.ndim == 2 else loss.squeeze(0), reduction)


@autocast_function(FLOAT32)
def hinge_embedding_loss(
    input,
    target,
    margin: float = 1.0,
    size_average=None,
    reduce=None,
    reduction="mean",  # noqa: A002
):
    """x where y = 1, [margin - x]+ where y = -1 (PyTorch adds both where y is neither)."""
    reduction = reduction_mode(size_average, reduce, reduction, "hinge_embedding_loss")
    zero = input * 0
    below = _relu(margin - input).where(target != 1, zero)
    own = input.where(target != -1, zero)
    loss = below + own
    dtype = input._data.dtype
    if dtype.kind in "iu":  # PyTorch keeps an integer input's dtype (margin - x is truncated)
        if reduction == "mean":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {SCALAR_NAMES.get(dtype.name, dtype.name)}"
            )
        loss = loss._cast(dtype)
    return _reduce(loss, reduction)


@autocast_function(FLOAT32)
def margin_ranking_loss(
    input1, input2, target, margin: float = 0.0, size_average=None, reduce=None, reduction="mean"
):
    """[-y (x1 - x2) + margin]+: x1 should rank above x2 by the margin where y = 1, below where
    y = -1."""
    reduction = reduction_mode(size_average, reduce, reduction, "margin_ranking_loss")
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {tuple(input1.shape)}, input2: {tuple(input2.shape)}, "
            f"target: {tuple(target.shape)} "
        )
    return _reduce(_relu(-target * (input1 - input2) + margin), reduction)


@autocast_function(FLOAT32)
def cosine_embedding_loss(
    input1, input2, target, margin: float = 0.0, size_average=None, reduce=None, reduction="mean"
):
    """1 - cos(x1, x2) where y = 1, [cos(x1, x2) - margin]+ where y = -1; cos along dim 1 (or
    the only dim), with PyTorch's 1e-12 added to each squared norm."""
    reduction = reduction_mode(size_average, reduce, reduction, "cosine_embedding_loss")
    if target.ndim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input1.ndim != target.ndim + 1 or input2.ndim != target.ndim + 1:
        # PyTorch's rule: (N, D) inputs with an (N,) target, or (D,) inputs with a 0-d one
        raise RuntimeError(
            f"{target.ndim}D target tensor expects {target.ndim + 1}D input tensors, but found "
            f"inputs with sizes {tuple(input1.shape)} and {tuple(input2.shape)}."
        )
    dim = input1.ndim - 1
    dot = (input1 * input2).sum(dim=dim)
    norms = ((input1 * input1).sum(dim=dim) + 1e-12) * ((input2 * input2).sum(dim=dim) + 1e-12)
    cos = dot / norms.sqrt()
    zero = cos * 0
    loss = (1 - cos).where(target == 1, zero) + _relu(cos - margin).where(target == -1, zero)
    return _reduce(loss, reduction)


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6) -> Tensor:
    """||x1 - x2 + eps||_p along the last dim (PyTorch's pairwise_distance)."""
    return (x1 - x2 + eps).norm(p=p, dim=-1)


@autocast_function(FLOAT32)
def triplet_margin_loss(
    anchor,
    positive,
    negative,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average=None,
    reduce=None,
    reduction: str = "mean",
):
    """[d(a, p) - d(a, n) + margin]+ with d the p-norm distance (+ eps); ``swap`` uses
    min(d(a, n), d(p, n)) for the negative distance."""
    reduction = reduction_mode(size_average, reduce, reduction, "triplet_margin_loss")

    def distance(x1, x2):
        return _pairwise_distance(x1, x2, p, eps)

    return _triplet(anchor, positive, negative, distance, margin, swap, reduction)


def triplet_margin_with_distance_loss(
    anchor,
    positive,
    negative,
    *,
    distance_function: Callable | None = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
):
    """[d(a, p) - d(a, n) + margin]+ with any ``distance_function`` (default: the Euclidean
    pairwise distance); ``margin`` must be positive."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    distance = distance_function or _pairwise_distance
    args = (anchor, positive, negative, distance, margin, swap, reduction)
    if distance_function is None and same_two_byte_float(anchor, positive, negative):
        return in_float32(_triplet, *args)  # the default distance in float32, rounded once
    return _triplet(*args)


def _triplet(anchor, positive, negative, distance, margin: float, swap: bool, reduction: str):
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
            f"{negative.ndim}D inputs"
        )
    d_pos, d_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(distance(positive, negative))
    return _reduce(_relu(margin + d_pos - d_neg), reduction)
