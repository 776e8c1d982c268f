"""An in-place op cannot grow self by broadcasting: add_, mul_, copy_, masked_fill_,
masked_scatter_ ... with an operand (or mask) wider than self raise PyTorch's RuntimeError
("output with shape [...] doesn't match the broadcast shape [...]"), and write nothing; shapes
that do not broadcast at all raise PyTorch's size-mismatch RuntimeError. The out-of-place
forms broadcast self and the operand together."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

WIDE = mg.ones(2, 3)
MASK = mg.ones(2, 3, dtype=mg.bool)
GROWS = {
    "add_": lambda a: a.add_(WIDE),
    "add_ alpha": lambda a: a.add_(WIDE, alpha=2),
    "sub_": lambda a: a.sub_(WIDE),
    "mul_": lambda a: a.mul_(WIDE),
    "div_": lambda a: a.div_(WIDE),
    "pow_": lambda a: a.pow_(WIDE),
    "+=": lambda a: a.__iadd__(WIDE),
    "lt_": lambda a: a.lt_(WIDE),
    "clamp_": lambda a: a.clamp_(min=WIDE),
    "addcmul_": lambda a: a.addcmul_(WIDE, WIDE),
    "lerp_": lambda a: a.lerp_(WIDE, 0.5),
    "atan2_": lambda a: a.atan2_(WIDE),
    "copy_": lambda a: a.copy_(WIDE),
    "masked_fill_": lambda a: a.masked_fill_(MASK, 1.0),
    "masked_fill_ tensor value": lambda a: a.masked_fill_(MASK, mg.tensor(1.0)),
}


@pytest.mark.parametrize("label", sorted(GROWS))
def test_an_operand_wider_than_self_is_refused_and_self_is_unchanged(label):
    a = mg.zeros(3)
    with pytest.raises(
        RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"
    ):
        GROWS[label](a)
    np.testing.assert_array_equal(a.numpy(), np.zeros(3))


def test_growth_in_a_size_one_dimension_and_from_zero_dims_is_refused():
    with pytest.raises(
        RuntimeError, match=r"shape \[2, 1\] doesn't match the broadcast shape \[2, 3\]"
    ):
        mg.zeros(2, 1).add_(WIDE)
    with pytest.raises(
        RuntimeError, match=r"shape \[2, 1\] doesn't match the broadcast shape \[2, 3\]"
    ):
        mg.zeros(2, 1).masked_fill_(MASK, 1.0)
    with pytest.raises(RuntimeError, match=r"shape \[\] doesn't match the broadcast shape \[3\]"):
        mg.tensor(0.0).add_(mg.ones(3))
    w = mg.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="broadcast shape"):
        w.clone().mul_(WIDE)  # in a graph too


def test_shapes_that_do_not_broadcast_give_the_size_mismatch_error():
    for fn in (
        lambda: mg.zeros(2).add_(mg.ones(3)),
        lambda: mg.zeros(3).copy_(mg.ones(2)),
        lambda: mg.zeros(2).masked_scatter(mg.ones(3, dtype=mg.bool), mg.ones(6)),
    ):
        with pytest.raises(RuntimeError, match="must match the size of tensor b"):
            fn()


def test_masked_scatter_in_place_needs_a_mask_that_expands_to_self():
    with pytest.raises(RuntimeError, match="expand"):
        mg.zeros(3).masked_scatter_(MASK, mg.ones(6))
    a = mg.zeros(2, 3)
    a.masked_scatter_(mg.tensor([True, False, True]), mg.arange(6.0))
    np.testing.assert_array_equal(a.numpy(), [[0.0, 0.0, 1.0], [2.0, 0.0, 3.0]])


def test_the_out_of_place_forms_broadcast_self_and_the_operand():
    np.testing.assert_array_equal(mg.zeros(3).masked_fill(MASK, 1.0).numpy(), np.ones((2, 3)))
    out = mg.zeros(3).masked_scatter(MASK, mg.arange(6.0))
    np.testing.assert_array_equal(out.numpy(), np.arange(6.0).reshape(2, 3))
    b = mg.zeros(2, 3)
    b.copy_(mg.arange(3.0))  # a narrower source broadcasts into self
    np.testing.assert_array_equal(b.numpy(), np.tile(np.arange(3.0), (2, 1)))
