"""Ops that return (values, indices) give one named-tuple type per op, as torch.return_types
does: the type's name is the op's, the repr is PyTorch's layout (one field per line), and the
tuples unpack, index by field and pickle."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minigenesis as mg

x = mg.tensor([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]])
CASES = {
    "max": lambda: x.max(dim=1),
    "min": lambda: mg.min(x, 1),
    "sort": lambda: x.sort(),
    "topk": lambda: x.topk(2),
    "kthvalue": lambda: x.kthvalue(2),
    "median": lambda: x.median(dim=1),
    "nanmedian": lambda: x.nanmedian(dim=1),
    "mode": lambda: x.mode(),
    "cummax": lambda: x.cummax(1),
    "cummin": lambda: x.cummin(1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_values_indices_op_returns_its_own_named_tuple(name):
    out = CASES[name]()
    assert type(out) is getattr(mg.return_types, name) and type(out).__name__ == name
    assert out._fields == ("values", "indices") and isinstance(out, tuple)
    values, indices = out
    assert values is out.values and indices is out[1]
    back = pickle.loads(pickle.dumps(out))
    assert type(back) is type(out)
    np.testing.assert_array_equal(back.indices.numpy(), out.indices.numpy())


def test_the_repr_is_pytorchs_layout():
    assert repr(x.max(dim=1)) == (
        "minigenesis.return_types.max(\nvalues=tensor([5., 7.]),\nindices=tensor([1, 0]))"
    )
    assert str(mg.tensor([3, 1, 2]).sort()) == (
        "minigenesis.return_types.sort(\nvalues=tensor([1, 2, 3]),\nindices=tensor([1, 2, 0]))"
    )


def test_zero_dim_inputs_keep_the_op_type():
    s = mg.tensor(2.5)
    assert type(s.max(0)) is mg.return_types.max
    assert type(s.cummin(0)) is mg.return_types.cummin
    assert type(s.median(0)) is mg.return_types.median


def test_the_other_multi_tensor_ops_use_return_types_too():
    a = mg.tensor([[2.0, 1.0], [1.0, 3.0]])
    assert repr(mg.linalg.slogdet(a)).startswith(
        "minigenesis.return_types.linalg_slogdet(\nsign=tensor(1.),\nlogabsdet=tensor(1.6094"
    )
    assert repr(mg.aminmax(mg.tensor([1.0, 4.0]))) == (
        "minigenesis.return_types.aminmax(\nmin=tensor(1.),\nmax=tensor(4.))"
    )
    for out, name in [
        (mg.frexp(mg.tensor([8.0])), "frexp"),
        (mg.histogram(mg.tensor([1.0, 2.0]), bins=2), "histogram"),
        (mg.linalg.qr(a), "linalg_qr"),
        (mg.linalg.eigh(a), "linalg_eigh"),
        (mg.svd(a), "svd"),
        (mg.linalg.inv_ex(a), "linalg_inv_ex"),
    ]:
        assert type(out) is getattr(mg.return_types, name)
        assert type(pickle.loads(pickle.dumps(out))) is type(out)
