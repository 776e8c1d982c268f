"""Post-hoc calibration by temperature scaling: an over-confident classifier's expected
calibration error (bins by torch.bucketize) and NLL drop when one temperature, fitted by LBFGS
on held-out logits, divides the logits; accuracy is unchanged."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
n, d, k = 3000, 10, 5
w_true = torch.randn(d, k)
x = torch.randn(n, d)
y = torch.distributions.Categorical(logits=x @ w_true * 0.7).sample()
xtr, ytr, xval, yval, xte, yte = x[:1000], y[:1000], x[1000:2000], y[1000:2000], x[2000:], y[2000:]

model = nn.Sequential(nn.Linear(d, 256), nn.ReLU(), nn.Linear(256, k))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(300):  # overfit on purpose: confident logits
    opt.zero_grad()
    F.cross_entropy(model(xtr), ytr).backward()
    opt.step()


def ece(logits, labels, n_bins=10):
    probs = F.softmax(logits, 1)
    conf, pred = probs.max(1)
    correct = (pred == labels).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    bins = torch.bucketize(conf, edges[1:-1], right=True)
    total = torch.zeros(())
    for b in range(n_bins):
        in_bin = bins == b
        if in_bin.any():
            total += in_bin.float().mean() * (conf[in_bin].mean() - correct[in_bin].mean()).abs()
    return total.item()


class TemperatureScaler(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(1) * 1.5)

    def forward(self, logits):
        return logits / self.temperature


with torch.no_grad():
    val_logits, test_logits = model(xval), model(xte)
scaler = TemperatureScaler()
lbfgs = torch.optim.LBFGS(scaler.parameters(), lr=0.01, max_iter=200)


def closure():
    lbfgs.zero_grad()
    loss = F.cross_entropy(scaler(val_logits), yval)
    loss.backward()
    return loss


lbfgs.step(closure)
T = scaler.temperature.item()
with torch.no_grad():
    before = (F.cross_entropy(test_logits, yte).item(), ece(test_logits, yte))
    after = (F.cross_entropy(scaler(test_logits), yte).item(), ece(scaler(test_logits), yte))
print(f"temperature {T:.2f}; test NLL {before[0]:.3f} -> {after[0]:.3f}; ECE {before[1]:.3f} -> {after[1]:.3f}")
assert T > 1.2
assert after[0] < before[0] and after[1] < before[1]
assert torch.equal(test_logits.argmax(1), scaler(test_logits).argmax(1))
# bucketize against searchsorted
c = torch.rand(100)
assert torch.equal(torch.bucketize(c, torch.linspace(0, 1, 11)[1:-1], right=True), torch.searchsorted(torch.linspace(0, 1, 11)[1:-1], c, right=True))
