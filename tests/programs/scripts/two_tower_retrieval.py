"""A two-tower retrieval model (user and item towers) trained with in-batch negatives and a
sampled-softmax correction by log item frequency; evaluated by recall@k with topk over the full
item catalogue, against a popularity baseline."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
n_users, n_items, n_feat, k = 300, 200, 8, 10
user_true = torch.randn(n_users, 4)
item_true = torch.randn(n_items, 4)
pop = torch.linspace(2.0, 0.0, n_items)
logits_true = user_true @ item_true.T * 2 + pop
inter = torch.multinomial(F.softmax(logits_true, 1), 6, replacement=False)
users = torch.arange(n_users).repeat_interleave(5)
items = inter[:, :5].reshape(-1)
test_items = inter[:, 5]
item_freq = torch.bincount(items, minlength=n_items).float() + 1
log_q = torch.log(item_freq / item_freq.sum())
user_feats = user_true + 0.3 * torch.randn(n_users, 4)


class Tower(nn.Module):
    def __init__(self, n, side_dim=0, d=32):
        super().__init__()
        self.emb = nn.Embedding(n, d)
        self.side = nn.Linear(side_dim, d) if side_dim else None
        self.mlp = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, d))

    def forward(self, ids, side=None):
        h = self.emb(ids)
        if self.side is not None:
            h = h + self.side(side)
        return F.normalize(self.mlp(h), dim=-1)


user_tower, item_tower = Tower(n_users, 4), Tower(n_items)
opt = torch.optim.Adam([*user_tower.parameters(), *item_tower.parameters()], lr=3e-3)
temperature = 0.1
for epoch in range(15):
    perm = torch.randperm(len(users))
    for i in range(0, len(perm), 128):
        b = perm[i:i + 128]
        u = user_tower(users[b], user_feats[users[b]])
        v = item_tower(items[b])
        scores = u @ v.T / temperature - log_q[items[b]]
        # the same item twice in a batch is not a negative for itself
        same = items[b].unsqueeze(0) == items[b].unsqueeze(1)
        scores = scores.masked_fill(same & ~torch.eye(len(b), dtype=torch.bool), float("-inf"))
        loss = F.cross_entropy(scores, torch.arange(len(b)))
        opt.zero_grad()
        loss.backward()
        opt.step()

with torch.no_grad():
    all_u = user_tower(torch.arange(n_users), user_feats)
    all_v = item_tower(torch.arange(n_items))
    scores = all_u @ all_v.T
    seen = torch.zeros(n_users, n_items, dtype=torch.bool)
    seen[users, items] = True
    scores[seen] = -1e9
    topk = scores.topk(k, dim=1).indices
    recall = (topk == test_items.unsqueeze(1)).any(1).float().mean().item()
    pop_scores = item_freq.expand(n_users, -1).clone()
    pop_scores[seen] = -1e9
    pop_recall = (pop_scores.topk(k, 1).indices == test_items[:, None]).any(1).float().mean().item()
print(f"recall@{k}: two-tower {recall:.3f}, popularity {pop_recall:.3f}, random {k / n_items:.3f}")
assert recall > pop_recall and recall > 2 * k / n_items
