"""A recommender by matrix factorisation as in collaborative-filtering tutorials: a Dataset of
(user, item, rating) triples, user and item nn.Embedding factors plus per-user and per-item bias
embeddings and a global bias, ratings squashed into [1, 5] with a scaled sigmoid, Adam with
weight_decay, and the test RMSE beating the predict-the-mean baseline."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.utils.data import DataLoader, Dataset, random_split

torch.manual_seed(0)
n_users, n_items, k = 60, 40, 3
U, V = torch.randn(n_users, k), torch.randn(n_items, k)
true = (U @ V.T) / k**0.5 + 3.0
mask = torch.rand(n_users, n_items) < 0.4
users, items = mask.nonzero(as_tuple=True)
ratings = (true[users, items] + 0.2 * torch.randn(len(users))).clamp(1, 5)


class Ratings(Dataset):
    def __init__(self, u, i, r):
        self.u, self.i, self.r = u, i, r

    def __len__(self):
        return len(self.r)

    def __getitem__(self, idx):
        return self.u[idx], self.i[idx], self.r[idx]


class MF(nn.Module):
    def __init__(self, n_users, n_items, n_factors=8, y_range=(1.0, 5.5)):
        super().__init__()
        self.user_factors = nn.Embedding(n_users, n_factors)
        self.item_factors = nn.Embedding(n_items, n_factors)
        self.user_bias = nn.Embedding(n_users, 1)
        self.item_bias = nn.Embedding(n_items, 1)
        self.y_range = y_range
        for emb in (self.user_factors, self.item_factors):
            nn.init.normal_(emb.weight, std=0.1)
        for emb in (self.user_bias, self.item_bias):
            nn.init.zeros_(emb.weight)

    def forward(self, u, i):
        dot = (self.user_factors(u) * self.item_factors(i)).sum(dim=1, keepdim=True)
        res = dot + self.user_bias(u) + self.item_bias(i)
        lo, hi = self.y_range
        return (torch.sigmoid(res) * (hi - lo) + lo).squeeze(1)


ds = Ratings(users, items, ratings)
train_ds, test_ds = random_split(ds, [0.8, 0.2], generator=torch.Generator().manual_seed(42))
train_dl = DataLoader(train_ds, batch_size=64, shuffle=True)
model = MF(n_users, n_items)
opt = torch.optim.Adam(model.parameters(), lr=2e-2, weight_decay=1e-5)
for epoch in range(25):
    for u, i, r in train_dl:
        loss = F.mse_loss(model(u, i), r)
        opt.zero_grad()
        loss.backward()
        opt.step()

model.eval()
tu, ti, tr = next(iter(DataLoader(test_ds, batch_size=len(test_ds))))
train_mean = torch.stack([train_ds[j][2] for j in range(len(train_ds))]).mean()
with torch.no_grad():
    rmse = F.mse_loss(model(tu, ti), tr).sqrt().item()
baseline = F.mse_loss(torch.full_like(tr, train_mean.item()), tr).sqrt().item()
print(f"{len(ds)} ratings; test RMSE {rmse:.3f} vs mean baseline {baseline:.3f}")
assert len(train_ds) + len(test_ds) == len(ds)
assert rmse < 0.75 * baseline
