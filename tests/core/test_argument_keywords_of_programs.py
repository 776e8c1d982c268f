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
