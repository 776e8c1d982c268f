"""Multi-task learning with a shared trunk, a regression head and a classification head, the
losses weighted by learned homoscedastic uncertainty (Kendall et al.:
L = exp(-s1) L1 + exp(-s2) L2 + s1 + s2 with s = log sigma^2 as nn.Parameter), optimizer
parameter groups with their own learning rates, per-task gradient norms on the shared trunk by
torch.autograd.grad(retain_graph=True), freezing the trunk with requires_grad_(False) for
fine-tuning a head, and clip_grad_value_."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
X = torch.randn(600, 8)
y_reg = (X[:, 0] * 3 + X[:, 1]).unsqueeze(1) + 0.5 * torch.randn(600, 1)
y_cls = (X[:, 2] + X[:, 3] > 0).long()


class MultiTask(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.reg_head = nn.Linear(32, 1)
        self.cls_head = nn.Linear(32, 2)
        self.log_vars = nn.Parameter(torch.zeros(2))

    def forward(self, x):
        h = self.trunk(x)
        return self.reg_head(h), self.cls_head(h)


model = MultiTask()
opt = torch.optim.Adam(
    [
        {"params": model.trunk.parameters()},
        {"params": list(model.reg_head.parameters()) + list(model.cls_head.parameters()), "lr": 5e-3},
        {"params": [model.log_vars], "lr": 2e-2},
    ],
    lr=3e-3,
)
assert [g["lr"] for g in opt.param_groups] == [3e-3, 5e-3, 2e-2]
trunk_params = list(model.trunk.parameters())
for step in range(300):
    pred_reg, pred_cls = model(X)
    l_reg, l_cls = F.mse_loss(pred_reg, y_reg), F.cross_entropy(pred_cls, y_cls)
    if step % 100 == 0:
        g_reg = torch.autograd.grad(l_reg, trunk_params, retain_graph=True)
        g_cls = torch.autograd.grad(l_cls, trunk_params, retain_graph=True)
        norms = [torch.norm(torch.stack([g.norm() for g in gs])).item() for gs in (g_reg, g_cls)]
    loss = torch.exp(-model.log_vars[0]) * l_reg + torch.exp(-model.log_vars[1]) * l_cls + model.log_vars.sum()
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_value_(model.parameters(), clip_value=1.0)
    opt.step()

sigma2 = model.log_vars.exp().detach()
print(f"task variances {sigma2.numpy().round(3)}, losses reg {l_reg.item():.3f} cls {l_cls.item():.3f}, last trunk grad norms {[round(n, 3) for n in norms]}")
# at the optimum, exp(s_i) equals the task's loss
assert abs(sigma2[0].item() - l_reg.item()) < 0.25 * l_reg.item()
assert l_reg.item() < 0.45

model.zero_grad()  # set_to_none: the frozen trunk keeps no stale gradients
model.trunk.requires_grad_(False)
assert not any(p.requires_grad for p in model.trunk.parameters())
before = [p.clone() for p in model.trunk.parameters()]
ft = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
for step in range(20):
    loss = F.cross_entropy(model(X)[1], y_cls)
    ft.zero_grad()
    loss.backward()
    ft.step()
assert all(torch.equal(a, b) for a, b in zip(before, model.trunk.parameters()))
assert all(p.grad is None for p in model.trunk.parameters())
with torch.no_grad():
    acc = (model(X)[1].argmax(1) == y_cls).float().mean().item()
print(f"classification accuracy after head fine-tuning {acc:.3f}")
assert acc > 0.9
