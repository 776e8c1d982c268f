"""Bad input to nn layers and functions, with the exception type PyTorch 2.13 raises for each.

Each case is written once against a library ``L`` (``minigenesis`` or ``torch``: both spell the
calls alike), so ``test_exception_types.py`` checks minigenesis against the expected types
without PyTorch, and ``test_exception_types_parity.py`` checks the same table against PyTorch.

PyTorch reports most shape and argument errors of its C++ kernels as RuntimeError (conv,
pooling, padding, layer_norm, linear's matmul, reshape, broadcasting); its Python-level asserts
(MultiheadAttention, Hardtanh) as AssertionError; reflect/replicate padding of an input of the
wrong rank as NotImplementedError; and a few Python checks as ValueError (a cross-entropy target
whose batch size differs, rms_norm's rank, the circular padding layers' rank).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

R, V, A, N = RuntimeError, ValueError, AssertionError, NotImplementedError


def _mha(L: Any, **kwargs: Any) -> Any:
    """A (L=3, N=2, E=4) self-attention call of a 2-head MultiheadAttention."""
    q = L.randn(3, 2, 4)
    return L.nn.MultiheadAttention(4, 2)(q, q, q, **kwargs)


# (name, call of the library L, the exception type PyTorch raises)
CASES: list[tuple[str, Callable[[Any], Any], type]] = [
    # convolution: input rank, channels, groups, weight rank, bias, kernel vs input, padding
    (
        "conv1d 4-d input",
        lambda L: L.nn.functional.conv1d(L.randn(2, 1, 2, 4), L.randn(2, 1, 1)),
        R,
    ),
    ("conv2d 5-d input", lambda L: L.nn.Conv2d(1, 2, 3)(L.randn(2, 1, 3, 5, 5)), R),
    ("conv3d 6-d input", lambda L: L.nn.Conv3d(1, 2, 1)(L.randn(2, 1, 2, 2, 2, 2)), R),
    ("conv2d channels", lambda L: L.nn.Conv2d(3, 8, 3)(L.randn(2, 4, 8, 8)), R),
    (
        "conv2d weight rank",
        lambda L: L.nn.functional.conv2d(L.randn(1, 3, 5, 5), L.randn(8, 3, 3)),
        R,
    ),
    (
        "conv2d bias shape",
        lambda L: L.nn.functional.conv2d(L.randn(1, 3, 5, 5), L.randn(8, 3, 3, 3), L.randn(4)),
        R,
    ),
    (
        "conv2d groups not dividing the weight",
        lambda L: L.nn.functional.conv2d(L.randn(1, 4, 5, 5), L.randn(3, 2, 3, 3), groups=2),
        R,
    ),
    ("conv2d kernel larger than input", lambda L: L.nn.Conv2d(3, 4, 3)(L.randn(1, 3, 2, 2)), R),
    ("conv2d negative padding", lambda L: L.nn.Conv2d(2, 2, 2, padding=-1)(L.randn(1, 2, 5, 5)), R),
    (
        "conv2d stride of 3 values",
        lambda L: L.nn.functional.conv2d(
            L.randn(1, 1, 5, 5), L.randn(1, 1, 2, 2), stride=(1, 1, 1)
        ),
        R,
    ),
    (
        "conv_transpose2d channels",
        lambda L: L.nn.functional.conv_transpose2d(L.randn(1, 5, 3, 3), L.randn(4, 2, 3, 3)),
        R,
    ),
    (
        "conv_transpose1d weight rank",
        lambda L: L.nn.functional.conv_transpose1d(L.randn(1, 3, 4), L.randn(3, 2, 2, 1)),
        R,
    ),
    (
        "conv_transpose3d 6-d input",
        lambda L: L.nn.ConvTranspose3d(1, 1, 1)(L.randn(1, 1, 1, 2, 2, 2)),
        R,
    ),
    # the module's own constructor checks stay ValueError in PyTorch
    ("Conv2d in_channels not divisible by groups", lambda L: L.nn.Conv2d(3, 8, 3, groups=2), V),
    (
        "Conv2d same padding with stride",
        lambda L: L.nn.Conv2d(3, 8, 3, stride=2, padding="same"),
        V,
    ),
    # pooling
    ("max_pool2d 5-d input", lambda L: L.nn.functional.max_pool2d(L.randn(2, 2, 2, 4, 5), 2), R),
    ("avg_pool2d 5-d input", lambda L: L.nn.functional.avg_pool2d(L.randn(2, 2, 1, 3, 6), 2), R),
    ("max_pool1d 1-d input", lambda L: L.nn.functional.max_pool1d(L.zeros(4), 2), R),
    ("avg_pool1d 4-d input", lambda L: L.nn.functional.avg_pool1d(L.zeros(1, 2, 3, 4), 2), R),
    (
        "max_pool2d padding over half the kernel",
        lambda L: L.nn.MaxPool2d(2, padding=2)(L.randn(1, 1, 5, 5)),
        R,
    ),
    (
        "avg_pool2d padding over half the kernel",
        lambda L: L.nn.AvgPool2d(2, padding=2)(L.randn(1, 1, 5, 5)),
        R,
    ),
    ("max_pool2d dilation 0", lambda L: L.nn.MaxPool2d(2, dilation=0)(L.randn(1, 1, 5, 5)), R),
    ("max_pool2d empty channel dim", lambda L: L.nn.functional.max_pool2d(L.zeros(2, 0, 3), 1), R),
    (
        "adaptive_avg_pool1d 4-d input",
        lambda L: L.nn.functional.adaptive_avg_pool1d(L.randn(2, 1, 2, 2), 1),
        R,
    ),
    (
        "adaptive_max_pool2d 5-d input",
        lambda L: L.nn.AdaptiveMaxPool2d(2)(L.randn(2, 2, 1, 8, 7)),
        R,
    ),
    # padding
    ("pad longer than the dims", lambda L: L.nn.functional.pad(L.randn(2), (-1, 2, 1, 1)), R),
    ("pad odd length", lambda L: L.nn.functional.pad(L.randn(1, 1, 3), (1,)), R),
    (
        "reflect pad as wide as the dim",
        lambda L: L.nn.functional.pad(L.randn(1, 1, 3), (3, 0), mode="reflect"),
        R,
    ),
    ("pad unknown mode", lambda L: L.nn.functional.pad(L.randn(1, 1, 3), (1, 1), mode="wrap"), N),
    ("ReflectionPad1d 4-d input", lambda L: L.nn.ReflectionPad1d(1)(L.zeros(1, 1, 4, 4)), N),
    ("ReplicationPad2d 5-d input", lambda L: L.nn.ReplicationPad2d(1)(L.zeros(1, 1, 1, 4, 4)), N),
    ("CircularPad3d 3-d input", lambda L: L.nn.CircularPad3d(1)(L.zeros(4, 4, 5)), V),
    # normalization
    ("layer_norm shape", lambda L: L.nn.LayerNorm(5)(L.randn(4, 6)), R),
    (
        "layer_norm fewer dims than normalized_shape",
        lambda L: L.nn.functional.layer_norm(L.randn(4), (2, 4)),
        R,
    ),
    ("rms_norm shape", lambda L: L.nn.RMSNorm(3)(L.randn(2, 4)), R),
    (
        "rms_norm fewer dims than normalized_shape",
        lambda L: L.nn.RMSNorm((4, 1, 4, 2))(L.randn(1, 4, 2)),
        V,
    ),
    ("group_norm 1-d input", lambda L: L.nn.functional.group_norm(L.randn(4), 1), R),
    (
        "group_norm channels not divisible",
        lambda L: L.nn.functional.group_norm(L.randn(2, 3, 4), 2),
        R,
    ),
    ("group_norm one value per group", lambda L: L.nn.GroupNorm(2, 2)(L.randn(2, 1, 1)), V),
    ("BatchNorm1d channels", lambda L: L.nn.BatchNorm1d(3)(L.randn(4, 4)), R),
    ("BatchNorm2d rank", lambda L: L.nn.BatchNorm2d(2)(L.randn(3, 2)), V),
    # linear maps
    ("linear features", lambda L: L.nn.Linear(5, 2)(L.randn(2, 3)), R),
    (
        "linear features of a 1-d input",
        lambda L: L.nn.functional.linear(L.randn(5), L.randn(2, 4)),
        R,
    ),
    ("linear 0-d input", lambda L: L.nn.Linear(4, 2)(L.randn(())), R),
    (
        "Bilinear second input's features",
        lambda L: L.nn.Bilinear(2, 3, 4)(L.randn(5, 2), L.randn(5, 4)),
        R,
    ),
    # reshaping layers
    ("Unflatten sizes", lambda L: L.nn.Unflatten(1, (2, 2))(L.randn(2, 6)), R),
    ("Unflatten two -1", lambda L: L.nn.Unflatten(1, (-1, -1))(L.randn(2, 6)), R),
    ("reshape size", lambda L: L.ones(6).reshape(4, 2), R),
    ("view size", lambda L: L.ones(6).view(5), R),
    ("Flatten start after end", lambda L: L.nn.Flatten(1, 0)(L.randn(2, 3)), R),
    # losses
    ("mse_loss shapes", lambda L: L.nn.functional.mse_loss(L.randn(3, 4), L.randn(2, 4)), R),
    ("l1_loss shapes", lambda L: L.nn.functional.l1_loss(L.randn(0, 3), L.randn(2, 3)), R),
    ("huber_loss shapes", lambda L: L.nn.functional.huber_loss(L.randn(3, 5), L.randn(3, 4)), R),
    ("kl_div shapes", lambda L: L.nn.functional.kl_div(L.randn(5, 1), L.randn(4, 1)), R),
    ("soft_margin_loss shapes", lambda L: L.nn.SoftMarginLoss()(L.randn(4, 1), L.randn(3, 1)), R),
    (
        "binary_cross_entropy shapes",
        lambda L: L.nn.functional.binary_cross_entropy(L.rand(3), L.rand(3, 1)),
        V,
    ),
    (
        "cross_entropy target of 2 dims",
        lambda L: L.nn.functional.cross_entropy(L.randn(4, 3), L.zeros(4, 2, dtype=L.int64)),
        R,
    ),
    (
        "cross_entropy target batch size",
        lambda L: L.nn.functional.cross_entropy(L.randn(2, 3), L.tensor([0, 1, 1])),
        V,
    ),
    (
        "nll_loss spatial target shape",
        lambda L: L.nn.functional.nll_loss(L.randn(1, 3, 2, 4), L.zeros(1, 2, 3, dtype=L.int64)),
        R,
    ),
    (
        "cross_entropy probabilities shape",
        lambda L: L.nn.functional.cross_entropy(L.randn(4, 3), L.rand(4, 5)),
        R,
    ),
    (
        "cross_entropy probabilities batch size",
        lambda L: L.nn.functional.cross_entropy(L.randn(0, 4, 2), L.rand(1, 4, 2)),
        V,
    ),
    (
        "cross_entropy class weight shape",
        lambda L: L.nn.functional.cross_entropy(L.randn(2, 3), L.tensor([0, 1]), weight=L.ones(2)),
        R,
    ),
    (
        "cross_entropy label_smoothing 1.5",
        lambda L: L.nn.functional.cross_entropy(
            L.randn(2, 3), L.tensor([0, 1]), label_smoothing=1.5
        ),
        R,
    ),
    (
        "nll_loss target out of range",
        lambda L: L.nn.functional.nll_loss(L.randn(2, 3), L.tensor([0, 3])),
        IndexError,
    ),
    (
        "multi_margin_loss target out of range",
        lambda L: L.nn.functional.multi_margin_loss(L.rand(2, 3), L.tensor([0, 3])),
        R,
    ),
    (
        "ctc_loss negative target length",
        lambda L: L.nn.functional.ctc_loss(
            L.randn(4, 1, 3).log_softmax(2), L.tensor([[1, 2]]), [4], [-1]
        ),
        R,
    ),
    # attention
    ("MultiheadAttention embed_dim % num_heads", lambda L: L.nn.MultiheadAttention(5, 2), A),
    (
        "MultiheadAttention query embedding",
        lambda L: L.nn.MultiheadAttention(2, 1)(*[L.randn(3, 3, 3)] * 3),
        A,
    ),
    (
        "MultiheadAttention unbatched query, batched key",
        lambda L: L.nn.MultiheadAttention(2, 1)(L.randn(2, 2), L.randn(1, 2, 2), L.randn(1, 2, 2)),
        A,
    ),
    (
        "MultiheadAttention key and value lengths",
        lambda L: L.nn.MultiheadAttention(4, 2)(
            L.randn(3, 2, 4), L.randn(3, 2, 4), L.randn(4, 2, 4)
        ),
        A,
    ),
    (
        "MultiheadAttention key batch differs from the query's",
        lambda L: L.nn.MultiheadAttention(4, 2)(
            L.randn(3, 2, 4), L.randn(3, 3, 4), L.randn(3, 3, 4)
        ),
        R,
    ),
    (
        "MultiheadAttention key_padding_mask",
        lambda L: _mha(L, key_padding_mask=L.zeros(2, 4, dtype=L.bool)),
        A,
    ),
    (
        "MultiheadAttention 2-d attn_mask",
        lambda L: _mha(L, attn_mask=L.zeros(3, 4, dtype=L.bool)),
        R,
    ),
    (
        "MultiheadAttention 3-d attn_mask",
        lambda L: _mha(L, attn_mask=L.zeros(3, 3, 4, dtype=L.bool)),
        R,
    ),
    (
        "scaled_dot_product_attention embedding sizes",
        lambda L: L.nn.functional.scaled_dot_product_attention(
            L.randn(1, 2, 3, 4), L.randn(1, 2, 3, 5), L.randn(1, 2, 3, 4)
        ),
        R,
    ),
    (
        "scaled_dot_product_attention dropout_p 1.5",
        lambda L: L.nn.functional.scaled_dot_product_attention(
            *[L.randn(1, 2, 3, 4)] * 3, dropout_p=1.5
        ),
        R,
    ),
    ("Embedding padding_idx out of range", lambda L: L.nn.Embedding(4, 2, padding_idx=4), A),
    (
        "embedding padding_idx out of range",
        lambda L: L.nn.functional.embedding(L.tensor([0]), L.randn(4, 2), padding_idx=-5),
        A,
    ),
    ("Hardtanh min above max", lambda L: L.nn.Hardtanh(1.0, -1.0), A),
    # rearranging
    ("pixel_shuffle factor 0", lambda L: L.nn.functional.pixel_shuffle(L.randn(1, 4, 2, 2), 0), R),
    ("channel_shuffle groups 0", lambda L: L.nn.ChannelShuffle(0)(L.randn(1, 4, 2)), R),
    # interpolation: the lengths of size / scale_factor are checked before the mode's rank
    (
        "interpolate bilinear size of 2 for a 3-d input",
        lambda L: L.nn.functional.interpolate(L.randn(2, 4, 5), size=(3, 6), mode="bilinear"),
        V,
    ),
    (
        "interpolate bicubic scale_factor of 2 for a 5-d input",
        lambda L: L.nn.functional.interpolate(
            L.randn(2, 2, 2, 4, 3), scale_factor=(1.0, 1.5), mode="bicubic"
        ),
        V,
    ),
    (
        "interpolate bilinear of a 3-d input",
        lambda L: L.nn.functional.interpolate(L.randn(2, 4, 5), size=3, mode="bilinear"),
        N,
    ),
    # padding='same' with a stride: the functional form is a RuntimeError, the layer a ValueError
    (
        "conv2d padding='same' with a stride",
        lambda L: L.nn.functional.conv2d(
            L.randn(1, 1, 5, 5), L.randn(1, 1, 3, 3), stride=2, padding="same"
        ),
        R,
    ),
    (
        "conv1d padding='same' with a stride",
        lambda L: L.nn.functional.conv1d(
            L.randn(1, 1, 5), L.randn(1, 1, 3), stride=2, padding="same"
        ),
        R,
    ),
    (
        "Conv2d padding='same' with a stride",
        lambda L: L.nn.Conv2d(1, 1, 3, stride=2, padding="same"),
        V,
    ),
    # recurrent layers: a size that is not an int is a TypeError, a size of 0 a ValueError
    ("LSTM float hidden_size", lambda L: L.nn.LSTM(4, 2.0), TypeError),
    ("GRU float input_size", lambda L: L.nn.GRU(4.0, 2), TypeError),
    ("RNN float num_layers", lambda L: L.nn.RNN(4, 2, num_layers=1.0), TypeError),
    ("LSTM num_layers 0", lambda L: L.nn.LSTM(4, 2, num_layers=0), V),
]


def raised(call: Callable[[Any], Any], lib: Any) -> BaseException | None:
    """The exception ``call(lib)`` raises, or None when it returns."""
    try:
        call(lib)
    except Exception as err:  # noqa: BLE001 - the type is what is compared
        return err
    return None
