"""register_module_{parameter,buffer,module}_registration_hook (torch.nn.modules.module):
``hook(module, name, value)`` each time any module registers a parameter, buffer or child, by
a register_* call or an assignment; a returned value is registered instead."""

import minigenesis as mg
from minigenesis import nn
from minigenesis.nn.modules.module import (
    register_module_buffer_registration_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)


def _logging_hooks(log: list) -> list:
    return [
        register_module_parameter_registration_hook(
            lambda m, n, v: log.append(("param", type(m).__name__, n))
        ),
        register_module_buffer_registration_hook(
            lambda m, n, v: log.append(("buffer", type(m).__name__, n, v is None))
        ),
        register_module_module_registration_hook(
            lambda m, n, v: log.append(("module", type(m).__name__, n, v is None))
        ),
    ]


def test_registration_hooks_see_every_parameter_buffer_and_child_in_order() -> None:
    log: list = []
    handles = _logging_hooks(log)
    try:
        model = nn.Sequential(nn.Linear(2, 3, bias=False), nn.BatchNorm1d(3))
        model.register_buffer("empty", None)
        model[1] = None  # a child set to None: the module hook sees None
        model[0].weight = None  # a parameter set to None: no parameter hook (as PyTorch)
    finally:
        for h in handles:
            h.remove()
    assert log == [
        ("param", "Linear", "weight"),  # (bias=False registers None: no hook)
        ("param", "BatchNorm1d", "weight"),
        ("param", "BatchNorm1d", "bias"),
        ("buffer", "BatchNorm1d", "running_mean", False),
        ("buffer", "BatchNorm1d", "running_var", False),
        ("buffer", "BatchNorm1d", "num_batches_tracked", False),
        ("module", "Sequential", "0", False),
        ("module", "Sequential", "1", False),
        ("buffer", "Sequential", "empty", True),
        ("module", "Sequential", "1", True),
    ]


def test_registration_hooks_returning_a_value_register_it_instead() -> None:
    zeros = nn.Parameter(mg.zeros(3, 2))
    stats = mg.full((3,), 7.0)
    child = nn.Identity()
    handles = [
        register_module_parameter_registration_hook(
            lambda m, n, v: zeros if n == "weight" else None
        ),
        register_module_buffer_registration_hook(
            lambda m, n, v: stats if n == "running_mean" else None
        ),
        register_module_module_registration_hook(lambda m, n, v: child),
    ]
    try:
        lin, bn = nn.Linear(2, 3), nn.BatchNorm1d(3)
        holder = nn.Module()
        holder.block = nn.ReLU()
    finally:
        for h in handles:
            h.remove()
    assert lin.weight is zeros and lin.bias is not zeros
    assert bn.running_mean is stats
    assert holder.block is child


def test_registration_hooks_stop_after_remove_and_run_in_registration_order() -> None:
    log: list = []
    first = register_module_parameter_registration_hook(lambda m, n, v: log.append(1))
    second = register_module_parameter_registration_hook(lambda m, n, v: log.append(2))
    try:
        nn.Linear(1, 1)  # weight, bias
        first.remove()
        nn.Linear(1, 1, bias=False)
    finally:
        first.remove()
        second.remove()
    nn.Linear(1, 1)
    assert log == [1, 2, 1, 2, 2]
