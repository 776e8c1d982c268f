"""allclose is isclose everywhere, as one bool: tensors of one dtype (PyTorch compares in that
dtype and promotes nothing), broadcast against each other, NaN close only with equal_nan."""

import numpy as np
import pytest

import minigenesis as mg


@pytest.mark.parametrize("form", ["function", "method"])
def test_allclose_is_isclose_everywhere(form):
    def allclose(a, b, **kw):
        return mg.allclose(a, b, **kw) if form == "function" else a.allclose(b, **kw)

    a = mg.tensor([1.0, 2.0, float("nan")])
    b = mg.tensor([1.0 + 5e-6, 2.0, float("nan")])
    assert allclose(a, b) is False  # NaN is close to nothing by default
    assert allclose(a, b, equal_nan=True) is True
    assert allclose(a[:2], b[:2], rtol=0.0, atol=1e-6) is False  # |d| = 5e-6 > atol
    assert allclose(mg.ones(2, 3), mg.ones(1)) is True  # broadcast
    want = np.allclose([1.0, 2.0], [1.0 + 5e-6, 2.0])
    assert allclose(a[:2], b[:2]) is bool(want)


@pytest.mark.parametrize("form", ["function", "method"])
def test_allclose_refuses_other_dtypes_and_numbers(form):
    a = mg.ones(3)

    def allclose(b):
        return mg.allclose(a, b) if form == "function" else a.allclose(b)

    with pytest.raises(RuntimeError, match="float32 did not match float64"):
        allclose(mg.ones(3, dtype=mg.float64))
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        allclose(1.0)
