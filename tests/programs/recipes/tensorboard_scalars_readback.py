"""The TensorBoard recipe: a SummaryWriter logging a regression's loss with add_scalar, train and
validation curves with add_scalars, weight histograms, an image and a batch of images, text and
hyperparameters, then flush/close, and the event file read back with TensorBoard's
EventAccumulator: every logged step and value must be there."""
import os
import tempfile

import minigenesis as torch
from minigenesis.utils.tensorboard import SummaryWriter
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

torch.manual_seed(0)
log_dir = tempfile.mkdtemp()
writer = SummaryWriter(log_dir=log_dir)

x = torch.arange(-5, 5, 0.1).view(-1, 1)
y = -5 * x + 0.1 * torch.randn(x.size())
model = torch.nn.Linear(1, 1)
criterion = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

losses = []
for epoch in range(10):
    y1 = model(x)
    loss = criterion(y1, y)
    writer.add_scalar("Loss/train", loss, epoch)
    writer.add_scalars("run_14h", {"xsinx": epoch * 0.5, "xcosx": epoch * 0.25}, epoch)
    writer.add_histogram("weight", model.weight, epoch)
    losses.append(loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

img = torch.zeros((3, 16, 16))
img[0] = torch.arange(0, 256, 16).float().div(255).view(1, -1)
writer.add_image("my_image", img, 0)
writer.add_images("my_images", torch.rand(4, 3, 8, 8), 0)
writer.add_text("notes", "a linear fit", 0)
writer.add_hparams({"lr": 0.1, "bsize": 1}, {"hparam/loss": losses[-1]})
writer.flush()
writer.close()

assert any(name.startswith("events.out.tfevents") for name in os.listdir(log_dir))
acc = EventAccumulator(log_dir)
acc.Reload()
tags = acc.Tags()
assert "Loss/train" in tags["scalars"], tags
events = acc.Scalars("Loss/train")
assert [e.step for e in events] == list(range(10))
for e, expected in zip(events, losses):
    assert abs(e.value - expected) <= 1e-5 * max(1.0, abs(expected)), (e.value, expected)
assert "weight" in tags["histograms"]
assert acc.Histograms("weight")[0].histogram_value.num == 1
assert set(tags["images"]) == {"my_image", "my_images"}, tags["images"]
assert acc.Images("my_image")[0].width == 16 and acc.Images("my_image")[0].height == 16
subruns = sorted(d for d in os.listdir(log_dir) if os.path.isdir(os.path.join(log_dir, d)))
assert "run_14h_xsinx" in subruns and "run_14h_xcosx" in subruns, subruns
sub = EventAccumulator(os.path.join(log_dir, "run_14h_xsinx"))
sub.Reload()
assert [e.value for e in sub.Scalars("run_14h")] == [i * 0.5 for i in range(10)]
print(f"logged {len(events)} losses, first {losses[0]:.3f} last {losses[-1]:.4f}; runs {subruns}")
