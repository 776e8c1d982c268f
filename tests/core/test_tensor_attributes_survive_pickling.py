"""Attributes a user sets on a tensor (p.no_weight_decay = True, t.tag = "x") survive pickling and
copy.copy of tensors and Parameters, and copy.deepcopy of tensors, as in PyTorch (whose
Parameter.__deepcopy__ copies only the values and requires_grad: so does ours)."""

import copy
import pickle

import numpy as np
import pytest

import minigenesis as mg


def _pickled(obj, protocol=pickle.HIGHEST_PROTOCOL):
    return pickle.loads(pickle.dumps(obj, protocol=protocol))


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_pickled_tensor_and_parameter_keep_user_attributes(protocol):
    t = mg.tensor([1.5, -2.0])
    t.tag = {"scale": 3}
    p = mg.nn.Parameter(mg.tensor([[1.0, 2.0]]))
    p.no_weight_decay = True
    t2, p2 = _pickled([t, p], protocol)
    assert t2.tag == {"scale": 3} and p2.no_weight_decay is True
    assert isinstance(p2, mg.nn.Parameter) and p2.requires_grad
    np.testing.assert_array_equal(t2.numpy(), [1.5, -2.0])
    np.testing.assert_array_equal(p2.detach().numpy(), [[1.0, 2.0]])


def test_copied_and_deepcopied_tensor_keep_user_attributes_and_internal_state_stays_out():
    t = mg.tensor([1.0, 2.0], requires_grad=True)
    t.tag = [1, 2]
    c = copy.deepcopy(t)
    assert c.tag == [1, 2] and c.tag is not t.tag  # deep: its own list
    assert copy.copy(t).tag == [1, 2]
    assert c.requires_grad and c.is_leaf and c.grad_fn is None


def test_deepcopied_parameter_drops_user_attributes_as_pytorch():
    p = mg.nn.Parameter(mg.ones(2))
    p.no_weight_decay = True
    assert not hasattr(copy.deepcopy(p), "no_weight_decay")
