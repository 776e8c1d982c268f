"""Every public function pickles by name and comes back as itself, as PyTorch's do: a spawned
DataLoader sends its collate_fn to the workers by pickle, and a whole model saved with mg.save
pickles a function it keeps as an attribute (self.act = torch.tanh)."""

import pickle
import types

import pytest

import minigenesis as mg
import minigenesis.linalg
import minigenesis.nn.functional as F
import minigenesis.nn.init
import minigenesis.special

NAMESPACES = {"mg": mg, "F": F, "linalg": mg.linalg, "special": mg.special, "init": mg.nn.init}


def _public_functions(namespace):
    for name in dir(namespace):
        obj = getattr(namespace, name)
        if not name.startswith("_") and isinstance(obj, types.FunctionType):
            yield name, obj


@pytest.mark.parametrize("where", sorted(NAMESPACES))
def test_every_public_function_pickles_by_name_and_comes_back_as_itself(where):
    failed = []
    for name, fn in _public_functions(NAMESPACES[where]):
        try:
            back = pickle.loads(pickle.dumps(fn))
        except (pickle.PicklingError, AttributeError, TypeError) as error:
            failed.append(f"{name}: {error}")
            continue
        if back is not fn:
            failed.append(f"{name}: came back as another object")
    assert not failed, failed[:10]


class Net(mg.nn.Module):  # keeps two functions as attributes, as people write models
    def __init__(self):
        super().__init__()
        self.linear, self.act, self.join = mg.nn.Linear(2, 2), mg.tanh, mg.stack

    def forward(self, x):
        return self.join([self.act(self.linear(x))] * 2)


def test_a_model_keeping_torch_functions_saves_and_loads_whole(tmp_path):
    path = tmp_path / "net.pt"
    net = Net()
    mg.save(net, path)
    back = mg.load(path, weights_only=False)
    assert back.act is mg.tanh and back.join is mg.stack
    x = mg.randn(3, 2)
    assert mg.equal(back(x), net(x))
