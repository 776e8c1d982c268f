"""The 60-minute blitz's tour: tensor creation, in-place ops with a trailing underscore, the NumPy
bridge that shares memory both ways, autograd with a vector-Jacobian product, and one SGD step of
a small LeNet-like net that lowers its loss."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim

torch.manual_seed(0)
x = torch.empty(5, 3)
x = torch.zeros(5, 3, dtype=torch.long)
assert x.dtype == torch.long and x.sum().item() == 0
x = torch.tensor([5.5, 3])
x = x.new_ones(5, 3, dtype=torch.double)
x = torch.randn_like(x, dtype=torch.float)
assert x.size() == torch.Size([5, 3]) and x.dtype == torch.float32
y = torch.rand(5, 3)
result = torch.empty(5, 3)
torch.add(x, y, out=result)
assert torch.allclose(result, x + y)
y.add_(x)
assert torch.allclose(result, y)
print(x[:, 1])
z = x.view(15)
w = x.view(-1, 5)
assert z.size() == (15,) and w.size() == (3, 5)
one = torch.randn(1)
assert isinstance(one.item(), float)

a = torch.ones(5)
b = a.numpy()
a.add_(1)
assert (b == 2).all()  # the NumPy array shares the tensor's memory
c = np.ones(5)
d = torch.from_numpy(c)
np.add(c, 1, out=c)
assert d.dtype == torch.float64 and (d == 2).all()
t = torch.as_tensor(np.arange(4.0, dtype=np.float32))
t.mul_(3)
print("bridge:", b, d.tolist(), t.tolist())

x = torch.ones(2, 2, requires_grad=True)
y = x + 2
assert y.grad_fn is not None and x.grad_fn is None
z = y * y * 3
out = z.mean()
out.backward()
assert torch.allclose(x.grad, torch.full((2, 2), 4.5))
x = torch.randn(3, requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
scale = y.detach() / x.detach()
assert torch.allclose(x.grad, v * scale)
with torch.no_grad():
    assert not (x ** 2).requires_grad
assert not x.detach().requires_grad


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 3)
        self.conv2 = nn.Conv2d(6, 16, 3)
        self.fc1 = nn.Linear(16 * 6 * 6, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


net = Net()
params = list(net.parameters())
assert len(params) == 10 and params[0].size() == (6, 1, 3, 3)
inp = torch.randn(1, 1, 32, 32)
out = net(inp)
net.zero_grad()
out.backward(torch.randn(1, 10))
assert net.conv1.bias.grad is not None
target = torch.randn(10).view(1, -1)
criterion = nn.MSELoss()
optimizer = optim.SGD(net.parameters(), lr=0.01)
losses = []
for _ in range(5):
    optimizer.zero_grad()
    loss = criterion(net(inp), target)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
print("losses:", ["%.4f" % v for v in losses])
assert losses[-1] < losses[0]
# the manual update the blitz shows before optim: f.data.sub_(f.grad.data * learning_rate)
before = net.fc3.bias.detach().clone()
loss = criterion(net(inp), target)
net.zero_grad()
loss.backward()
for f in net.parameters():
    f.data.sub_(f.grad.data * 0.01)
assert torch.allclose(net.fc3.bias, before - 0.01 * net.fc3.bias.grad)
