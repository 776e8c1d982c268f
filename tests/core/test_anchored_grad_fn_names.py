"""Functions written as compositions ending in an AnchorGrad (hardtanh, threshold, the shrinks,
adaptive pooling, nll_loss) and ELU name their grad_fn as PyTorch's nodes are named."""

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
