"""Gradient clipping as in the forum answers: clip_grad_value_ clamps every element, clip_grad_norm_
returns the total norm before clipping and rescales to max_norm (2-norm and inf-norm, matching a
NumPy computation), per-parameter clamping by register_hook, and an exploding RNN that trains
stably with clipping."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(5, 20), nn.ReLU(), nn.Linear(20, 1))
x = torch.randn(32, 5) * 10
(model(x) ** 2).mean().backward()
raw = [p.grad.detach().clone().numpy().astype(np.float64) for p in model.parameters()]
total = np.sqrt(sum((g ** 2).sum() for g in raw))
norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print("total norm %.5f numpy %.5f" % (norm.item(), total))
assert abs(norm.item() - total) < 1e-4 * total
scale = 1.0 / (total + 1e-6)
for p, g in zip(model.parameters(), raw):
    assert np.allclose(p.grad.numpy(), g * scale, rtol=1e-5, atol=1e-8)
new_total = np.sqrt(sum((p.grad.numpy().astype(np.float64) ** 2).sum() for p in model.parameters()))
assert abs(new_total - 1.0) < 1e-4

for p, g in zip(model.parameters(), raw):
    p.grad = torch.tensor(g, dtype=torch.float32)
inf_norm = nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type="inf")
assert abs(inf_norm.item() - max(np.abs(g).max() for g in raw)) < 1e-3
for p, g in zip(model.parameters(), raw):
    p.grad = torch.tensor(g, dtype=torch.float32)
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)
for p, g in zip(model.parameters(), raw):
    assert np.allclose(p.grad.numpy(), np.clip(g, -0.1, 0.1), atol=1e-7)

for p in model.parameters():
    p.register_hook(lambda grad: torch.clamp(grad, -0.05, 0.05))
model.zero_grad()
(model(x) ** 2).mean().backward()
assert max(p.grad.abs().max().item() for p in model.parameters()) <= 0.05 + 1e-7

torch.manual_seed(1)
rnn = nn.RNN(1, 16, batch_first=True)
head = nn.Linear(16, 1)
with torch.no_grad():
    rnn.weight_hh_l0.mul_(3.0)
params = list(rnn.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.05)
seq = torch.sin(torch.linspace(0, 12, 41)).view(1, 41, 1).repeat(8, 1, 1) + 0.05 * torch.randn(8, 41, 1)
norms, losses = [], []
for step in range(60):
    out, _ = rnn(seq[:, :-1])
    loss = ((head(out) - seq[:, 1:]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    norms.append(nn.utils.clip_grad_norm_(params, 0.5).item())
    opt.step()
    losses.append(loss.item())
print("rnn loss %.4f -> %.4f, max grad norm %.2f" % (losses[0], losses[-1], max(norms)))
assert all(np.isfinite(losses)) and losses[-1] < losses[0]
