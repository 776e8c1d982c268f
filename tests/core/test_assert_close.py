"""mg.testing.assert_close: PyTorch's closeness rule, default tolerances and messages."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.testing import assert_close, make_tensor


@pytest.mark.parametrize(
    ("dtype", "rtol", "atol"),
    [
        (mg.float16, 1e-3, 1e-5),
        (mg.bfloat16, 1.6e-2, 1e-5),
        (mg.float32, 1.3e-6, 1e-5),
        (mg.float64, 1e-7, 1e-7),
    ],
)
def test_default_tolerances_follow_the_dtype(dtype, rtol, atol):
    expected = mg.tensor([1.0, 100.0], dtype=mg.float64)
    inside = expected * (1 + 0.5 * rtol) + 0.4 * atol  # |diff| <= atol + rtol |e| for both
    outside = expected * (1 + 3 * rtol) + 3 * atol
    assert_close(inside.to(dtype), expected.to(dtype), rtol=rtol, atol=atol)  # explicit
    if dtype == mg.float64:
        assert_close(inside, expected)
        with pytest.raises(AssertionError, match="not close"):
            assert_close(outside, expected)
    else:  # the default rule in dtype arithmetic: a value one rounding step off still passes
        e = mg.tensor([1.0, 100.0], dtype=dtype)
        assert_close(e + 0.4 * atol, e)
        with pytest.raises(AssertionError, match="not close"):
            assert_close(e * (1 + 4 * rtol) + 4 * atol, e)


def test_integers_must_be_equal_and_the_message_says_equal():
    with pytest.raises(AssertionError) as err:
        assert_close(mg.tensor([[1, 2], [3, 4]]), mg.tensor([[1, 2], [3, 5]]))
    text = str(err.value)
    assert text.startswith("Tensor-likes are not equal!")
    assert "Mismatched elements: 1 / 4 (25.0%)" in text
    assert "Greatest absolute difference: 1 at index (1, 1)" in text


def test_shape_dtype_and_device_mismatches_are_named():
    with pytest.raises(AssertionError, match="attribute 'shape'"):
        assert_close(mg.ones(2), mg.ones(3))
    with pytest.raises(AssertionError, match="attribute 'dtype'"):
        assert_close(mg.ones(2), mg.ones(2, dtype=mg.float64))
    assert_close(mg.ones(2), mg.ones(2, dtype=mg.float64), check_dtype=False)


def test_nan_only_equals_nan_when_asked_and_infinities_must_match():
    nan = mg.tensor([math.nan, 1.0])
    with pytest.raises(AssertionError, match="not close"):
        assert_close(nan, nan.clone())
    assert_close(nan, nan.clone(), equal_nan=True)
    inf = mg.tensor([math.inf, -math.inf])
    assert_close(inf, inf.clone())
    with pytest.raises(AssertionError):
        assert_close(inf, -inf)


def test_containers_compare_item_by_item_and_name_the_failing_item():
    assert_close([mg.ones(2), (1, 2.0)], [mg.ones(2), (1, 2.0)])
    with pytest.raises(AssertionError, match=r"item \[1\]"):
        assert_close([mg.tensor(1.0), mg.tensor(2.0)], [mg.tensor(1.0), mg.tensor(2.5)])
    with pytest.raises(AssertionError, match=r"item \['a'\]"):
        assert_close({"a": mg.tensor(1.0)}, {"a": mg.tensor(1.5)})
    with pytest.raises(AssertionError, match="length of the sequences mismatch: 2 != 3"):
        assert_close([1, 2], [1, 2, 3])


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol'"):
        assert_close(mg.ones(1), mg.ones(1), rtol=1e-3)
    with pytest.raises(TypeError, match="No comparison pair"):
        assert_close("a", "a")
    with pytest.raises(AssertionError, match="^custom$"):
        assert_close(mg.ones(1), mg.zeros(1), msg="custom")


def test_make_tensor_draws_in_the_range_and_dtype():
    f = make_tensor(50, 4, dtype=mg.float32, low=-1, high=2)
    assert f.shape == (50, 4) and f.dtype == mg.float32
    assert float(f.min()) >= -1 and float(f.max()) < 2
    i = make_tensor((200,), dtype=mg.int64, low=0, high=3)
    assert set(i.tolist()) <= {0, 1, 2}
    assert make_tensor(3, dtype=mg.float32, requires_grad=True).requires_grad


CASES = [
    (lambda m: m.tensor([1.0, 2.0, 3.0]), lambda m: m.tensor([1.0, 2.1, 3.0])),
    (lambda m: m.tensor([[1, 2], [3, 4]]), lambda m: m.tensor([[1, 2], [3, 5]])),
    (lambda m: m.tensor([math.nan]), lambda m: m.tensor([math.nan])),
    (
        lambda m: m.tensor([1.0, 2.0], dtype=m.float16),
        lambda m: m.tensor([1.0, 2.01], dtype=m.float16),
    ),
    (lambda m: m.tensor(True), lambda m: m.tensor(False)),
    (lambda m: 1.0, lambda m: 1.01),
    (lambda m: 1, lambda m: 1.0),
    (lambda m: [m.tensor(1.0), m.tensor(2.0)], lambda m: [m.tensor(1.0), m.tensor(2.5)]),
    (lambda m: {"a": m.tensor(1.0)}, lambda m: {"a": m.tensor(1.5)}),
    (lambda m: np.array([1.0]), lambda m: np.array([1.1])),
    (lambda m: m.ones(2), lambda m: m.ones(3)),
    (lambda m: m.ones(2), lambda m: m.ones(2, dtype=m.float64)),
    (lambda m: m.ones(2), lambda m: m.ones(2) + 1e-7),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_messages_and_verdicts_match_pytorch(case):
    torch = pytest.importorskip("torch")
    make_actual, make_expected = CASES[case]

    def outcome(lib, check):
        try:
            check(make_actual(lib), make_expected(lib))
        except Exception as e:  # noqa: BLE001  (the kind and the text are what is compared)
            return type(e).__name__, str(e).replace("torch.", "").replace("minigenesis.", "")
        return "passed", ""

    assert outcome(mg, assert_close) == outcome(torch, torch.testing.assert_close)
