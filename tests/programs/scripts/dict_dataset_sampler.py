"""A map-style Dataset returning dicts, RandomSampler(replacement=True, num_samples=...)."""
import minigenesis as torch
from minigenesis.utils.data import Dataset, DataLoader, RandomSampler

class PairsDataset(Dataset):
    def __init__(self, n=50):
        self.a = torch.arange(n, dtype=torch.float32)
        self.labels = [i % 3 for i in range(n)]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return {"x": self.a[idx].unsqueeze(0), "y": self.labels[idx], "name": f"item{idx}"}

ds = PairsDataset()
sampler = RandomSampler(ds, replacement=True, num_samples=120, generator=torch.Generator().manual_seed(3))
loader = DataLoader(ds, batch_size=16, sampler=sampler, num_workers=0, drop_last=True)
seen = 0
for batch in loader:
    assert batch["x"].shape == (16, 1)
    assert batch["y"].dtype == torch.int64
    assert len(batch["name"]) == 16
    seen += batch["x"].shape[0]
print("batches", len(loader), "samples", seen)
assert seen == 112
