"""Mixed precision the pre-autocast way (apex's "O2" and the NVIDIA mixed-precision guide): the
model cast with .half(), an fp32 master copy of the parameters that the optimizer updates,
dynamic loss scaling by hand (scale the loss, unscale the fp16 gradients into the master
copy, skip the step and halve the scale on inf/nan found with torch.isfinite, double it after a
run of good steps), master weights copied back with copy_; float16 overflow (65504), underflow
and rounding checked against NumPy's float16, and the half model tracking an fp32 twin."""
import numpy as np

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
assert torch.tensor(60000.0, dtype=torch.float16) * 2 == float("inf")
assert torch.finfo(torch.float16).max == 65504.0 and torch.finfo(torch.float16).eps == 2 ** -10
small = torch.tensor([1e-8, 3e-5, 1.0001, 2049.0], dtype=torch.float32)
assert np.array_equal(small.half().float().numpy(), small.numpy().astype(np.float16).astype(np.float32))

X = torch.randn(256, 16)
y = (X[:, :4].sum(1, keepdim=True) > 0).float()
torch.manual_seed(1)
ref = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
model = nn.Sequential(nn.Linear(16, 32), nn.Tanh(), nn.Linear(32, 1))
model.load_state_dict(ref.state_dict())
model.half()
assert all(p.dtype == torch.float16 for p in model.parameters())
master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
opt = torch.optim.SGD(master, lr=0.5, momentum=0.9)
ref_opt = torch.optim.SGD(ref.parameters(), lr=0.5, momentum=0.9)
loss_fn = nn.BCEWithLogitsLoss()
scale, good_steps, skipped = 2.0 ** 24, 0, 0
for step in range(60):
    out = model(X.half())
    loss = loss_fn(out.float(), y)
    model.zero_grad(set_to_none=True)
    (loss * scale).backward()
    grads = [p.grad.float() / scale for p in model.parameters()]
    if not all(torch.isfinite(g).all() for g in grads):
        scale /= 2
        good_steps = 0
        skipped += 1
        continue
    for m, g in zip(master, grads):
        m.grad = g
    opt.step()
    with torch.no_grad():
        for p, m in zip(model.parameters(), master):
            p.copy_(m)
    good_steps += 1
    if good_steps == 20:
        scale *= 2
        good_steps = 0
    ref_loss = loss_fn(ref(X), y)
    ref_opt.zero_grad()
    ref_loss.backward()
    ref_opt.step()
    if step % 15 == 0:
        print(f"step {step} loss fp16 {loss.item():.4f} fp32 {ref_loss.item():.4f} scale {scale:.0f}")
print(f"skipped {skipped} steps, final scale {scale:.0f}, loss {loss.item():.4f} vs {ref_loss.item():.4f}")
assert skipped >= 5 and scale < 2.0 ** 24
assert loss.item() < 0.3 and abs(loss.item() - ref_loss.item()) < 0.05
