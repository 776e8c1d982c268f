"""Two forms PyTorch programs use: ``torch.where(condition)`` with the condition alone (the
indices of its nonzero elements, one tensor per dim, as np.nonzero gives them), and
``torch.random.fork_rng()`` (draws inside the block leave the stream after it unchanged)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    "cond",
    [np.array([0, 3, 0, 1]), np.array([[True, False, True], [False, False, True]]), np.zeros(4)],
)
def test_where_with_the_condition_alone_is_nonzero_as_tuple(cond) -> None:
    got = mg.where(mg.tensor(cond))
    want = np.nonzero(cond)
    assert isinstance(got, tuple) and len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype is mg.int64
        np.testing.assert_array_equal(g.numpy(), w)


def test_where_with_three_arguments_is_unchanged_and_two_are_refused() -> None:
    c = mg.tensor([True, False, True])
    assert mg.where(c, 1.0, 0.0).tolist() == [1.0, 0.0, 1.0]
    assert mg.where(c, input=mg.tensor([1, 2, 3]), other=mg.tensor([7, 8, 9])).tolist() == [1, 8, 3]
    with pytest.raises(TypeError):
        mg.where(c, mg.ones(3))


def test_fork_rng_restores_the_stream_after_the_block() -> None:
    mg.manual_seed(3)
    want = mg.randn(4)
    mg.manual_seed(3)
    with mg.random.fork_rng():
        inside = mg.randn(4)
        mg.rand(10)
    after = mg.randn(4)
    assert mg.equal(after, want) and mg.equal(inside, want)
    mg.manual_seed(3)
    with mg.random.fork_rng(enabled=False):
        mg.randn(4)
    assert not mg.equal(mg.randn(4), want)  # not forked: the stream moved on
