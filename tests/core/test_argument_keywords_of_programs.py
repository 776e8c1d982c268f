"""Keyword spellings that real programs use, accepted as PyTorch accepts them (the results checked
against NumPy)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg


def test_tensor_split_takes_its_first_argument_as_split_size_keyword() -> None:
    a = np.arange(12.0).reshape(2, 6)
    x = mg.tensor(a)
    pieces = x.split(split_size=[2, 4], dim=-1)  # mamba-minimal's spelling
    np.testing.assert_array_equal(pieces[0].numpy(), a[:, :2])
    np.testing.assert_array_equal(pieces[1].numpy(), a[:, 2:])
    halves = x.split(split_size=3, dim=1)
    assert [p.numpy().tolist() for p in halves] == [a[:, :3].tolist(), a[:, 3:].tolist()]
    # torch.split names it split_size_or_sections, the method does not
    assert len(mg.split(x, split_size_or_sections=2, dim=1)) == 3
    with pytest.raises(TypeError):
        x.split(split_size_or_sections=2)


def test_randint_with_high_and_size_as_keywords_draws_from_zero() -> None:
    mg.manual_seed(0)
    x = mg.randint(high=2, size=(2000,))  # TransE-PyTorch's corruption of heads or tails
    assert x.dtype == mg.int64 and x.shape == (2000,)
    assert set(np.unique(x.numpy()).tolist()) == {0, 1}
    y = mg.randint(low=4, high=6, size=(500,))
    assert set(np.unique(y.numpy()).tolist()) == {4, 5}
    z = mg.randint_like(mg.zeros(300), high=3)
    assert z.dtype == mg.float32 and set(np.unique(z.numpy()).tolist()) == {0.0, 1.0, 2.0}


@pytest.mark.parametrize(
    "call",
    [lambda: mg.randint(size=(2,)), lambda: mg.randint(high=3)],
    ids=["no-high", "no-size"],
)
def test_randint_without_high_or_size_raises_type_error(call) -> None:
    with pytest.raises(TypeError):
        call()
