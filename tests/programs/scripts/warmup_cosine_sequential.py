"""A learning-rate schedule as transformer recipes write it: linear warmup by LambdaLR, then
cosine decay by CosineAnnealingLR, glued by SequentialLR; the rates read back with
get_last_lr() against the closed form, the scheduler saved and restored mid-run through
state_dict, and MultiStepLR chained with ExponentialLR by ChainedScheduler."""
import math

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.optim.lr_scheduler import ChainedScheduler, CosineAnnealingLR, ExponentialLR, LambdaLR, MultiStepLR, SequentialLR

torch.manual_seed(0)
base_lr, warmup, total = 0.1, 5, 25
model = nn.Linear(4, 1)


def make(model):
    opt = torch.optim.SGD(model.parameters(), lr=base_lr, momentum=0.9)
    warm = LambdaLR(opt, lr_lambda=lambda s: (s + 1) / warmup)
    cos = CosineAnnealingLR(opt, T_max=total - warmup, eta_min=1e-3)
    return opt, SequentialLR(opt, schedulers=[warm, cos], milestones=[warmup])


def expected(step):
    if step < warmup:
        return base_lr * (step + 1) / warmup
    k = step - warmup
    return 1e-3 + (base_lr - 1e-3) * (1 + math.cos(math.pi * k / (total - warmup))) / 2


X = torch.randn(64, 4)
y = X @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]])
opt, sched = make(model)
lrs = []
with torch.no_grad():
    first_loss = F.mse_loss(model(X), y).item()
for step in range(total):
    lrs.append(sched.get_last_lr()[0])
    loss = F.mse_loss(model(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    if step == 11:
        saved = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}
        lrs_at_save = list(lrs)

for step, lr in enumerate(lrs):
    assert abs(lr - expected(step)) < 1e-7, (step, lr, expected(step))

model2 = nn.Linear(4, 1)
opt2, sched2 = make(model2)
model2.load_state_dict(saved["model"])
opt2.load_state_dict(saved["opt"])
sched2.load_state_dict(saved["sched"])
resumed = list(lrs_at_save)
for step in range(12, total):
    resumed.append(sched2.get_last_lr()[0])
    opt2.step()
    sched2.step()
assert all(abs(a - b) < 1e-9 for a, b in zip(resumed, lrs))

opt3 = torch.optim.Adam(nn.Linear(2, 2).parameters(), lr=1.0)
chain = ChainedScheduler([MultiStepLR(opt3, milestones=[3, 6], gamma=0.1), ExponentialLR(opt3, gamma=0.9)])
chain_lrs = []
for epoch in range(8):
    opt3.step()
    chain.step()
    chain_lrs.append(opt3.param_groups[0]["lr"])
want = [0.9 ** (e + 1) * 0.1 ** sum(e + 1 >= m for m in (3, 6)) for e in range(8)]
print("final loss", round(loss.item(), 5), "chained", [round(v, 6) for v in chain_lrs])
assert all(abs(a - b) < 1e-9 for a, b in zip(chain_lrs, want)), (chain_lrs, want)
assert loss.item() < 0.3 * first_loss
