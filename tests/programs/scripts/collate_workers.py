"""torch.utils.data with a custom Dataset of variable-length sequences, a collate_fn that pads with
pad_sequence and returns lengths, num_workers=2 with a worker_init_fn, and a classifier on the
mean of the unpadded steps; worker loading gives the same batches as loading in-process."""
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.nn.utils.rnn import pad_sequence
from minigenesis.utils.data import DataLoader, Dataset


class Sequences(Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(7)
        self.items = []
        for i in range(n):
            length = int(torch.randint(2, 9, (1,), generator=g))
            label = i % 2
            seq = torch.randn(length, 3, generator=g) + (1.0 if label else -1.0)
            self.items.append((seq, label))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


def collate(batch):
    seqs, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in seqs])
    return pad_sequence(seqs, batch_first=True), lengths, torch.tensor(labels)


def init_fn(worker_id):
    torch.manual_seed(1000 + worker_id)


ds = Sequences(120)
serial = list(DataLoader(ds, batch_size=16, collate_fn=collate))
parallel = list(DataLoader(ds, batch_size=16, collate_fn=collate, num_workers=2, worker_init_fn=init_fn))
assert len(serial) == len(parallel) == 8
for (p1, l1, y1), (p2, l2, y2) in zip(serial, parallel):
    assert torch.equal(p1, p2) and torch.equal(l1, l2) and torch.equal(y1, y2)
print("padded shapes:", [tuple(b[0].shape) for b in serial[:3]])

torch.manual_seed(0)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
loader = DataLoader(ds, batch_size=16, shuffle=True, collate_fn=collate, num_workers=2)
for epoch in range(3):
    for padded, lengths, labels in loader:
        mask = (torch.arange(padded.size(1))[None, :] < lengths[:, None]).unsqueeze(-1)
        mean = (padded * mask).sum(1) / lengths[:, None]
        loss = nn.functional.cross_entropy(model(mean), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
correct = 0
with torch.no_grad():
    for padded, lengths, labels in serial:
        mean = padded.sum(1) / lengths[:, None]  # the padding is zeros
        correct += (model(mean).argmax(1) == labels).sum().item()
print("accuracy %.3f" % (correct / len(ds)))
assert correct / len(ds) > 0.95
