"""Streaming data the way a log-processing or NLP loader does it: an IterableDataset yielding
variable-length token lists from a generator (get_worker_info() is None in the main process),
a custom collate_fn padding with pad_sequence and returning lengths, a BatchSampler over a
SequentialSampler for an eval set, DataLoader(batch_size=None) passing items through, and
default_collate on dicts; a bag-of-embeddings classifier trained on the stream."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F
from minigenesis.nn.utils.rnn import pad_sequence
from minigenesis.utils.data import BatchSampler, DataLoader, IterableDataset, SequentialSampler, get_worker_info
from minigenesis.utils.data import default_collate

VOCAB, PAD = 20, 0


class TokenStream(IterableDataset):
    def __init__(self, n, seed):
        self.n, self.seed = n, seed

    def __iter__(self):
        assert get_worker_info() is None
        g = torch.Generator().manual_seed(self.seed)
        for _ in range(self.n):
            label = int(torch.randint(0, 2, (1,), generator=g))
            length = int(torch.randint(3, 12, (1,), generator=g))
            lo, hi = (1, 12) if label == 0 else (9, VOCAB)
            yield torch.randint(lo, hi, (length,), generator=g), label


def collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(list(seqs), batch_first=True, padding_value=PAD), lengths, torch.tensor(labels)


class BagClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 16, padding_idx=PAD)
        self.fc = nn.Linear(16, 2)

    def forward(self, tokens, lengths):
        summed = self.emb(tokens).sum(1)
        return self.fc(summed / lengths.unsqueeze(1).float())


torch.manual_seed(0)
model = BagClassifier()
assert torch.equal(model.emb.weight[PAD], torch.zeros(16))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(3):
    for tokens, lengths, labels in DataLoader(TokenStream(640, seed=epoch), batch_size=32, collate_fn=collate):
        assert tokens.shape[0] == lengths.shape[0] and tokens.shape[1] == lengths.max()
        loss = F.cross_entropy(model(tokens, lengths), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
assert torch.equal(model.emb.weight[PAD], torch.zeros(16)), "padding_idx gets no gradient"

eval_items = list(TokenStream(200, seed=99))
batches = list(BatchSampler(SequentialSampler(eval_items), batch_size=64, drop_last=False))
assert [len(b) for b in batches] == [64, 64, 64, 8] and batches[1][0] == 64
correct = 0
with torch.no_grad():
    for idx in batches:
        tokens, lengths, labels = collate([eval_items[i] for i in idx])
        correct += (model(tokens, lengths).argmax(1) == labels).sum().item()
passthrough = list(DataLoader(TokenStream(3, seed=7), batch_size=None))
assert len(passthrough) == 3 and isinstance(passthrough[0][1], int)
batch = default_collate([{"x": torch.ones(2), "y": 1}, {"x": torch.zeros(2), "y": 0}])
assert batch["x"].shape == (2, 2) and torch.equal(batch["y"], torch.tensor([1, 0]))
print(f"last loss {loss.item():.3f}, eval accuracy {correct / 200:.3f}")
assert correct / 200 > 0.85
