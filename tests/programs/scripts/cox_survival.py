"""Survival analysis with a neural Cox proportional-hazards model (DeepSurv), as the pycox-free
notebooks write it: patients sorted by descending duration so that each risk set is a prefix,
the negative partial log-likelihood from torch.logcumsumexp of the log-risks, censored rows kept
out of the sum through the event mask, Harrell's concordance index computed with broadcasting
over all comparable pairs; checked against the partial likelihood written as a double loop in
float64, and the learned risk ordering the true hazard."""
import math

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
n = 400
X = torch.randn(n, 4)
true_log_hazard = 0.8 * X[:, 0] - 0.5 * X[:, 1] ** 2
durations = -torch.log(torch.rand(n)) / torch.exp(true_log_hazard)
censor_time = torch.rand(n) * 3
events = (durations <= censor_time).float()
times = torch.minimum(durations, censor_time)


def cox_ph_loss(log_h, durations, events, eps=1e-7):
    idx = durations.sort(descending=True)[1]
    events = events[idx]
    log_h = log_h[idx]
    gamma = log_h.max()
    log_cumsum_h = log_h.sub(gamma).exp().cumsum(0).add(eps).log().add(gamma)
    return -log_h.sub(log_cumsum_h).mul(events).sum().div(events.sum())


def cox_loss_logcumsumexp(log_h, durations, events):
    order = torch.argsort(durations, descending=True)
    log_h, events = log_h[order], events[order]
    return -((log_h - torch.logcumsumexp(log_h, dim=0)) * events).sum() / events.sum()


def concordance_index(risk, durations, events):
    comparable = (durations[:, None] < durations[None, :]) & (events[:, None] == 1)
    concordant = (risk[:, None] > risk[None, :]).float() + 0.5 * (risk[:, None] == risk[None, :]).float()
    return ((concordant * comparable).sum() / comparable.sum()).item()


# the partial likelihood by its definition, a loop over events in float64
lh = torch.randn(12, dtype=torch.float64)
d = torch.rand(12, dtype=torch.float64)
e = (torch.rand(12) < 0.7).double()
loop = 0.0
for i in range(12):
    if e[i] == 1:
        at_risk = d >= d[i]
        loop -= lh[i].item() - math.log(torch.exp(lh[at_risk]).sum().item())
loop /= e.sum().item()
assert abs(cox_loss_logcumsumexp(lh, d, e).item() - loop) < 1e-10
assert abs(cox_ph_loss(lh, d, e).item() - loop) < 1e-6

net = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.BatchNorm1d(32), nn.Dropout(0.1), nn.Linear(32, 1, bias=False))
opt = torch.optim.Adam(net.parameters(), lr=1e-2, weight_decay=1e-4)
train, test = slice(0, 300), slice(300, n)
for epoch in range(80):
    net.train()
    loss = cox_loss_logcumsumexp(net(X[train]).squeeze(-1), times[train], events[train])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 20 == 0:
        print(f"epoch {epoch} partial log-likelihood loss {loss.item():.4f}")
net.eval()
with torch.no_grad():
    risk = net(X[test]).squeeze(-1)
c_model = concordance_index(risk, times[test], events[test])
c_true = concordance_index(true_log_hazard[test], times[test], events[test])
print(f"events {int(events.sum())}/{n}; C-index model {c_model:.3f} true hazard {c_true:.3f}")
assert c_model > 0.65 and c_model > c_true - 0.08
