"""word2vec CBOW with negative sampling on a toy corpus: dense nn.Embedding tables
(sparse=False) for input and output vectors, the context averaged, negatives drawn with
torch.multinomial from unigram counts ** 0.75, the scores by torch.bmm, the loss with
F.logsigmoid, Adam; nearest neighbours from F.normalize'd vectors with topk."""
import collections
import random
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

random.seed(1)
np.random.seed(1)
torch.manual_seed(1)
groups = [["red", "green", "blue", "yellow", "purple"],
          ["one", "two", "three", "four", "five"],
          ["paris", "london", "rome", "berlin", "madrid"]]
fillers = ["the", "a", "is", "and", "of"]
corpus = []
for _ in range(400):
    g = random.choice(groups)
    sent = [random.choice(g) for _ in range(4)]
    sent.insert(random.randrange(5), random.choice(fillers))
    corpus.extend(sent)

counter = collections.Counter(corpus)
vocab = sorted(counter)
word2idx = {w: i for i, w in enumerate(vocab)}
idx2word = {i: w for w, i in word2idx.items()}
ids = [word2idx[w] for w in corpus]
window = 2
contexts, centers = [], []
for i in range(window, len(ids) - window):
    contexts.append(ids[i - window:i] + ids[i + 1:i + window + 1])
    centers.append(ids[i])
contexts = torch.LongTensor(contexts)
centers = torch.LongTensor(centers)
word_freqs = np.array([counter[w] for w in vocab], dtype=np.float32)
unigram = torch.from_numpy(word_freqs ** 0.75)
noise_dist = unigram / unigram.sum()


class CBOW(nn.Module):
    def __init__(self, vocab_size, embed_size):
        super().__init__()
        self.in_embed = nn.Embedding(vocab_size, embed_size, sparse=False)
        self.out_embed = nn.Embedding(vocab_size, embed_size, sparse=False)
        initrange = 0.5 / embed_size
        self.in_embed.weight.data.uniform_(-initrange, initrange)
        self.out_embed.weight.data.uniform_(-initrange, initrange)

    def forward(self, context, target, negatives):
        h = self.in_embed(context).mean(dim=1, keepdim=True)          # (B, 1, E)
        pos = self.out_embed(target).unsqueeze(2)                      # (B, E, 1)
        neg = self.out_embed(negatives)                                # (B, K, E)
        pos_loss = F.logsigmoid(torch.bmm(h, pos).squeeze())           # (B,)
        neg_loss = F.logsigmoid(-torch.bmm(neg, h.transpose(1, 2)).squeeze(2)).sum(1)
        return -(pos_loss + neg_loss).mean()


model = CBOW(len(vocab), 16)
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
K, batch_size = 5, 128
for epoch in range(8):
    perm = torch.randperm(len(centers))
    total = 0.0
    for i in range(0, len(perm), batch_size):
        b = perm[i:i + batch_size]
        negatives = torch.multinomial(noise_dist, len(b) * K, replacement=True).view(len(b), K)
        loss = model(contexts[b], centers[b], negatives)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item() * len(b)
    if epoch % 2 == 1:
        print(f"epoch {epoch}: loss {total / len(centers):.4f}")

emb = F.normalize(model.in_embed.weight.detach(), dim=1)
sims = emb @ emb.t()
sims.fill_diagonal_(-1)
hits = 0
for g in groups:
    for w in g:
        top = sims[word2idx[w]].topk(3).indices.tolist()
        hits += sum(idx2word[j] in g for j in top)
total_pairs = 3 * sum(len(g) for g in groups)
print("nearest to 'red':", [idx2word[j] for j in sims[word2idx["red"]].topk(3).indices.tolist()])
print(f"top-3 neighbours from the same group: {hits}/{total_pairs}")
assert emb.numpy().shape == (len(vocab), 16)
assert hits >= 0.8 * total_pairs
