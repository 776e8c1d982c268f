"""The loop over groups and parameters is written once, in Optimizer.step: an optimizer writes
its maths (init_state, update), not a step of its own. LBFGS, which re-evaluates the model within
its step, is the exception ARCHITECTURE.md names ("The speed layer"); SparseAdam takes its sparse
gradient through Optimizer.step too."""

from __future__ import annotations

import minigenesis as mg
from minigenesis.optim.optimizer import Optimizer


def _optimizer_classes() -> list[type]:
    found, todo = [], [Optimizer]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub.__module__.startswith("minigenesis.optim") and sub not in found:
                found.append(sub)
                todo.append(sub)
    return found


def test_only_lbfgs_writes_its_own_step():
    classes = _optimizer_classes()
    assert {mg.optim.SGD, mg.optim.Adam, mg.optim.AdamW, mg.optim.Rprop} <= set(classes)
    own_step = sorted(cls.__name__ for cls in classes if "step" in vars(cls))
    assert own_step == ["LBFGS"], own_step


def test_every_other_optimizer_writes_its_update():
    missing = [
        cls.__name__
        for cls in _optimizer_classes()
        if "step" not in vars(cls) and cls.update is Optimizer.update
    ]
    assert not missing, f"optimizers with neither step nor update: {missing}"
