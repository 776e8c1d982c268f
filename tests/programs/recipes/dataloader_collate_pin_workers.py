"""Data-loading recipes: a map-style Dataset through DataLoader with a custom collate_fn returning
a batch object with its own pin_memory(), pin_memory=True (a no-op without an accelerator),
default_collate on dicts and tuples, drop_last, a seeded generator for shuffling, an
IterableDataset sharded across two workers by torch.utils.data.get_worker_info() (and None in
the main process), and worker_init_fn configuring each copy of the dataset."""
import math
import warnings

import minigenesis as torch
from minigenesis.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info
from minigenesis.utils.data import default_collate


class SimpleCustomBatch:
    def __init__(self, data):
        transposed_data = list(zip(*data))
        self.inp = torch.stack(transposed_data[0], 0)
        self.tgt = torch.stack(transposed_data[1], 0)

    def pin_memory(self):
        self.inp = self.inp.pin_memory()
        self.tgt = self.tgt.pin_memory()
        return self


def collate_wrapper(batch):
    return SimpleCustomBatch(batch)


inps = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
tgts = torch.arange(10 * 5, dtype=torch.float32).view(10, 5)
dataset = torch.utils.data.TensorDataset(inps, tgts)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # "no accelerator is found" on a CPU-only machine
    loader = DataLoader(dataset, batch_size=2, collate_fn=collate_wrapper, pin_memory=True)
    batches = list(loader)
assert len(batches) == 5 and isinstance(batches[0], SimpleCustomBatch)
assert torch.equal(batches[1].inp, inps[2:4]) and not batches[0].inp.is_pinned()


class Squares(Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        return {"x": torch.tensor([float(i)]), "y": i * i, "name": f"s{i}"}


g = torch.Generator().manual_seed(42)
order = [b["y"].tolist() for b in DataLoader(Squares(), batch_size=3, shuffle=True, generator=g, drop_last=True)]
assert len(order) == 2 and all(len(b) == 3 for b in order)
batch = default_collate([Squares()[i] for i in range(3)])
assert batch["x"].shape == (3, 1) and batch["y"].tolist() == [0, 1, 4] and batch["name"] == ["s0", "s1", "s2"]
pairs = default_collate([(1, 2.0), (3, 4.0)])
assert pairs[0].dtype == torch.int64 and pairs[1].dtype == torch.float64


class MyIterableDataset(IterableDataset):
    def __init__(self, start, end):
        super().__init__()
        assert end > start
        self.start = start
        self.end = end

    def __iter__(self):
        worker_info = get_worker_info()
        if worker_info is None:
            iter_start, iter_end = self.start, self.end
        else:
            per_worker = int(math.ceil((self.end - self.start) / float(worker_info.num_workers)))
            worker_id = worker_info.id
            iter_start = self.start + worker_id * per_worker
            iter_end = min(iter_start + per_worker, self.end)
        return iter(range(iter_start, iter_end))


class PlainRange(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))


ds = MyIterableDataset(start=3, end=7)
assert get_worker_info() is None
assert [int(v) for v in DataLoader(ds, num_workers=0)] == [3, 4, 5, 6]
if __name__ == "__main__":
    two = [int(v) for v in DataLoader(ds, num_workers=2)]
    assert two == [3, 5, 4, 6], two

    def worker_init_fn(worker_id):
        worker_info = get_worker_info()
        dataset = worker_info.dataset
        overall_start, overall_end = dataset.start, dataset.end
        per_worker = int(math.ceil((overall_end - overall_start) / float(worker_info.num_workers)))
        dataset.start = overall_start + worker_id * per_worker
        dataset.end = min(dataset.start + per_worker, overall_end)

    got = sorted(int(v) for v in DataLoader(PlainRange(3, 7), num_workers=2, worker_init_fn=worker_init_fn))
    assert got == [3, 4, 5, 6], got
    print("sharded by workers:", two)
