"""PyTorch's implementation switches (foreach, fused, capturable, differentiable) are accepted by
every optimizer that takes them, are kept in its parameter groups, and change no step; the
combinations PyTorch refuses on construction are refused with its RuntimeError."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

# the switches of each optimizer in PyTorch 2.13's signatures (False/None: their default paths)
FLAGS = {
    "SGD": dict(foreach=False, differentiable=False, fused=None),
    "Adam": dict(foreach=False, capturable=False, differentiable=False, fused=None),
    "AdamW": dict(foreach=False, capturable=False, differentiable=False, fused=None),
    "RMSprop": dict(foreach=False, capturable=False, differentiable=False),
    "Adagrad": dict(foreach=False, differentiable=False, fused=None),
    "Adamax": dict(foreach=False, capturable=False, differentiable=False),
    "NAdam": dict(foreach=False, capturable=False, differentiable=False),
    "RAdam": dict(foreach=False, capturable=False, differentiable=False),
    "Adadelta": dict(foreach=False, capturable=False, differentiable=False),
    "Rprop": dict(foreach=False, capturable=False, differentiable=False),
    "ASGD": dict(foreach=False, capturable=False, differentiable=False),
}


def _three_steps(name: str, **kwargs) -> tuple[np.ndarray, dict]:
    p = mg.tensor(np.linspace(-1.0, 1.0, 5), requires_grad=True)
    opt = getattr(mg.optim, name)([p], lr=0.05, **kwargs)
    for step in range(3):
        p.grad = mg.tensor(np.cos(np.arange(5.0) + step) + 0.5 * p.detach().numpy())
        opt.step()
    return p.detach().numpy(), opt.param_groups[0]


@pytest.mark.parametrize("name", sorted(FLAGS))
def test_implementation_flags_are_kept_in_the_group_and_change_no_step(name: str) -> None:
    flagged, group = _three_steps(name, **FLAGS[name])
    plain, _ = _three_steps(name)
    np.testing.assert_array_equal(flagged, plain)
    assert {k: group[k] for k in FLAGS[name]} == FLAGS[name]


def test_sgd_step_with_the_flags_is_the_closed_form() -> None:
    p = mg.tensor([1.0, -2.0], dtype=mg.float64, requires_grad=True)
    opt = mg.optim.SGD([p], lr=0.5, differentiable=False, foreach=False, fused=False)
    p.grad = mg.tensor([0.2, 0.4], dtype=mg.float64)
    opt.step()
    np.testing.assert_array_equal(p.detach().numpy(), [1.0 - 0.1, -2.0 - 0.2])


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "Adagrad"])
def test_fused_with_foreach_or_differentiable_is_refused_on_construction(name: str) -> None:
    p = mg.zeros(2, requires_grad=True)
    cls = getattr(mg.optim, name)
    with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
        cls([p], lr=0.1, fused=True, foreach=True)
    with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
        cls([p], lr=0.1, fused=True, differentiable=True)
    cls([p], lr=0.1, fused=True)  # fused alone is one more name for the one path here


def test_rmsprop_takes_its_options_in_pytorchs_positional_order() -> None:
    p = mg.zeros(2, requires_grad=True)
    # lr, alpha, eps, weight_decay, momentum, centered, capturable, foreach, maximize, ...
    group = mg.optim.RMSprop([p], 0.01, 0.9, 1e-6, 0.0, 0.5, True, False, None, True).param_groups
    assert group[0]["maximize"] is True and group[0]["capturable"] is False
    assert group[0]["centered"] is True and group[0]["momentum"] == 0.5
