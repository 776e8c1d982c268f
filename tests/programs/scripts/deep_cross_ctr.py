"""A click-through-rate model of the recommender-systems kind: every categorical column gets its
own nn.Embedding (sizes from a rule of thumb), numeric columns are standardised, a DCN-v2 cross
network x_{l+1} = x0 * (W x_l + b) + x_l runs beside a deep MLP, and BCEWithLogitsLoss with
pos_weight compensates for rare clicks. Evaluation by ROC AUC computed from ranks and by log loss.
The synthetic table comes from NumPy: clicks depend on a pair of columns (an interaction)."""
import numpy as np

import minigenesis as torch
import minigenesis.nn as nn

rng = np.random.default_rng(1)
n = 3000
cardinalities = {"site": 20, "device": 5, "hour": 24}
cats = np.stack([rng.integers(0, c, n) for c in cardinalities.values()], 1)
nums = rng.standard_normal((n, 2)).astype(np.float32)
score = 3.0 * ((cats[:, 0] % 4 == 0) & (cats[:, 1] == 2)) + 1.5 * nums[:, 0] - 2.5 + 1.0 * (cats[:, 2] > 18)
clicks = (rng.uniform(size=n) < 1 / (1 + np.exp(-score))).astype(np.float32)
print("click rate %.3f" % clicks.mean())

X_cat, X_num, y = torch.from_numpy(cats).long(), torch.from_numpy(nums), torch.from_numpy(clicks)
mean, std = X_num[:2400].mean(0), X_num[:2400].std(0)
X_num = (X_num - mean) / std


class CrossLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.linear = nn.Linear(dim, dim)

    def forward(self, x0, x):
        return x0 * self.linear(x) + x


class DCN(nn.Module):
    def __init__(self, cardinalities, n_num, n_cross=2):
        super().__init__()
        self.embeddings = nn.ModuleList(
            [nn.Embedding(c, min(16, (c + 1) // 2)) for c in cardinalities.values()])
        dim = sum(e.embedding_dim for e in self.embeddings) + n_num
        self.cross = nn.ModuleList([CrossLayer(dim) for _ in range(n_cross)])
        self.deep = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 16), nn.ReLU())
        self.out = nn.Linear(dim + 16, 1)

    def forward(self, x_cat, x_num):
        emb = [e(x_cat[:, i]) for i, e in enumerate(self.embeddings)]
        x0 = torch.cat(emb + [x_num], dim=1)
        x = x0
        for layer in self.cross:
            x = layer(x0, x)
        return self.out(torch.cat([x, self.deep(x0)], dim=1)).squeeze(1)


def roc_auc(scores, labels):
    ranks = torch.empty_like(scores)
    ranks[scores.argsort()] = torch.arange(1, len(scores) + 1, dtype=scores.dtype)
    n_pos = labels.sum()
    n_neg = len(labels) - n_pos
    return ((ranks[labels == 1].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)).item()


torch.manual_seed(0)
model = DCN(cardinalities, 2)
tr, te = slice(0, 2400), slice(2400, None)
pos_weight = (1 - y[tr].mean()) / y[tr].mean()
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
opt = torch.optim.Adam(model.parameters(), lr=5e-3, weight_decay=1e-5)
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X_cat[tr], X_num[tr], y[tr]), batch_size=256, shuffle=True)
for epoch in range(12):
    model.train()
    for xc, xn, yy in loader:
        opt.zero_grad()
        loss = criterion(model(xc, xn), yy)
        loss.backward()
        opt.step()
model.eval()
with torch.no_grad():
    logits = model(X_cat[te], X_num[te])
auc = roc_auc(logits, y[te])
logloss = nn.functional.binary_cross_entropy_with_logits(logits, y[te]).item()
oracle = roc_auc(torch.from_numpy(score[2400:]).float(), y[te])  # the true click logits ranked
print("pos_weight %.3f, test AUC %.4f (the true logits' %.4f), unweighted log loss %.4f" % (pos_weight.item(), auc, oracle, logloss))
assert auc > oracle - 0.1 and auc > 0.7
