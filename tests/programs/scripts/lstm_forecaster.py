"""Time-series forecasting with an nn.LSTMCell stepped by hand: sliding windows made with
Tensor.unfold, training teacher-forced over the context and free-running over the horizon (Adam,
CosineAnnealingLR, clip_grad_value_), an autoregressive rollout under no_grad, and the
rollout's error against a persistence baseline."""
import math
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
t = torch.arange(0, 600, dtype=torch.float32)
series = torch.sin(2 * math.pi * t / 50) + 0.5 * torch.sin(2 * math.pi * t / 15) + 0.05 * torch.randn(600)
window, horizon = 40, 10
windows = series.unfold(0, window + 1, 3)  # (num_windows, window + 1), overlapping
train, test = windows[:150], windows[150:]


class Forecaster(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.hidden = hidden
        self.cell = nn.LSTMCell(1, hidden)
        self.head = nn.Linear(hidden, 1)

    def forward(self, inputs, future=0):
        """inputs (batch, steps): one-step-ahead predictions for each input step, then `future`
        more steps fed back from the model's own outputs."""
        h = torch.zeros(inputs.size(0), self.hidden)
        c = torch.zeros(inputs.size(0), self.hidden)
        outputs = []
        for x_t in inputs.split(1, dim=1):
            h, c = self.cell(x_t, (h, c))
            outputs.append(self.head(h))
        for _ in range(future):
            h, c = self.cell(outputs[-1], (h, c))
            outputs.append(self.head(h))
        return torch.cat(outputs, dim=1)


model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=30)
criterion = nn.MSELoss()
for epoch in range(30):
    perm = torch.randperm(len(train))
    for i in range(0, len(train), 32):
        batch = train[perm[i : i + 32]]
        # teacher-forced over the context, then free-running over the horizon
        pred = model(batch[:, : window - horizon + 1], future=horizon - 1)
        loss = criterion(pred, batch[:, 1:])
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_value_(model.parameters(), 1.0)
        optimizer.step()
    scheduler.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch} mse {loss.item():.4f}")

model.eval()
with torch.no_grad():
    context = test[:, : window - horizon + 1]
    target = test[:, window - horizon + 1 :]
    rollout = model(context, future=horizon - 1)[:, -horizon:]
    mse = criterion(rollout, target).item()
    persistence = criterion(context[:, -1:].expand_as(target), target).item()
print(f"{horizon}-step rollout mse {mse:.4f}, persistence baseline {persistence:.4f}")
assert windows.shape == (187, window + 1) and torch.equal(windows[1, :3], series[3:6])
assert mse < 0.2 * persistence
