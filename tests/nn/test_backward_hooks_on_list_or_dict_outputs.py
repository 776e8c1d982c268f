"""A module with full backward hooks whose forward returns a list or a dict (not a Tensor or a
tuple): as in PyTorch, a warning at the call, the hooks are not called (there is no
grad_output to show them), and the gradients reach the inputs unchanged. (The hooks used to be
called with grad_output None, which broke any hook that read it.)"""

import numpy as np
import pytest

import minigenesis as mg


class ListOut(mg.nn.Module):
    def forward(self, x):
        return [x * 2, x * 3]


class DictOut(mg.nn.Module):
    def forward(self, x):
        return {"a": x * 2}


@pytest.mark.parametrize("with_pre_hook", [False, True])
def test_hooks_are_skipped_for_a_list_output_and_gradients_flow(with_pre_hook):
    m, calls = ListOut(), []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append(len(go)) or (gi[0] * 10,))
    if with_pre_hook:
        m.register_full_backward_pre_hook(lambda mod, go: calls.append("pre"))
    x = mg.tensor([1.0, -2.0, 0.5], requires_grad=True)
    with pytest.warns(UserWarning, match="module output should be a Tensor or a tuple"):
        out = m(x * 1)
    (out[0].sum() + out[1].sum()).backward()
    assert calls == []
    np.testing.assert_array_equal(x.grad.numpy(), [5.0, 5.0, 5.0])


def test_hooks_are_skipped_for_a_dict_output_and_gradients_flow():
    m, calls = DictOut(), []
    m.register_full_backward_hook(lambda mod, gi, go: calls.append(go[0].shape))
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning):
        out = m(x)
    (out["a"] * mg.tensor([3.0, 4.0])).sum().backward()
    assert calls == []
    np.testing.assert_array_equal(x.grad.numpy(), [6.0, 8.0])
