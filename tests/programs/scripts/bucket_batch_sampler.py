"""Length-bucketed batching as translation and speech pipelines write it: a custom Sampler
subclass yielding indices sorted by length within shuffled chunks, a custom BatchSampler-like
iterable passed as DataLoader(batch_sampler=...), a Dataset returning namedtuples collated field
by field by default_collate into a namedtuple of tensors, a collate_fn padding each batch only
to its own longest sequence, len(loader) from the sampler, and the padding saved measured
against random batching; DataLoader's argument checks (batch_sampler with batch_size,
persistent_workers without workers) raise ValueError as in PyTorch."""
import collections
import random

import minigenesis as torch
from minigenesis.nn.utils.rnn import pad_sequence
from minigenesis.utils.data import BatchSampler, DataLoader, Dataset, RandomSampler, Sampler
from minigenesis.utils.data.dataloader import default_collate

torch.manual_seed(0)
random.seed(0)
Example = collections.namedtuple("Example", ["tokens", "label"])


class VarLenDataset(Dataset):
    def __init__(self, n):
        self.lengths = [random.randint(2, 40) for _ in range(n)]
        self.items = [Example(torch.randint(1, 100, (m,)), m % 3) for m in self.lengths]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class BucketSampler(Sampler):
    def __init__(self, lengths, batch_size, chunk=4, generator=None):
        self.lengths, self.batch_size, self.chunk, self.generator = lengths, batch_size, chunk, generator

    def __iter__(self):
        order = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        size = self.batch_size * self.chunk
        for start in range(0, len(order), size):
            chunk = sorted(order[start:start + size], key=lambda i: self.lengths[i])
            batches = [chunk[k:k + self.batch_size] for k in range(0, len(chunk), self.batch_size)]
            random.shuffle(batches)
            yield from batches

    def __len__(self):
        return (len(self.lengths) + self.batch_size - 1) // self.batch_size


def pad_collate(batch):
    tokens = pad_sequence([ex.tokens for ex in batch], batch_first=True, padding_value=0)
    return tokens, torch.tensor([len(ex.tokens) for ex in batch]), torch.tensor([ex.label for ex in batch])


ds = VarLenDataset(256)
collated = default_collate([ds[0], ds[0]])
assert type(collated).__name__ == "Example" and collated.label.tolist() == [ds[0].label] * 2
assert torch.equal(collated.tokens[1], ds[0].tokens)

g = torch.Generator().manual_seed(1)
bucketed = DataLoader(ds, batch_sampler=BucketSampler(ds.lengths, 16, generator=g), collate_fn=pad_collate)
plain = DataLoader(ds, batch_size=16, shuffle=True, collate_fn=pad_collate, generator=torch.Generator().manual_seed(1))
assert len(bucketed) == len(plain) == 16


def padding_fraction(loader):
    pad = total = 0
    seen = []
    for tokens, lengths, labels in loader:
        pad += (tokens == 0).sum().item()
        total += tokens.numel()
        seen.append(len(lengths))
        assert tokens.shape[1] == lengths.max().item()
    return pad / total, seen


frac_b, sizes = padding_fraction(bucketed)
frac_p, _ = padding_fraction(plain)
print(f"padding: bucketed {frac_b:.3f} random {frac_p:.3f}; batch sizes {sorted(set(sizes))}")
assert frac_b < 0.5 * frac_p and sum(sizes) == 256

sampler = BatchSampler(RandomSampler(range(10), generator=torch.Generator().manual_seed(0)), batch_size=4, drop_last=False)
batches = list(sampler)
assert [len(b) for b in batches] == [4, 4, 2] and sorted(sum(batches, [])) == list(range(10))
for bad in (dict(batch_sampler=sampler, batch_size=4), dict(persistent_workers=True)):
    try:
        DataLoader(range(10), **bad)
    except ValueError as e:
        print("ValueError:", str(e)[:60])
    else:
        raise AssertionError(f"DataLoader accepted {bad}")
