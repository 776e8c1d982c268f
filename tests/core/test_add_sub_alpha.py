"""add/sub with alpha= compute in the dtype that ``self + other`` has: an integer ``other`` scaled
by a float alpha does not widen a float16/bfloat16 ``self`` to float32."""

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("dtype", [mg.float16, mg.bfloat16, mg.float64])
@pytest.mark.parametrize("other_dtype", [mg.uint8, mg.int64, mg.bool])
def test_float_alpha_on_an_integer_other_keeps_self_dtype(dtype, other_dtype):
    x = mg.tensor([1.0, 2.0], dtype=dtype)
    o = mg.tensor([3, 1], dtype=other_dtype)
    expected = np.array([1.0, 2.0]) + 0.5 * np.array(o.tolist(), dtype=float)
    for out in (x.add(o, alpha=0.5), mg.add(x, o, alpha=0.5), x + 0.5 * o.to(dtype)):
        assert out.dtype == dtype
        np.testing.assert_allclose(out.float().numpy(), expected)
    if other_dtype != mg.bool:  # subtracting a bool tensor is refused, as PyTorch
        assert x.sub(o, alpha=0.5).dtype == dtype
    y = x.clone()
    y.add_(o, alpha=0.5)
    np.testing.assert_allclose(y.float().numpy(), expected)


def test_float_alpha_with_a_zero_dim_float_self_is_that_float_dtype():
    x = mg.tensor(1.0, dtype=mg.float64)
    out = x.add(mg.tensor([1, 2]), alpha=0.5)
    assert out.dtype == mg.float64
    np.testing.assert_allclose(out.numpy(), [1.5, 2.0])


def test_float_alpha_on_integer_tensors_is_refused():
    with pytest.raises(RuntimeError, match="alpha"):
        mg.tensor([1, 2]).add(mg.tensor([1, 2]), alpha=0.5)


@pytest.mark.parametrize(
    "form",
    [
        lambda x, m: x - m,
        lambda x, m: m - x,
        lambda x, m: x.sub(m),
        lambda x, m: x.sub(m, alpha=0.5),
        lambda x, m: mg.sub(x, m, alpha=2),
        lambda x, m: x.clone().sub_(m, alpha=0.5),
        lambda x, m: m.clone().sub_(m),
    ],
)
def test_subtracting_a_bool_tensor_is_a_runtime_error_with_or_without_alpha(form):
    with pytest.raises(RuntimeError, match="bool tensor is not supported"):
        form(mg.tensor([1.0, 2.0]), mg.tensor([True, False]))
