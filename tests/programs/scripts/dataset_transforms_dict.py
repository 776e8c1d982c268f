"""The data-loading tutorial's pattern: a Dataset returning dict samples, callable transform
classes (Rescale-like crop, ToTensor, a Normalize) chained by a Compose, a DataLoader that
collates dicts of tensors, random_split into train/val with a seeded generator, and a regression
head fitting the landmark mean from the images."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.utils.data import DataLoader, Dataset, random_split


class Landmarks(Dataset):
    def __init__(self, n, transform=None):
        rng = np.random.default_rng(0)
        self.images = rng.random((n, 12, 12, 1)).astype(np.float32)
        self.points = rng.uniform(2, 10, (n, 3, 2)).astype(np.float32)
        for img, pts in zip(self.images, self.points):
            for x, y in pts.astype(int):
                img[y - 1:y + 2, x - 1:x + 2, 0] += 2.0
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        if torch.is_tensor(idx):
            idx = idx.tolist()
        sample = {"image": self.images[idx], "landmarks": self.points[idx]}
        if self.transform:
            sample = self.transform(sample)
        return sample


class CenterCrop(object):
    def __init__(self, output_size):
        assert isinstance(output_size, (int, tuple))
        self.output_size = (output_size, output_size) if isinstance(output_size, int) else output_size

    def __call__(self, sample):
        image, landmarks = sample["image"], sample["landmarks"]
        h, w = image.shape[:2]
        new_h, new_w = self.output_size
        top, left = (h - new_h) // 2, (w - new_w) // 2
        image = image[top:top + new_h, left:left + new_w]
        return {"image": image, "landmarks": landmarks - [left, top]}


class ToTensor(object):
    def __call__(self, sample):
        image = sample["image"].transpose((2, 0, 1))
        return {"image": torch.from_numpy(np.ascontiguousarray(image)), "landmarks": torch.from_numpy(sample["landmarks"]).float()}


class Normalize(object):
    def __init__(self, mean, std):
        self.mean, self.std = mean, std

    def __call__(self, sample):
        return {**sample, "image": (sample["image"] - self.mean) / self.std}


class Compose(object):
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, sample):
        for t in self.transforms:
            sample = t(sample)
        return sample


ds = Landmarks(300, transform=Compose([CenterCrop(12), ToTensor(), Normalize(0.6, 0.5)]))
s = ds[torch.tensor(3)]
assert s["image"].shape == (1, 12, 12) and s["landmarks"].shape == (3, 2) and s["image"].dtype == torch.float32
assert CenterCrop(8)({"image": ds.images[0], "landmarks": ds.points[0]})["image"].shape == (8, 8, 1)
train_set, val_set = random_split(ds, [240, 60], generator=torch.Generator().manual_seed(42))
assert len(set(train_set.indices) & set(val_set.indices)) == 0
loader = DataLoader(train_set, batch_size=20, shuffle=True)
batch = next(iter(loader))
assert isinstance(batch, dict) and batch["image"].shape == (20, 1, 12, 12) and batch["landmarks"].shape == (20, 3, 2)
torch.manual_seed(0)
model = nn.Sequential(nn.Flatten(), nn.Linear(144, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(30):
    for batch in loader:
        loss = nn.functional.mse_loss(model(batch["image"]), batch["landmarks"].mean(1))
        opt.zero_grad()
        loss.backward()
        opt.step()
val = next(iter(DataLoader(val_set, batch_size=60)))
with torch.no_grad():
    val_loss = nn.functional.mse_loss(model(val["image"]), val["landmarks"].mean(1)).item()
baseline = ((val["landmarks"].mean(1) - val["landmarks"].mean(1).mean(0)) ** 2).mean().item()
print("val mse %.4f vs predicting the mean %.4f" % (val_loss, baseline))
assert val_loss < 0.5 * baseline
