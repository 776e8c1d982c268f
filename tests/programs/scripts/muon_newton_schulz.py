"""Muon (Keller Jordan's optimizer for hidden weight matrices) written as a torch.optim.Optimizer
subclass: Nesterov momentum, then the update orthogonalised by a quintic Newton-Schulz iteration
run in bfloat16, scaled by sqrt(max(1, rows / cols)); the 1-d parameters and the head go to AdamW,
as the speedrun scripts split them. The iteration's output has singular values near one and points
along U V^T of the SVD; the two-optimiser MLP learns a nonlinear classification."""
import math

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)


def zeropower_via_newtonschulz5(G, steps: int):
    assert G.ndim >= 2
    a, b, c = (3.4445, -4.7750, 2.0315)
    X = G.bfloat16()
    if G.size(-2) > G.size(-1):
        X = X.mT
    # Ensure spectral norm is at most 1
    X = X / (X.norm(dim=(-2, -1), keepdim=True) + 1e-7)
    for _ in range(steps):
        A = X @ X.mT
        B = b * A + c * A @ A
        X = a * X + B @ X
    if G.size(-2) > G.size(-1):
        X = X.mT
    return X


class Muon(torch.optim.Optimizer):
    def __init__(self, params, lr=0.02, weight_decay=0, momentum=0.95, nesterov=True, ns_steps=5):
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_steps=ns_steps)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                g = p.grad
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = torch.zeros_like(g)
                buf = state["momentum_buffer"]
                buf.lerp_(g, 1 - group["momentum"])
                g = g.lerp_(buf, group["momentum"]) if group["nesterov"] else buf
                g = zeropower_via_newtonschulz5(g, steps=group["ns_steps"])
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_(g.type_as(p), alpha=-group["lr"] * max(1, p.size(-2) / p.size(-1)) ** 0.5)
        return loss


# the iteration approximately orthogonalises
G = torch.randn(32, 16)
O = zeropower_via_newtonschulz5(G, steps=5).float()
sv = torch.linalg.svdvals(O)
U, S, Vh = torch.linalg.svd(G, full_matrices=False)
polar = U @ Vh
cos = F.cosine_similarity(O.flatten(), polar.flatten(), dim=0)
print(f"singular values in [{sv.min().item():.2f}, {sv.max().item():.2f}], cosine to U V^T {cos.item():.3f}")
assert O.dtype == torch.float32 and zeropower_via_newtonschulz5(G, 5).dtype == torch.bfloat16
assert sv.min() > 0.5 and sv.max() < 1.3 and cos > 0.95

# two spirals
n = 512
t = torch.rand(n) * 3 * math.pi
label = torch.randint(0, 2, (n,))
sign = label.float() * 2 - 1
X = torch.stack([t * torch.cos(t + math.pi * (label == 1).float()),
                 t * torch.sin(t + math.pi * (label == 1).float())], 1) / 10
X = X + 0.02 * torch.randn_like(X)

model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                      nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
hidden_matrices = [p for name, p in model.named_parameters() if p.ndim >= 2 and name not in ("0.weight", "6.weight")]
others = [p for name, p in model.named_parameters() if p.ndim < 2 or name in ("0.weight", "6.weight")]
optimizers = [Muon(hidden_matrices, lr=0.02, momentum=0.95),
              torch.optim.AdamW(others, lr=3e-3, betas=(0.9, 0.95), weight_decay=0.01)]
print("muon tensors:", len(hidden_matrices), " adamw tensors:", len(others))
for step in range(300):
    loss = F.cross_entropy(model(X), label)
    for opt in optimizers:
        opt.zero_grad(set_to_none=True)
    loss.backward()
    for opt in optimizers:
        opt.step()
    if step % 100 == 0:
        print(f"step {step}  loss {loss.item():.4f}")
acc = (model(X).argmax(1) == label).float().mean().item()
print(f"final loss {loss.item():.4f}  accuracy {acc:.3f}")
assert acc > 0.95
state = optimizers[0].state_dict()
assert len(state["state"]) == len(hidden_matrices) and "momentum_buffer" in state["state"][0]
