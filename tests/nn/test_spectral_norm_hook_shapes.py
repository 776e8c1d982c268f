"""The hook-based spectral_norm on a vector parameter and on a name that is not a parameter,
against the closed form (a vector's only singular value is its length)."""

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn.utils import spectral_norm


def test_spectral_norm_of_a_vector_divides_it_by_its_length():
    lin = nn.Linear(3, 4).double()
    b = lin.bias.detach().numpy().copy()
    spectral_norm(lin, name="bias")  # the vector as a 4 x 1 matrix: sigma = ||b||
    lin(mg.zeros(2, 3, dtype=mg.float64))
    np.testing.assert_allclose(lin.bias.detach().numpy(), b / np.linalg.norm(b), rtol=1e-12)


def test_spectral_norm_of_a_name_that_is_not_a_parameter_is_a_key_error():
    with pytest.raises(KeyError):
        spectral_norm(nn.Linear(3, 4), name="foo")
