"""Gradient accumulation written the usual way (loss / accum_steps, step every accum_steps
micro-batches) checked against one full batch, then the same loop under
torch.autocast(device_type='cpu', dtype=torch.bfloat16) with a GradScaler(enabled=False) and
clip_grad_norm_ after unscale_: which ops autocast runs in bfloat16 and which in float32, and
that a disabled scaler is a no-op (scale 1, step, update)."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


def make_model():
    torch.manual_seed(1)
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(8, 3)).to(device)


y = torch.randint(0, 3, (64,), device=device)
X = torch.randn(64, 3, 8, 8, device=device)
X[torch.arange(64), y] += 1.0  # the class is the brightest channel

# one batch of 64 ...
full = make_model()
F.cross_entropy(full(X), y).backward()
# ... and 4 micro-batches of 16, each loss divided by 4
accum_steps = 4
acc = make_model()
for i, (xb, yb) in enumerate(zip(X.chunk(accum_steps), y.chunk(accum_steps))):
    loss = F.cross_entropy(acc(xb), yb) / accum_steps
    loss.backward()
for p_full, p_acc in zip(full.parameters(), acc.parameters()):
    assert torch.allclose(p_full.grad, p_acc.grad, atol=1e-6), (p_full.grad - p_acc.grad).abs().max()
print("accumulated gradients equal the full batch's")

# autocast: matmul-like ops in bfloat16, the loss and softmax in float32
model = make_model()
with torch.autocast(device_type='cpu', dtype=torch.bfloat16):
    logits = model(X)
    probs = F.softmax(logits, dim=1)
    loss = F.cross_entropy(logits, y)
    with torch.autocast(device_type='cpu', enabled=False):
        exact = model[4](model[3](model[2](model[1](model[0](X)))))
print("dtypes under autocast:", logits.dtype, probs.dtype, loss.dtype, exact.dtype)
assert logits.dtype == torch.bfloat16 and loss.dtype == torch.float32 and exact.dtype == torch.float32
assert torch.allclose(logits.float(), exact, atol=0.05, rtol=0.05)

scaler = torch.amp.GradScaler(enabled=False)
assert not scaler.is_enabled() and scaler.get_scale() == 1.0
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
losses = []
for epoch in range(20):
    optimizer.zero_grad(set_to_none=True)
    for step, (xb, yb) in enumerate(zip(X.split(16), y.split(16))):
        with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
            output = model(xb)
            loss = F.cross_entropy(output, yb) / accum_steps
        scaler.scale(loss).backward()
        if (step + 1) % accum_steps == 0:
            scaler.unscale_(optimizer)
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=5.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
    losses.append(loss.item() * accum_steps)
print("loss %.4f -> %.4f, last grad norm %.4f" % (losses[0], losses[-1], grad_norm.item()))
assert all(p.dtype == torch.float32 for p in model.parameters())
assert all(p.grad is None for p in model.parameters())
assert losses[-1] < 0.8 * losses[0]
