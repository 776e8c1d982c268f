"""A character-level GRU language model with gradient clipping and multinomial sampling."""
import minigenesis as torch
import minigenesis.nn as nn

text = "hello world, hello pytorch, hello tensors. " * 20
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)

class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, 32)
        self.rnn = nn.GRU(32, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, x, h=None):
        out, h = self.rnn(self.emb(x), h)
        return self.head(out), h

torch.manual_seed(1)
model = CharRNN(len(chars))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
seq = 24
for step in range(150):
    ix = torch.randint(len(data) - seq - 1, (16,))
    xb = torch.stack([data[i:i + seq] for i in ix])
    yb = torch.stack([data[i + 1:i + seq + 1] for i in ix])
    logits, _ = model(xb)
    loss = nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), yb.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
print("final loss", loss.item())

model.eval()
x = torch.tensor([[stoi["h"]]])
h = None
out = "h"
with torch.no_grad():
    for _ in range(30):
        logits, h = model(x, h)
        probs = torch.softmax(logits[:, -1] / 0.8, dim=-1)
        nxt = torch.multinomial(probs, num_samples=1)
        out += itos[nxt.item()]
        x = nxt
print(out)
assert loss.item() < 1.0
