"""Indexing with a negative slice step: PyTorch has no reversed views and raises; flip is the
way (NumPy's x[::-1] would silently give one)."""

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("index", [np.s_[::-1], np.s_[3:0:-2], np.s_[:, ::-1], np.s_[0, ::-1]])
def test_a_negative_slice_step_raises_as_in_pytorch(index):
    x = mg.arange(12.0).reshape(3, 4)
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[index]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[index] = 0.0
    assert x.tolist() == np.arange(12.0).reshape(3, 4).tolist()  # nothing was written


def test_positive_steps_and_flip_still_work():
    x = mg.arange(6.0)
    assert x[::2].tolist() == [0.0, 2.0, 4.0]
    assert x.flip(0).tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
