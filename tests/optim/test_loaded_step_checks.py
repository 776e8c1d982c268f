"""``load_state_dict`` of an optimizer state whose ``step`` no optimizer could have saved.

A step of NaN made the update fail inside NumPy (``cannot convert float NaN to integer``), a
negative one with ``UFuncTypeError`` (a square root of a negative bias correction, in complex),
a string with ``AttributeError``: all at the next ``step()``, naming neither the state nor the
entry. Now the load itself refuses it with a ValueError naming the entry; a good state loads and
steps as before.
"""

from __future__ import annotations

import copy
import re

import numpy as np
import pytest

import minigenesis as mg
from minigenesis import nn, optim


def _trained(kind: str):
    mg.manual_seed(0)
    model = nn.Linear(3, 2)
    opt = getattr(optim, kind)(model.parameters(), lr=0.1)
    model(mg.randn(4, 3)).sum().backward()
    opt.step()
    return model, opt


@pytest.mark.parametrize("kind", ["Adam", "AdamW", "NAdam", "RAdam", "Adamax", "Adagrad"])
@pytest.mark.parametrize("step, message", [
    (float("nan"), "'step' should be a finite count >= 0, got nan"),
    (-5.0, "'step' should be a finite count >= 0, got -5"),
    (float("inf"), "'step' should be a finite count >= 0, got inf"),
    ("3", "'step' should be a number or a one-element tensor, got str"),
    (None, "'step' should be a number or a one-element tensor, got NoneType"),
    (np.zeros((7, 7)), "'step' should be one number, got a tensor of shape (7, 7)"),
], ids=["nan", "negative", "inf", "str", "None", "matrix"])  # fmt: skip
def test_a_step_no_optimizer_saves_is_refused_at_load(kind, step, message):
    _, opt = _trained(kind)
    state = copy.deepcopy(opt.state_dict())
    if "step" not in state["state"][0]:
        pytest.skip(f"{kind} keeps no step")
    state["state"][0]["step"] = mg.tensor(step) if isinstance(step, np.ndarray) else step
    fresh = _trained(kind)[1]
    with pytest.raises(ValueError, match=re.escape(f"loaded state dict's state[0]: {message}")):
        fresh.load_state_dict(state)


@pytest.mark.parametrize("step", [3, 3.0, mg.tensor(3.0), mg.tensor([3.0])])
def test_a_good_step_loads_and_the_next_update_matches_the_original(step):
    model, opt = _trained("Adam")
    state = copy.deepcopy(opt.state_dict())
    state["state"][0]["step"] = step
    state["state"][1]["step"] = step
    twin = copy.deepcopy(model)
    twin_opt = optim.Adam(twin.parameters(), lr=0.1)
    twin_opt.load_state_dict(state)
    for p in opt.state.values():  # the original's step of 1 becomes 3 as well
        p["step"] = mg.tensor(3.0)
    x = mg.randn(4, 3)
    for m, o in ((model, opt), (twin, twin_opt)):
        o.zero_grad()
        m(x).sum().backward()
        o.step()
    np.testing.assert_array_equal(twin.weight.detach().numpy(), model.weight.detach().numpy())
