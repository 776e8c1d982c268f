"""scaled_dot_product_attention with no keys (S = 0): every output row is the empty weighted sum
of values, zeros of shape (..., L, Ev), in every dtype; the gradients are zeros of the inputs'
shapes (PyTorch 2.13 returns the same; the softmax over an empty row used to raise)."""

import numpy as np
import pytest

import minigenesis as mg

F = mg.nn.functional


@pytest.mark.parametrize("dtype", [mg.float32, mg.float64, mg.float16, mg.bfloat16])
@pytest.mark.parametrize("with_mask", [False, True])
def test_attention_over_zero_keys_is_zeros_with_zero_gradients(dtype, with_mask):
    q = mg.ones(2, 3, 4, dtype=dtype, requires_grad=True)
    k = mg.ones(2, 0, 4, dtype=dtype, requires_grad=True)
    v = mg.ones(2, 0, 5, dtype=dtype, requires_grad=True)
    mask = mg.ones(3, 0, dtype=mg.bool) if with_mask else None
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert out.dtype == dtype and tuple(out.shape) == (2, 3, 5)
    np.testing.assert_array_equal(out.detach().double().numpy(), np.zeros((2, 3, 5)))
    out.sum().backward()
    np.testing.assert_array_equal(q.grad.double().numpy(), np.zeros((2, 3, 4)))
    assert tuple(k.grad.shape) == (2, 0, 4) and tuple(v.grad.shape) == (2, 0, 5)
