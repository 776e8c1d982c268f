"""Binary classification from CSV text as a Kaggle notebook without pandas does it: rows parsed by
np.genfromtxt from an io.StringIO, torch.from_numpy(...).float(), features standardised with
the training split's mean and std, logistic regression trained with a focal loss built on
F.binary_cross_entropy_with_logits(reduction="none"), and ROC AUC computed by ranking with
torch.argsort, checked against the pairwise definition."""
import io

import numpy as np
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

rng = np.random.default_rng(0)
n = 400
age = rng.normal(50, 12, n)
income = rng.lognormal(10, 0.5, n)
score = rng.normal(600, 80, n)
logit = 0.08 * (age - 50) - 0.01 * (score - 600) + 0.4 * (np.log(income) - 10) - 2.0
label = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(int)
csv = "age,income,score,label\n" + "\n".join(f"{a:.1f},{i:.2f},{s:.0f},{l}" for a, i, s, l in zip(age, income, score, label))

table = np.genfromtxt(io.StringIO(csv), delimiter=",", skip_header=1)
X = torch.from_numpy(table[:, :3]).float()
X[:, 1] = torch.log(X[:, 1])
y = torch.from_numpy(table[:, 3]).float()
X_train, X_test, y_train, y_test = X[:300], X[300:], y[:300], y[300:]
mean, std = X_train.mean(dim=0), X_train.std(dim=0)
X_train, X_test = (X_train - mean) / std, (X_test - mean) / std


def focal_loss(logits, targets, alpha=0.75, gamma=2.0):
    bce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
    p_t = torch.exp(-bce)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * (1 - p_t) ** gamma * bce).mean()


def roc_auc(scores, labels):
    order = torch.argsort(scores)
    ranks = torch.empty_like(scores)
    ranks[order] = torch.arange(1, len(scores) + 1, dtype=scores.dtype)
    n_pos = labels.sum()
    n_neg = len(labels) - n_pos
    return ((ranks[labels == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


model = nn.Linear(3, 1)
nn.init.zeros_(model.weight)
nn.init.zeros_(model.bias)
opt = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=50, line_search_fn="strong_wolfe")


def closure():
    opt.zero_grad()
    loss = focal_loss(model(X_train).squeeze(1), y_train)
    loss.backward()
    return loss


for _ in range(3):
    opt.step(closure)
with torch.no_grad():
    scores = torch.sigmoid(model(X_test).squeeze(1))
auc = roc_auc(scores, y_test)
pos, neg = scores[y_test == 1], scores[y_test == 0]
pairwise = (pos[:, None] > neg[None, :]).float().mean().item()
print(f"loss {closure().item():.6f} positives {int(y.sum())}/{n}, weights {model.weight.data.numpy().round(3)}, AUC {auc:.4f}")
assert abs(auc - pairwise) < 1e-6
assert auc > 0.7
assert model.weight[0, 0] > 0 and model.weight[0, 2] < 0  # age raises the risk, the score lowers it
