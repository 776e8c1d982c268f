"""PyTorch's other public names of ops the database already has: the ``torch.*`` function forms
of nn.functional (``torch.conv2d``, ``torch.kl_div``), the top-level in-place functions
(``torch.abs_(x)``), the ``*_copy`` forms of the views (``torch.view_copy``), the legacy names
(``igamma``, ``unsafe_split``, ``chain_matmul``, ``lu_solve``) and the conjugate family, which on
a real tensor is the tensor itself (``conj``, ``resolve_neg``: values of ``clone``).

Each one is an alias of an existing entry: the variants check calls it on every sample of that
entry and wants the entry's result. Where its signature differs from the entry's (ATen's
``reduction`` is an int; ``lu_solve`` takes B first), ``ALIAS_CALLS`` rewrites the sample's
arguments to it; a sample the alias cannot express (``batchmean``, a non-constant pad mode) is
answered with ``NotImplemented`` and skipped.
"""

from __future__ import annotations

from typing import Any

import minigenesis as mg

# ATen's reduction enum
_RED = {"none": 0, "mean": 1, "sum": 2}

# entry id -> aliases called like the entry
ALIASES: dict[str, tuple[str, ...]] = {
    # views and their *_copy forms: the same values, in memory of their own
    "Tensor.view": ("view_copy",),
    "permute": ("permute_copy",),
    "Tensor.expand": ("expand_copy",),
    "diagonal": ("diagonal_copy",),
    "select": ("select_copy",),
    "split": ("split_copy", "unsafe_split", "Tensor.unsafe_split"),
    "squeeze": ("squeeze_copy",),
    "t": ("t_copy",),
    "transpose": ("transpose_copy",),
    "unbind": ("unbind_copy",),
    "Tensor.unfold": ("unfold_copy",),
    "unsqueeze": ("unsqueeze_copy",),
    "as_strided": ("as_strided_copy",),
    "chunk": ("unsafe_chunk", "Tensor.unsafe_chunk"),
    "narrow": ("narrow_copy", "Tensor.narrow_copy"),
    # a real tensor is its own conjugate; detach and alias copies are copies
    "clone": (
        "conj",
        "Tensor.conj",
        "conj_physical",
        "Tensor.conj_physical",
        "conj_physical_",
        "Tensor.conj_physical_",
        "resolve_conj",
        "Tensor.resolve_conj",
        "resolve_neg",
        "Tensor.resolve_neg",
        "real",
        "alias_copy",
        "detach_copy",
    ),  # fmt: skip
    "Tensor.fill_": ("fill_", "fill"),
    "Tensor.zero_": ("zero_",),
    "dot": ("vdot", "Tensor.vdot"),
    "special.gammainc": ("igamma", "Tensor.igamma", "Tensor.igamma_"),
    "special.gammaincc": ("igammac", "Tensor.igammac", "Tensor.igammac_"),
    # nn.functional's torch.* forms with F's signature
    "F.conv1d": ("conv1d",),
    "F.conv2d": ("conv2d",),
    "F.conv3d": ("conv3d",),
    "F.conv_transpose1d": ("conv_transpose1d",),
    "F.conv_transpose2d": ("conv_transpose2d",),
    "F.conv_transpose3d": ("conv_transpose3d",),
    "F.selu": ("selu",),
    "F.celu": ("celu",),
    "F.selu_": ("selu_",),
    "F.celu_": ("celu_",),
    "F.rrelu_": ("rrelu_", "rrelu"),  # not training: the mean slope, a function
    "F.threshold": ("threshold",),
    "F.threshold_": ("threshold_",),
    "F.pixel_shuffle": ("pixel_shuffle",),
    "F.pixel_unshuffle": ("pixel_unshuffle",),
    "F.channel_shuffle": ("channel_shuffle",),
    "F.pdist": ("pdist",),
    "F.pairwise_distance": ("pairwise_distance",),
    "F.cosine_similarity": ("cosine_similarity",),
    "F.bilinear": ("bilinear",),
    "F.hardshrink": ("hardshrink", "Tensor.hardshrink"),
    "F.prelu": ("prelu", "Tensor.prelu"),
    "F.rms_norm": ("rms_norm",),
    "F.layer_norm": ("layer_norm",),
    "F.group_norm": ("group_norm",),
    "F.max_pool1d": ("max_pool1d",),
    "F.max_pool2d": ("max_pool2d",),
    "F.max_pool3d": ("max_pool3d",),
    "F.avg_pool1d": ("avg_pool1d",),
    "F.adaptive_avg_pool1d": ("adaptive_avg_pool1d",),
}


