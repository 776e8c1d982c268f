"""Schedules and embedding options checked against their formulas, as people verify them before a
long run: CyclicLR in triangular2 mode with momentum cycling (SGD momentum moving opposite to
the rate), CosineAnnealingWarmRestarts stepped with fractional epochs
(scheduler.step(epoch + i / iters)) and T_mult=2, PolynomialLR; nn.Embedding(max_norm=1.0)
renormalising the looked-up rows in place, EmbeddingBag with mode="max" and with
per_sample_weights in "sum" mode, padding_idx rows that get no gradient; all against NumPy."""
import math

import numpy as np

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
w = torch.zeros(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=4, mode="triangular2",
                                          cycle_momentum=True, base_momentum=0.8, max_momentum=0.9)
lrs, moms = [], []
for it in range(24):
    lrs.append(opt.param_groups[0]["lr"])
    moms.append(opt.param_groups[0]["momentum"])
    opt.step()
    sched.step()
for it, (lr, mom) in enumerate(zip(lrs, moms)):
    cycle = math.floor(1 + it / 8)
    x = abs(it / 4 - 2 * cycle + 1)
    scale = max(0.0, 1 - x) / (2 ** (cycle - 1))
    assert math.isclose(lr, 0.01 + 0.09 * scale, rel_tol=1e-9), (it, lr)
    assert math.isclose(mom, 0.9 - 0.1 * scale, rel_tol=1e-9), (it, mom)
print("cyclic lr", [round(v, 4) for v in lrs[:9]], "momentum", [round(v, 3) for v in moms[:5]])

opt = torch.optim.SGD([w], lr=1.0)
sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.1)
iters = 4
seen = []
for epoch in range(6):
    for i in range(iters):
        sched.step(epoch + i / iters)
        seen.append((epoch + i / iters, opt.param_groups[0]["lr"]))
for t, lr in seen:
    if t < 2:
        t_cur, t_i = t, 2
    else:
        t_cur, t_i = t - 2, 4
    expected = 0.1 + 0.9 * (1 + math.cos(math.pi * t_cur / t_i)) / 2
    assert math.isclose(lr, expected, rel_tol=1e-9), (t, lr, expected)
print("warm restarts", [round(lr, 4) for _, lr in seen[6:10]])

opt = torch.optim.SGD([w], lr=0.5)
sched = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=5, power=2.0)
poly = []
for _ in range(7):
    poly.append(opt.param_groups[0]["lr"])
    opt.step()
    sched.step()
assert np.allclose(poly, [0.5 * (1 - min(t, 5) / 5) ** 2 for t in range(7)])
print("polynomial", [round(v, 4) for v in poly])

emb = nn.Embedding(10, 4, max_norm=1.0)
with torch.no_grad():
    emb.weight.mul_(3)
before = emb.weight.detach().clone()
idx = torch.tensor([1, 3, 3, 7])
out = emb(idx)
norms = before.norm(dim=1)
expected_rows = before / torch.clamp(norms / 1.0, min=1.0)[:, None]
assert torch.allclose(out, expected_rows[idx], atol=1e-6)
assert torch.allclose(emb.weight[[1, 3, 7]].norm(dim=1), torch.ones(3), atol=1e-5)  # renormalised in place
assert torch.equal(emb.weight[0], before[0])  # rows not looked up are untouched
print("max_norm row norms", [round(v, 4) for v in emb.weight.norm(dim=1).tolist()])

bag = nn.EmbeddingBag(10, 3, mode="max")
inp = torch.tensor([1, 2, 4, 5, 4, 3, 2, 9])
offsets = torch.tensor([0, 4])
table = bag.weight.detach().numpy()
ref = np.stack([table[[1, 2, 4, 5]].max(0), table[[4, 3, 2, 9]].max(0)])
assert np.allclose(bag(inp, offsets).detach().numpy(), ref)
bag_sum = nn.EmbeddingBag(10, 3, mode="sum", padding_idx=0)
psw = torch.rand(8)
inp0 = torch.tensor([1, 0, 4, 5, 4, 3, 0, 9])
res = bag_sum(inp0, offsets, per_sample_weights=psw)
t2 = bag_sum.weight.detach().numpy()
wts = psw.numpy() * (inp0.numpy() != 0)
ref = np.stack([(t2[inp0[:4].numpy()] * wts[:4, None]).sum(0), (t2[inp0[4:].numpy()] * wts[4:, None]).sum(0)])
assert np.allclose(res.detach().numpy(), ref, atol=1e-6)
res.sum().backward()
assert torch.equal(bag_sum.weight.grad[0], torch.zeros(3))
print(f"embedding bag sums {res.sum().item():.6f}")
