"""What a recorded op keeps of its inputs and outputs, and what an unrecorded op leaves behind:
in-place changes after a save are caught however the tensor's version counter came to be, and
versions count as PyTorch counts them (``torch.Tensor._version`` is the oracle)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


def _both(values: list[float], requires_grad: bool = False) -> tuple:
    return (
        mg.tensor(values, requires_grad=requires_grad),
        torch.tensor(values, requires_grad=requires_grad),
    )


_MODIFIED = "modified by an in-?place operation"  # (PyTorch writes "inplace")


def _write(lib, w, how: str) -> None:
    with lib.no_grad():
        if how == "add_":
            w.add_(1.0)
        elif how == "view_mul_":
            w[0:2].mul_(2.0)
        elif how == "detach_add_":
            w.detach().add_(1.0)
        else:
            w[1] = 0.0


@pytest.mark.parametrize("how", ["add_", "view_mul_", "detach_add_", "setitem"])
def test_saved_input_changed_after_the_save_is_refused_in_backward(how: str) -> None:
    # w has never been written to, viewed or detached when Mul saves it: the first of those
    # happens after the save, and backward must still see the change, as PyTorch does.
    for lib in (mg, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        w = lib.tensor([4.0, 5.0, 6.0])
        y = (x * w).sum()  # Mul saves w for x's gradient
        _write(lib, w, how)
        assert w._version == 1
        with pytest.raises(RuntimeError, match=_MODIFIED):
            y.backward()


def test_saved_input_read_but_not_written_differentiates() -> None:
    (x, tx), (w, tw) = _both([1.0, -2.0, 3.0], True), _both([0.5, 4.0, -1.0])
    y, ty = (x * w).sum(), (tx * tw).sum()
    v, tv = w[0:2], tw[0:2]  # a view made after the save shares w's counter, no write
    d, td = w.detach(), tw.detach()
    assert (v._version, d._version, w._version) == (tv._version, td._version, tw._version)
    y.backward()
    ty.backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_saved_output_changed_in_place_is_refused_in_backward() -> None:
    for lib in (mg, torch):
        x = lib.tensor([0.1, 0.2], requires_grad=True)
        y = lib.tanh(x * 1)  # Tanh saves its output
        z = y.sum()
        with lib.no_grad():
            y.mul_(2.0)
        with pytest.raises(RuntimeError, match=_MODIFIED):
            z.backward()


def test_versions_count_writes_as_pytorch_counts_them() -> None:
    (a, ta) = _both([1.0, 2.0, 3.0])
    assert a._version == ta._version == 0
    for m, t in ((a, ta),):
        m.add_(1.0)
        t.add_(1.0)
        m[0:2].mul_(3.0)
        t[0:2].mul_(3.0)
        m.detach().sub_(1.0)
        t.detach().sub_(1.0)
    assert a._version == ta._version == 3
    np.testing.assert_allclose(a.numpy(), ta.numpy())


def test_an_unrecorded_call_leaves_nothing_behind() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = mg.tensor([0.5, 0.25, 2.0])
    fields_x, fields_w = dict(vars(x)), dict(vars(w))
    with mg.no_grad():
        y = mg.tanh(x * w - 0.5)
    assert y.grad_fn is None and not y.requires_grad and y.is_leaf
    assert vars(y) == {}  # a plain tensor: no graph fields, no version counter
    assert vars(x) == fields_x and vars(w) == fields_w  # the inputs are untouched
    assert x._version == 0 and w._version == 0
    np.testing.assert_allclose(y.numpy(), np.tanh(np.array([1.0, 2.0, 3.0]) * w.numpy() - 0.5))


def test_a_backward_without_create_graph_records_nothing() -> None:
    x = mg.tensor([0.3, -0.7], requires_grad=True)
    seen = []
    y = mg.sigmoid(mg.tanh(x * 2.0))
    y.register_hook(lambda g: seen.append(g))
    y.sum().backward()
    tx = torch.tensor([0.3, -0.7], requires_grad=True)
    torch.sigmoid(torch.tanh(tx * 2.0)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    assert seen[0].grad_fn is None and not seen[0].requires_grad


def test_constants_saved_by_forward_come_back_as_saved() -> None:
    seen = []

    class Scale(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(None, k, (2, 3), "mode")
            return x * k

        @staticmethod
        def backward(ctx, g):
            seen.append(ctx.saved_tensors)
            _, k, _, _ = ctx.saved_tensors
            return g * k, None

    x = mg.tensor([1.0, -2.0], requires_grad=True)
    Scale.apply(x, 3.0).sum().backward(retain_graph=False)
    assert seen == [(None, 3.0, (2, 3), "mode")]
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
