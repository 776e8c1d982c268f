"""Multi-label classification and learning to rank as Kaggle kernels write them: BCEWithLogitsLoss
with pos_weight for rare tags (equal to the formula written out), MultiLabelSoftMarginLoss (the
same loss averaged over classes), per-class thresholds tuned on validation for F1, micro and
macro F1 from the confusion counts; then a RankNet-style pairwise ranker trained with
MarginRankingLoss, HingeEmbeddingLoss and MultiLabelMarginLoss checked against NumPy, and NDCG@5
of the learned scores."""
import numpy as np

import minigenesis as torch
from minigenesis import nn

torch.manual_seed(0)
n, d, k = 600, 10, 5
X = torch.randn(n, d)
W = torch.randn(d, k)
bias = torch.tensor([0.0, -1.0, -1.5, -2.0, 0.5])
Y = ((X @ W) / 3 + bias + 0.3 * torch.randn(n, k) > 0).float()
freq = Y.mean(0)
print("tag frequencies", [round(f, 3) for f in freq.tolist()])
pos_weight = (1 - freq) / freq.clamp(min=0.01)  # a tag absent from the data would give inf

logits = torch.randn(7, k)
targets = (torch.rand(7, k) > 0.6).float()
bce = nn.BCEWithLogitsLoss(pos_weight=pos_weight)(logits, targets)
lp, ln = torch.nn.functional.logsigmoid(logits), torch.nn.functional.logsigmoid(-logits)
manual = -(pos_weight * targets * lp + (1 - targets) * ln).mean()
assert torch.allclose(bce, manual, atol=1e-6)
mlsm = nn.MultiLabelSoftMarginLoss()(logits, targets)
assert torch.allclose(mlsm, nn.BCEWithLogitsLoss()(logits, targets), atol=1e-6)

model = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, k))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
tr, va = slice(0, 400), slice(400, n)
for epoch in range(100):
    loss = criterion(model(X[tr]), Y[tr])
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"bce loss {loss.item():.4f}")
with torch.no_grad():
    probs = torch.sigmoid(model(X[va]))


def f1_counts(pred, true):
    tp = (pred * true).sum(0)
    fp = (pred * (1 - true)).sum(0)
    fn = ((1 - pred) * true).sum(0)
    return tp, fp, fn


grid = torch.linspace(0.05, 0.95, 19)
best_t = []
for j in range(k):
    scores = []
    for t in grid:
        tp, fp, fn = f1_counts((probs[:, j] > t).float(), Y[va][:, j])
        scores.append((2 * tp / (2 * tp + fp + fn + 1e-9)).item())
    best_t.append(grid[int(np.argmax(scores))].item())
pred = (probs > torch.tensor(best_t)).float()
tp, fp, fn = f1_counts(pred, Y[va])
micro = (2 * tp.sum() / (2 * tp.sum() + fp.sum() + fn.sum())).item()
macro = (2 * tp / (2 * tp + fp + fn)).mean().item()
print(f"thresholds {[round(t, 2) for t in best_t]} micro F1 {micro:.3f} macro F1 {macro:.3f}")
assert micro > 0.7 and macro > 0.6

x1, x2, yy = torch.randn(6), torch.randn(6), torch.tensor([1.0, -1, 1, -1, 1, 1])
mr = nn.MarginRankingLoss(margin=0.5)(x1, x2, yy)
assert np.isclose(mr.item(), np.maximum(0, -yy.numpy() * (x1 - x2).numpy() + 0.5).mean(), atol=1e-6)
dist = torch.rand(6) * 2
he = nn.HingeEmbeddingLoss(margin=1.0)(dist, yy)
ref = np.where(yy.numpy() == 1, dist.numpy(), np.maximum(0, 1 - dist.numpy())).mean()
assert np.isclose(he.item(), ref, atol=1e-6)
scores = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
labels = torch.tensor([[3, 0, -1, 1]])
mlm = nn.MultiLabelMarginLoss()(scores, labels)  # the docs' example: 0.85
assert abs(mlm.item() - 0.85) < 1e-6

n_docs = 40
feats = torch.randn(n_docs, 6)
relevance = (feats[:, 0] + 0.5 * feats[:, 1] > 0).long() + (feats[:, 0] > 1).long()
ranker = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt = torch.optim.SGD(ranker.parameters(), lr=0.05, momentum=0.9)
rank_loss = nn.MarginRankingLoss(margin=1.0)
i_idx, j_idx = torch.triu_indices(n_docs, n_docs, offset=1)
keep = relevance[i_idx] != relevance[j_idx]
i_idx, j_idx = i_idx[keep], j_idx[keep]
target = torch.sign((relevance[i_idx] - relevance[j_idx]).float())
for step in range(60):
    s = ranker(feats).squeeze(1)
    loss = rank_loss(s[i_idx], s[j_idx], target)
    opt.zero_grad()
    loss.backward()
    opt.step()


def ndcg_at(k, scores, rel):
    order = torch.argsort(scores, descending=True)[:k]
    gains = (2 ** rel[order].float() - 1) / torch.log2(torch.arange(2, k + 2).float())
    ideal = (2 ** rel.sort(descending=True).values[:k].float() - 1) / torch.log2(torch.arange(2, k + 2).float())
    return (gains.sum() / ideal.sum()).item()


with torch.no_grad():
    ndcg = ndcg_at(5, ranker(feats).squeeze(1), relevance)
print(f"pairs {len(target)} ranking loss {loss.item():.4f} NDCG@5 {ndcg:.3f}")
assert ndcg > 0.9
