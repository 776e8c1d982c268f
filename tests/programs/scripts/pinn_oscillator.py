"""A physics-informed network for the damped oscillator u'' + 2 zeta w u' + w^2 u = 0, u(0)=1, u'(0)=0:
the ODE residual comes from torch.autograd.grad(create_graph=True); Adam then LBFGS; checked
against the closed-form solution."""
import math
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)
zeta, w0 = 0.2, 4.0


def exact(t):
    wd = w0 * math.sqrt(1 - zeta**2)
    return torch.exp(-zeta * w0 * t) * (torch.cos(wd * t) + zeta * w0 / wd * torch.sin(wd * t))


class PINN(nn.Module):
    def __init__(self, width=32, depth=3):
        super().__init__()
        layers = [nn.Linear(1, width), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Tanh()]
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, t):
        return self.net(t)


def derivative(y, x):
    return torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0]


model = PINN()
t_col = torch.linspace(0, 1.5, 80).view(-1, 1).requires_grad_(True)
t0 = torch.zeros(1, 1, requires_grad=True)


def loss_fn():
    u = model(t_col)
    du = derivative(u, t_col)
    d2u = derivative(du, t_col)
    residual = d2u + 2 * zeta * w0 * du + w0**2 * u
    u0 = model(t0)
    du0 = derivative(u0, t0)
    return (residual / w0**2).pow(2).mean() + (u0 - 1).pow(2).sum() + du0.pow(2).sum()


adam = torch.optim.Adam(model.parameters(), lr=1e-2)
for it in range(200):
    adam.zero_grad()
    loss = loss_fn()
    loss.backward()
    adam.step()
    if it % 100 == 0:
        print(f"adam {it} loss {loss.item():.3e}")

lbfgs = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=200, line_search_fn="strong_wolfe")


def closure():
    lbfgs.zero_grad()
    loss = loss_fn()
    loss.backward()
    return loss


lbfgs.step(closure)
final = loss_fn().item()
t_test = torch.linspace(0, 1.5, 200).unsqueeze(1)
with torch.no_grad():
    err = (model(t_test) - exact(t_test)).abs().max().item()
print(f"final physics loss {final:.3e}, max error vs closed form {err:.3e}")
assert model(t_test).dtype == torch.float64
assert err < 2e-2
torch.set_default_dtype(torch.float32)
