"""A program in the PyTorch 0.3/0.4 style that old tutorials and repositories still show, run
unchanged: torch.autograd.Variable wrappers, the legacy constructors torch.Tensor(n, m),
torch.FloatTensor and torch.LongTensor, F.sigmoid and F.tanh, the deprecated nn.init.xavier_uniform
and clip_grad_norm, size_average= and reduce= on the losses, .data for updates and reads,
torch.max(outputs.data, 1) for predictions and .cuda() behind torch.cuda.is_available(). The data
and starting weights come from NumPy, so every printed number matches PyTorch's."""
import warnings

import numpy as np

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.autograd import Variable

warnings.simplefilter("ignore")  # the deprecated forms warn, as they do in PyTorch
use_cuda = torch.cuda.is_available()
rng = np.random.RandomState(1)

# two interleaved half-moons, three classes of a third cluster
n = 300
X_np = rng.randn(n, 2).astype(np.float32)
y_np = (X_np[:, 0] * X_np[:, 1] > 0).astype(np.int64) + (X_np[:, 0] > 1.0)

# 1. logistic regression by hand, weights as Variables updated through .data
w = Variable(torch.Tensor(2, 1), requires_grad=True)
b = Variable(torch.zeros(1), requires_grad=True)
w.data.copy_(torch.from_numpy(rng.randn(2, 1).astype(np.float32) * 0.1))
x = Variable(torch.from_numpy(X_np))
t = Variable(torch.FloatTensor((X_np[:, :1] + X_np[:, 1:] > 0).astype(np.float32)))
for epoch in range(200):
    p = F.sigmoid(x.mm(w) + b)
    loss = F.binary_cross_entropy(p, t, size_average=True)
    loss.backward()
    w.data -= 0.5 * w.grad.data
    b.data -= 0.5 * b.grad.data
    w.grad.data.zero_()
    b.grad.data.zero_()
acc = ((p.data > 0.5).float() == t.data).float().mean()
print("logistic loss %.6f accuracy %.4f" % (loss.data.item(), acc))
assert acc > 0.97
summed = F.binary_cross_entropy(p, t, size_average=False)
assert torch.allclose(summed, F.binary_cross_entropy(p, t, reduction="sum"))


# 2. an MLP classifier the old way
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(2, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 3)
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_uniform(m.weight.data)
                nn.init.constant(m.bias, 0.0)

    def forward(self, x):
        x = F.tanh(self.fc1(x))
        x = F.relu(self.fc2(x))
        return F.log_softmax(self.fc3(x), dim=1)


net = Net()
# starting weights from NumPy, as when porting a checkpoint
state = {k: torch.from_numpy(rng.uniform(-0.3, 0.3, size=tuple(v.size())).astype(np.float32))
         for k, v in net.state_dict().items()}
net.load_state_dict(state)
if use_cuda:
    net.cuda()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
inputs = Variable(torch.from_numpy(X_np))
labels = Variable(torch.LongTensor(y_np))
criterion = nn.NLLLoss(size_average=True)
for epoch in range(150):
    optimizer.zero_grad()
    outputs = net(inputs)
    loss = criterion(outputs, labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm(net.parameters(), 5.0)
    optimizer.step()
    if epoch % 50 == 0:
        print("epoch %d loss %.6f" % (epoch, loss.data.item()))
_, predicted = torch.max(outputs.data, 1)
correct = (predicted == labels.data).sum()
print("final loss %.6f accuracy %d/%d" % (loss.item(), correct, labels.size(0)))
assert correct > 0.9 * n
per_sample = nn.NLLLoss(reduce=False)(outputs, labels)
assert per_sample.shape == (n,) and torch.allclose(per_sample.mean(), loss)
assert type(predicted.data) is type(predicted) and isinstance(inputs, torch.Tensor)
print("weight norm %.6f" % net.fc1.weight.data.norm())
