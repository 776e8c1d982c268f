"""TensorBoard's graph and projector: add_graph of a small CNN with an example input, add_embedding
of feature vectors with labels and thumbnail images, a SummaryWriter used as a context manager
with a comment suffix, and the projector files it writes (tensors.tsv holds the vectors)."""
import os
import tempfile

import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.utils.tensorboard import SummaryWriter

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(4 * 6 * 6, 10)

    def forward(self, x):
        x = torch.relu(self.conv(x))
        return self.fc(torch.flatten(x, 1))


net = Net()
images = torch.rand(20, 1, 8, 8)
labels = [str(i % 10) for i in range(20)]
root = tempfile.mkdtemp()
with SummaryWriter(log_dir=os.path.join(root, "fashion"), comment="_tiny") as writer:
    assert writer.get_logdir() == os.path.join(root, "fashion")
    writer.add_graph(net, images[:2])
    features = images.view(-1, 64)
    writer.add_embedding(features, metadata=labels, label_img=images, global_step=0)

files = []
for dirpath, _, names in os.walk(root):
    files += [os.path.relpath(os.path.join(dirpath, n), root) for n in names]
assert any("tfevents" in f for f in files), files
tsv = [f for f in files if f.endswith("tensors.tsv")]
meta = [f for f in files if f.endswith("metadata.tsv")]
assert len(tsv) == 1 and len(meta) == 1, files
assert any(f.endswith("projector_config.pbtxt") for f in files), files
rows = open(os.path.join(root, tsv[0])).read().strip().split("\n")
assert len(rows) == 20 and len(rows[0].split("\t")) == 64
first = [float(v) for v in rows[0].split("\t")]
assert max(abs(a - b) for a, b in zip(first, features[0].tolist())) < 1e-6
assert open(os.path.join(root, meta[0])).read().split() == labels
print(f"graph and a {len(rows)}x{len(first)} embedding written: {sorted(files)[:3]}")
