"""``torch.conv2d``, ``torch.dropout``, ``torch.batch_norm``, ``torch.kl_div`` ...: the
``torch.nn.functional`` operations PyTorch also exposes at top level, with aten's signatures.
They differ from the ``F.*`` forms in argument order and spelling (``torch.dropout(x, p, train)``
takes ``train`` positionally, ``torch.batch_norm`` takes weight and bias before the running
statistics, ``torch.embedding`` takes the weight first, the losses take ``reduction`` as an int:
0 = 'none', 1 = 'mean', 2 = 'sum'); each calls its ``F.*`` function."""

from __future__ import annotations

import warnings
from typing import Any

from ..nn import functional as F

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "convolution", "constant_pad_nd", "max_pool1d", "max_pool2d", "max_pool3d",
    "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
    "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
    "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "embedding",
    "layer_norm", "group_norm", "batch_norm", "instance_norm", "rms_norm", "pixel_shuffle",
    "pixel_unshuffle", "channel_shuffle", "cosine_similarity", "pairwise_distance", "pdist",
    "bilinear", "kl_div", "ctc_loss", "binary_cross_entropy_with_logits",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "triplet_margin_loss", "poisson_nll_loss", "selu", "selu_", "celu", "celu_", "rrelu",
    "rrelu_", "threshold", "threshold_", "prelu", "hardshrink",
]  # fmt: skip

# Same arguments, same order as F's
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d = F.conv_transpose1d, F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
pixel_shuffle, pixel_unshuffle, channel_shuffle = (
    F.pixel_shuffle,
    F.pixel_unshuffle,
    F.channel_shuffle,
)
cosine_similarity, pairwise_distance, pdist = F.cosine_similarity, F.pairwise_distance, F.pdist
bilinear, prelu, hardshrink = F.bilinear, F.prelu, F.hardshrink
adaptive_avg_pool1d, rms_norm = F.adaptive_avg_pool1d, F.rms_norm
threshold, threshold_, celu_ = F.threshold, F.threshold_, F.celu_

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


# aten's schemas default ``reduction`` to 1 ('mean'), but PyTorch's Python binding of these
# top-level losses reads that default as 0: ``torch.kl_div(x, t)`` is elementwise ('none'),
# as are torch.ctc_loss, binary_cross_entropy_with_logits and the embedding, ranking and triplet
# losses called without a reduction. These forms take PyTorch's Python default.
_PYTHON_DEFAULT = 0


def _reduction(reduction: Any) -> str:
    """aten's reduction enum (an int) -> F's string."""
    if isinstance(reduction, bool) or reduction not in _REDUCTIONS:
        raise TypeError(
            f"reduction must be an int: 0 ('none'), 1 ('mean') or 2 ('sum'), got {reduction!r}"
        )
    return _REDUCTIONS[reduction]


def convolution(
    input: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any,  # noqa: A002
    transposed: bool, output_padding: Any, groups: int,
) -> Any:  # fmt: skip
    """The convolution every conv*d calls: dims from the weight, transposed or not."""
    d = weight.ndim - 2
    if d not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a 3-, 4- or 5-D weight, got {weight.ndim}-D")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[d - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[d - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def constant_pad_nd(input: Any, pad: Any, value: float = 0) -> Any:  # noqa: A002
    """``F.pad(input, pad, 'constant', value)``."""
    return F.pad(input, tuple(pad), "constant", value)


def _pool(fn: Any) -> Any:
    def pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):  # noqa: A002
        return fn(input, kernel_size, stride or None, padding, dilation, ceil_mode)

    pool.__name__ = pool.__qualname__ = fn.__name__
    pool.__doc__ = f"``F.{fn.__name__}`` without indices (aten's stride=[] is the kernel size)."
    return pool


max_pool1d, max_pool2d, max_pool3d = _pool(F.max_pool1d), _pool(F.max_pool2d), _pool(F.max_pool3d)


def max_pool1d_with_indices(
    input: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, dilation: Any = 1,  # noqa: A002
    ceil_mode: bool = False,
) -> tuple:  # fmt: skip
    """(values, indices) of a 1-D max pooling."""
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode, True)


def avg_pool1d(
    input: Any, kernel_size: Any, stride: Any = (), padding: Any = 0, ceil_mode: bool = False,  # noqa: A002
    count_include_pad: bool = True,
) -> Any:  # fmt: skip
    """``F.avg_pool1d``."""
    return F.avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode, count_include_pad)


def adaptive_max_pool1d(input: Any, output_size: Any) -> tuple:  # noqa: A002
    """(values, indices): aten's form always returns both."""
    return F.adaptive_max_pool1d(input, output_size, True)


def _check_p(p: float) -> None:
    """aten's dropouts refuse p outside [0, 1] with RuntimeError (F.dropout's check is a
    ValueError, so the aten forms check first)."""
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Any, p: float, train: bool) -> Any:  # noqa: A002
    """``F.dropout(input, p, training=train)``."""
    _check_p(p)
    return F.dropout(input, p, train)


def dropout_(input: Any, p: float, train: bool) -> Any:  # noqa: A002
    """In-place dropout."""
    _check_p(p)
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input: Any, p: float, train: bool) -> Any:  # noqa: A002
    """``F.alpha_dropout(input, p, training=train)``."""
    _check_p(p)
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input: Any, p: float, train: bool) -> Any:  # noqa: A002
    """In-place alpha dropout."""
    _check_p(p)
    return F.alpha_dropout(input, p, train, inplace=True)


