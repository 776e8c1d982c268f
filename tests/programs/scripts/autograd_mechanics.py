"""Autograd mechanics from the notes and beginner questions: backward twice needs
retain_graph=True (else a RuntimeError), gradients accumulate until zeroed, requires_grad_()
on a leaf, tensor hooks that rescale a gradient and module full-backward hooks, torch.autograd.grad
with create_graph for a WGAN-GP gradient penalty whose gradient matches a float64 finite
difference."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
y = (x ** 3).sum()
y.backward(retain_graph=True)
g1 = x.grad.clone()
y.backward()
assert torch.allclose(x.grad, 2 * g1) and torch.allclose(g1, 3 * x.detach() ** 2)
try:
    y.backward()
    raise AssertionError("a freed graph must not run backward again")
except RuntimeError as err:
    print("second backward:", str(err)[:50])
x.grad.zero_()

w = torch.ones(3)
assert not w.requires_grad
w.requires_grad_()
assert w.is_leaf and w.requires_grad
h = w.register_hook(lambda g: g * 10)
(w * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
assert w.grad.tolist() == [10.0, 20.0, 30.0]
h.remove()
w.grad = None
(w * 2).sum().backward()
assert w.grad.tolist() == [2.0, 2.0, 2.0]

mid = []
a = torch.randn(3, requires_grad=True)
b = a * 2
b.register_hook(lambda g: mid.append(g.clone()))
b.retain_grad()
(b ** 2).sum().backward()
assert torch.allclose(mid[0], 2 * b.detach()) and torch.allclose(b.grad, mid[0])

seen = {}
lin = nn.Linear(3, 2)
lin.register_full_backward_hook(lambda m, gin, gout: seen.update(gout=gout[0].clone(), gin=gin[0]))
inp = torch.randn(5, 3, requires_grad=True)
lin(inp).sum().backward()
assert torch.allclose(seen["gout"], torch.ones(5, 2))
assert torch.allclose(seen["gin"], torch.ones(5, 2) @ lin.weight.detach())

torch.set_default_dtype(torch.float64)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
real = torch.randn(6, 2)
fake = torch.randn(6, 2)
alpha = torch.rand(6, 1)


def penalty():
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = critic(interp)
    grads = torch.autograd.grad(outputs=out, inputs=interp, grad_outputs=torch.ones_like(out), create_graph=True, retain_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


gp = penalty()
gp.backward()
wgt = critic[0].weight
analytic = wgt.grad[1, 0].item()
eps = 1e-6
with torch.no_grad():
    wgt[1, 0] += eps
up = penalty().item()
with torch.no_grad():
    wgt[1, 0] -= 2 * eps
down = penalty().item()
with torch.no_grad():
    wgt[1, 0] += eps
numeric = (up - down) / (2 * eps)
print("gp %.6f  dgp/dw analytic %.8f numeric %.8f" % (gp.item(), analytic, numeric))
assert abs(analytic - numeric) < 1e-6 * max(1.0, abs(numeric))
torch.set_default_dtype(torch.float32)

# two beginner questions: reading .grad of a non-leaf (a warning, None), and inference tensors
import warnings

leaf = torch.ones(2, requires_grad=True)
nonleaf = leaf * 2
nonleaf.sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    assert nonleaf.grad is None
assert any("not a leaf Tensor" in str(w.message) for w in caught)
with torch.inference_mode():
    frozen_batch = torch.ones(2) * 3
assert frozen_batch.is_inference() and not frozen_batch.requires_grad
try:
    leaf * frozen_batch
    raise AssertionError("an inference tensor must not be saved for backward")
except RuntimeError as err:
    assert "Inference tensors cannot be saved for backward" in str(err)
(leaf * frozen_batch.clone()).sum().backward()
assert leaf.grad.tolist() == [5.0, 5.0]
print("non-leaf grad warned; inference tensor refused, its clone accepted")
