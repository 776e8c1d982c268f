"""Beam search over a small GRU language model, as decoding tutorials write it: the model trained
on a few fixed phrases, then beam search that keeps (B * V) candidate scores, picks the top
beams with topk over the flattened scores, recovers the beam and token with
torch.div(rounding_mode="floor") and %, reorders the hidden state with index_select, and
finishes hypotheses at EOS with length normalisation; beam size 1 equals greedy decoding, and a
wider beam finds a sequence at least as likely, checked by rescoring with the model."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
phrases = ["the cat sat", "the cat ran", "the dog sat on the mat", "a dog ran", "the mat"]
vocab = ["<bos>", "<eos>"] + sorted({w for p in phrases for w in p.split()})
stoi = {w: i for i, w in enumerate(vocab)}
BOS, EOS, V = 0, 1, len(vocab)


class LM(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.emb = nn.Embedding(V, d)
        self.gru = nn.GRU(d, d, batch_first=True)
        self.out = nn.Linear(d, V)

    def forward(self, tokens, h=None):
        y, h = self.gru(self.emb(tokens), h)
        return self.out(y), h


seqs = [torch.tensor([BOS] + [stoi[w] for w in p.split()] + [EOS]) for p in phrases]
padded = nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-100)
inputs = padded[:, :-1].clamp(min=0)
targets = padded[:, 1:]
model = LM()
opt = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(120):
    logits, _ = model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"language model loss {loss.item():.4f}")


@torch.no_grad()
def sequence_logprob(tokens):
    logits, _ = model(torch.tensor([[BOS] + tokens[:-1]]))
    return F.log_softmax(logits[0], -1).gather(1, torch.tensor(tokens)[:, None]).sum().item()


@torch.no_grad()
def beam_search(beam_size, max_len=8, alpha=0.0):
    tokens = torch.full((1, 1), BOS, dtype=torch.long)
    scores = torch.zeros(1)
    h = None
    finished = []
    for _ in range(max_len):
        logits, h = model(tokens[:, -1:], h)
        logp = F.log_softmax(logits[:, -1], dim=-1)  # (beams, V)
        cand = (scores[:, None] + logp).view(-1)
        top_scores, top_idx = cand.topk(min(beam_size * 2, cand.numel()))
        beam_idx = torch.div(top_idx, V, rounding_mode="floor")
        token_idx = top_idx % V
        keep_beams, keep_tokens, keep_scores = [], [], []
        for s, b, t in zip(top_scores.tolist(), beam_idx.tolist(), token_idx.tolist()):
            if t == EOS:
                hyp = tokens[b, 1:].tolist() + [EOS]
                finished.append((s / len(hyp) ** alpha, s, hyp))
            else:
                keep_beams.append(b), keep_tokens.append(t), keep_scores.append(s)
            if len(keep_beams) == beam_size:
                break
        if len(finished) >= beam_size or not keep_beams:
            break
        sel = torch.tensor(keep_beams)
        tokens = torch.cat([tokens.index_select(0, sel), torch.tensor(keep_tokens)[:, None]], dim=1)
        h = h.index_select(1, sel)
        scores = torch.tensor(keep_scores)
    return max(finished)


def greedy(max_len=8):
    tokens = [BOS]
    with torch.no_grad():
        for _ in range(max_len):
            logits, _ = model(torch.tensor([tokens]))
            nxt = int(logits[0, -1].argmax())
            tokens.append(nxt)
            if nxt == EOS:
                break
    return tokens[1:]


def words(hyp):
    return " ".join(vocab[t] for t in hyp if t != EOS)


g = greedy()
_, s1, b1 = beam_search(1)
_, s4, b4 = beam_search(4)
print(f"greedy '{words(g)}' beam1 '{words(b1)}' {s1:.4f} beam4 '{words(b4)}' {s4:.4f}")
assert b1 == g
assert abs(sequence_logprob(b4) - s4) < 1e-4 and abs(sequence_logprob(b1) - s1) < 1e-4
assert s4 >= s1 - 1e-6
assert words(b4) in phrases
