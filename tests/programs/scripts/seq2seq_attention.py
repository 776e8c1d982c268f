"""A GRU encoder-decoder with additive (Bahdanau) attention and teacher forcing reversing digit strings."""
import random
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

SOS, EOS, PAD = 10, 11, 12
VOCAB = 13
MAX_LEN = 7
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_pair():
    n = random.randint(3, MAX_LEN - 2)
    src = [random.randint(0, 9) for _ in range(n)]
    return src + [EOS], src[::-1] + [EOS]


def collate(pairs):
    srcs = [torch.tensor(s) for s, _ in pairs]
    tgts = [torch.tensor(t) for _, t in pairs]
    src = nn.utils.rnn.pad_sequence(srcs, batch_first=True, padding_value=PAD)
    tgt = nn.utils.rnn.pad_sequence(tgts, batch_first=True, padding_value=PAD)
    return src.to(device), tgt.to(device)


class Encoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, hidden, padding_idx=PAD)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, src):
        return self.gru(self.embedding(src))


class BahdanauAttention(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.Wa = nn.Linear(hidden, hidden)
        self.Ua = nn.Linear(hidden, hidden)
        self.Va = nn.Linear(hidden, 1)

    def forward(self, query, keys, mask):
        scores = self.Va(torch.tanh(self.Wa(query) + self.Ua(keys))).squeeze(2).unsqueeze(1)
        scores = scores.masked_fill(mask.unsqueeze(1), float("-inf"))
        weights = F.softmax(scores, dim=-1)
        context = torch.bmm(weights, keys)
        return context, weights


class AttnDecoder(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, hidden)
        self.attention = BahdanauAttention(hidden)
        self.gru = nn.GRU(2 * hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, VOCAB)

    def forward(self, enc_out, enc_hidden, mask, target=None, teacher_forcing=0.5):
        batch_size = enc_out.size(0)
        dec_input = torch.full((batch_size, 1), SOS, dtype=torch.long, device=device)
        hidden = enc_hidden
        outputs, attentions = [], []
        steps = target.size(1) if target is not None else MAX_LEN
        for i in range(steps):
            embedded = self.embedding(dec_input)
            query = hidden.permute(1, 0, 2)
            context, attn = self.attention(query, enc_out, mask)
            out, hidden = self.gru(torch.cat((embedded, context), dim=2), hidden)
            logits = self.out(out)
            outputs.append(logits)
            attentions.append(attn)
            if target is not None and random.random() < teacher_forcing:
                dec_input = target[:, i].unsqueeze(1)
            else:
                _, topi = logits.topk(1)
                dec_input = topi.squeeze(-1).detach()
        return F.log_softmax(torch.cat(outputs, dim=1), dim=-1), torch.cat(attentions, dim=1)


random.seed(0)
torch.manual_seed(0)
hidden = 48
encoder, decoder = Encoder(hidden).to(device), AttnDecoder(hidden).to(device)
enc_opt = torch.optim.Adam(encoder.parameters(), lr=0.01)
dec_opt = torch.optim.Adam(decoder.parameters(), lr=0.01)
criterion = nn.NLLLoss(ignore_index=PAD)

for it in range(1, 121):
    src, tgt = collate([make_pair() for _ in range(32)])
    enc_opt.zero_grad()
    dec_opt.zero_grad()
    enc_out, enc_hidden = encoder(src)
    log_probs, _ = decoder(enc_out, enc_hidden, src == PAD, tgt, teacher_forcing=0.5)
    loss = criterion(log_probs.view(-1, VOCAB), tgt.view(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(encoder.parameters(), 1.0)
    torch.nn.utils.clip_grad_norm_(decoder.parameters(), 1.0)
    enc_opt.step()
    dec_opt.step()
    if it % 40 == 0:
        print(f"iter {it} loss {loss.item():.4f}")

encoder.eval()
decoder.eval()
correct = 0
with torch.no_grad():
    pairs = [make_pair() for _ in range(100)]
    src, tgt = collate(pairs)
    enc_out, enc_hidden = encoder(src)
    log_probs, attn = decoder(enc_out, enc_hidden, src == PAD)
    pred = log_probs.argmax(-1).cpu()
    for k, (_, t) in enumerate(pairs):
        correct += int(pred[k, : len(t)].tolist() == t)
assert torch.allclose(attn.sum(-1), torch.ones(attn.shape[:2]))
assert (attn.masked_select((src == PAD).unsqueeze(1).expand_as(attn)) == 0).all()
print(f"exact-match accuracy {correct / len(pairs):.2f}")
assert correct / len(pairs) > 0.5
