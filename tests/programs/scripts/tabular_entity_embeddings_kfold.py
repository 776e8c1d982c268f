"""A Kaggle tabular notebook's neural baseline: categorical columns label-encoded and embedded
(one nn.Embedding per column in an nn.ModuleList, sizes min(50, (n + 1) // 2)), continuous
columns through BatchNorm1d, embeddings concatenated, Dropout, 5-fold cross-validation with
out-of-fold predictions written into a preallocated tensor, a fresh model per fold, the fold's
best epoch kept by validation RMSE, and the OOF RMSE compared with a mean predictor."""
import numpy as np

import minigenesis as torch
from minigenesis import nn
from minigenesis.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
rng = np.random.default_rng(0)
n = 600
cities = rng.integers(0, 12, n)
weekday = rng.integers(0, 7, n)
area = rng.normal(70, 20, n)
rooms = rng.integers(1, 6, n).astype(float)
city_effect = rng.normal(0, 1.0, 12)
price = 2.0 + city_effect[cities] + 0.02 * (area - 70) + 0.3 * rooms - 0.2 * (weekday >= 5) + rng.normal(0, 0.3, n)

cat = torch.from_numpy(np.stack([cities, weekday], axis=1)).long()
cont = torch.from_numpy(np.stack([area, rooms], axis=1)).float()
target = torch.from_numpy(price).float().unsqueeze(1)
cardinalities = [int(cat[:, i].max()) + 1 for i in range(cat.shape[1])]
emb_szs = [(c, min(50, (c + 1) // 2)) for c in cardinalities]


class TabularModel(nn.Module):
    def __init__(self, emb_szs, n_cont, layers, p=0.1):
        super().__init__()
        self.embeds = nn.ModuleList([nn.Embedding(ni, nf) for ni, nf in emb_szs])
        self.emb_drop = nn.Dropout(p)
        self.bn_cont = nn.BatchNorm1d(n_cont)
        n_emb = sum(e.embedding_dim for e in self.embeds)
        sizes = [n_emb + n_cont] + layers
        blocks = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            blocks += [nn.Linear(a, b), nn.ReLU(inplace=True), nn.BatchNorm1d(b), nn.Dropout(p)]
        self.layers = nn.Sequential(*blocks, nn.Linear(sizes[-1], 1))

    def forward(self, x_cat, x_cont):
        x = torch.cat([e(x_cat[:, i]) for i, e in enumerate(self.embeds)], 1)
        x = self.emb_drop(x)
        x = torch.cat([x, self.bn_cont(x_cont)], 1)
        return self.layers(x)


def rmse(a, b):
    return torch.sqrt(nn.functional.mse_loss(a, b)).item()


folds = np.array_split(rng.permutation(n), 5)
oof = torch.zeros_like(target)
for k, val_idx in enumerate(folds):
    train_idx = np.concatenate([f for j, f in enumerate(folds) if j != k])
    tr, va = torch.from_numpy(train_idx), torch.from_numpy(val_idx)
    loader = DataLoader(TensorDataset(cat[tr], cont[tr], target[tr]), batch_size=64, shuffle=True, drop_last=True)
    model = TabularModel(emb_szs, 2, [32, 16])
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    best, best_pred = float("inf"), None
    for epoch in range(12):
        model.train()
        for xc, xn, yb in loader:
            loss = nn.functional.mse_loss(model(xc, xn), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            pred = model(cat[va], cont[va])
        score = rmse(pred, target[va])
        if score < best:
            best, best_pred = score, pred.clone()
    oof[va] = best_pred
    print(f"fold {k}: train {len(tr)} valid {len(va)} best rmse {best:.4f}")
cv = rmse(oof, target)
baseline = rmse(torch.full_like(target, target.mean().item()), target)
print(f"OOF RMSE {cv:.4f} mean-predictor RMSE {baseline:.4f} embedding sizes {emb_szs}")
assert emb_szs == [(12, 6), (7, 4)]
assert (oof != 0).all()
assert cv < 0.5 * baseline
