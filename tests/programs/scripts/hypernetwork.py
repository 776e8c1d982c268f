"""A hypernetwork in the style of the HyperNetworks paper's toy experiments: a task embedding
(nn.Embedding) fed to a generator MLP whose output is reshaped into the weights and biases of a
small target network, applied with F.linear per task and with torch.bmm for a whole batch of
tasks (the two paths agree); gradients flow into the hypernetwork only, and it learns a family of
sine waves with a different phase per task."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
N_TASKS, HID = 6, 16
shapes = [(HID, 1), (HID,), (1, HID), (1,)]
n_weights = sum(math.prod(s) for s in shapes)


class HyperNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.task_emb = nn.Embedding(N_TASKS, 8)
        self.gen = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, n_weights))
        with torch.no_grad():
            self.gen[-1].weight.mul_(0.1)

    def weights(self, task):
        flat = self.gen(self.task_emb(task))  # (T, n_weights)
        out, i = [], 0
        for s in shapes:
            n = math.prod(s)
            out.append(flat[:, i:i + n].reshape(-1, *s))
            i += n
        return out

    def forward(self, task, x):  # task: (T,), x: (T, N, 1)
        w1, b1, w2, b2 = self.weights(task)
        h = torch.tanh(torch.bmm(x, w1.transpose(1, 2)) + b1[:, None, :])
        return torch.bmm(h, w2.transpose(1, 2)) + b2[:, None, :]


hyper = HyperNet()
opt = torch.optim.Adam(hyper.parameters(), lr=3e-3)
tasks = torch.arange(N_TASKS)
phase = tasks.float() * (math.pi / N_TASKS)
for step in range(300):
    x = torch.rand(N_TASKS, 32, 1) * 2 * math.pi - math.pi
    y = torch.sin(x + phase[:, None, None])
    loss = F.mse_loss(hyper(tasks, x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 100 == 0:
        print(f"step {step} loss {loss.item():.4f}")

x = torch.linspace(-math.pi, math.pi, 50).view(1, 50, 1).expand(N_TASKS, 50, 1)
with torch.no_grad():
    batched = hyper(tasks, x)
    w1, b1, w2, b2 = hyper.weights(tasks)
    looped = torch.stack([F.linear(torch.tanh(F.linear(x[k], w1[k], b1[k])), w2[k], b2[k]) for k in range(N_TASKS)])
    err = F.mse_loss(batched, torch.sin(x + phase[:, None, None])).item()
print(f"final mse {err:.4f}, bmm vs F.linear {(batched - looped).abs().max().item():.2e}")
assert torch.allclose(batched, looped, atol=1e-5)
assert err < 0.05
