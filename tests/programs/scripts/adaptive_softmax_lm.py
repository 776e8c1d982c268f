"""A word-level language model over a Zipf-distributed vocabulary with
nn.AdaptiveLogSoftmaxWithLoss: frequent words in the head, rare ones in two clusters with
smaller projections; its log_prob rows are normalised, predict agrees with log_prob's argmax,
and the loss drops below the unigram entropy."""
import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
V, T = 500, 20000
ranks = torch.arange(1, V + 1, dtype=torch.float32)
unigram = (1 / ranks) / (1 / ranks).sum()
# a bigram-ish source: the next word depends on the previous word's bucket
shift = torch.randint(0, V, (V,))
prev = torch.multinomial(unigram, T, replacement=True)
follow = torch.multinomial(unigram, T, replacement=True)
tokens = torch.where(torch.rand(T) < 0.5, (shift[prev.roll(1)] + follow) % 50, follow)


class LM(nn.Module):
    def __init__(self, V, d=64):
        super().__init__()
        self.emb = nn.Embedding(V, d)
        self.rnn = nn.GRU(d, d, batch_first=True)
        self.out = nn.AdaptiveLogSoftmaxWithLoss(d, V, cutoffs=[50, 200], div_value=2.0)

    def forward(self, x, y):
        h, _ = self.rnn(self.emb(x))
        return self.out(h.reshape(-1, h.shape[-1]), y.reshape(-1))


model = LM(V)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
data = tokens[: (T // 33) * 33].view(-1, 33)
x, y = data[:, :-1], data[:, 1:]
entropy = -(unigram * unigram.log()).sum().item()
for epoch in range(3):
    for i in range(0, len(x), 32):
        out = model(x[i:i + 32], y[i:i + 32])
        opt.zero_grad()
        out.loss.backward()
        opt.step()
    print(f"epoch {epoch}: loss {out.loss.item():.3f} (unigram entropy {entropy:.3f})")
assert out.loss.item() < entropy
with torch.no_grad():
    h, _ = model.rnn(model.emb(x[:4]))
    h = h.reshape(-1, 64)
    logp = model.out.log_prob(h)
    assert logp.shape == (h.shape[0], V)
    assert torch.allclose(logp.exp().sum(1), torch.ones(h.shape[0]), atol=1e-4)
    assert torch.equal(model.out.predict(h), logp.argmax(1))
    nll = -logp.gather(1, y[:4].reshape(-1, 1)).mean()
    assert torch.allclose(nll, model.out(h, y[:4].reshape(-1)).loss, atol=1e-5)
print("head size", model.out.head.weight.shape[0], "tail projections", [tuple(t[0].weight.shape) for t in model.out.tail])
