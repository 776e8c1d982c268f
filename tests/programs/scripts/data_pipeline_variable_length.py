"""A data pipeline for variable-length sequences: two Datasets joined by ConcatDataset, split with
random_split and a Generator, a Subset for validation, a WeightedRandomSampler that balances the
classes, a collate_fn padding with nn.utils.rnn.pad_sequence and sorting by length for
pack_padded_sequence (enforce_sorted=True), a GRU over the packed batch, pad_packed_sequence,
and the last valid hidden state gathered by length."""
import random
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence
from minigenesis.utils.data import (ConcatDataset, DataLoader, Dataset, Subset,
                                    WeightedRandomSampler, random_split)

random.seed(0)
torch.manual_seed(0)


class SequenceDataset(Dataset):
    """Sequences of 1-d steps; label 1 when the sequence's sum is positive. ``bias`` shifts the
    steps, so the two datasets have different class balances."""

    def __init__(self, n, bias):
        self.items = []
        for _ in range(n):
            length = random.randint(3, 12)
            seq = torch.randn(length, 1) + bias
            self.items.append((seq, int(seq.sum() > 0)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


def collate_fn(batch):
    batch.sort(key=lambda item: len(item[0]), reverse=True)
    sequences, labels = zip(*batch)
    lengths = torch.tensor([len(s) for s in sequences])
    padded = pad_sequence(sequences, batch_first=True, padding_value=0.0)
    return padded, lengths, torch.tensor(labels)


class GRUClassifier(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 2)

    def forward(self, padded, lengths):
        packed = pack_padded_sequence(padded, lengths, batch_first=True)
        packed_out, h_n = self.gru(packed)
        out, out_lengths = pad_packed_sequence(packed_out, batch_first=True)
        # the output at each sequence's last valid step is the final hidden state
        idx = (out_lengths - 1).view(-1, 1, 1).expand(-1, 1, out.size(2))
        last = out.gather(1, idx).squeeze(1)
        assert torch.allclose(last, h_n[-1], atol=1e-6)
        return self.fc(h_n[-1])


full = ConcatDataset([SequenceDataset(300, bias=0.3), SequenceDataset(100, bias=-0.2)])
assert len(full) == 400 and full[350][1] in (0, 1)
train_set, rest = random_split(full, [0.75, 0.25], generator=torch.Generator().manual_seed(42))
val_set = Subset(rest, list(range(0, len(rest), 2)))
print("sizes:", len(train_set), len(rest), len(val_set))

labels = torch.tensor([train_set[i][1] for i in range(len(train_set))])
class_count = torch.bincount(labels, minlength=2)
weights = (1.0 / class_count.float())[labels]
sampler = WeightedRandomSampler(weights.tolist(), num_samples=len(train_set), replacement=True)
train_loader = DataLoader(train_set, batch_size=32, sampler=sampler, collate_fn=collate_fn, drop_last=True)
val_loader = DataLoader(val_set, batch_size=64, shuffle=False, collate_fn=collate_fn)

drawn = torch.cat([y for _, _, y in train_loader])
print("class counts in the data", class_count.tolist(), "as drawn", torch.bincount(drawn).tolist())
assert len(drawn) == (len(train_set) // 32) * 32
assert 0.35 < drawn.float().mean().item() < 0.65

model = GRUClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
criterion = nn.CrossEntropyLoss()
for epoch in range(8):
    model.train()
    for padded, lengths, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(padded, lengths), y)
        loss.backward()
        optimizer.step()
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for padded, lengths, y in val_loader:
            correct += (model(padded, lengths).argmax(dim=1) == y).sum().item()
            total += y.size(0)
    if epoch % 2 == 1:
        print(f"epoch {epoch}: loss {loss.item():.4f} val acc {correct / total:.3f}")
assert correct / total > 0.85, correct / total
