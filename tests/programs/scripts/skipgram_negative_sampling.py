"""word2vec skip-gram with negative sampling: sparse nn.Embedding tables updated by SparseAdam,
negatives drawn from the unigram^0.75 distribution with torch.multinomial."""
import collections
import random
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

random.seed(0)
torch.manual_seed(0)
# a toy corpus with two topics whose words co-occur
animals = "cat dog horse cow sheep goat".split()
fruits = "apple banana cherry grape mango pear".split()
sentences = []
for _ in range(400):
    topic = random.choice([animals, fruits])
    sentences.append([random.choice(topic) for _ in range(6)] + [random.choice(["the", "a", "and"])])

counter = collections.Counter(w for s in sentences for w in s)
vocab = sorted(counter)
word2idx = {w: i for i, w in enumerate(vocab)}
freqs = torch.tensor([counter[w] for w in vocab], dtype=torch.float)
noise_dist = freqs.pow(0.75)
noise_dist /= noise_dist.sum()

window = 2
pairs = []
for s in sentences:
    ids = [word2idx[w] for w in s]
    for i, center in enumerate(ids):
        for j in range(max(0, i - window), min(len(ids), i + window + 1)):
            if j != i:
                pairs.append((center, ids[j]))
pairs = torch.tensor(pairs)
print(f"{len(vocab)} words, {len(pairs)} training pairs")


class SkipGramNeg(nn.Module):
    def __init__(self, vocab_size, dim):
        super().__init__()
        self.in_embed = nn.Embedding(vocab_size, dim, sparse=True)
        self.out_embed = nn.Embedding(vocab_size, dim, sparse=True)
        initrange = 0.5 / dim
        self.in_embed.weight.data.uniform_(-initrange, initrange)
        self.out_embed.weight.data.zero_()

    def forward(self, center, context, negatives):
        v = self.in_embed(center)  # (B, D)
        u = self.out_embed(context)  # (B, D)
        u_neg = self.out_embed(negatives)  # (B, K, D)
        pos = F.logsigmoid((v * u).sum(dim=1))
        neg = F.logsigmoid(-torch.bmm(u_neg, v.unsqueeze(2)).squeeze(2)).sum(dim=1)
        return -(pos + neg).mean()


model = SkipGramNeg(len(vocab), 16)
optimizer = torch.optim.SparseAdam(list(model.parameters()), lr=0.02)
batch_size, K = 256, 5
for epoch in range(4):
    perm = torch.randperm(len(pairs))
    total = 0.0
    for start in range(0, len(pairs), batch_size):
        batch = pairs[perm[start : start + batch_size]]
        negatives = torch.multinomial(noise_dist, batch.size(0) * K, replacement=True).view(-1, K)
        loss = model(batch[:, 0], batch[:, 1], negatives)
        optimizer.zero_grad()
        loss.backward()
        assert model.in_embed.weight.grad.is_sparse
        optimizer.step()
        total += loss.item() * batch.size(0)
    print(f"epoch {epoch} loss {total / len(pairs):.4f}")

emb = F.normalize(model.in_embed.weight.detach(), dim=1)


def most_similar(word, k=3):
    sims = emb @ emb[word2idx[word]]
    sims[word2idx[word]] = -1
    return [vocab[i] for i in sims.topk(k).indices.tolist()]


for w in ("cat", "apple"):
    print(w, "->", most_similar(w))
assert set(most_similar("cat")) <= set(animals)
assert set(most_similar("apple")) <= set(fruits)
within = (emb[[word2idx[w] for w in animals]] @ emb[[word2idx[w] for w in animals]].T).mean()
across = (emb[[word2idx[w] for w in animals]] @ emb[[word2idx[w] for w in fruits]].T).mean()
assert within > across + 0.3
