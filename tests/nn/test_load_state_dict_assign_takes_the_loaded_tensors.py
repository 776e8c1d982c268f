"""load_state_dict(assign=True), as PyTorch's: the loaded tensors themselves replace the
module's (a parameter becomes a Parameter over the loaded memory and dtype, keeping its old
requires_grad; a buffer becomes the loaded tensor). And a 1-element checkpoint entry loads
into a 0-dim tensor (the layout older checkpoints used)."""

import minigenesis as mg
from minigenesis import nn


def test_assign_makes_parameters_over_the_loaded_tensors() -> None:
    layer = nn.Linear(1, 1)
    layer.bias.requires_grad_(False)
    old = layer.weight
    weight = mg.full((1, 1), 2.0, dtype=mg.float64)
    bias = mg.zeros(1)
    layer.load_state_dict({"weight": weight, "bias": bias}, assign=True)
    assert layer.weight is not old and isinstance(layer.weight, nn.Parameter)
    assert layer.weight.dtype == mg.float64  # the loaded dtype, not the module's
    assert layer.weight.requires_grad and not layer.bias.requires_grad
    weight.fill_(5.0)  # the same memory: the module sees the change
    assert layer.weight.tolist() == [[5.0]]
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]


def test_assign_puts_the_loaded_tensor_itself_in_a_buffer() -> None:
    norm = nn.BatchNorm1d(2)
    state = dict(norm.state_dict())
    mean = mg.full((2,), 3.0)
    state["running_mean"] = mean
    norm.load_state_dict(state, assign=True)
    assert norm.running_mean is mean
    assert "running_mean" in norm.state_dict()


def test_default_load_still_copies_into_the_existing_tensors() -> None:
    layer = nn.Linear(1, 1)
    old = layer.weight
    weight = mg.full((1, 1), 2.0, dtype=mg.float64)
    layer.load_state_dict({"weight": weight, "bias": mg.zeros(1)})
    assert layer.weight is old and layer.weight.dtype == mg.float32
    assert layer.weight.tolist() == [[2.0]]


def test_a_one_element_entry_loads_into_a_zero_dim_buffer() -> None:
    norm = nn.BatchNorm1d(2)
    state = dict(norm.state_dict())
    state["num_batches_tracked"] = mg.tensor([7])
    norm.load_state_dict(state)
    assert norm.num_batches_tracked.shape == () and norm.num_batches_tracked.item() == 7
