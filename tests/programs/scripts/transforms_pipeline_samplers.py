"""A torchvision-style transforms pipeline written by hand (Compose, ToTensor from HWC uint8,
RandomCrop with padding, RandomHorizontalFlip, Normalize) on an image Dataset, loaded with the
sampler machinery people reach for: SubsetRandomSampler for a train/validation split,
a BatchSampler over a SequentialSampler, DistributedSampler with num_replicas/rank given by
hand and set_epoch, worker_init_fn seeding NumPy per worker, a generator for the shuffle, a
collate_fn that stacks images and counts labels, and drop_last."""
import random

import numpy as np

import minigenesis as torch
from minigenesis.utils.data import (BatchSampler, DataLoader, Dataset, DistributedSampler,
                                    SequentialSampler, SubsetRandomSampler)


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class ToTensor:
    def __call__(self, pic):  # HWC uint8 -> CHW float in [0, 1]
        return torch.from_numpy(pic.transpose((2, 0, 1)).copy()).float().div(255)


class RandomCrop:
    def __init__(self, size, padding):
        self.size, self.padding = size, padding

    def __call__(self, img):
        img = torch.nn.functional.pad(img, [self.padding] * 4, mode="reflect")
        i = torch.randint(0, img.shape[1] - self.size + 1, size=(1,)).item()
        j = torch.randint(0, img.shape[2] - self.size + 1, size=(1,)).item()
        return img[:, i:i + self.size, j:j + self.size]


class RandomHorizontalFlip:
    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        return img.flip(-1) if torch.rand(1) < self.p else img


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = torch.tensor(mean).view(-1, 1, 1), torch.tensor(std).view(-1, 1, 1)

    def __call__(self, t):
        return (t - self.mean) / self.std


class StripesDataset(Dataset):
    def __init__(self, n, transform=None):
        rng = np.random.default_rng(3)
        self.labels = rng.integers(0, 2, n)
        self.images = rng.integers(0, 60, (n, 12, 12, 3)).astype(np.uint8)
        for img, y in zip(self.images, self.labels):
            if y:
                img[::3, :, :] = 250  # horizontal stripes
            else:
                img[:, ::3, :] = 250  # vertical stripes
        self.transform = transform

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        img = self.images[idx]
        return (self.transform(img) if self.transform else img), int(self.labels[idx])


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


def collate(batch):
    images = torch.stack([b[0] for b in batch])
    labels = torch.tensor([b[1] for b in batch])
    return images, labels, torch.bincount(labels, minlength=2)


torch.manual_seed(0)
train_tf = Compose([ToTensor(), RandomCrop(12, padding=2), RandomHorizontalFlip(), Normalize([0.3] * 3, [0.35] * 3)])
eval_tf = Compose([ToTensor(), Normalize([0.3] * 3, [0.35] * 3)])
train_ds, eval_ds = StripesDataset(160, train_tf), StripesDataset(160, eval_tf)
indices = torch.randperm(160).tolist()
train_idx, val_idx = indices[:128], indices[128:]
g = torch.Generator()
g.manual_seed(0)
train_loader = DataLoader(train_ds, batch_size=16, sampler=SubsetRandomSampler(train_idx, generator=g),
                          collate_fn=collate, worker_init_fn=seed_worker, drop_last=True)
val_loader = DataLoader(torch.utils.data.Subset(eval_ds, val_idx),
                        batch_sampler=BatchSampler(SequentialSampler(range(len(val_idx))), batch_size=10, drop_last=False),
                        collate_fn=collate)
assert len(train_loader) == 8 and len(val_loader) == 4

shard = DistributedSampler(eval_ds, num_replicas=2, rank=0, shuffle=True, seed=1)
shard.set_epoch(0)
first = list(shard)
shard.set_epoch(1)
assert len(first) == 80 and first != list(shard)  # a new order each epoch
other = DistributedSampler(eval_ds, num_replicas=2, rank=1, shuffle=True, seed=1)
other.set_epoch(1)
assert sorted(list(shard) + list(other)) == list(range(160))

model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AdaptiveAvgPool2d((4, 1)),
                            torch.nn.Flatten(), torch.nn.Linear(32, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(4):
    seen = torch.zeros(2, dtype=torch.long)
    for x, y, counts in train_loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen += counts
    assert seen.sum().item() == 128
correct = 0
with torch.no_grad():
    for x, y, _ in val_loader:
        correct += (model(x).argmax(1) == y).sum().item()
print("train batch shape", tuple(x.shape), "last loss %.4f" % loss.item())
print("validation accuracy %.3f on %d images" % (correct / len(val_idx), len(val_idx)))
assert correct / len(val_idx) > 0.9
