"""Integer and bool inputs to nn functions: refused with PyTorch's exception type where PyTorch
refuses, computed in the input's dtype where PyTorch computes (the table: integer_input_cases.py),
checked without PyTorch; test_integer_inputs_parity.py checks the table against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

from .integer_input_cases import CASES, outcome


@pytest.mark.parametrize("call, dtype, want", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_integer_input_is_refused_or_kept_as_pytorch_does(call, dtype, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # kl_div's 'mean' warning
        got = outcome(call, mg, dtype)
    if want == "same":
        assert got == dtype, f"expected a {dtype} result, got {got!r}"
    else:
        assert type(got) is want, f"expected {want.__name__}, got {got!r}"
        assert str(got)


def test_hinge_embedding_loss_of_integers_truncates_the_margin_term():
    """PyTorch keeps an integer input's dtype: margin - x is computed and truncated to integers
    (margin 2.5 at x = -2 gives 4, not 4.5); the x term where y = 1 is x itself."""
    x = mg.tensor([[3, -2, 0], [1, 5, -1]])
    y = mg.tensor([[1, -1, -1], [-1, 1, 1]])
    out = F.hinge_embedding_loss(x, y, margin=2.5, reduction="none")
    xs, ys = np.array(x.tolist()), np.array(y.tolist())
    want = np.where(ys == 1, xs, np.trunc(np.maximum(2.5 - xs, 0))).astype(np.int64)
    assert out.dtype == mg.int64
    np.testing.assert_array_equal(np.asarray(out.tolist()), want)
    assert F.hinge_embedding_loss(x, y, margin=2.5, reduction="sum").item() == want.sum()


def test_float_input_with_an_integer_target_still_computes():
    """The floating-only kernels run in the promoted dtype: float input, int target is fine."""
    x, t = mg.tensor([0.5, 2.0, -1.0]), mg.tensor([1, 0, 2])
    d = np.array([-0.5, 2.0, -3.0])
    assert F.mse_loss(x, t).item() == pytest.approx(np.mean(d * d))
    huber = np.where(np.abs(d) <= 1, 0.5 * d * d, np.abs(d) - 0.5)
    assert F.huber_loss(x, t).item() == pytest.approx(huber.mean())
    assert F.smooth_l1_loss(x, t).item() == pytest.approx(huber.mean())


def test_threshold_and_hardtanh_of_integers_truncate_their_scalars():
    """On an integer input PyTorch converts the float scalars to integers toward zero before
    comparing (threshold -0.5 acts as 0, so x = 0 is replaced; value 9.7 is written as 9) and
    the result keeps the input's dtype."""
    xs = np.array([-3, -1, 0, 1, 2, 3])
    x = mg.tensor(xs.tolist())
    cases = [
        (F.threshold(x, -0.5, 9.7), np.where(xs <= 0, 9, xs)),
        (F.threshold(x, 0.5, -2.5), np.where(xs <= 0, -2, xs)),
        (F.hardtanh(x, -0.5, 1.5), np.clip(xs, 0, 1)),
        (F.hardtanh(x, -2.5, 0.5), np.clip(xs, -2, 0)),
        (F.relu6(x * 3), np.clip(xs * 3, 0, 6)),
    ]
    for out, want in cases:
        assert out.dtype == mg.int64
        np.testing.assert_array_equal(np.asarray(out.tolist()), want)


def test_bilinear_of_int32_keeps_int32_and_wraps_as_int32():
    """y_o = sum_ij x1_i A_oij x2_j + b_o in the inputs' dtype (PyTorch's bmm): int32 stays
    int32 (the sum was widened to int64 before), equal to the int64 sum wrapped to 32 bits."""
    rng = np.random.default_rng(0)
    a, b = rng.integers(-3000, 3000, (3, 4)), rng.integers(-3000, 3000, (3, 5))
    w, bias = rng.integers(-3000, 3000, (2, 4, 5)), np.array([3, -7])
    args = (mg.tensor(v.astype(np.int32)) for v in (a, b, w, bias))
    out = F.bilinear(*args)
    want = (np.einsum("bi,oij,bj->bo", a, w, b) + bias).astype(np.int32)  # wraps mod 2^32
    assert out.dtype == mg.int32
    np.testing.assert_array_equal(np.asarray(out.tolist()), want)
