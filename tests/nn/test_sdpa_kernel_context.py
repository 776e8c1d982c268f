"""``nn.attention``'s SDPBackend and sdpa_kernel: PyTorch's numbering and printing, the block's
choice readable and restored, bad arguments refused; attention computes the same numbers under
any choice (one implementation here), equal to the NumPy formula."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
import minigenesis.nn.functional as F
from minigenesis.nn.attention import SDPBackend, sdpa_kernel
from minigenesis.nn.sdpa_backends import enabled_backends


def test_backend_numbers_and_names_are_pytorchs() -> None:
    assert [int(b) for b in SDPBackend] == [-1, 0, 1, 2, 3, 4]
    assert (
        str(SDPBackend.MATH) == "SDPBackend.MATH"
        and repr(SDPBackend.MATH) == "<SDPBackend.MATH: 0>"
    )


def test_the_block_choice_is_kept_and_restored() -> None:
    everything = enabled_backends()
    with sdpa_kernel(SDPBackend.MATH):
        assert enabled_backends() == [SDPBackend.MATH]
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]):
            assert enabled_backends() == [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]
        assert enabled_backends() == [SDPBackend.MATH]
    assert enabled_backends() == everything
    with pytest.raises(AssertionError, match="SDPBackend"):
        with sdpa_kernel(["math"]):
            pass


def test_attention_is_the_formula_under_any_choice() -> None:
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 5, 4)) for _ in range(3))
    s = q @ k.transpose(0, 2, 1) / 2.0
    w = np.exp(s - s.max(-1, keepdims=True))
    expected = (w / w.sum(-1, keepdims=True)) @ v
    for choice in (SDPBackend.MATH, [SDPBackend.EFFICIENT_ATTENTION]):
        with sdpa_kernel(choice):
            out = F.scaled_dot_product_attention(*(mg.tensor(a) for a in (q, k, v)))
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-10)
