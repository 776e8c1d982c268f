"""An optimizer state whose tensors do not fit their parameter (loaded from another model) is
accepted by load_state_dict, as PyTorch's, and step() raises RuntimeError naming both shapes."""

from __future__ import annotations

import pytest

import minigenesis as mg


@pytest.mark.parametrize(
    "make, key",
    [
        (lambda ps: mg.optim.Adam(ps), "exp_avg"),
        (lambda ps: mg.optim.SGD(ps, lr=0.1, momentum=0.9), "momentum_buffer"),
        (lambda ps: mg.optim.RMSprop(ps), "square_avg"),
    ],
)
def test_step_with_a_loaded_state_of_another_shape_raises_runtime_error(make, key):
    p = mg.nn.Parameter(mg.ones(3))
    opt = make([p])
    p.grad = mg.ones(3)
    opt.step()
    sd = opt.state_dict()
    sd["state"][0][key] = mg.ones(4)
    fresh = make([p])
    fresh.load_state_dict(sd)  # accepted, as in PyTorch
    with pytest.raises(RuntimeError, match=rf"'{key}' of shape \(4,\).*parameter of shape \(3,\)"):
        fresh.step()
