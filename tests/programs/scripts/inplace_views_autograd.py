"""In-place updates and views inside a graph, the way research code writes them without a second
thought: masked in-place assignment into an intermediate (h[mask] = 0, h[:, 0] += 1), a
slice of a cloned tensor written with copy_, x.unsqueeze(1).expand(...) feeding an in-place op
on a clone, retain_grad() on a view, in-place activations (relu_, sigmoid_ on a non-leaf),
index_put_ with accumulate=True, a tensor updated with torch.no_grad() between two uses;
every gradient checked against float64 central differences of the same function, and the
version-counter error PyTorch raises when a saved tensor was modified."""
import minigenesis as torch

torch.manual_seed(0)
torch.set_default_dtype(torch.float64)


def f(x, w):
    h = x @ w
    h = h.clone()
    h[h < -0.5] = 0.0
    h[:, 0] += 1.0
    g = torch.zeros(h.shape[0], h.shape[1] + 2)
    g[:, 1:-1].copy_(h)
    e = x[:, :1].expand(-1, 3).clone()
    e.mul_(2.0)
    s = g[:, 1:4] * e
    s = s.relu_() + 0.1 * s
    t = torch.sigmoid(s).clone()
    t.sigmoid_()
    idx = (torch.tensor([0, 2, 0]), torch.tensor([1, 1, 1]))
    t = t.index_put((idx[0], idx[1]), torch.tensor([1.0, 2.0, 3.0]) * t[0, 0], accumulate=True)
    return (t ** 2).sum() + (g ** 3).sum()


x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(3, 3, requires_grad=True)
loss = f(x, w)
loss.backward()
eps = 1e-6
for name, p in (("x", x), ("w", w)):
    num = torch.zeros_like(p)
    with torch.no_grad():
        for i in range(p.numel()):
            base = p.view(-1)[i].item()
            p.view(-1)[i] = base + eps
            up = f(x, w).item()
            p.view(-1)[i] = base - eps
            down = f(x, w).item()
            p.view(-1)[i] = base
            num.view(-1)[i] = (up - down) / (2 * eps)
    err = (num - p.grad).abs().max().item()
    print(f"d loss / d {name}: max error vs central differences {err:.2e}")
    assert err < 1e-6

a = torch.randn(3, 4, requires_grad=True)
b = a * 2
v = b[:, 1:3]
v.retain_grad()
(v ** 2).sum().backward()
assert torch.allclose(v.grad, 2 * v.detach()) and torch.allclose(a.grad[:, 1:3], 8 * a.detach()[:, 1:3])
assert (a.grad[:, 0] == 0).all()

c = torch.randn(5, requires_grad=True)
d = c.exp()
d.add_(1)  # exp saved its output; modifying it makes backward impossible
try:
    d.sum().backward()
    raise AssertionError("backward through a modified saved tensor")
except RuntimeError as err:
    assert "modified by an inplace operation" in str(err)
    print("RuntimeError:", str(err)[:80])

p = torch.randn(3, requires_grad=True)
q = (p * p).sum()
with torch.no_grad():
    p -= 0.1 * p  # an SGD-like update of a leaf between forward and backward
try:
    q.backward()
    raise AssertionError("backward after the leaf changed")
except RuntimeError as err:
    print("leaf updated in place:", "version" in str(err))
