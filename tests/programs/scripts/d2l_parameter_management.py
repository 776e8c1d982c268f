"""d2l.ai's builders' guide chapters: a custom Module (MLP, MySequential keeping children in
self._modules by str(idx), FixedHiddenMLP with a constant rand_weight and a while-loop in
forward), parameter access (net[2].state_dict(), net[2].bias.data, named_parameters over the
whole net, nested blocks via add_module), built-in and custom initialisation (init_normal,
init_constant, xavier on one layer, my_init with uniform_ and *= abs() >= 5), tied parameters
whose gradients add up, lazy layers (nn.LazyLinear) inferring their shapes at the first call,
custom layers (CenteredLayer, MyLinear with nn.Parameter), and file I/O of tensors, lists, dicts
and a model's parameters with torch.save/torch.load and load_state_dict into a clone."""
import os
import tempfile

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


class MySequential(nn.Module):
    def __init__(self, *args):
        super().__init__()
        for idx, module in enumerate(args):
            self._modules[str(idx)] = module

    def forward(self, X):
        for block in self._modules.values():
            X = block(X)
        return X


X = torch.rand(2, 20)
net = MySequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10))
ref = nn.Sequential(nn.Linear(20, 256), nn.ReLU(), nn.Linear(256, 10))
ref.load_state_dict(net.state_dict())
assert torch.equal(net(X), ref(X))
assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "2.weight", "2.bias"]


class FixedHiddenMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.rand_weight = torch.rand((20, 20), requires_grad=False)
        self.linear = nn.Linear(20, 20)

    def forward(self, X):
        X = self.linear(X)
        X = F.relu(torch.mm(X, self.rand_weight) + 1)
        X = self.linear(X)
        while X.abs().sum() > 1:
            X /= 2
        return X.sum()


out = FixedHiddenMLP()(X)
assert out.abs() <= 1 and out.shape == ()
assert len(list(FixedHiddenMLP().parameters())) == 2

# parameter access
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
X = torch.rand(size=(2, 4))
net(X)
print(net[2].state_dict())
assert type(net[2].bias) is nn.parameter.Parameter
assert net[2].weight.grad is None
print(*[(name, param.shape) for name, param in net.named_parameters()])
assert net.state_dict()["2.bias"].data.shape == (1,)


def block1():
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 4), nn.ReLU())


def block2():
    net = nn.Sequential()
    for i in range(4):
        net.add_module(f"block {i}", block1())
    return net


rgnet = nn.Sequential(block2(), nn.Linear(4, 1))
rgnet(X)
print(rgnet)
assert rgnet[0][1][0].bias.data.shape == (8,)
assert "0.block 3.2.weight" in rgnet.state_dict()


def init_normal(m):
    if type(m) == nn.Linear:
        nn.init.normal_(m.weight, mean=0, std=0.01)
        nn.init.zeros_(m.bias)


def init_constant(m):
    if type(m) == nn.Linear:
        nn.init.constant_(m.weight, 1)
        nn.init.zeros_(m.bias)


net.apply(init_constant)
assert torch.equal(net[0].weight.data, torch.ones(8, 4)) and net[0].bias.data.sum() == 0
net.apply(init_normal)
assert net[0].weight.data.abs().max() < 0.06


def init_xavier(m):
    if type(m) == nn.Linear:
        nn.init.xavier_uniform_(m.weight)


def init_42(m):
    if type(m) == nn.Linear:
        nn.init.constant_(m.weight, 42)


net[0].apply(init_xavier)
net[2].apply(init_42)
bound = (6 / (4 + 8)) ** 0.5
assert net[0].weight.data.abs().max() <= bound and net[2].weight.data[0, 0] == 42


def my_init(m):
    if type(m) == nn.Linear:
        print("Init", *[(name, param.shape) for name, param in m.named_parameters()][0])
        nn.init.uniform_(m.weight, -10, 10)
        m.weight.data *= m.weight.data.abs() >= 5


net.apply(my_init)
w = net[0].weight.data
assert torch.all((w == 0) | (w.abs() >= 5))
net[0].weight.data[:] += 1
net[0].weight.data[0, 0] = 42
assert net[0].weight.data[0, 0] == 42

# tied parameters
shared = nn.Linear(8, 8)
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), shared, nn.ReLU(), shared, nn.ReLU(), nn.Linear(8, 1))
net(X)
assert torch.equal(net[2].weight.data[0], net[4].weight.data[0])
net[2].weight.data[0, 0] = 100
assert net[2].weight.data[0, 0] == net[4].weight.data[0, 0] == 100
assert len(list(net.parameters())) == 6
# the shared layer's gradient is the sum of its two uses: check against an untied copy
untied = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
sd = {k: v for k, v in net.state_dict().items()}
untied.load_state_dict(sd)
net(X).sum().backward()
untied(X).sum().backward()
assert torch.allclose(net[2].weight.grad, untied[2].weight.grad + untied[4].weight.grad, atol=1e-5)

# lazy initialisation
net = nn.Sequential(nn.LazyLinear(256), nn.ReLU(), nn.LazyLinear(10))
assert isinstance(net[0].weight, nn.parameter.UninitializedParameter)
net(torch.rand(2, 20))
assert net[0].weight.shape == (256, 20) and net[2].weight.shape == (10, 256)
assert type(net[0]) is nn.Linear


# custom layers
class CenteredLayer(nn.Module):
    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
assert torch.equal(layer(torch.tensor([1.0, 2, 3, 4, 5])), torch.tensor([-2.0, -1, 0, 1, 2]))
net = nn.Sequential(nn.Linear(8, 128), CenteredLayer())
Y = net(torch.rand(4, 8))
assert abs(Y.mean().item()) < 1e-6


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
Xl = torch.rand(2, 5)
assert torch.allclose(linear(Xl), torch.clamp(Xl @ linear.weight + linear.bias, min=0).detach())
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
assert net(torch.rand(2, 64)).shape == (2, 1)

# file I/O
with tempfile.TemporaryDirectory() as d:
    x = torch.arange(4)
    torch.save(x, os.path.join(d, "x-file"))
    x2 = torch.load(os.path.join(d, "x-file"))
    assert torch.equal(x, x2)
    y = torch.zeros(4)
    torch.save([x, y], os.path.join(d, "x-files"))
    x2, y2 = torch.load(os.path.join(d, "x-files"))
    assert torch.equal(x2, x) and torch.equal(y2, y)
    mydict = {"x": x, "y": y}
    torch.save(mydict, os.path.join(d, "mydict"))
    mydict2 = torch.load(os.path.join(d, "mydict"))
    assert torch.equal(mydict2["y"], y)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.hidden = nn.LazyLinear(256)
            self.output = nn.LazyLinear(10)

        def forward(self, x):
            return self.output(F.relu(self.hidden(x)))

    net = MLP()
    X = torch.randn(size=(2, 20))
    Y = net(X)
    torch.save(net.state_dict(), os.path.join(d, "mlp.params"))
    clone = MLP()
    clone.load_state_dict(torch.load(os.path.join(d, "mlp.params")))
    clone.eval()
    Y_clone = clone(X)
    assert torch.equal(Y_clone, Y)
    print("clone matches", Y_clone == Y)
