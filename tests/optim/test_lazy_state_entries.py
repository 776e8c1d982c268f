"""Which per-parameter state entries an optimizer creates, and when: as in PyTorch, an entry
appears only when the optimizer keeps something for that parameter (SGD without momentum keeps
nothing; a parameter without a gradient gets nothing from the lazily-initialising optimizers)."""

from __future__ import annotations

import numpy as np
import pytest

import minigenesis as mg

torch = pytest.importorskip("torch")


def _trained(lib, name, **options):
    a = lib.tensor(np.full((2, 3), 0.5), requires_grad=True)
    b = lib.tensor(np.ones(3), requires_grad=True)  # never gets a gradient
    opt = getattr(lib.optim, name)([a, b], **options)

    def closure():
        opt.zero_grad()
        loss = (a * a).sum()
        loss.backward()
        return loss

    closure()
    opt.step(closure)
    opt.step(closure)
    return opt, a


def test_sgd_without_momentum_keeps_no_state_entry():
    opt, a = _trained(mg, "SGD", lr=0.1)
    assert len(opt.state) == 0 and opt.state_dict()["state"] == {}
    # the update itself is unchanged: a <- a - lr * 2a, twice
    np.testing.assert_allclose(a.detach().numpy(), np.full((2, 3), 0.5 * 0.8**2))


def test_sgd_with_momentum_keeps_only_the_momentum_buffer_of_parameters_with_gradients():
    opt, a = _trained(mg, "SGD", lr=0.1, momentum=0.9)
    state = opt.state_dict()["state"]
    assert list(state) == [0] and list(state[0]) == ["momentum_buffer"]
    # b1 = g1 = 1; g2 = 2 * 0.4 = 0.8, b2 = 0.9 * 1 + 0.8
    np.testing.assert_allclose(state[0]["momentum_buffer"].numpy(), np.full((2, 3), 1.7))


def test_lbfgs_keeps_its_two_loop_coefficients_al():
    opt, _ = _trained(mg, "LBFGS", lr=0.5, history_size=5)
    al = opt.state_dict()["state"][0]["al"]
    assert len(al) == 5 and isinstance(al[0], float)


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("Adam", dict()),
    ("Adam", dict(amsgrad=True)),
    ("AdamW", dict()),
    ("Adagrad", dict()),
    ("RMSprop", dict()),
    ("RMSprop", dict(momentum=0.9, centered=True)),
    ("Adadelta", dict()),
    ("Adamax", dict()),
    ("NAdam", dict()),
    ("RAdam", dict()),
    ("ASGD", dict()),
    ("Rprop", dict()),
    ("Adafactor", dict()),
    ("LBFGS", dict()),
]


@pytest.mark.parametrize("name,options", CONFIGS)
def test_state_entries_and_their_keys_match_pytorch(name, options):
    ours, _ = _trained(mg, name, **options)
    theirs, _ = _trained(torch, name, **options)
    keys = {k: sorted(v) for k, v in ours.state_dict()["state"].items()}
    assert keys == {k: sorted(v) for k, v in theirs.state_dict()["state"].items()}
