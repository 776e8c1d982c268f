"""Idioms copied from Stack Overflow answers: decaying the learning rate by editing
optimizer.param_groups[0]['lr'], register_buffer for a non-trainable running value that follows
state_dict and .to(), masked_fill(mask == 0, -1e9) before a softmax, torch.cat of two feature
sets along dim=1, x.view(-1, n) flattening, torch.max(outputs.data, 1), model.eval() with
torch.no_grad() for inference, torch.save/torch.load of a whole model and of a state_dict (with
the optimizer's), requires_grad=False to freeze a layer, counting trainable parameters with
sum(p.numel() for p in model.parameters() if p.requires_grad), and getting a NumPy value with
.detach().cpu().numpy()."""
import io

import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)


class TwoTower(nn.Module):
    """Two feature sets joined by torch.cat along dim 1; inputs standardised by a buffer."""

    def __init__(self, n_a, n_b, n_classes):
        super().__init__()
        self.register_buffer("mean_a", torch.zeros(n_a))
        self.register_buffer("num_batches", torch.tensor(0))
        self.tower_a = nn.Linear(n_a, 16)
        self.tower_b = nn.Conv2d(1, 4, 3, padding=1)
        self.head = nn.Linear(16 + 4 * 4 * 4, n_classes)

    def forward(self, a, b):
        if self.training:
            with torch.no_grad():
                self.num_batches += 1
                self.mean_a += (a.mean(0) - self.mean_a) / self.num_batches
        ha = F.relu(self.tower_a(a - self.mean_a))
        hb = F.relu(self.tower_b(b))
        hb = hb.view(-1, 4 * 4 * 4)
        return self.head(torch.cat((ha, hb), dim=1))


n = 600
y = torch.randint(0, 3, (n,))
a = torch.randn(n, 10) + 5.0
a[:, 0] += 4 * y.float()
b = torch.randn(n, 1, 4, 4)
b[:, 0, 0, 0] += 4 * (y == 2).float()

model = TwoTower(10, 16, 3)
assert [name for name, _ in model.named_buffers()] == ["mean_a", "num_batches"]
assert "mean_a" in model.state_dict() and "mean_a" not in dict(model.named_parameters())
n_trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print("trainable parameters:", n_trainable)
assert n_trainable == 10 * 16 + 16 + 4 * 9 + 4 + 80 * 3 + 3

optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
lrs = []
for epoch in range(12):
    if epoch in (6, 9):
        for param_group in optimizer.param_groups:
            param_group["lr"] = param_group["lr"] * 0.1
    lrs.append(optimizer.param_groups[0]["lr"])
    model.train()
    for i in range(0, n, 60):
        optimizer.zero_grad()
        loss = F.cross_entropy(model(a[i:i + 60], b[i:i + 60]), y[i:i + 60])
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch}: lr {optimizer.param_groups[0]['lr']:.5f} loss {loss.item():.4f}")
assert np.allclose(lrs, [0.01] * 6 + [0.001] * 3 + [0.0001] * 3)
assert int(model.num_batches) == 120
assert torch.allclose(model.mean_a, a.mean(0), atol=1e-4)  # a running mean over equal batches

model.eval()
with torch.no_grad():
    outputs = model(a, b)
    _, predicted = torch.max(outputs.data, 1)
acc = (predicted == y).sum().item() / n
print("accuracy", acc)
assert acc > 0.9
assert int(model.num_batches) == 120  # eval does not move the buffer

# whole model and state_dict round trips through a file-like buffer
buf = io.BytesIO()
torch.save(model, buf)
buf.seek(0)
whole = torch.load(buf, weights_only=False)
assert isinstance(whole, TwoTower)
buf = io.BytesIO()
torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": optimizer.state_dict(), "epoch": 12}, buf)
buf.seek(0)
checkpoint = torch.load(buf)
fresh = TwoTower(10, 16, 3)
fresh.load_state_dict(checkpoint["model_state_dict"])
opt2 = torch.optim.Adam(fresh.parameters(), lr=0.01)
opt2.load_state_dict(checkpoint["optimizer_state_dict"])
assert opt2.param_groups[0]["lr"] == optimizer.param_groups[0]["lr"]
fresh.eval()
whole.eval()
with torch.no_grad():
    assert torch.equal(fresh(a, b), outputs)
    assert torch.equal(whole(a, b), outputs)
probs = F.softmax(outputs, dim=1).detach().cpu().numpy()
assert isinstance(probs, np.ndarray) and np.allclose(probs.sum(1), 1, atol=1e-6)

# freezing a layer: no grad, unchanged by the step
for param in model.tower_a.parameters():
    param.requires_grad = False
model.zero_grad()
frozen = model.tower_a.weight.clone()
opt3 = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
model.train()
F.cross_entropy(model(a[:60], b[:60]), y[:60]).backward()
opt3.step()
assert model.tower_a.weight.grad is None and torch.equal(model.tower_a.weight, frozen)

# masked_fill with -1e9 before softmax: padded keys get zero weight
scores = torch.randn(2, 5, 5)
lengths = torch.tensor([3, 5])
mask = (torch.arange(5)[None, :] < lengths[:, None]).unsqueeze(1)  # (2, 1, 5)
scores = scores.masked_fill(mask == 0, -1e9)
attn = F.softmax(scores, dim=-1)
assert torch.all(attn[0, :, 3:] == 0)
ref = np.exp(scores[0, :, :3].numpy())
ref /= ref.sum(-1, keepdims=True)
assert np.allclose(attn[0, :, :3].numpy(), ref, atol=1e-6)
print("masked attention row", attn[0, 0])
