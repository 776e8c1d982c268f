"""The normalizations' parameters (weight, bias, running statistics) have the input's dtype, or
float32 for a float16 / bfloat16 input; anything else is PyTorch's RuntimeError, not a quiet
promotion (a float64 weight on a float32 input computed, in float64)."""

import pytest

import minigenesis as mg
import minigenesis.nn.functional as F

x32 = mg.randn(2, 4, 3)
w64 = mg.ones(4, dtype=mg.float64)

CALLS = {
    "layer_norm weight": lambda x, p: F.layer_norm(x, (3,), weight=p[:3]),
    "layer_norm bias": lambda x, p: F.layer_norm(x, (3,), bias=p[:3]),
    "group_norm weight": lambda x, p: F.group_norm(x, 2, weight=p),
    "batch_norm weight": lambda x, p: F.batch_norm(x, None, None, weight=p, training=True),
    "batch_norm running stats": lambda x, p: F.batch_norm(x, p * 0, p, training=False),
    "instance_norm weight": lambda x, p: F.instance_norm(x, weight=p),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_a_float64_parameter_on_a_float32_input_is_refused(name):
    with pytest.raises(RuntimeError, match="mixed dtype: expected .* float .* got double"):
        CALLS[name](x32, w64)


@pytest.mark.parametrize("name", list(CALLS))
def test_float32_parameters_on_a_half_precision_input_compute(name):
    y = CALLS[name](x32.to(mg.bfloat16), w64.float())
    assert y.dtype is mg.bfloat16 and y.shape == x32.shape


@pytest.mark.parametrize("name", list(CALLS))
def test_parameters_in_the_input_dtype_compute(name):
    assert CALLS[name](x32.double(), w64).dtype is mg.float64
