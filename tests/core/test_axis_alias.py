"""axis= for dim= and keepdims= for keepdim=: PyTorch's argument parser accepts NumPy's spellings
for every function and method with a dim, and so does minigenesis."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.axis_alias import AXIS_NAMES

X = mg.tensor(np.arange(12.0).reshape(3, 4) % 5)
CALLS = {  # name -> (extra positional arguments before dim, the tensor it runs on)
    "topk": (2,), "kthvalue": (1,), "quantile": (0.5,), "nanquantile": (0.5,),
    "repeat_interleave": (2,), "chunk": (2,), "narrow": None, "select": None,
    "index_select": None, "gather": None, "cat": None, "concat": None, "concatenate": None,
    "stack": None, "squeeze": (), "unsqueeze": (),
}  # fmt: skip


def _call(owner, name: str, spelling: str):
    kw = {spelling: 1}
    if name in ("cat", "concat", "concatenate", "stack"):
        return getattr(mg, name)([X, X], **kw)
    target = (owner,) if owner is not mg else (X,)
    f = getattr(owner if owner is not mg else mg, name)
    args = () if owner is not mg else target
    if name == "narrow":
        return f(*args, **kw, start=0, length=2)
    if name == "select":
        return f(*args, **kw, index=0)
    if name == "index_select":
        return f(*args, **kw, index=mg.tensor([0, 2]))
    if name == "gather":
        return f(*args, **kw, index=mg.tensor([[0], [1], [2]]))
    extra = CALLS.get(name, ())
    x = X > 2 if name in ("all", "any") else X
    if owner is not mg:
        return getattr(x, name)(*extra, **kw)
    return f(x, *extra, **kw)


def _same(a, b) -> None:
    if isinstance(a, tuple | list):
        assert len(a) == len(b)
        for p, q in zip(a, b, strict=True):
            _same(p, q)
    else:
        np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("name", AXIS_NAMES)
def test_tensor_method_takes_axis_for_dim(name: str) -> None:
    if not hasattr(X, name):
        pytest.skip(f"Tensor.{name} is not a method (PyTorch has it only as a function)")
    _same(_call(X, name, "axis"), _call(X, name, "dim"))


@pytest.mark.parametrize("name", AXIS_NAMES)
def test_function_takes_axis_for_dim(name: str) -> None:
    if not hasattr(mg, name):
        pytest.skip(f"mg.{name} is not a function (a Tensor method only)")
    _same(_call(mg, name, "axis"), _call(mg, name, "dim"))


def test_keepdims_is_keepdim_and_both_spellings_at_once_are_refused() -> None:
    assert tuple(X.amax(axis=1, keepdims=True).shape) == (3, 1)
    assert tuple(mg.std(X, axis=0, keepdims=True).shape) == (1, 4)
    with pytest.raises(TypeError, match="alias"):
        X.amax(dim=1, axis=1)
