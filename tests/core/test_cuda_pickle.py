"""On "cuda": a plain ``pickle`` round trip (and ``copy.copy``) of a CUDA tensor, a Parameter
and a whole module keeps it on its GPU with its values, as PyTorch unpickles a CUDA tensor on
its device. Oracle: the NumPy values pickled. Run on the CuPy stand-in in every test run
(tests/core/test_cuda_standin.py)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn

pytestmark = pytest.mark.gpu

VALUES = np.array([[1.5, -2.0, 3.25], [0.0, 7.0, -0.5]], dtype=np.float32)


@pytest.fixture(autouse=True)
def _needs_cuda() -> None:
    if not mg.cuda.is_available():
        pytest.skip("needs CuPy and a CUDA device (or the CuPy stand-in)")


def test_pickle_round_trip_keeps_a_cuda_tensor_on_cuda() -> None:
    t = mg.tensor(VALUES, device="cuda", requires_grad=True)
    back = pickle.loads(pickle.dumps(t))
    assert back.device == mg.device("cuda:0")
    assert back.requires_grad and back.is_leaf
    np.testing.assert_array_equal(back.cpu().detach().numpy(), VALUES)
    back.detach().add_(1)  # its own memory
    np.testing.assert_array_equal(t.detach().cpu().numpy(), VALUES)


def test_pickle_round_trip_keeps_a_cuda_parameter_a_cuda_parameter() -> None:
    p = nn.Parameter(mg.tensor(VALUES, device="cuda"))
    back = pickle.loads(pickle.dumps(p))
    assert type(back) is nn.Parameter and back.requires_grad
    assert back.device == mg.device("cuda:0")
    np.testing.assert_array_equal(back.detach().cpu().numpy(), VALUES)


def test_a_cuda_module_pickled_whole_comes_back_on_cuda() -> None:
    model = nn.Linear(3, 2).to("cuda")
    model.register_buffer("scale", mg.tensor([2.0], device="cuda"))
    back = pickle.loads(pickle.dumps(model))
    for name, tensor in [*back.named_parameters(), *back.named_buffers()]:
        assert tensor.device == mg.device("cuda:0"), name
    x = mg.tensor(VALUES, device="cuda")
    want = VALUES @ model.weight.detach().cpu().numpy().T + model.bias.detach().cpu().numpy()
    np.testing.assert_allclose(back(x).detach().cpu().numpy(), want, rtol=1e-6)


def test_copy_copy_of_a_cuda_tensor_stays_on_cuda_and_shares_its_memory() -> None:
    t = mg.tensor(VALUES, device="cuda")
    c = copy.copy(t)
    assert c.device == mg.device("cuda:0") and c is not t
    c.add_(1)  # as PyTorch's copy.copy, which shares the storage
    np.testing.assert_array_equal(t.cpu().numpy(), VALUES + 1)
    p = copy.copy(nn.Parameter(mg.tensor(VALUES, device="cuda")))
    assert type(p) is nn.Parameter and p.device == mg.device("cuda:0")
