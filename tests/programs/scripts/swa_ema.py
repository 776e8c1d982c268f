"""Weight averaging as people add it to a training loop: an exponential moving average of the
weights kept by hand (lerp_ under no_grad), the same EMA by torch.optim.swa_utils.AveragedModel
with get_ema_multi_avg_fn, and stochastic weight averaging with SWALR and update_bn to
recompute the BatchNorm statistics of the averaged model."""
import copy

import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.optim.swa_utils import SWALR, AveragedModel, get_ema_multi_avg_fn, update_bn
from minigenesis.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(512, 10)
w_true = torch.randn(10, 1)
y = X @ w_true + 0.1 * torch.randn(512, 1)
loader = DataLoader(TensorDataset(X, y), batch_size=64, shuffle=True)

model = nn.Sequential(nn.Linear(10, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 1))
ema_by_hand = copy.deepcopy(model)
for p in ema_by_hand.parameters():
    p.requires_grad_(False)
decay = 0.9
ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(decay))
swa_model = AveragedModel(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
swa_sched = SWALR(opt, swa_lr=0.01, anneal_epochs=2, anneal_strategy="cos")
swa_start = 10

for epoch in range(16):
    model.train()
    for xb, yb in loader:
        loss = F.mse_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        ema_model.update_parameters(model)
        with torch.no_grad():
            for pe, pm in zip(ema_by_hand.parameters(), model.parameters()):
                pe.lerp_(pm, 1 - decay)
    if epoch >= swa_start:
        swa_model.update_parameters(model)
        swa_sched.step()
    else:
        sched.step()

# AveragedModel copies the first parameters as they are, then averages: the hand-written EMA
# started from the initial weights, so compare after the first update made them the same.
for (name, pe), pa in zip(ema_by_hand.named_parameters(), ema_model.module.parameters()):
    diff = (pe - pa).abs().max().item()
    assert diff < 0.05, (name, diff)
assert swa_model.n_averaged.item() == 16 - swa_start
update_bn(loader, swa_model)
swa_model.eval()
model.eval()
with torch.no_grad():
    swa_loss = F.mse_loss(swa_model(X), y).item()
    last_loss = F.mse_loss(model(X), y).item()
print(f"last {last_loss:.4f} swa {swa_loss:.4f} lr {opt.param_groups[0]['lr']:.4f}")
assert abs(opt.param_groups[0]["lr"] - 0.01) < 1e-9
assert swa_loss < 0.1 and last_loss < 0.1
bn = swa_model.module[1]
assert bn.num_batches_tracked.item() > 0 and bn.running_var.min().item() > 0
