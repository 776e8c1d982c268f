"""Split conformal prediction: regression intervals from the calibrated quantile of absolute
residuals (torch.quantile with the finite-sample correction), and classification prediction
sets from the 1 - softmax score; both cover about 90% of test points."""
import math
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
alpha = 0.1

# regression
x = torch.rand(3000, 1) * 6 - 3
y = torch.sin(x) * 2 + (0.2 + 0.1 * x.abs()) * torch.randn_like(x)
net = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 1))
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(200):
    opt.zero_grad()
    F.mse_loss(net(x[:1000]), y[:1000]).backward()
    opt.step()
with torch.no_grad():
    cal_scores = (net(x[1000:2000]) - y[1000:2000]).abs().squeeze(1)
    n = cal_scores.numel()
    q_level = math.ceil((n + 1) * (1 - alpha)) / n
    qhat = torch.quantile(cal_scores, q_level, interpolation="higher")
    pred = net(x[2000:])
    covered = ((y[2000:] >= pred - qhat) & (y[2000:] <= pred + qhat)).float().mean().item()
print(f"regression: interval half-width {qhat.item():.3f}, coverage {covered:.3f}")
assert abs(covered - (1 - alpha)) < 0.04
sorted_scores = cal_scores.sort().values
assert qhat == sorted_scores[math.ceil(q_level * (n - 1))]

# classification
k = 6
protos = torch.randn(k, 8)
labels = torch.randint(0, k, (3000,))
feats = protos[labels] + 1.0 * torch.randn(3000, 8)
clf = nn.Linear(8, k)
opt = torch.optim.Adam(clf.parameters(), lr=5e-2)
for step in range(200):
    opt.zero_grad()
    F.cross_entropy(clf(feats[:1000]), labels[:1000]).backward()
    opt.step()
with torch.no_grad():
    probs_cal = clf(feats[1000:2000]).softmax(1)
    scores = 1 - probs_cal.gather(1, labels[1000:2000].unsqueeze(1)).squeeze(1)
    qhat_c = torch.quantile(scores, q_level, interpolation="higher")
    probs_test = clf(feats[2000:]).softmax(1)
    sets = probs_test >= 1 - qhat_c
    cover_c = sets[torch.arange(1000), labels[2000:]].float().mean().item()
    size = sets.sum(1).float().mean().item()
    acc = (probs_test.argmax(1) == labels[2000:]).float().mean().item()
print(f"classification: accuracy {acc:.3f}, set coverage {cover_c:.3f}, mean set size {size:.2f}")
assert abs(cover_c - (1 - alpha)) < 0.04 and 1.0 <= size < k
