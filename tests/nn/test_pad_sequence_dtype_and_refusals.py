"""``pad_sequence`` as PyTorch: the result has the FIRST sequence's dtype (the others are cast to
it, a float truncated into an int64 result, not promoted), and the refusals (no sequences, an
unknown ``padding_side``) are RuntimeErrors."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.nn.utils.rnn import pad_sequence


def test_pad_sequence_takes_the_first_sequences_dtype():
    out = pad_sequence([mg.ones(2, dtype=mg.int64), mg.tensor([2.7, -1.5, 3.9])], padding_value=7)
    assert out.dtype == mg.int64
    # columns are the sequences (batch_first=False); 2.7 -> 2, -1.5 -> -1 (toward zero)
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [1, -1], [7, 3]])
    out = pad_sequence([mg.ones(1, dtype=mg.float16), mg.ones(2, dtype=mg.float64)])
    assert out.dtype == mg.float16


def test_pad_sequence_of_mixed_dtypes_still_passes_gradients():
    a = mg.ones(2, dtype=mg.float32, requires_grad=True)
    b = mg.ones(1, dtype=mg.float64, requires_grad=True)
    out = pad_sequence([a, b], batch_first=True)
    assert out.dtype == mg.float32
    (out * mg.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [1.0, 2.0])
    assert b.grad.dtype == mg.float64
    np.testing.assert_array_equal(b.grad.numpy(), [3.0])


def test_pad_sequence_refusals_are_runtime_errors():
    with pytest.raises(RuntimeError, match="empty list"):
        pad_sequence([])
    with pytest.raises(RuntimeError, match="padding_side"):
        pad_sequence([mg.ones(2)], padding_side="middle")
