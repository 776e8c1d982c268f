"""Tabular regression: standardized features, TensorDataset/random_split/DataLoader, nn.init,
ReduceLROnPlateau, early stopping on the validation loss with the best state_dict saved and restored."""
import copy
import io
import math
import minigenesis as torch
from minigenesis import nn
from minigenesis.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
n, d = 1000, 6
X = torch.rand(n, d) * torch.tensor([10.0, 1.0, 100.0, 5.0, 0.1, 2.0])
y = (0.5 * torch.sin(X[:, 0]) + 0.02 * X[:, 2] + X[:, 1] * X[:, 3] - 3 * X[:, 4] + 0.1 * torch.randn(n)).unsqueeze(1)

dataset = TensorDataset(X, y)
train_set, val_set, test_set = random_split(dataset, [0.7, 0.15, 0.15], generator=torch.Generator().manual_seed(42))
train_idx = torch.tensor(train_set.indices)
mean, std = X[train_idx].mean(0), X[train_idx].std(0)
y_mean, y_std = y[train_idx].mean(), y[train_idx].std()


def standardize(batch):
    xb, yb = zip(*batch)
    return (torch.stack(xb) - mean) / std, (torch.stack(yb) - y_mean) / y_std


train_loader = DataLoader(train_set, batch_size=32, shuffle=True, collate_fn=standardize, drop_last=True)
val_loader = DataLoader(val_set, batch_size=128, collate_fn=standardize)
test_loader = DataLoader(test_set, batch_size=128, collate_fn=standardize)


class Regressor(nn.Module):
    def __init__(self, d_in, hidden=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, hidden), nn.SiLU(), nn.Dropout(0.05),
            nn.Linear(hidden, hidden), nn.SiLU(),
            nn.Linear(hidden, 1),
        )
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(module):
        if isinstance(module, nn.Linear):
            nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            nn.init.zeros_(module.bias)

    def forward(self, x):
        return self.net(x)


def evaluate(model, loader):
    model.eval()
    total, count = 0.0, 0
    with torch.no_grad():
        for xb, yb in loader:
            total += nn.functional.mse_loss(model(xb), yb, reduction="sum").item()
            count += len(xb)
    return total / count


model = Regressor(d)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=2)
criterion = nn.MSELoss()

best_val, best_epoch, patience, bad_epochs = math.inf, -1, 5, 0
buffer = io.BytesIO()
lrs = []
for epoch in range(30):
    model.train()
    for xb, yb in train_loader:
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    val_loss = evaluate(model, val_loader)
    scheduler.step(val_loss)
    lrs.append(optimizer.param_groups[0]["lr"])
    if val_loss < best_val - 1e-4:
        best_val, best_epoch, bad_epochs = val_loss, epoch, 0
        buffer.seek(0)
        buffer.truncate()
        torch.save({"model": model.state_dict(), "epoch": epoch}, buffer)
        best_state = copy.deepcopy(model.state_dict())
    else:
        bad_epochs += 1
        if bad_epochs >= patience:
            print(f"early stop at epoch {epoch}")
            break
    print(f"epoch {epoch:2d} val mse {val_loss:.4f} lr {lrs[-1]:.2e}")

last_val = evaluate(model, val_loader)
buffer.seek(0)
checkpoint = torch.load(buffer)
restored = Regressor(d)
restored.load_state_dict(checkpoint["model"])
assert checkpoint["epoch"] == best_epoch
assert abs(evaluate(restored, val_loader) - best_val) < 1e-6
model.load_state_dict(best_state)
assert abs(evaluate(model, val_loader) - best_val) < 1e-6
for name, p in restored.state_dict().items():
    assert torch.equal(p, model.state_dict()[name]), name
assert all(b <= a for a, b in zip(lrs, lrs[1:]))  # the plateau scheduler only lowers the rate
test_mse = evaluate(restored, test_loader)
print(f"best epoch {best_epoch} val mse {best_val:.4f} (last {last_val:.4f}) test mse {test_mse:.4f}")
assert test_mse < 0.15  # in units of the target's variance