def _first(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """The values of an op that also returns the indices (``adaptive_max_pool1d``)."""
    return fn(*args, **kwargs)[0]


def _kl_div(fn, x, t, reduction="mean", log_target=False):
    if reduction == "batchmean":  # the sum over the batch size; ATen has no batchmean
        return fn(x, t, _RED["sum"], log_target=log_target) / x.shape[0]
    return fn(x, t, _RED[reduction], log_target=log_target)


def _dropout(fn, x, p=0.5, training=True, inplace=False):
    return fn(x, p, training)


def _ctc_loss(fn, x, targets, in_lengths, target_lengths, blank=0, reduction="mean", **kw):
    # the entry's call takes logits through log_softmax
    return fn(x.log_softmax(-1), targets, in_lengths, target_lengths, blank, _RED[reduction], **kw)


def _batch_norm(fn, x, rm, rv, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    return fn(x, weight, bias, rm, rv, training, momentum, eps, True)


def _instance_norm(
    fn, x, rm=None, rv=None, weight=None, bias=None, use_input_stats=True, momentum=0.1, eps=1e-5
):
    return fn(x, weight, bias, rm, rv, use_input_stats, momentum, eps, True)


def _embedding(fn, idx, weight, padding_idx=None, **kwargs):
    return fn(weight, idx, -1 if padding_idx is None else padding_idx)


def _bce_logits(fn, x, t, weight=None, reduction="mean", pos_weight=None):
    return fn(x, t, weight, pos_weight, _RED[reduction])


def _margin_loss(fn, a, b, target, margin=0.0, reduction="mean"):
    return fn(a, b, target, margin, _RED[reduction])


def _hinge(fn, x, t, margin=1.0, reduction="mean"):
    return fn(x, t, margin, _RED[reduction])


def _triplet(fn, a, pos, neg, margin=1.0, p=2.0, eps=1e-6, swap=False, reduction="mean"):
    return fn(a, pos, neg, margin, p, eps, swap, _RED[reduction])


def _poisson_nll(fn, x, t, log_input=True, full=False, eps=1e-8, reduction="mean"):
    return fn(x, t, log_input, full, eps, _RED[reduction])


def _constant_pad(fn, x, pad, mode="constant", value=None):
    if mode != "constant":
        return NotImplemented
    return fn(x, pad, 0.0 if value is None else value)


def _convolution(transposed: bool, n: int):
    def call(fn, x, w, bias=None, stride=1, padding=0, *rest, **kw):
        if rest or isinstance(kw.get("padding", padding), str):  # ATen has no "same"
            return NotImplemented
        tup = lambda v: (v,) * n if isinstance(v, int) else tuple(v)  # noqa: E731
        out_pad = kw.get("output_padding", 0)
        return fn(
            x, w, bias, tup(kw.get("stride", stride)), tup(kw.get("padding", padding)),
            tup(kw.get("dilation", 1)), transposed, tup(out_pad), kw.get("groups", 1),
        )  # fmt: skip

    return call


def _matrix_norm(name: str):
    def call(fn, A, ord="fro", dim=(-2, -1), keepdim=False):  # noqa: A002
        if ord != {"nuclear_norm": "nuc", "frobenius_norm": "fro"}[name]:
            return NotImplemented
        return fn(A, dim, keepdim)

    return call


def _chain_matmul(fn, matrices):
    if any(m.ndim != 2 for m in matrices):  # chain_matmul takes matrices only
        return NotImplemented
    return fn(*matrices)


def _triangular_solve(fn, A, B, *, upper, left=True, unitriangular=False):
    if not left:
        return NotImplemented
    return fn(B, A, upper=upper, unitriangular=unitriangular).solution


def _lu_solve(fn, A, B, left=True, adjoint=False):
    if not left or adjoint:
        return NotImplemented
    return fn(B, *mg.linalg.lu_factor(A))


def _lu(fn, A, pivot=True):
    return fn(A, pivot)


def _lu_unpack(fn, A, pivot=True):
    return fn(*mg.linalg.lu_factor(A, pivot=pivot))


def _split_with_sizes(fn, x, sizes, dim=0):
    if isinstance(sizes, int):
        return NotImplemented
    return fn(x, sizes, dim)


def _slice_copy(fn, x, dim, start, length):
    start = start % x.shape[dim] if start < 0 else start
    return fn(x, dim, start, start + length)


# entry id -> {alias: call(alias_fn, *sample_args, **sample_kwargs)}
ALIAS_CALLS: dict[str, dict[str, Any]] = {
    "F.kl_div": {"kl_div": _kl_div},
    "F.dropout": {
        n: _dropout
        for n in (
            "dropout",
            "dropout_",
            "alpha_dropout",
            "alpha_dropout_",
            "feature_dropout",
            "feature_dropout_",
            "feature_alpha_dropout",
            "feature_alpha_dropout_",
        )
    },  # fmt: skip
    "F.ctc_loss": {"ctc_loss": _ctc_loss},
    "F.batch_norm": {"batch_norm": _batch_norm},
    "F.instance_norm": {"instance_norm": _instance_norm},
    "F.embedding": {"embedding": _embedding},
    "F.binary_cross_entropy_with_logits": {"binary_cross_entropy_with_logits": _bce_logits},
    "F.cosine_embedding_loss": {"cosine_embedding_loss": _margin_loss},
    "F.margin_ranking_loss": {"margin_ranking_loss": _margin_loss},
    "F.hinge_embedding_loss": {"hinge_embedding_loss": _hinge},
    "F.triplet_margin_loss": {"triplet_margin_loss": _triplet},
    "F.poisson_nll_loss": {"poisson_nll_loss": _poisson_nll},
    "F.adaptive_max_pool1d": {"adaptive_max_pool1d": _first},
    "F.max_pool1d": {"max_pool1d_with_indices": _first},
    "F.pad": {"constant_pad_nd": _constant_pad},
    "F.conv2d": {"convolution": _convolution(False, 2)},
    "F.conv_transpose1d": {"convolution": _convolution(True, 1)},
    "linalg.matrix_norm": {n: _matrix_norm(n) for n in ("nuclear_norm", "frobenius_norm")},
    "linalg.multi_dot": {"chain_matmul": _chain_matmul},
    "linalg.solve_triangular": {
        "triangular_solve": _triangular_solve,
        "Tensor.triangular_solve": _triangular_solve,
    },
    "linalg.lu_solve": {"lu_solve": _lu_solve, "Tensor.lu_solve": _lu_solve},
    "linalg.lu_factor": {"lu": _lu, "Tensor.lu": _lu},
    "linalg.lu": {"lu_unpack": _lu_unpack},
    "split": {
        n: _split_with_sizes
        for n in (
            "split_with_sizes",
            "Tensor.split_with_sizes",
            "split_with_sizes_copy",
            "unsafe_split_with_sizes",
            "Tensor.unsafe_split_with_sizes",
        )
    },  # fmt: skip
    "narrow": {"slice_copy": _slice_copy},
}