def _feature(input: Any) -> Any:  # noqa: A002
    """The F function that drops whole channels of an (N, C, *) input."""
    table = {2: F.dropout, 3: F.dropout1d, 4: F.dropout2d, 5: F.dropout3d}
    if input.ndim not in table:
        raise RuntimeError(f"feature_dropout: expected a 2- to 5-D input, got {input.ndim}-D")
    return table[input.ndim]


def feature_dropout(input: Any, p: float, train: bool) -> Any:  # noqa: A002
    """Zero whole channels (the (N, C) slices) with probability p, scale the rest by 1/(1-p)."""
    _check_p(p)
    return _feature(input)(input, p, train)


def feature_dropout_(input: Any, p: float, train: bool) -> Any:  # noqa: A002
    """In-place feature dropout."""
    _check_p(p)
    return _feature(input)(input, p, train, inplace=True)


def feature_alpha_dropout(input: Any, p: float, train: bool) -> Any:  # noqa: A002
    """``F.feature_alpha_dropout(input, p, training=train)``."""
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Any, p: float, train: bool) -> Any:  # noqa: A002
    """In-place feature alpha dropout."""
    _check_p(p)
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def embedding(
    weight: Any, indices: Any, padding_idx: int = -1, scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Any:  # fmt: skip
    """Rows of ``weight`` (aten's order: weight first; padding_idx -1 means none)."""
    pad = None if padding_idx is None or padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, pad, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def layer_norm(
    input: Any, normalized_shape: Any, weight: Any = None, bias: Any = None, eps: float = 1e-5,  # noqa: A002
    cudnn_enable: bool = True,
) -> Any:  # fmt: skip
    """``F.layer_norm`` (cudnn_enable has no effect here)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(
    input: Any, num_groups: int, weight: Any = None, bias: Any = None, eps: float = 1e-5,  # noqa: A002
    cudnn_enabled: bool = True,
) -> Any:  # fmt: skip
    """``F.group_norm``."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(
    input: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any, training: bool,  # noqa: A002
    momentum: float, eps: float, cudnn_enabled: bool,
) -> Any:  # fmt: skip
    """``F.batch_norm`` with aten's order (weight and bias first)."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(
    input: Any, weight: Any, bias: Any, running_mean: Any, running_var: Any,  # noqa: A002
    use_input_stats: bool, momentum: float, eps: float, cudnn_enabled: bool,
) -> Any:  # fmt: skip
    """``F.instance_norm`` with aten's order."""
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def kl_div(
    input: Any,
    target: Any,
    reduction: int = _PYTHON_DEFAULT,
    *,
    log_target: bool = False,  # noqa: A002
) -> Any:
    """``F.kl_div`` (reduction 1 = 'mean' is the element mean; aten gives no warning about
    'batchmean', which F.kl_div's own argument parser does)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="reduction: 'mean' divides", category=UserWarning)
        return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def ctc_loss(
    log_probs: Any, targets: Any, input_lengths: Any, target_lengths: Any, blank: int = 0,
    reduction: int = _PYTHON_DEFAULT, zero_infinity: bool = False,
) -> Any:  # fmt: skip
    """``F.ctc_loss``."""
    return F.ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
        zero_infinity,
    )  # fmt: skip


def binary_cross_entropy_with_logits(
    input: Any, target: Any, weight: Any = None, pos_weight: Any = None,  # noqa: A002
    reduction: int = _PYTHON_DEFAULT,
) -> Any:  # fmt: skip
    """``F.binary_cross_entropy_with_logits``."""
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def cosine_embedding_loss(
    input1: Any, input2: Any, target: Any, margin: float = 0.0, reduction: int = _PYTHON_DEFAULT
) -> Any:
    """``F.cosine_embedding_loss``."""
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(
    input: Any,
    target: Any,
    margin: float = 1.0,
    reduction: int = _PYTHON_DEFAULT,  # noqa: A002
) -> Any:
    """``F.hinge_embedding_loss``."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(
    input1: Any, input2: Any, target: Any, margin: float = 0.0, reduction: int = _PYTHON_DEFAULT
) -> Any:
    """``F.margin_ranking_loss``."""
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(
    anchor: Any, positive: Any, negative: Any, margin: float = 1.0, p: float = 2.0,
    eps: float = 1e-6, swap: bool = False, reduction: int = _PYTHON_DEFAULT,
) -> Any:  # fmt: skip
    """``F.triplet_margin_loss``."""
    return F.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


def poisson_nll_loss(
    input: Any,
    target: Any,
    log_input: bool,
    full: bool,
    eps: float,
    reduction: int,  # noqa: A002
) -> Any:
    """``F.poisson_nll_loss`` (every argument required, as aten's)."""
    return F.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def selu(input: Any) -> Any:  # noqa: A002
    """``F.selu``."""
    return F.selu(input)


def selu_(input: Any) -> Any:  # noqa: A002
    """In-place selu."""
    return F.selu(input, inplace=True)


def celu(input: Any, alpha: float = 1.0) -> Any:  # noqa: A002
    """``F.celu``."""
    return F.celu(input, alpha)


def rrelu(
    input: Any, lower: float = 1 / 8, upper: float = 1 / 3, training: bool = False,  # noqa: A002
    generator: Any = None,
) -> Any:  # fmt: skip
    """``F.rrelu`` (random slopes in training, their mean otherwise)."""
    return F.rrelu(input, lower, upper, training)


def rrelu_(
    input: Any, lower: float = 1 / 8, upper: float = 1 / 3, training: bool = False,  # noqa: A002
    generator: Any = None,
) -> Any:  # fmt: skip
    """In-place rrelu."""
    return F.rrelu(input, lower, upper, training, inplace=True)
