"""ModuleList.pop(idx=-1), as PyTorch's: removes and returns a module, renumbering the rest."""

import minigenesis as mg
from minigenesis import nn


def test_module_list_pop_removes_the_last_module_by_default_and_renumbers() -> None:
    relu, tanh, elu = nn.ReLU(), nn.Tanh(), nn.ELU()
    layers = nn.ModuleList([relu, tanh, elu])
    assert layers.pop() is elu
    assert layers.pop(0) is relu
    assert [n for n, _ in layers.named_children()] == ["0"]
    assert layers[0] is tanh
    assert mg.is_tensor(layers[0](mg.zeros(1)))
