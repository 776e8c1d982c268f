"""A neural ODE without torchdiffeq, as the tutorials that explain it write it: an ODEFunc module
f(t, y), a fixed-step Runge-Kutta 4 integrator in plain Python that keeps every state in a list
and returns torch.stack(ys), backpropagation straight through the solver's steps, fitted to a
spiral trajectory of dy/dt = A y (its true solution from torch.linalg.matrix_exp); RK4's
global error against the matrix exponential is checked to shrink like h^4."""
import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
y0 = torch.tensor([2.0, 0.0])
t = torch.linspace(0.0, 5.0, 51)


def rk4(func, y0, t):
    ys = [y0]
    y = y0
    for t0, t1 in zip(t[:-1], t[1:]):
        h = t1 - t0
        k1 = func(t0, y)
        k2 = func(t0 + h / 2, y + h / 2 * k1)
        k3 = func(t0 + h / 2, y + h / 2 * k2)
        k4 = func(t1, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        ys.append(y)
    return torch.stack(ys)


true_y = torch.stack([torch.linalg.matrix_exp(A * ti) @ y0 for ti in t])
errors = []
for n in (26, 51, 101):
    tt = torch.linspace(0.0, 5.0, n)
    errors.append((rk4(lambda _t, y: y @ A.T, y0, tt)[-1] - true_y[-1]).abs().max().item())
order = torch.log2(torch.tensor(errors[0] / errors[1])).item()
print(f"rk4 errors {errors[0]:.3e} {errors[1]:.3e} {errors[2]:.3e}, observed order {order:.2f}")
assert 3.5 < order < 4.5


class ODEFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 2))
        for m in self.net.modules():
            if isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, mean=0, std=0.1)
                nn.init.constant_(m.bias, val=0)

    def forward(self, t, y):
        return self.net(y)


func = ODEFunc()
optimizer = torch.optim.RMSprop(func.parameters(), lr=1e-2)
first = None
for itr in range(80):
    optimizer.zero_grad()
    idx = torch.arange(0, 21)  # the first two seconds
    pred_y = rk4(func, y0, t[idx])
    loss = torch.mean(torch.abs(pred_y - true_y[idx]))
    loss.backward()
    optimizer.step()
    first = loss.item() if first is None else first
    if itr % 20 == 0:
        print(f"iter {itr:3d} | loss {loss.item():.6f}")
with torch.no_grad():
    full = torch.mean(torch.abs(rk4(func, y0, t[:21]) - true_y[:21])).item()
print(f"first loss {first:.4f} final loss {full:.4f}")
assert full < 0.5 * first
