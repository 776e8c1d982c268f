"""Kim's CNN for sentence classification: pretrained-style embeddings loaded by
nn.Embedding.from_pretrained(freeze=False, padding_idx=0), parallel Conv1d filters of widths 3, 4
and 5, max-over-time pooling, dropout, and a max-norm constraint on the output layer's weight rows
(torch.renorm) after every step; a padding-invariance check by masking."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
from minigenesis.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
V, D = 200, 32
pos_words, neg_words = torch.arange(10, 20), torch.arange(20, 30)


def make_sentence(label):
    n = int(torch.randint(6, 16, ()))
    s = torch.randint(30, V, (n,))
    k = int(torch.randint(1, 3, ()))
    s[torch.randperm(n)[:k]] = (pos_words if label else neg_words)[torch.randint(0, 10, (k,))]
    return s


labels = torch.randint(0, 2, (600,))
sentences = [make_sentence(int(l)) for l in labels]
padded = pad_sequence(sentences, batch_first=True, padding_value=0)
pretrained = torch.randn(V, D) * 0.5
pretrained[0] = 0


class TextCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding.from_pretrained(pretrained, freeze=False, padding_idx=0)
        self.convs = nn.ModuleList([nn.Conv1d(D, 16, k, padding=k - 1) for k in (3, 4, 5)])
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(48, 2)

    def forward(self, x):
        e = self.emb(x).transpose(1, 2)
        mask = (x != 0).unsqueeze(1)
        pooled = []
        for conv in self.convs:
            h = F.relu(conv(e))
            k = conv.kernel_size[0]
            # positions whose window touches only padding must not win the max
            valid = F.max_pool1d(F.pad(mask.float(), (k - 1, k - 1)), k, stride=1) > 0
            pooled.append(h.masked_fill(~valid, float("-inf")).max(dim=2).values)
        return self.fc(self.drop(torch.cat(pooled, 1)))


model = TextCNN()
opt = torch.optim.Adadelta(model.parameters(), lr=1.0)
train_x, train_y, test_x, test_y = padded[:500], labels[:500], padded[500:], labels[500:]
for epoch in range(6):
    model.train()
    for i in torch.randperm(500).split(50):
        loss = F.cross_entropy(model(train_x[i]), train_y[i])
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            model.fc.weight.data = torch.renorm(model.fc.weight.data, p=2, dim=0, maxnorm=3.0)
model.eval()
with torch.no_grad():
    acc = (model(test_x).argmax(1) == test_y).float().mean().item()
    assert model.fc.weight.norm(dim=1).max() <= 3.0 + 1e-5
    extra = F.pad(test_x[:8], (0, 7))  # more padding does not change the prediction
    assert torch.allclose(model(extra), model(test_x[:8]), atol=1e-5)
    assert model.emb.weight.grad is None or model.emb.weight.grad[0].abs().sum() == 0
print(f"test accuracy {acc:.2f}")
assert acc > 0.85
