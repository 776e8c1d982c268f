"""GradScaler.update(new_scale=...): a Python float or a one-element 0-d tensor sets the scale
(a copy, rounded to float32); the other arguments PyTorch 2.13 refuses are refused with its
exception types (AssertionError for a tensor of several elements / with requires_grad /
not yet scaled / nothing to update from, RuntimeError for a 1-element tensor that is not 0-d
and a float beyond float32, AttributeError for neither a float nor a tensor). A scale that
cannot work (<= 0, inf, NaN), which PyTorch takes silently, is a ValueError here."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.amp import GradScaler


def _scaled(init_scale: float = 8.0) -> GradScaler:
    scaler = GradScaler(init_scale=init_scale)
    scaler.scale(mg.tensor(1.0))
    return scaler


@pytest.mark.parametrize("value", [2.5, 1.0000001, 3.4e38, np.float64(6.0)])
def test_a_python_float_sets_the_scale_rounded_to_float32(value):
    scaler = _scaled()
    scaler.update(new_scale=value)
    assert scaler.get_scale() == float(np.float32(value))
    assert scaler._scale.dtype == np.float32 and scaler._scale.shape == ()


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.float16, mg.int64])
def test_a_zero_dim_tensor_is_copied_into_the_scale(dtype):
    scaler = _scaled()
    t = mg.tensor(4, dtype=dtype)
    scaler.update(new_scale=t)
    t.fill_(9)  # later changes to the tensor do not reach the scale
    assert scaler.get_scale() == 4.0 and scaler._scale.dtype == np.float32


def test_update_with_new_scale_clears_the_iteration_and_ignores_inf_checks():
    w = mg.ones(2, requires_grad=True)
    opt = mg.optim.SGD([w], lr=0.1)
    scaler = _scaled()
    scaler.scale((w * float("inf")).sum()).backward()
    scaler.step(opt)  # found an inf: without new_scale, update would back off to 4
    scaler.update(new_scale=16.0)
    assert scaler.get_scale() == 16.0
    scaler.unscale_(opt)  # a new iteration


BAD = [
    ("several elements", lambda: mg.ones(2), AssertionError, "1-element"),
    ("no elements", lambda: mg.ones(0), AssertionError, "1-element"),
    ("requires_grad", lambda: mg.tensor(2.0, requires_grad=True), AssertionError, "requires_grad"),
    ("shape (1,)", lambda: mg.tensor([4.0]), RuntimeError, r"broadcast shape \[1\]"),
    ("shape (1, 1)", lambda: mg.tensor([[4.0]]), RuntimeError, r"broadcast shape \[1, 1\]"),
    ("beyond float32", lambda: 1e39, RuntimeError, "without overflow"),
    ("an int", lambda: 3, AttributeError, "got int"),
    ("a bool", lambda: True, AttributeError, "got bool"),
    ("a NumPy float32", lambda: np.float32(2.0), AttributeError, "got float32"),
    ("a list", lambda: [2.0], AttributeError, "got list"),
    ("a string", lambda: "2.0", AttributeError, "got str"),
    ("zero", lambda: 0.0, ValueError, "new_scale"),
    ("negative", lambda: -1.0, ValueError, "new_scale"),
    ("nan", lambda: float("nan"), ValueError, "new_scale"),
    ("a tensor that rounds to inf", lambda: mg.tensor(1e5, dtype=mg.float16), ValueError, "inf"),
]


@pytest.mark.parametrize(("label", "make", "error", "match"), BAD, ids=[b[0] for b in BAD])
def test_bad_new_scales_are_refused_and_leave_the_scale(label, make, error, match):
    scaler = _scaled()
    with pytest.raises(error, match=match):
        scaler.update(new_scale=make())
    assert scaler.get_scale() == 8.0


def test_a_new_scale_that_is_no_float_is_also_a_type_error():
    with pytest.raises(TypeError, match="should be a float or a 1-element tensor"):
        _scaled().update(new_scale=3)


def test_update_before_scale_or_without_inf_checks_is_an_assertion_error():
    with pytest.raises(AssertionError, match=r"scaler\.scale"):
        GradScaler().update(new_scale=2.0)
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        _scaled().update()
    GradScaler(enabled=False).update(new_scale="anything")  # a disabled scaler does nothing


def test_factor_and_outputs_errors_are_both_the_clear_and_pytorchs_types():
    for kwargs in ({"growth_factor": 1.0}, {"backoff_factor": 1.5}):
        with pytest.raises(ValueError, match="factor") as err:
            GradScaler(**kwargs)
        assert isinstance(err.value, AssertionError)  # PyTorch's constructor asserts
    with pytest.raises(TypeError, match="growth_factor must be a real number"):
        GradScaler(growth_factor="2")
    with pytest.raises(TypeError, match="expects a Tensor") as err:
        GradScaler().scale(3)
    assert isinstance(err.value, ValueError)  # PyTorch's type
