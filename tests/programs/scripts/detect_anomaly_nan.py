"""Debugging NaN gradients as forum answers and the autograd docs show it: a loss whose backward
makes a NaN (sqrt at zero times zero, 0 * inf) found with torch.autograd.detect_anomaly() raising a
RuntimeError that names the backward function, set_detect_anomaly(True/False) as a global switch,
torch.isnan / isfinite checks over the gradients, the usual fixes (sqrt(x + eps), torch.where
masking both branches), and gradients equal to the closed form once fixed."""
import warnings

import minigenesis as torch

torch.manual_seed(0)
x = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
# d/dx sqrt(x) is inf at 0; times the zero from the mask it becomes NaN
y = (torch.sqrt(x) * torch.tensor([0.0, 1.0, 1.0])).sum()
y.backward()
print("plain backward:", x.grad.tolist())
assert torch.isnan(x.grad[0]) and torch.isfinite(x.grad[1:]).all()
assert torch.allclose(x.grad[1:], 0.5 / torch.sqrt(x.detach()[1:]))

x.grad = None
caught = None
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # anomaly mode warns that it is on and prints the forward trace
    with torch.autograd.detect_anomaly():
        assert torch.is_anomaly_enabled()
        z = (torch.sqrt(x) * torch.tensor([0.0, 1.0, 1.0])).sum()
        try:
            z.backward()
        except RuntimeError as err:
            caught = str(err)
assert not torch.is_anomaly_enabled()
print("anomaly mode:", caught)
assert caught is not None and "nan" in caught.lower() and "Sqrt" in caught

torch.autograd.set_detect_anomaly(True)
assert torch.is_anomaly_enabled()
torch.autograd.set_detect_anomaly(False)

# a finite backward raises nothing under anomaly mode
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    with torch.autograd.detect_anomaly():
        w = torch.randn(3, requires_grad=True)
        (w.exp() * 2).sum().backward()
assert torch.allclose(w.grad, 2 * w.detach().exp())

# fix 1: an epsilon inside the sqrt
x.grad = None
eps = 1e-12
(torch.sqrt(x + eps) * torch.tensor([0.0, 1.0, 1.0])).sum().backward()
assert torch.isfinite(x.grad).all() and x.grad[0] == 0

# fix 2: torch.where with a safe input in the branch not taken (the "double where" trick)
x.grad = None
mask = x > 0
safe = torch.where(mask, x, torch.ones_like(x))
out = torch.where(mask, torch.sqrt(safe), torch.zeros_like(x)).sum()
out.backward()
print("double where:", x.grad.tolist())
assert torch.isfinite(x.grad).all()
assert torch.allclose(x.grad, torch.tensor([0.0, 0.5, 0.25]))

# a single where still leaks the NaN from the untaken branch
x.grad = None
torch.where(mask, torch.sqrt(x), torch.zeros_like(x)).sum().backward()
assert torch.isnan(x.grad[0])  # 0 / (2 * sqrt(0))
bad = [name for name, g in [("x", x.grad)] if not torch.isfinite(g).all()]
print("non-finite gradients in:", bad)
