"""autograd.graph.save_on_cpu: saved values kept in host memory as (device, tensor) and moved
back for backward; the gradients equal the closed forms computed without the hooks."""

from __future__ import annotations

import numpy as np

import minigenesis as mg
from minigenesis.autograd.graph import save_on_cpu, saved_tensors_hooks


def test_save_on_cpu_gives_the_gradients_of_the_closed_form() -> None:
    a = mg.tensor([0.5, -1.0, 2.0], dtype=mg.float64, requires_grad=True)
    b = mg.tensor([1.5, 3.0, -0.5], dtype=mg.float64, requires_grad=True)
    with save_on_cpu():
        loss = (a.exp() * b).sum()
    loss.backward()
    np.testing.assert_allclose(a.grad.numpy(), np.exp(a.detach().numpy()) * b.detach().numpy())
    np.testing.assert_allclose(b.grad.numpy(), np.exp(a.detach().numpy()))


def test_save_on_cpu_packs_the_device_with_a_host_copy_and_unpacks_to_that_device() -> None:
    hooks = save_on_cpu(pin_memory=True)
    assert isinstance(hooks, saved_tensors_hooks)
    pack, unpack = hooks.hooks
    t = mg.arange(4.0)
    device, host = pack(t)
    assert device == t.device and host.device.type == "cpu"
    back = unpack((device, host))
    assert back.device == t.device and mg.equal(back, t)
