"""float64 -> float16 / bfloat16 conversions agree with PyTorch's (which round through float32)
on values where one rounding and two differ."""

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

VALUES = [1760.5000001, 1761.4999999, -1760.5000001, 65519.99999, 128.5000001, 129.4999999]


@pytest.mark.parametrize("name", ["float16", "bfloat16"])
def test_tensor_and_cast_of_float64_match_torch(name):
    ours, theirs = getattr(mg, name), getattr(torch, name)
    want = torch.tensor(VALUES, dtype=torch.float64).to(theirs).float().numpy()
    assert np.array_equal(mg.tensor(VALUES, dtype=mg.float64).to(ours).float().numpy(), want)
    assert np.array_equal(mg.tensor(VALUES, dtype=ours).float().numpy(), want)
    assert np.array_equal(torch.tensor(VALUES, dtype=theirs).float().numpy(), want)


# (65519.99999 left out: PyTorch's fill of several float16 elements refuses it, overflowing)
@pytest.mark.parametrize("value", [v for v in VALUES if v != 65519.99999])
def test_fill_and_scalar_add_into_float16_match_torch(value):
    want = torch.full((2,), value, dtype=torch.float16).float().numpy()
    assert np.array_equal(mg.full((2,), value, dtype=mg.float16).float().numpy(), want)
    assert np.array_equal(mg.zeros(2, dtype=mg.float16).fill_(value).float().numpy(), want)
    want_add = (torch.ones(2, dtype=torch.float16) + value).float().numpy()
    assert np.array_equal((mg.ones(2, dtype=mg.float16) + value).float().numpy(), want_add)
