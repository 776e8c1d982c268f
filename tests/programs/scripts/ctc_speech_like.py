"""Sequence labelling without alignments, as in small speech-recognition examples: a
bidirectional GRU over frames emits per-frame log-probabilities (log_softmax, shape T x N x C),
nn.CTCLoss with blank 0 against concatenated targets and their lengths, and greedy decoding by
argmax, torch.unique_consecutive and dropping blanks."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
n_labels, feat = 4, 8  # labels 1..4, 0 is the blank
prototypes = torch.randn(n_labels + 1, feat) * 2


def make_utterance():
    L = int(torch.randint(2, 5, ()).item())
    labels = torch.randint(1, n_labels + 1, (L,))
    frames = []
    for lab in labels.tolist():
        frames += [0] * int(torch.randint(0, 2, ()).item()) + [lab] * int(torch.randint(2, 4, ()).item())
    frames += [0]
    x = prototypes[torch.tensor(frames)] + 0.3 * torch.randn(len(frames), feat)
    return x, labels


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(feat, 32, bidirectional=True)
        self.out = nn.Linear(64, n_labels + 1)

    def forward(self, x):  # x: T x N x feat
        h, _ = self.rnn(x)
        return F.log_softmax(self.out(h), dim=2)


def batch(n):
    utts = [make_utterance() for _ in range(n)]
    xs = nn.utils.rnn.pad_sequence([u[0] for u in utts])  # T x N x feat
    input_lengths = torch.tensor([u[0].shape[0] for u in utts], dtype=torch.long)
    targets = torch.cat([u[1] for u in utts])
    target_lengths = torch.tensor([len(u[1]) for u in utts], dtype=torch.long)
    return xs, input_lengths, targets, target_lengths, [u[1] for u in utts]


def greedy_decode(log_probs, lengths):
    best = log_probs.argmax(dim=2).t()
    out = []
    for seq, n in zip(best, lengths):
        collapsed = torch.unique_consecutive(seq[:n])
        out.append(collapsed[collapsed != 0])
    return out


model = Model()
ctc = nn.CTCLoss(blank=0, zero_infinity=True)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(60):
    xs, il, tg, tl, _ = batch(16)
    loss = ctc(model(xs), tg, il, tl)
    opt.zero_grad()
    loss.backward()
    opt.step()

model.eval()
with torch.no_grad():
    xs, il, tg, tl, labels = batch(50)
    decoded = greedy_decode(model(xs), il)
correct = sum(torch.equal(d, l) for d, l in zip(decoded, labels))
print(f"ctc loss {loss.item():.3f}, exact sequences {correct}/50")
assert loss.item() < 0.5
assert correct >= 40
