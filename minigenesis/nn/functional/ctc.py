"""``F.ctc_loss``: Connectionist Temporal Classification (Graves et al., 2006), the loss of
sequence models whose output is longer than its unaligned target (speech, handwriting).

The target l (length S) is extended with blanks, l' = (blank, l_1, blank, l_2, ..., l_S, blank)
(length 2S + 1). An alignment walks l' one step per time step: stay, move one, or skip a blank
between two different labels. The forward variables (in log space)

    alpha_0(0) = lp[0, blank],  alpha_0(1) = lp[0, l_1]
    alpha_t(s) = lp[t, l'_s] + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1),
                                          alpha_{t-1}(s-2) if allowed)

sum every alignment's probability, and the loss is -log p(l | x) = -logsumexp(alpha_{T-1}(2S),
alpha_{T-1}(2S - 1)). The recursion runs over time for the whole batch at once, made of
differentiable Tensor ops, so the gradient is autograd's: d loss / d log_probs exactly. (PyTorch's
own backward adds exp(log_probs), which cancels after the log_softmax that always comes before
CTC: gradients to the logits agree.) Impossible alignments (a target longer than the input allows)
give an infinite loss with a NaN gradient, as in PyTorch, or 0 (gradient 0) with ``zero_infinity``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autocast_policy import CPU_FLOAT32, autocast_function
from ...autograd.function import Op
from ...backend import get_array_module, quiet_fp
from ...functions import cat
from ...ops.same_dtype import check_floating
from .losses import reduction_mode

# log 0 as a finite number: logsumexp of "impossible" entries stays finite (no inf - inf in the
# gradient); a total below _IMPOSSIBLE is an infinite loss
_LOG_ZERO = -1e30
_IMPOSSIBLE = -1e29


def _lengths(x: Any, n: int, name: str) -> list[int]:
    """The n lengths as ints: a tensor (0-d for an unbatched input), a sequence or a number."""
    if isinstance(x, Tensor):
        values = x.reshape(-1).tolist()
    else:
        values = list(x) if isinstance(x, (list, tuple)) else np.asarray(x).reshape(-1).tolist()
    if len(values) != n:
        raise RuntimeError(f"ctc_loss: expected {n} {name}, got {len(values)}")
    lengths = [int(v) for v in values]
    if min(lengths, default=0) < 0:  # PyTorch's RuntimeError (NumPy failed on a negative size)
        raise RuntimeError(f"ctc_loss: Expected {name} to have value at least 0, got {lengths}")
    return lengths


def _check_targets(shape: tuple, n: int, tg_len: list[int]) -> None:
    """PyTorch's RuntimeErrors on the targets' shape: 1-d targets are the n targets
    concatenated (sum(target_lengths) labels), 2-d ones one padded row per sequence, each at
    least as long as the longest target."""
    if len(shape) == 1 and shape[0] != sum(tg_len):
        raise RuntimeError(
            f"ctc_loss: concatenated targets must hold sum(target_lengths) = {sum(tg_len)} "
            f"labels, got {shape[0]}"
        )
    if len(shape) == 2 and (shape[0] != n or shape[1] < max(tg_len, default=0)):
        raise RuntimeError(
            f"ctc_loss: padded targets must be ({n}, S) with S >= max(target_lengths) = "
            f"{max(tg_len, default=0)}, got {shape}"
        )
    if len(shape) not in (1, 2):
        raise RuntimeError(f"ctc_loss: targets must be 1-d or 2-d, got shape {shape}")


@autocast_function(CPU_FLOAT32)  # on PyTorch's CPU float32 list; CUDA's lists no ctc_loss
@quiet_fp
def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """-log p(target | log_probs) summed over alignments. log_probs (T, N, C) (or (T, C)),
    targets (N, S) padded or the N targets concatenated (1-d); ``reduction='mean'`` divides each
    loss by its target length, then averages over the batch."""
    check_floating("ctc_loss_cpu", log_probs)
    reduction = reduction_mode(None, None, reduction, "ctc_loss")
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.ndim != 3:
        raise RuntimeError(
            f"ctc_loss: log_probs must be (T, N, C) or (T, C), got {tuple(log_probs.shape)}"
        )
    t_max, n, c = lp.shape
    in_len = _lengths(input_lengths, n, "input_lengths")
    tg_len = _lengths(target_lengths, n, "target_lengths")
    xp = get_array_module(lp._data)
    tg = targets._data.astype(xp.int64)
    _check_targets(tuple(tg.shape), n, tg_len)
    if unbatched or tg.ndim == 1:  # concatenated targets -> padded rows
        starts = [sum(tg_len[:i]) for i in range(n)]
        rows = [tg.reshape(-1)[s : s + k] for s, k in zip(starts, tg_len)]
    else:
        rows = [tg[i, : tg_len[i]] for i in range(n)]
    if any(length > t_max for length in in_len) or not 0 <= blank < c:
        raise RuntimeError(f"ctc_loss: input_lengths must be <= {t_max} and blank in [0, {c})")
    s_max = 2 * max(tg_len, default=0) + 1
    ext = xp.full((n, s_max), blank, dtype=xp.int64)  # l' (blank-padded past each end)
    for i, row in enumerate(rows):
        ext[i, 1 : 2 * len(row) : 2] = row
    # the skip s-2 -> s is allowed onto a label different from the label two back
    skip = xp.zeros((n, s_max), dtype=bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    dt = lp._data.dtype
    neg = Tensor._make(xp.full((n, 1), _LOG_ZERO, dtype=dt), False)
    no_skip = Tensor._make(xp.where(skip, 0.0, _LOG_ZERO).astype(dt), False)
    index = Tensor._make(ext, False)
    start = xp.full((n, s_max), _LOG_ZERO, dtype=dt)
    start[:, : min(2, s_max)] = 0.0  # s_max is 1 when every target is empty
    alpha = Tensor._make(start, False) + lp[0].gather(1, index)
    for t in range(1, t_max):
        one = _shift(alpha, 1, neg)
        two = _shift(alpha, 2, neg) + no_skip
        new = _logsumexp3(alpha, one, two) + lp[t].gather(1, index)
        running = Tensor._make(xp.asarray([[t < k] for k in in_len]), False)
        alpha = new.where(running, alpha)  # a finished sequence keeps its last alpha
    ends = xp.asarray([[2 * k, max(2 * k - 1, 0)] for k in tg_len], dtype=xp.int64)
    last = alpha.gather(1, Tensor._make(ends, False))
    last = last.where(Tensor._make(xp.asarray([[True, k > 0] for k in tg_len]), False), _LOG_ZERO)
    loss = -_logsumexp2(last[:, 0], last[:, 1])
    impossible = Tensor._make(xp.asarray(loss._data > -_IMPOSSIBLE), False)
    if zero_infinity:
        loss = loss.where(~impossible, 0.0)  # (gradient 0 there)
    elif impossible._data.any():
        loss = loss.where(~impossible, _infinite_loss(lp, in_len, impossible._data))
    if reduction == "mean":
        lengths = Tensor._make(xp.asarray([max(k, 1) for k in tg_len], dtype=dt), False)
        return (loss / lengths).mean()
    if reduction == "sum":
        return loss.sum()
    return loss.squeeze(0) if unbatched else loss


class _InfiniteLoss(Op):
    """+inf, with a NaN gradient: the loss of an impossible alignment is infinite and its
    gradient undefined (PyTorch's, with zero_infinity=False, is NaN, so a training run notices)."""

    @staticmethod
    def forward(ctx, used):
        return get_array_module(used).full(used.shape, math.inf, dtype=used.dtype)

    @staticmethod
    def backward(ctx, grad):
        return grad * math.nan


def _infinite_loss(lp: Tensor, in_len: list[int], impossible: Any) -> Tensor:
    """+inf per sequence, with a NaN gradient on the time steps of the impossible sequences
    (those their input length covers) and 0 elsewhere."""
    xp = get_array_module(lp._data)
    steps = xp.arange(lp.shape[0])[:, None] < xp.asarray(in_len)[None, :]
    mask = Tensor._make((steps & impossible[None, :])[:, :, None], False)
    return _InfiniteLoss.apply(lp.where(mask, 0.0).sum((0, 2)))


def _shift(a: Tensor, k: int, fill: Tensor) -> Tensor:
    """a moved k places right along dim 1, the first k entries log 0."""
    return cat([fill.expand(a.shape[0], k), a[:, :-k]], dim=1)


def _logsumexp3(a: Tensor, b: Tensor, c: Tensor) -> Tensor:
    m = a.maximum(b).maximum(c).detach()
    return m + ((a - m).exp() + (b - m).exp() + (c - m).exp()).log()


def _logsumexp2(a: Tensor, b: Tensor) -> Tensor:
    m = a.maximum(b).detach()
    return m + ((a - m).exp() + (b - m).exp()).log()
