"""A model EMA in the style of timm's ModelEmaV3: a deepcopy of the model in eval mode with
requires_grad off, a decay warmed up as min(decay, (1 + step) / (10 + step)), the parameters
averaged with torch._foreach_lerp_ and the buffers (BatchNorm statistics) copied, all under
torch.no_grad(); checked against the same average written with _foreach_mul_ / _foreach_add_
and against a per-tensor loop, then the EMA model evaluated beside the raw one."""
import copy

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F


class ModelEma(nn.Module):
    def __init__(self, model, decay=0.99, use_warmup=True):
        super().__init__()
        self.module = copy.deepcopy(model)
        self.module.eval()
        self.module.requires_grad_(False)
        self.decay, self.use_warmup = decay, use_warmup

    def get_decay(self, step):
        if not self.use_warmup:
            return self.decay
        return min(self.decay, (1 + step) / (10 + step))

    @torch.no_grad()
    def update(self, model, step):
        decay = self.get_decay(step)
        ema_params = tuple(self.module.parameters())
        model_params = tuple(model.parameters())
        torch._foreach_lerp_(ema_params, model_params, weight=1.0 - decay)
        for ema_b, model_b in zip(self.module.buffers(), model.buffers()):
            ema_b.copy_(model_b)

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 3))
ema = ModelEma(model)
shadow = [p.detach().clone() for p in model.parameters()]  # the same EMA by _foreach_mul_/add_
loop = [p.detach().clone() for p in model.parameters()]  # and by a plain loop
W = torch.randn(6, 3)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
for step in range(200):
    x = torch.randn(64, 6)
    y = (x @ W).argmax(1)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema.update(model, step)
    d = ema.get_decay(step)
    with torch.no_grad():
        params = [p.detach() for p in model.parameters()]
        torch._foreach_mul_(shadow, d)
        torch._foreach_add_(shadow, params, alpha=1 - d)
        for s, p in zip(loop, params):
            s.mul_(d).add_(p, alpha=1 - d)

for e, s, l in zip(ema.module.parameters(), shadow, loop):
    assert torch.allclose(e, s, atol=1e-5) and torch.allclose(s, l, atol=1e-6)
assert all(not p.requires_grad for p in ema.module.parameters())
assert torch.equal(ema.module[1].running_mean, model[1].running_mean)
norms = torch._foreach_norm([p.detach() - e for p, e in zip(model.parameters(), ema.module.parameters())])
model.eval()
with torch.no_grad():
    x = torch.randn(1000, 6)
    y = (x @ W).argmax(1)
    acc_model = (model(x).argmax(1) == y).float().mean().item()
    acc_ema = (ema(x).argmax(1) == y).float().mean().item()
print(f"decay now {ema.get_decay(199):.3f}; accuracy model {acc_model:.3f} EMA {acc_ema:.3f}; |model - EMA| per tensor {[round(n.item(), 3) for n in norms]}")
assert ema.get_decay(199) == 200 / 209 and ema.get_decay(0) == 0.1 and ema.get_decay(5000) == 0.99
assert acc_ema > 0.9 and acc_model > 0.9
assert max(n.item() for n in norms) > 0  # the average lags the weights
