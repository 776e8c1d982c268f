"""Inside vmap a mapped tensor is the whole batch in PyTorch, so Python cannot read one sample's
numbers: .item(), float(), int(), an index, f"{t:.2f}" raise PyTorch's ".item()" RuntimeError,
bool() (``if t > 0:``) its "data-dependent control flow" one, equal/allclose theirs, and
tolist()/numpy() a RuntimeError; tensors that hold no sample (captured, in_dims=None) still
answer. ``as_strided`` counts its offset from each sample's start and refuses a view that
reads outside the sample, as PyTorch's batching rule."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.func import vmap

ITEM = re.escape("vmap: It looks like you're calling .item() on a Tensor")
CONTROL_FLOW = "vmap: It looks like you're attempting to use a Tensor in some data-dependent"


@pytest.mark.parametrize(
    "f",
    [
        lambda t: t * t.sum().item(),
        lambda t: t * float(t[0]),
        lambda t: t * int(t[0]),
        lambda t: mg.ones(5)[int(t[0])],
        lambda t: [1.0, 2.0, 3.0][t[0].long()] * t,
        lambda t: t * len(range(t[0].long())),
        lambda t: t * len(f"{t[0]:.2f}"),
        lambda t: t.clone().add_(1)[0].item() * t,  # an in-place result is still the sample
        lambda t: mg.cat([t, mg.ones(1)]).max().item() * t,
        lambda t: t * t.detach().sum().item(),
        lambda t: t * t.reshape(3, 1)[0].item(),
    ],
)
def test_reading_one_number_of_a_sample_inside_vmap_raises(f):
    with pytest.raises(RuntimeError, match=ITEM):
        vmap(f)(mg.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize(
    "f",
    [
        lambda t: t * 2 if t.sum() > 0 else t,
        lambda t: t if (t == 1).any() else -t,
        lambda t: t if t.isnan().all() else -t,
        lambda t: t * (1 if t[0] == 0 else 2),
        lambda t: t if bool(t.argmax()) else t,
        lambda t: t if not (t > 1) & (t < 3) else t,
    ],
)
def test_python_control_flow_on_a_sample_inside_vmap_raises(f):
    with pytest.raises(RuntimeError, match=CONTROL_FLOW):
        vmap(f)(mg.arange(6.0).reshape(2, 3))


def test_equal_allclose_tolist_numpy_of_a_sample_inside_vmap_raise():
    x = mg.arange(6.0).reshape(2, 3)
    with pytest.raises(RuntimeError, match="aten::equal"):
        vmap(lambda t: t * mg.equal(t, t))(x)
    with pytest.raises(RuntimeError, match="allclose"):
        vmap(lambda t: t * mg.allclose(t, t))(x)
    for f in (lambda t: mg.tensor(t.tolist()), lambda t: mg.from_numpy(t.numpy())):
        with pytest.raises(RuntimeError, match="vmap"):
            vmap(f)(x)


def test_numbers_of_unmapped_tensors_are_read_inside_vmap():
    x, c = mg.arange(6.0).reshape(2, 3), mg.tensor(2.0)
    expected = np.arange(6.0).reshape(2, 3) * 2
    for f in (
        lambda t: t * c.item(),
        lambda t: t * 2 if c > 0 else t,
        lambda t: t * mg.ones(1).mul(2).item(),
        lambda t: t * float(c),
    ):
        np.testing.assert_array_equal(vmap(f)(x).numpy(), expected)
    out = vmap(lambda t, u: t * u.item(), in_dims=(0, None))(x, c)
    np.testing.assert_array_equal(out.numpy(), expected)
    # after vmap the samples' results are ordinary tensors again
    assert vmap(lambda t: t.sum())(x)[0].item() == 3.0


def _per_sample(x: np.ndarray, d: int, view, size, stride, offset):
    """The expected result: each sample b of x along d as its own memory block, as_strided
    with the offset counted from the block's start (NumPy's stride tricks, in elements)."""
    out = []
    for b in range(x.shape[d]):
        sample = view(np.take(x, b, axis=d))
        block = np.ascontiguousarray(sample)  # its own memory, row-major
        start = 0 if offset is None else offset
        flat = block.reshape(-1)
        idx = start + sum(np.arange(n).reshape([-1 if j == k else 1 for j in range(len(size))]) * s
                          for k, (n, s) in enumerate(zip(size, stride)))  # fmt: skip
        out.append(flat[idx])
    return np.stack(out)


@pytest.mark.parametrize("offset", [None, 0, 1, 3])
@pytest.mark.parametrize("size,stride", [((2,), (1,)), ((2, 2), (1, 2)), ((3,), (2,))])
def test_as_strided_inside_vmap_counts_the_offset_from_each_sample(size, stride, offset):
    x = np.arange(60.0).reshape(3, 4, 5)
    out = vmap(lambda t: t.as_strided(size, stride, offset))(mg.tensor(x))
    np.testing.assert_array_equal(out.numpy(), _per_sample(x, 0, lambda s: s, size, stride, offset))


def test_as_strided_inside_vmap_over_an_inner_dim_and_a_view():
    x = np.arange(12.0).reshape(3, 4)
    t = mg.tensor(x)
    # a column sample (stride 4 in memory): the offset counts from the column's first element
    out = vmap(lambda s: s.as_strided((2,), (1,), 1), in_dims=1)(t)
    np.testing.assert_array_equal(out.numpy(), [[1, 2], [2, 3], [3, 4], [4, 5]])
    # a view of the sample: the default offset is the view's own, an explicit one the sample's
    out = vmap(lambda s: s[1:].as_strided((2,), (1,)))(t)
    np.testing.assert_array_equal(out.numpy(), x[:, 1:3])
    out = vmap(lambda s: s[1:].as_strided((2,), (1,), 2))(t)
    np.testing.assert_array_equal(out.numpy(), x[:, 2:4])
    # nested: the shifts of both levels add
    z = np.arange(24.0).reshape(2, 3, 4)
    out = vmap(vmap(lambda s: s.as_strided((2,), (1,), 1)), in_dims=1)(mg.tensor(z))
    np.testing.assert_array_equal(out.numpy(), z.transpose(1, 0, 2)[:, :, 1:3])


@pytest.mark.parametrize(
    "size,stride,offset,reads,own",
    [
        ((5,), (1,), 0, "[0, 5]", "[0, 4]"),
        ((2,), (1,), 3, "[3, 5]", "[0, 4]"),
        ((2,), (1,), -1, "[-1, 1]", "[0, 4]"),
    ],  # fmt: skip
)
def test_as_strided_reading_outside_the_sample_inside_vmap_raises(size, stride, offset, reads, own):
    message = (
        f"can access memory outside of `tensor`. `result` can access some memory in range "
        f"{reads}, but `tensor` can only access some memory in range {own}"
    )
    with pytest.raises(RuntimeError, match=message.replace("[", r"\[").replace("]", r"\]")):
        vmap(lambda t: t.as_strided(size, stride, offset))(mg.arange(12.0).reshape(3, 4))
