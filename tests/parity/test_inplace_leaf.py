"""In-place changes of a leaf that requires grad (or of a view of one): refused in grad mode with
PyTorch's message, allowed under ``no_grad`` (where optimizers and nn.init do their work)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")

# name -> the in-place change, written once for both libraries (``lib`` is mg or torch)
CHANGES = {
    "zero_": lambda x, lib: x.zero_(),
    "fill_": lambda x, lib: x.fill_(3.0),
    "add_": lambda x, lib: x.add_(1.0),
    "mul_": lambda x, lib: x.mul_(2.0),
    "clamp_": lambda x, lib: x.clamp_(0.0, 1.0),
    "masked_fill_": lambda x, lib: x.masked_fill_(x.detach() > 0, 1.0),
    "copy_": lambda x, lib: x.copy_(lib.ones(3)),
    "normal_": lambda x, lib: x.normal_(),
    "uniform_": lambda x, lib: x.uniform_(),
    "setitem": lambda x, lib: x.__setitem__(slice(0, 2), 1.0),
    "view.fill_": lambda x, lib: x.unsqueeze(0).fill_(3.0),
    "view.add_": lambda x, lib: x[1:].add_(1.0),
    "view.setitem": lambda x, lib: x[0:2].__setitem__(0, 1.0),
}
TORCH_MESSAGE = r"a (view of a )?leaf Variable that requires grad is being used in an in-place"


def _message(fn, x) -> str:
    with pytest.raises(RuntimeError) as info:
        fn(x)
    return str(info.value)


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_in_place_change_of_a_leaf_that_requires_grad_raises_like_pytorch(name):
    change = CHANGES[name]
    ours = _message(lambda x: change(x, mg), mg.tensor([1.0, -2.0, 3.0], requires_grad=True))
    theirs = _message(
        lambda x: change(x, torch), torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    )
    assert re.match(TORCH_MESSAGE, ours), ours
    # x[i] = v changes the leaf through a view in PyTorch; here it is written into x directly
    if name != "setitem":
        assert ("view of a leaf" in ours) == ("view of a leaf" in theirs)


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_in_place_change_of_a_leaf_is_allowed_under_no_grad(name):
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    t = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    mg.manual_seed(0)
    with mg.no_grad():
        CHANGES[name](x, mg)
    with torch.no_grad():
        CHANGES[name](t, torch)
    assert x.requires_grad and x.grad_fn is None
    if name not in ("normal_", "uniform_"):  # different generators: only the change counts
        np.testing.assert_allclose(x.detach().numpy(), t.detach().numpy())
    else:
        assert not np.array_equal(x.detach().numpy(), [1.0, -2.0, 3.0])
    # and the leaf still gets its gradient afterwards
    (x * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])


def test_in_place_change_of_a_detached_alias_of_a_leaf_is_allowed():
    x = mg.tensor([1.0, -2.0, 3.0], requires_grad=True)
    x.detach().add_(1.0)
    x.data.mul_(2.0)
    np.testing.assert_allclose(x.detach().numpy(), [4.0, -2.0, 8.0])


def test_in_place_change_of_a_leaf_that_does_not_require_grad_is_allowed():
    x = mg.tensor([1.0, -2.0, 3.0])
    x.unsqueeze(0).fill_(3.0)
    x[0] = 1.0
    x.zero_()
    np.testing.assert_allclose(x.numpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("change", ["add_", "mul_", "clamp_", "setitem"])
def test_an_expanded_tensor_refuses_in_place_arithmetic_as_pytorch(change):
    """An expanded tensor's elements share memory: an in-place change would write one location
    several times. Both libraries refuse, and ours says to clone() first."""
    with pytest.raises(RuntimeError, match="memory location"):
        CHANGES[change](torch.tensor([0.5]).expand(3), torch)
    with pytest.raises(RuntimeError, match=r"read-only.*clone\(\)"):
        CHANGES[change](mg.tensor([0.5]).expand(3), mg)


def test_a_clone_of_an_expanded_tensor_can_be_changed_in_place():
    x = mg.tensor([0.5]).expand(3).clone()
    x.add_(1.0)
    np.testing.assert_array_equal(x.numpy(), np.full(3, 1.5, dtype=np.float32))
