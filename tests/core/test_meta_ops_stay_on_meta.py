"""Ops on meta tensors (shape and dtype, no data) give meta tensors of PyTorch's shapes and
dtypes: copies made contiguous, layers, *_like, in-place writes, random fills. None of them may
hand back a CPU tensor of made-up values. The oracle is the shape arithmetic written out here."""

from __future__ import annotations

import pytest

import minigenesis as mg
import minigenesis.nn as nn
import minigenesis.nn.functional as F


def _m(*shape: int, dtype=mg.float32) -> mg.Tensor:
    return mg.empty(*shape, device="meta", dtype=dtype)


CASES = {
    "contiguous of a transpose": (lambda: _m(3, 4).t().contiguous(), (4, 3)),
    "conv2d": (lambda: nn.Conv2d(3, 4, 3, device="meta")(_m(1, 3, 8, 8)), (1, 4, 6, 6)),
    "max_pool2d": (lambda: F.max_pool2d(_m(1, 1, 4, 4), 2), (1, 1, 2, 2)),
    "cross_entropy": (lambda: F.cross_entropy(_m(2, 3), _m(2, dtype=mg.int64)), ()),
    "attention": (
        lambda: F.scaled_dot_product_attention(_m(1, 2, 3, 4), _m(1, 2, 3, 4), _m(1, 2, 3, 4)),
        (1, 2, 3, 4),
    ),
    "index_select": (lambda: _m(2, 3).index_select(1, mg.tensor([0, 0])), (2, 2)),
    "repeat_interleave": (lambda: _m(2, 3).repeat_interleave(2, 0), (4, 3)),
    "einsum": (lambda: mg.einsum("ij,jk->ik", _m(2, 3), _m(3, 4)), (2, 4)),
    "unfold": (lambda: _m(6).unfold(0, 2, 2), (3, 2)),
    "zeros_like": (lambda: mg.zeros_like(_m(2, 3)), (2, 3)),
    "zeros_like of a transpose": (lambda: mg.zeros_like(_m(2, 3).t()), (3, 2)),
    "rand_like": (lambda: mg.rand_like(_m(2, 3)), (2, 3)),
    "randn on meta": (lambda: mg.randn(3, 5, device="meta"), (3, 5)),
    "any": (lambda: _m(4).any(), ()),
    "diag": (lambda: _m(3).diag(), (3, 3)),
    "new_zeros": (lambda: _m(2).new_zeros(3), (3,)),
    "fill_": (lambda: _m(3).fill_(2.0), (3,)),
    "zero_": (lambda: _m(3).zero_(), (3,)),
    "copy_": (lambda: _m(3).copy_(mg.ones(3)), (3,)),
    "normal_": (lambda: _m(2, 3).normal_(), (2, 3)),
    "uniform_": (lambda: _m(2, 3).uniform_(), (2, 3)),
    "add_": (lambda: _m(2).add_(1), (2,)),
    "sigmoid_": (lambda: _m(2).sigmoid_(), (2,)),
    "multihead attention": (
        lambda: nn.MultiheadAttention(4, 2, device="meta")(*[_m(3, 2, 4)] * 3)[0],
        (3, 2, 4),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_op_of_meta_tensors_is_a_meta_tensor_of_the_right_shape(name: str) -> None:
    make, shape = CASES[name]
    out = make()
    assert out.device.type == "meta", name
    assert tuple(out.shape) == shape
    with pytest.raises(NotImplementedError):  # no values to read
        out.tolist()


def test_setitem_into_a_meta_tensor_checks_the_shape_and_keeps_meta() -> None:
    t = _m(3, 4)
    t[0] = 1.0
    t[1:] = mg.ones(2, 4)
    assert t.device.type == "meta"
    with pytest.raises(RuntimeError):
        t[0] = mg.ones(5)  # does not broadcast to (4,)


def test_meta_module_with_custom_init_builds() -> None:
    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.Linear(4, 3)
            nn.init.normal_(self.fc.weight, std=0.02)
            nn.init.zeros_(self.fc.bias)
            self.fc.weight.data.fill_(0.5)

        def forward(self, x: mg.Tensor) -> mg.Tensor:
            return self.fc(x).relu()

    with mg.device("meta"):
        net = Net()
    assert net.fc.weight.device.type == "meta"
    assert net(_m(2, 4)).device.type == "meta"


def test_cpu_ops_still_compute_values_after_meta_tensors_exist() -> None:
    _m(2)  # the meta device has been used in this process
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.t().contiguous().tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert mg.zeros_like(x.t()).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert x.diag().tolist() == [1.0, 4.0]
    y = x.clone()
    y.fill_(7.0)
    assert y.tolist() == [[7.0, 7.0], [7.0, 7.0]]


@pytest.mark.parametrize(
    "op",
    [
        lambda t: t.nonzero(),
        lambda t: t.nonzero(as_tuple=True),
        lambda t: t.unique(),
        lambda t: t.unique_consecutive(),
        lambda t: t.masked_select(t > 0),
        lambda t: mg.ones(4).masked_select(t > 0),
    ],
)
def test_ops_whose_shape_depends_on_the_values_refuse_meta_tensors(op) -> None:
    with pytest.raises(NotImplementedError, match="depends on the values"):
        op(_m(4))


def test_clip_grad_norm_of_meta_gradients_is_a_meta_norm() -> None:
    p = nn.Parameter(_m(3))
    p.grad = _m(3)
    total = nn.utils.clip_grad_norm_([p], 1.0)
    assert total.device.type == "meta" and total.shape == ()
    q = nn.Parameter(mg.ones(3))  # on the CPU the norm is still computed
    q.grad = mg.tensor([3.0, 4.0, 0.0])
    assert nn.utils.clip_grad_norm_([q], 10.0).item() == pytest.approx(5.0)
