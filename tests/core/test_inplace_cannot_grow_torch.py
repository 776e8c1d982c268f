"""PyTorch parity: in-place ops whose operand or mask is wider than self raise the exception
PyTorch raises, with its message's opening words."""

from __future__ import annotations

import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

CASES = {
    "add_": lambda T: T.zeros(3).add_(T.ones(2, 3)),
    "mul_": lambda T: T.zeros(3).mul_(T.ones(2, 3)),
    "pow_": lambda T: T.zeros(3).pow_(T.ones(2, 3)),
    "copy_": lambda T: T.zeros(3).copy_(T.ones(2, 3)),
    "copy_ mismatch": lambda T: T.zeros(3).copy_(T.ones(2)),
    "lerp_": lambda T: T.zeros(3).lerp_(T.ones(2, 3), 0.5),
    "addcmul_": lambda T: T.zeros(3).addcmul_(T.ones(2, 3), T.ones(2, 3)),
    "masked_fill_": lambda T: T.zeros(3).masked_fill_(T.ones(2, 3, dtype=T.bool), 1.0),
    "masked_fill_ (2,1)": lambda T: T.zeros(2, 1).masked_fill_(T.ones(2, 3, dtype=T.bool), 1.0),
    "masked_scatter_": lambda T: T.zeros(3).masked_scatter_(T.ones(2, 3, dtype=T.bool), T.ones(6)),
    "add_ 0-d": lambda T: T.tensor(0.0).add_(T.ones(3)),
    "add_ mismatch": lambda T: T.zeros(2).add_(T.ones(3)),
}


@pytest.mark.parametrize("label", sorted(CASES))
def test_inplace_growth_errors_match_pytorch(label):
    with pytest.raises(Exception) as theirs:
        CASES[label](torch)
    with pytest.raises(type(theirs.value)) as ours:
        CASES[label](mg)
    if "expand" not in str(theirs.value):  # (expand's words name PyTorch's C++ types)
        assert str(ours.value).startswith(str(theirs.value)[:40])
