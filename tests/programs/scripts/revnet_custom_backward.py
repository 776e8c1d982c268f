"""A reversible residual block (RevNet) whose autograd.Function stores only its outputs and
reconstructs the inputs in backward (with torch.enable_grad() re-running F and G), so activations
need not be kept; its gradients equal plain autograd's, and torch.autograd.gradcheck passes."""
import minigenesis as torch
import minigenesis.nn as nn


class RevFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x1, x2, f, g, *params):
        ctx.f, ctx.g = f, g
        with torch.no_grad():
            y1 = x1 + f(x2)
            y2 = x2 + g(y1)
        ctx.save_for_backward(y1.detach(), y2.detach())
        return y1, y2

    @staticmethod
    def backward(ctx, dy1, dy2):
        y1, y2 = ctx.saved_tensors
        f, g = ctx.f, ctx.g
        params = [p for m in (f, g) for p in m.parameters()]
        with torch.enable_grad():
            y1 = y1.detach().requires_grad_(True)
            gy1 = g(y1)
            grads = torch.autograd.grad(gy1, [y1] + list(g.parameters()), dy2)
            dx1 = dy1 + grads[0]
            dg = grads[1:]
            with torch.no_grad():
                x2 = y2 - gy1
            x2 = x2.detach().requires_grad_(True)
            fx2 = f(x2)
            grads_f = torch.autograd.grad(fx2, [x2] + list(f.parameters()), dx1)
            dx2 = dy2 + grads_f[0]
        return (dx1, dx2, None, None) + tuple(grads_f[1:]) + tuple(dg)


class RevBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(d, d), nn.Tanh())
        self.g = nn.Sequential(nn.Linear(d, d), nn.Tanh())

    def forward(self, x1, x2):
        return RevFunction.apply(x1, x2, self.f, self.g, *self.f.parameters(), *self.g.parameters())

    def plain(self, x1, x2):
        y1 = x1 + self.f(x2)
        return y1, x2 + self.g(y1)

    def inverse(self, y1, y2):
        x2 = y2 - self.g(y1)
        return y1 - self.f(x2), x2


torch.manual_seed(0)
blocks = nn.ModuleList([RevBlock(6) for _ in range(3)]).double()
x1 = torch.randn(5, 6, dtype=torch.float64, requires_grad=True)
x2 = torch.randn(5, 6, dtype=torch.float64, requires_grad=True)


def run(x1, x2, plain=False):
    for b in blocks:
        x1, x2 = b.plain(x1, x2) if plain else b(x1, x2)
    return x1, x2


y1, y2 = run(x1, x2)
loss = (y1 * y2).sum()
grads_rev = torch.autograd.grad(loss, [x1, x2, *blocks.parameters()])
p1, p2 = run(x1, x2, plain=True)
grads_plain = torch.autograd.grad((p1 * p2).sum(), [x1, x2, *blocks.parameters()])
assert torch.allclose(y1, p1) and torch.allclose(y2, p2)
err = max((a - b).abs().max().item() for a, b in zip(grads_rev, grads_plain))
print(f"max gradient difference reversible vs stored: {err:.2e}")
assert err < 1e-10
with torch.no_grad():
    r1, r2 = y1, y2
    for b in reversed(blocks):
        r1, r2 = b.inverse(r1, r2)
assert torch.allclose(r1, x1) and torch.allclose(r2, x2)
ok = torch.autograd.gradcheck(lambda a, b: run(a, b), (x1, x2))
print("gradcheck", ok)
assert ok

# and it trains
head = nn.Linear(12, 1).double()
opt = torch.optim.Adam([*blocks.parameters(), *head.parameters()], lr=1e-2)
xs = torch.randn(128, 12, dtype=torch.float64)
target = (xs[:, :6] * xs[:, 6:]).sum(1, keepdim=True)
for step in range(200):
    a, b = run(*xs.chunk(2, dim=1))
    loss = nn.functional.mse_loss(head(torch.cat([a, b], 1)), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"final mse {loss.item():.3f} (target variance {target.var().item():.3f})")
assert loss.item() < 0.5 * target.var().item()
