"""A bag-of-words sentiment classifier without torchtext: a vocabulary built from the training text,
count vectors from torch.bincount(minlength=V) and, for a batch, scatter_add_ into a zero matrix
(both equal to a NumPy count), then logistic regression by nn.Linear + BCEWithLogitsLoss with
the predictions' accuracy and the top-weighted words."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn

pos = ["good great fun", "loved it great acting", "wonderful fun film", "great story good cast", "a fun and good watch", "wonderful acting loved"]
neg = ["bad boring plot", "hated it awful", "boring and bad acting", "awful film bad story", "terrible boring watch", "hated the awful cast"]
rng = np.random.default_rng(0)
texts, labels = [], []
for _ in range(60):
    label = int(rng.integers(2))
    source = pos if label else neg
    words = " ".join(source[int(rng.integers(len(source)))] for _ in range(2)).split()
    rng.shuffle(words)
    texts.append(" ".join(words))
    labels.append(label)
vocab = {"<unk>": 0}
for t in texts[:40]:
    for w in t.split():
        vocab.setdefault(w, len(vocab))
V = len(vocab)


def encode(text):
    return torch.tensor([vocab.get(w, 0) for w in text.split()], dtype=torch.long)


def bow(text):
    return torch.bincount(encode(text), minlength=V).float()


ids = [encode(t) for t in texts]
flat = torch.cat(ids)
rows = torch.cat([torch.full((len(t),), i, dtype=torch.long) for i, t in enumerate(ids)])
batch = torch.zeros(len(texts), V)
batch.view(-1).scatter_add_(0, rows * V + flat, torch.ones(len(flat)))
counts_np = np.zeros((len(texts), V))
for i, t in enumerate(ids):
    np.add.at(counts_np[i], t.numpy(), 1)
assert np.array_equal(batch.numpy(), counts_np)
assert torch.equal(torch.stack([bow(t) for t in texts]), batch)
batch2 = torch.zeros(len(texts), V).scatter_add_(1, torch.nn.utils.rnn.pad_sequence(ids, batch_first=True), torch.nn.utils.rnn.pad_sequence([torch.ones(len(t)) for t in ids], batch_first=True))
assert torch.equal(batch2[:, 1:], batch[:, 1:])

y = torch.tensor(labels, dtype=torch.float)
torch.manual_seed(0)
model = nn.Linear(V, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(100):
    opt.zero_grad()
    loss = loss_fn(model(batch[:40]).squeeze(1), y[:40])
    loss.backward()
    opt.step()
with torch.no_grad():
    pred = (torch.sigmoid(model(batch[40:]).squeeze(1)) > 0.5).float()
acc = (pred == y[40:]).float().mean().item()
inv = {i: w for w, i in vocab.items()}
top = [inv[i] for i in model.weight[0].topk(3).indices.tolist()]
bottom = [inv[i] for i in (-model.weight[0]).topk(3).indices.tolist()]
print("loss %.4f test accuracy %.3f top %s bottom %s" % (loss.item(), acc, top, bottom))
assert acc > 0.9 and set(top) <= {"good", "great", "fun", "wonderful", "loved"} and set(bottom) <= {"bad", "boring", "awful", "hated", "terrible"}
