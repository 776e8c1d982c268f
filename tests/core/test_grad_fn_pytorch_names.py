"""grad_fn names as PyTorch's where one of our ops stands for several of PyTorch's nodes: the
compositions ending in an AnchorGrad (hardtanh, threshold, the shrinks, adaptive pooling,
nll_loss), ELU, and the overloads of sum and mean (with dims: ``SumBackward1``)."""

import pytest

import minigenesis as mg

F = mg.nn.functional


def _x():
    return mg.randn(2, 3, 4, 4, requires_grad=True)


@pytest.mark.parametrize(
    ("fn", "name"),
    [
        (lambda x: F.hardtanh(x), "HardtanhBackward0"),
        (lambda x: F.relu6(x), "HardtanhBackward0"),
        (lambda x: F.threshold(x, 0.1, 0.0), "ThresholdBackward0"),
        (lambda x: F.hardshrink(x), "HardshrinkBackward0"),
        (lambda x: F.softshrink(x), "SoftshrinkBackward0"),
        (lambda x: F.adaptive_avg_pool2d(x, 2), "AdaptiveAvgPool2DBackward0"),
        (lambda x: F.adaptive_max_pool2d(x, 2), "AdaptiveMaxPool2DBackward0"),
        (lambda x: F.nll_loss(x[:, :, 0, 0], mg.tensor([0, 1])), "NllLossBackward0"),
        (lambda x: F.nll_loss(x[0, :, 0, 0], mg.tensor(0)), "NllLossBackward0"),
        (lambda x: F.nll_loss(x, mg.zeros(2, 4, 4, dtype=mg.int64)), "NllLoss2DBackward0"),
        (lambda x: F.elu(x), "EluBackward0"),
        (lambda x: F.selu(x), "EluBackward0"),
    ],
)
def test_grad_fn_carries_pytorchs_node_name(fn, name):
    y = fn(_x())
    assert type(y.grad_fn).__name__ == name
    assert f"grad_fn=<{name}>" in repr(y)


def test_a_named_anchor_is_still_an_anchor_and_keeps_gradients():
    from minigenesis.ops.anchor import AnchorGrad

    x = _x()
    y = F.hardtanh(x)
    assert isinstance(y.grad_fn, AnchorGrad)
    y.sum().backward()
    inside = (x.detach() > -1) & (x.detach() < 1)
    assert mg.equal(x.grad, inside.to(x.dtype))


def test_sum_and_mean_over_dims_are_pytorchs_second_overload():
    from minigenesis.ops.reduce import Mean, Sum

    x = mg.randn(3, 4, requires_grad=True)
    names = [type(y.grad_fn).__name__ for y in (x.sum(), x.sum(0), x.sum((0, 1)), mg.sum(x, 1))]
    assert names == ["SumBackward0", "SumBackward1", "SumBackward1", "SumBackward1"]
    names = [type(y.grad_fn).__name__ for y in (x.mean(), x.mean(1, keepdim=True))]
    assert names == ["MeanBackward0", "MeanBackward1"]
    assert isinstance(x.sum(0).grad_fn, Sum) and isinstance(x.mean(0).grad_fn, Mean)
    assert repr(mg.ones(2, 2, requires_grad=True).sum(1)) == (
        "tensor([2., 2.], grad_fn=<SumBackward1>)"
    )
    x.mean(0).sum().backward()
    assert mg.allclose(x.grad, mg.full((3, 4), 1 / 3))


def test_shape_views_carry_their_own_node_names():
    x = mg.randn(3, 1, 4, requires_grad=True)
    views = {
        "SqueezeBackward0": x.squeeze(),
        "SqueezeBackward1": x.squeeze(1),
        "SqueezeBackward2": x.squeeze((1,)),
        "UnsqueezeBackward0": x.unsqueeze(0),
        "TransposeBackward0": x.transpose(0, 2),
        "TBackward0": x[:, 0].t(),
        "PermuteBackward0": x.permute(2, 0, 1),
        "ViewBackward0": x.view(12),
    }
    assert {name: type(y.grad_fn).__name__ for name, y in views.items()} == {n: n for n in views}
    x.transpose(0, 2).sum().backward()  # still views: the gradient goes back in place
    assert mg.equal(x.grad, mg.ones(3, 1, 4))
    base = mg.zeros(2, 3)
    base.t().add_(mg.arange(6.0).reshape(3, 2))  # writing through the view writes the base
    assert mg.equal(base, mg.arange(6.0).reshape(3, 2).t())


def test_linear_and_matmul_name_the_node_pytorchs_call_leaves():
    x, w, b = mg.randn(2, 3, 4), mg.randn(5, 4, requires_grad=True), mg.randn(5)
    names = [
        type(y.grad_fn).__name__
        for y in (
            F.linear(x[0], w, b),  # addmm
            F.linear(x[0], w),  # mm
            F.linear(x, w, b),  # addmm on the rows, viewed back to 3-D
            F.linear(x, w),
            F.linear(x[0, 0], w),  # mm of one row, squeezed
            F.linear(x[0, 0], w, b),  # ... and the bias added after
            x[0] @ w.T,
            mg.bmm(x, mg.randn(2, 4, 5, requires_grad=True)),
            x @ w.T,  # batched matmul: bmm's result reshaped
        )
    ]
    assert names == [
        "AddmmBackward0",
        "MmBackward0",
        "ViewBackward0",
        "UnsafeViewBackward0",
        "SqueezeBackward4",
        "AddBackward0",
        "MmBackward0",
        "BmmBackward0",
        "UnsafeViewBackward0",
    ]
    (x @ w.T).sum().backward()  # the same op underneath: dL/dw = sum over rows of x
    assert mg.allclose(w.grad, x.reshape(6, 4).sum(0).expand(5, 4), atol=1e-5)


def test_indexing_names_the_last_step_pytorch_takes():
    x = mg.randn(3, 4, 5, requires_grad=True)
    cases = {
        "SelectBackward0": [x[0], x[:, 1], x[0, 1, 2], x[..., 0], x[1:2, 0]],
        "SliceBackward0": [x[1:], x[:, 1:3], x[0, 1:], x[:]],
        "UnsqueezeBackward0": [x[None]],
        "IndexBackward0": [x[[0, 2]], x[x > 0], x[:, [0, 1]]],
    }
    for name, ys in cases.items():
        assert [type(y.grad_fn).__name__ for y in ys] == [name] * len(ys)
    x[0, 1:].sum().backward()
    expected = mg.zeros(3, 4, 5)
    expected[0, 1:] = 1.0
    assert mg.equal(x.grad, expected)
