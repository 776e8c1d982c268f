"""Integer and bool tensors given to nn functions: what PyTorch 2.13 does with each, as a table.

Each call is written once against a library ``L`` (``minigenesis`` or ``torch``), so
``test_integer_inputs.py`` checks minigenesis without PyTorch and ``test_integer_inputs_parity.py``
checks the table against PyTorch. An expectation is an exception type (PyTorch refuses: its
floating-only kernels raise NotImplementedError, its Python checks RuntimeError), or a dtype name
(PyTorch computes, in that dtype: integer max pooling with indices, hinge loss, clamp-like
activations). Refusing matters: computing an integer loss in floats, or truncating a float result
to integers, would give numbers PyTorch never gives.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

R, N = RuntimeError, NotImplementedError
INTS = ("int64", "int32", "uint8")


def _x(L: Any, dtype: str, *shape: int) -> Any:
    """ones(*shape) of the dtype named ``dtype`` (shape (2, 3, 4) if none is given)."""
    return L.ones(*(shape or (2, 3, 4)), dtype=getattr(L, dtype))


def _f(L: Any) -> Any:
    return L.nn.functional


# (name, call of the library L on a dtype name, the dtypes, what PyTorch does)
TABLE: list[tuple[str, Callable[[Any, str], Any], tuple[str, ...], Any]] = [
    ("mse_loss", lambda L, d: _f(L).mse_loss(_x(L, d), _x(L, d)), (*INTS, "bool"), N),
    ("huber_loss", lambda L, d: _f(L).huber_loss(_x(L, d), _x(L, d)), (*INTS, "bool"), N),
    ("smooth_l1_loss", lambda L, d: _f(L).smooth_l1_loss(_x(L, d), _x(L, d)), (*INTS, "bool"), N),
    (
        "huber_loss sum",
        lambda L, d: _f(L).huber_loss(_x(L, d), _x(L, d), reduction="sum"),
        ("int64",),
        N,
    ),
    (
        "binary_cross_entropy",
        lambda L, d: _f(L).binary_cross_entropy(_x(L, d), _x(L, d)),
        (*INTS, "bool"),
        N,
    ),
    (
        "binary_cross_entropy_with_logits",
        lambda L, d: _f(L).binary_cross_entropy_with_logits(_x(L, d), _x(L, d)),
        (*INTS, "bool"),
        N,
    ),
    ("kl_div", lambda L, d: _f(L).kl_div(_x(L, d), _x(L, d), reduction="sum"), (*INTS, "bool"), R),
    (
        "kl_div integer target",
        lambda L, d: _f(L).kl_div(L.ones(2, 3), _x(L, d, 2, 3), reduction="sum"),
        ("int64",),
        R,
    ),
    (
        "soft_margin_loss",
        lambda L, d: _f(L).soft_margin_loss(_x(L, d), _x(L, d)),
        (*INTS, "bool"),
        R,
    ),
    (
        "hinge_embedding_loss mean",
        lambda L, d: _f(L).hinge_embedding_loss(_x(L, d), _x(L, d)),
        INTS,
        R,
    ),
    (
        "hinge_embedding_loss none",
        lambda L, d: _f(L).hinge_embedding_loss(_x(L, d), _x(L, d), reduction="none"),
        ("int64", "int32"),
        "same",
    ),
    ("max_pool1d", lambda L, d: _f(L).max_pool1d(_x(L, d), 2), (*INTS, "bool"), N),
    (
        "max_pool1d with indices",
        lambda L, d: _f(L).max_pool1d(_x(L, d), 2, return_indices=True)[0],
        INTS,
        "same",
    ),
    ("max_pool2d", lambda L, d: _f(L).max_pool2d(_x(L, d), 2), INTS, "same"),
    ("unfold", lambda L, d: _f(L).unfold(_x(L, d, 1, 2, 3, 3), 2), INTS, N),
    ("unfold bool", lambda L, d: _f(L).unfold(_x(L, d, 1, 2, 3, 3), 2), ("bool",), "same"),
    (
        "conv1d bool",
        lambda L, d: _f(L).conv1d(_x(L, d), L.ones(2, 3, 1, dtype=getattr(L, d))),
        ("bool",),
        N,
    ),
    (
        "conv2d bool",
        lambda L, d: _f(L).conv2d(_x(L, d, 1, 3, 4, 4), L.ones(2, 3, 1, 1, dtype=getattr(L, d))),
        ("bool",),
        N,
    ),
    (
        "conv_transpose2d bool",
        lambda L, d: _f(L).conv_transpose2d(
            _x(L, d, 1, 3, 4, 4), L.ones(3, 2, 1, 1, dtype=getattr(L, d))
        ),
        ("bool",),
        N,
    ),
    ("pad reflect bool", lambda L, d: _f(L).pad(_x(L, d), (1, 1), mode="reflect"), ("bool",), N),
    (
        "pad replicate bool",
        lambda L, d: _f(L).pad(_x(L, d), (1, 1), mode="replicate"),
        ("bool",),
        N,
    ),
    ("pad reflect", lambda L, d: _f(L).pad(_x(L, d), (1, 1), mode="reflect"), INTS, "same"),
    (
        "pad circular bool",
        lambda L, d: _f(L).pad(_x(L, d), (1, 1), mode="circular"),
        ("bool",),
        "same",
    ),
    ("hardtanh bool", lambda L, d: _f(L).hardtanh(_x(L, d)), ("bool",), R),
    ("relu6 bool", lambda L, d: _f(L).relu6(_x(L, d)), ("bool",), R),
    ("hardtanh unsigned, negative limit", lambda L, d: _f(L).hardtanh(_x(L, d)), ("uint8",), R),
    ("hardtanh", lambda L, d: _f(L).hardtanh(_x(L, d)), ("int64", "int32"), "same"),
    ("relu6", lambda L, d: _f(L).relu6(_x(L, d)), INTS, "same"),
    ("threshold bool", lambda L, d: _f(L).threshold(_x(L, d), 0.5, 2.0), ("bool",), N),
    ("threshold", lambda L, d: _f(L).threshold(_x(L, d), 0.5, 2.0), INTS, "same"),
    ("silu", lambda L, d: _f(L).silu(_x(L, d)), (*INTS, "bool"), N),
    ("softmin bool", lambda L, d: _f(L).softmin(_x(L, d), 1), ("bool",), R),
    ("negation of bool", lambda L, d: -_x(L, d), ("bool",), R),
    ("rms_norm", lambda L, d: _f(L).rms_norm(_x(L, d), (4,)), (*INTS, "bool"), N),
    (
        "cross_entropy integer logits",
        lambda L, d: _f(L).cross_entropy(_x(L, d, 2, 3), L.tensor([0, 1])),
        (*INTS, "bool"),
        N,
    ),
    (
        "nll_loss integer input",
        lambda L, d: _f(L).nll_loss(_x(L, d, 2, 3), L.tensor([0, 1])),
        (*INTS, "bool"),
        N,
    ),
    (
        "scaled_dot_product_attention",
        lambda L, d: _f(L).scaled_dot_product_attention(_x(L, d), _x(L, d), _x(L, d)),
        (*INTS, "bool"),
        R,
    ),
    (
        "linear bool",
        lambda L, d: _f(L).linear(_x(L, d), L.ones(2, 4, dtype=getattr(L, d))),
        ("bool",),
        N,
    ),
    (
        "linear",
        lambda L, d: _f(L).linear(_x(L, d), L.ones(2, 4, dtype=getattr(L, d))),
        INTS,
        "same",
    ),
    ("avg_pool1d", lambda L, d: _f(L).avg_pool1d(_x(L, d), 2), ("int32", "uint8", "bool"), N),
    (
        "adaptive_max_pool1d",
        lambda L, d: _f(L).adaptive_max_pool1d(_x(L, d), 2),
        (*INTS, "bool"),
        N,
    ),
    (
        "adaptive_max_pool2d",
        lambda L, d: _f(L).adaptive_max_pool2d(_x(L, d, 1, 2, 4, 4), 2),
        (*INTS, "bool"),
        N,
    ),
    ("adaptive_avg_pool1d to 2", lambda L, d: _f(L).adaptive_avg_pool1d(_x(L, d), 2), INTS, N),
    # output size 1 is a mean in PyTorch, which refuses integers with a RuntimeError
    ("adaptive_avg_pool1d to 1", lambda L, d: _f(L).adaptive_avg_pool1d(_x(L, d), 1), INTS, R),
    ("adaptive_avg_pool2d to 1", lambda L, d: _f(L).adaptive_avg_pool2d(_x(L, d), 1), INTS, R),
    (
        "interpolate linear",
        lambda L, d: _f(L).interpolate(_x(L, d), scale_factor=2, mode="linear"),
        (*INTS, "bool"),
        N,
    ),
    (
        "interpolate nearest",
        lambda L, d: _f(L).interpolate(_x(L, d), scale_factor=2),
        ("int64", "int32", "bool"),
        N,
    ),
    (
        "interpolate bicubic",
        lambda L, d: _f(L).interpolate(_x(L, d, 1, 1, 2, 2), scale_factor=2, mode="bicubic"),
        ("int64",),
        N,
    ),
    ("hardsigmoid", lambda L, d: _f(L).hardsigmoid(_x(L, d)), (*INTS, "bool"), N),
    (
        "multi_margin_loss",
        lambda L, d: _f(L).multi_margin_loss(_x(L, d, 2, 3), L.tensor([0, 1])),
        (*INTS, "bool"),
        N,
    ),
    (
        "multilabel_margin_loss",
        lambda L, d: _f(L).multilabel_margin_loss(
            _x(L, d, 2, 3), L.tensor([[0, -1, 0], [1, -1, 0]])
        ),
        (*INTS, "bool"),
        N,
    ),
    (
        "multilabel_soft_margin_loss",
        lambda L, d: _f(L).multilabel_soft_margin_loss(_x(L, d, 2, 3), _x(L, d, 2, 3)),
        INTS,
        N,
    ),
    (
        "gaussian_nll_loss",
        lambda L, d: _f(L).gaussian_nll_loss(_x(L, d), _x(L, d), _x(L, d)),
        (*INTS, "bool"),
        R,
    ),
    (
        "embedding_bag integer weight",
        lambda L, d: _f(L).embedding_bag(L.tensor([[0, 1]]), _x(L, d, 3, 2)),
        (*INTS, "bool"),
        R,
    ),
    (
        "max_unpool1d",
        lambda L, d: _f(L).max_unpool1d(_x(L, d, 1, 1, 2), L.tensor([[[0, 2]]]), 2),
        (*INTS, "bool"),
        N,
    ),
    (
        "max_unpool2d",
        lambda L, d: _f(L).max_unpool2d(_x(L, d, 1, 1, 1, 2), L.tensor([[[[0, 2]]]]), (1, 2)),
        (*INTS, "bool"),
        N,
    ),
    (
        "bilinear",
        lambda L, d: _f(L).bilinear(_x(L, d), _x(L, d), _x(L, d, 2, 4, 4)),
        INTS,
        "same",
    ),
    (
        "bilinear bool",
        lambda L, d: _f(L).bilinear(_x(L, d), _x(L, d), _x(L, d, 2, 4, 4)),
        ("bool",),
        N,
    ),
    ("fold", lambda L, d: _f(L).fold(_x(L, d, 1, 4, 4), (3, 3), 2), INTS, N),
    ("fold bool", lambda L, d: _f(L).fold(_x(L, d, 1, 4, 4), (3, 3), 2), ("bool",), "same"),
    (
        "ctc_loss",
        lambda L, d: _f(L).ctc_loss(_x(L, d, 3, 1, 4), L.tensor([[1]]), [3], [1]),
        (*INTS, "bool"),
        N,
    ),
]

# one row per (case, dtype)
CASES = [(f"{name} {d}", call, d, want) for name, call, dtypes, want in TABLE for d in dtypes]


def outcome(call: Callable[[Any, str], Any], L: Any, dtype: str) -> Any:
    """The exception ``call(L, dtype)`` raises, or the result's dtype name."""
    try:
        out = call(L, dtype)
    except Exception as e:  # noqa: BLE001  (the type is what is checked)
        return e
    return str(out.dtype).rsplit(".", 1)[-1]
