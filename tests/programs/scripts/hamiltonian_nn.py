"""A Hamiltonian neural network (Greydanus et al.): a network H(q, p) whose symplectic gradient
(dH/dp, -dH/dq), taken with torch.autograd.grad(create_graph=True), is trained to match the
observed time derivatives of a mass on a spring; then the learned vector field is integrated with
a leapfrog-like scheme and the true energy q^2/2 + p^2/2 stays near its start, while a plain
network predicting the derivatives directly drifts. Data from NumPy."""
import numpy as np

import minigenesis as torch
import minigenesis.nn as nn

rng = np.random.default_rng(0)
qp = rng.uniform(-1.2, 1.2, (600, 2)).astype(np.float32)
dqp = np.stack([qp[:, 1], -qp[:, 0]], 1) + 0.01 * rng.standard_normal((600, 2)).astype(np.float32)
x, dx = torch.from_numpy(qp), torch.from_numpy(dqp)


class HNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.H = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))

    def forward(self, x):
        with torch.enable_grad():
            if not x.requires_grad:
                x = x.detach().requires_grad_(True)
            H = self.H(x).sum()
            dH = torch.autograd.grad(H, x, create_graph=self.training)[0]
        return torch.stack([dH[:, 1], -dH[:, 0]], dim=1)  # (dq/dt, dp/dt) = (dH/dp, -dH/dq)


torch.manual_seed(0)
hnn = HNN()
baseline = nn.Sequential(nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2))
for name, model in (("hnn", hnn), ("baseline", baseline)):
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(300):
        loss = (model(x) - dx).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("%-8s derivative loss %.5f" % (name, loss.item()))
    assert loss.item() < 5e-3


def rollout(model, state, dt=0.05, steps=400):
    model.eval()
    energies = []
    for _ in range(steps):
        k1 = model(state)
        k2 = model(state + 0.5 * dt * k1)
        state = (state + dt * k2).detach()  # midpoint rule
        energies.append(0.5 * state.pow(2).sum().item())
    return energies


start = torch.tensor([[1.0, 0.0]])
e_hnn, e_base = rollout(hnn, start), rollout(baseline, start)
drift_hnn, drift_base = abs(e_hnn[-1] - 0.5), abs(e_base[-1] - 0.5)
print("energy after 20 time units: hnn %.4f, baseline %.4f (true 0.5)" % (e_hnn[-1], e_base[-1]))
assert drift_hnn < 0.1
