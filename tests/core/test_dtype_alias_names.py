"""PyTorch's short names of its real dtypes are the same dtype objects under minigenesis:
torch.half, float, double, short, int, long and bool name float16, float32, float64, int16,
int32, int64 and bool; tensors made with the alias carry that dtype (NumPy's itemsize as the
oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

ALIASES = {
    "half": ("float16", np.float16),
    "float": ("float32", np.float32),
    "double": ("float64", np.float64),
    "short": ("int16", np.int16),
    "int": ("int32", np.int32),
    "long": ("int64", np.int64),
}


@pytest.mark.parametrize("alias", sorted(ALIASES))
def test_dtype_alias_is_the_named_dtype(alias: str) -> None:
    name, np_type = ALIASES[alias]
    assert getattr(mg, alias) is getattr(mg, name)
    t = mg.zeros(3, dtype=getattr(mg, alias))
    assert t.dtype is getattr(mg, name)
    assert t.numpy().dtype == np.dtype(np_type)


def test_int_alias_in_casts_and_counts() -> None:
    lengths = mg.full((4,), 7, dtype=mg.int)
    assert lengths.dtype is mg.int32 and lengths.tolist() == [7] * 4
    assert mg.tensor([1.7, -2.2]).to(mg.int).tolist() == [1, -2]  # truncation, as int32 casts
    assert mg.tensor([True, False]).type(mg.int).dtype is mg.int32


def test_the_python_type_float_is_float64_whatever_the_default_dtype() -> None:
    """PyTorch reads ``dtype=float`` as float64 (and ``int`` as int64, ``bool`` as bool) in every
    factory and conversion; only Python float *values* follow the default dtype."""
    x = mg.ones(2)
    made = [
        mg.zeros(2, dtype=float),
        mg.tensor([1], dtype=float),
        mg.arange(3, dtype=float),
        x.to(float),
        x.new_zeros(2, dtype=float),
        mg.full((2,), 1, dtype=float),
    ]
    assert [t.dtype for t in made] == [mg.float64] * len(made)
    assert mg.zeros(2, dtype=int).dtype == mg.int64 and mg.zeros(2, dtype=bool).dtype == mg.bool
    assert np.asarray(mg.tensor([0.1], dtype=float)._data)[0] == 0.1  # not rounded to float32
    assert mg.tensor([0.5]).dtype == mg.float32  # a value still takes the default
