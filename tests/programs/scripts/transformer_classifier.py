"""A TransformerEncoder classifier with sinusoidal positions and a padding mask."""
import math
import minigenesis as torch
import minigenesis.nn as nn

class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]

class Classifier(nn.Module):
    def __init__(self, vocab=20, d=32, classes=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = PositionalEncoding(d)
        layer = nn.TransformerEncoderLayer(d_model=d, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2)
        self.fc = nn.Linear(d, classes)

    def forward(self, tokens):
        pad = tokens == 0
        h = self.enc(self.pos(self.emb(tokens)), src_key_padding_mask=pad)
        h = h.masked_fill(pad.unsqueeze(-1), 0.0).sum(1) / (~pad).sum(1, keepdim=True)
        return self.fc(h)

torch.manual_seed(0)
def batch(n=32, L=10):
    lengths = torch.randint(3, L + 1, (n,))
    toks = torch.randint(1, 20, (n, L))
    toks[torch.arange(L)[None, :] >= lengths[:, None]] = 0
    labels = ((toks == 7).any(1)).long()
    return toks, labels

model = Classifier()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(120):
    toks, labels = batch()
    loss = nn.functional.cross_entropy(model(toks), labels)
    opt.zero_grad(); loss.backward(); opt.step()
model.eval()
toks, labels = batch(256)
with torch.no_grad():
    acc = (model(toks).argmax(-1) == labels).float().mean().item()
print("loss", loss.item(), "acc", acc)
assert acc > 0.8
