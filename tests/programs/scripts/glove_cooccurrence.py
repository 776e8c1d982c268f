"""GloVe: a co-occurrence matrix counted with a distance-weighted window by index_put_ with
accumulate=True, then word and context vectors with biases fitted by the weighted least-squares
loss f(X_ij)(w_i.c_j + b_i + b'_j - log X_ij)^2 with Adagrad on the nonzero entries; words from
the same topic end up nearest neighbours by cosine similarity."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
topics, per_topic, V = 4, 10, 40
words_of = torch.arange(V).view(topics, per_topic)
corpus = []
for doc in range(300):
    t = int(torch.randint(0, topics, ()))
    probs = torch.full((V,), 0.2 / V)
    probs[words_of[t]] += 0.8 / per_topic
    corpus.append(torch.multinomial(probs, 30, replacement=True))
corpus = torch.stack(corpus)

X = torch.zeros(V, V)
window = 4
for offset in range(1, window + 1):
    left, right = corpus[:, :-offset].reshape(-1), corpus[:, offset:].reshape(-1)
    w = torch.full_like(left, 1.0 / offset, dtype=torch.float32)
    X.index_put_((left, right), w, accumulate=True)
    X.index_put_((right, left), w, accumulate=True)
# check the counting against a loop on the first document
ref = torch.zeros(V, V)
doc = corpus[0].tolist()
for i, a in enumerate(doc):
    for j in range(max(0, i - window), min(len(doc), i + window + 1)):
        if j != i:
            ref[a, doc[j]] += 1.0 / abs(i - j)
X0 = torch.zeros(V, V)
for offset in range(1, window + 1):
    l, r = corpus[0, :-offset], corpus[0, offset:]
    X0.index_put_((l, r), torch.full((len(l),), 1.0 / offset), accumulate=True)
    X0.index_put_((r, l), torch.full((len(l),), 1.0 / offset), accumulate=True)
assert torch.allclose(X0, ref)

i, j = X.nonzero(as_tuple=True)
x_ij = X[i, j]
weight = torch.clamp((x_ij / 10.0) ** 0.75, max=1.0)
d = 8
W, C = nn.Embedding(V, d), nn.Embedding(V, d)
bw, bc = nn.Embedding(V, 1), nn.Embedding(V, 1)
for e in (W, C):
    nn.init.uniform_(e.weight, -0.5 / d, 0.5 / d)
for e in (bw, bc):
    nn.init.zeros_(e.weight)
params = [p for m in (W, C, bw, bc) for p in m.parameters()]
opt = torch.optim.Adagrad(params, lr=0.1)
for epoch in range(150):
    pred = (W(i) * C(j)).sum(1) + bw(i).squeeze(1) + bc(j).squeeze(1)
    loss = (weight * (pred - x_ij.log()) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
vectors = F.normalize(W.weight + C.weight, dim=1).detach()
sim = vectors @ vectors.T
sim.fill_diagonal_(-2)
nearest = sim.argmax(1)
same_topic = (nearest // per_topic == torch.arange(V) // per_topic).float().mean().item()
print(f"GloVe loss {loss.item():.4f}; nearest neighbour in the same topic for {same_topic:.0%} of words")
assert same_topic > 0.9
