"""A deep equilibrium layer: the forward pass solves z = tanh(W z + U x) by fixed-point iteration
under no_grad, and the backward pass solves the adjoint fixed point through a hook registered on
the output (implicit differentiation); the gradients match differentiating the unrolled
iteration, and the layer trains."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F


class DEQ(nn.Module):
    def __init__(self, d_in, d, tol=1e-10, max_iter=200):
        super().__init__()
        self.U = nn.Linear(d_in, d)
        self.W = nn.Linear(d, d, bias=False)
        with torch.no_grad():
            self.W.weight.mul_(0.5 / torch.linalg.matrix_norm(self.W.weight, ord=2))
        self.tol, self.max_iter = tol, max_iter

    def f(self, z, x):
        return torch.tanh(self.W(z) + self.U(x))

    def solve(self, g, z0):
        z = z0
        for _ in range(self.max_iter):
            z_next = g(z)
            if (z_next - z).norm() < self.tol * (1 + z.norm()):
                return z_next
            z = z_next
        return z

    def forward(self, x):
        with torch.no_grad():
            z = self.solve(lambda z: self.f(z, x), torch.zeros(x.shape[0], self.W.weight.shape[0], dtype=x.dtype))
        z = self.f(z, x)  # one step with grad: attaches the graph to the parameters
        z0 = z.clone().detach().requires_grad_()
        f0 = self.f(z0, x)

        def backward_hook(grad):
            # solve g = grad + J^T g, J = df/dz at the fixed point
            return self.solve(lambda y: torch.autograd.grad(f0, z0, y, retain_graph=True)[0] + grad, grad)

        if z.requires_grad:
            z.register_hook(backward_hook)
        return z

    def unrolled(self, x, steps=200):
        z = torch.zeros(x.shape[0], self.W.weight.shape[0], dtype=x.dtype)
        for _ in range(steps):
            z = self.f(z, x)
        return z


torch.manual_seed(0)
deq = DEQ(3, 8).double()
x = torch.randn(4, 3, dtype=torch.float64)
z = deq(x)
assert torch.allclose(z, deq.f(z, x), atol=1e-9)  # a fixed point
(z ** 2).sum().backward()
implicit = [p.grad.clone() for p in deq.parameters()]
deq.zero_grad()
(deq.unrolled(x) ** 2).sum().backward()
unrolled = [p.grad.clone() for p in deq.parameters()]
err = max((a - b).abs().max().item() for a, b in zip(implicit, unrolled))
print(f"implicit vs unrolled gradient: max difference {err:.2e}")
assert err < 1e-8

model = nn.Sequential(DEQ(2, 16, tol=1e-5, max_iter=60), nn.Linear(16, 2))
pts = torch.randn(256, 2)
labels = (pts.norm(dim=1) > 1.1).long()
opt = torch.optim.Adam(model.parameters(), lr=2e-2)
for step in range(100):
    loss = F.cross_entropy(model(pts), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():  # keep the map a contraction, so the fixed point exists and is unique
        W = model[0].W.weight
        W.mul_(torch.clamp(0.9 / torch.linalg.matrix_norm(W, ord=2), max=1.0))
acc = (model(pts).argmax(1) == labels).float().mean().item()
print(f"circle task: loss {loss.item():.3f} accuracy {acc:.2f}")
assert acc > 0.9
