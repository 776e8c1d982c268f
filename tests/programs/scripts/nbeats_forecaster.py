"""N-BEATS: fully connected blocks that emit a backcast and a forecast; the backcast is
subtracted from the block input (doubly residual stacking), with a generic block and a trend
block whose basis is a fixed polynomial registered as a buffer. Beats the seasonal-naive
forecast on a synthetic seasonal series."""
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.utils.data import DataLoader, TensorDataset


class Block(nn.Module):
    def __init__(self, backcast, forecast, hidden=64, basis=None):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(backcast, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        if basis is None:
            self.theta_b = nn.Linear(hidden, backcast)
            self.theta_f = nn.Linear(hidden, forecast)
            self.basis = None
        else:
            t_b = torch.arange(backcast, dtype=torch.float32) / backcast
            t_f = (torch.arange(forecast, dtype=torch.float32) + backcast) / backcast
            self.register_buffer("Tb", torch.stack([t_b ** i for i in range(basis)]))
            self.register_buffer("Tf", torch.stack([t_f ** i for i in range(basis)]))
            self.theta_b = nn.Linear(hidden, basis, bias=False)
            self.theta_f = nn.Linear(hidden, basis, bias=False)
            self.basis = basis

    def forward(self, x):
        h = self.fc(x)
        if self.basis is None:
            return self.theta_b(h), self.theta_f(h)
        return self.theta_b(h) @ self.Tb, self.theta_f(h) @ self.Tf


class NBeats(nn.Module):
    def __init__(self, backcast, forecast):
        super().__init__()
        self.blocks = nn.ModuleList([Block(backcast, forecast, basis=3), Block(backcast, forecast), Block(backcast, forecast)])

    def forward(self, x):
        residual, forecast = x, 0
        for block in self.blocks:
            b, f = block(residual)
            residual = residual - b
            forecast = forecast + f
        return forecast


torch.manual_seed(0)
period, L, H = 12, 36, 12
t = torch.arange(1200, dtype=torch.float32)
series = 0.01 * t + torch.sin(2 * torch.pi * t / period) + 0.5 * torch.sin(2 * torch.pi * t / 5.3) + 0.1 * torch.randn(1200)
windows = series.unfold(0, L + H, 1)
x, y = windows[:, :L], windows[:, L:]
scale = x.mean(1, keepdim=True)
train = TensorDataset(x[:900] - scale[:900], y[:900] - scale[:900])
loader = DataLoader(train, batch_size=64, shuffle=True, drop_last=True)
model = NBeats(L, H)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(6):
    for xb, yb in loader:
        loss = nn.functional.l1_loss(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
model.eval()
with torch.no_grad():
    pred = model(x[900:] - scale[900:]) + scale[900:]
mae = (pred - y[900:]).abs().mean().item()
naive = x[900:, -period:].repeat(1, H // period)
naive_mae = (naive - y[900:]).abs().mean().item()
print(f"N-BEATS MAE {mae:.3f}, seasonal-naive MAE {naive_mae:.3f}")
assert mae < naive_mae
