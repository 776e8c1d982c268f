"""Every optimizer and scheduler example of the Genesis guides runs, with `genesis`/`torch`
renamed to `minigenesis`.

The snippets below are copied from three guides: advanced training features, learning-rate
schedulers and training tricks (docs in Chinese; comments trimmed). What the docs leave undefined
(a dataloader, `train(...)`, `YourModel`) is defined in each snippet's SETUP with tiny synthetic
data, and loop lengths the docs leave to the reader (`num_epochs`) are small. Examples that need a
CUDA device (`.cuda()`, `torch.cuda.amp`) are left to the amp tests.
"""

from __future__ import annotations

import math
import textwrap

import matplotlib
import pytest

import minigenesis as mg

matplotlib.use("Agg")

# ------------------------------------------------------------------ setup code used by many
TINY_DATA = """
import minigenesis
minigenesis.manual_seed(0)
from minigenesis.utils.data import DataLoader, TensorDataset
def _loader(n_in, n_out, n=8, batch_size=4, classes=False):
    X = minigenesis.randn(n, n_in)
    y = minigenesis.randint(0, n_out, (n,)) if classes else minigenesis.randn(n, n_out)
    return DataLoader(TensorDataset(X, y), batch_size=batch_size)
"""

SIMPLE_TRAIN = """
import math
import minigenesis
import minigenesis.nn as nn
model = nn.Linear(10, 1)
_x, _y = minigenesis.randn(4, 10), minigenesis.randn(4, 1)
def train(*args):
    optimizer.zero_grad()
    loss = nn.MSELoss()(model(_x), _y)
    loss.backward()
    optimizer.step()
    return loss.item()
train_one_epoch = lambda *args: train()
dataloader = None
"""

# (name, setup, code copied from the guide, check run on the namespace afterwards)
SNIPPETS = []


def snippet(name, setup, code, check=None):
    SNIPPETS.append((name, textwrap.dedent(setup), textwrap.dedent(code), check))


# ================================================================== advanced training features
snippet(
    "advanced_amp_basic",
    TINY_DATA
    + """
dataloader = _loader(1024, 512)
criterion = minigenesis.nn.MSELoss()
""",
    """
import minigenesis
import minigenesis.nn as nn
import minigenesis.optim as optim
from minigenesis.amp import autocast, GradScaler

model = nn.Linear(1024, 512)
optimizer = optim.Adam(model.parameters())

scaler = GradScaler()

for data, target in dataloader:
    optimizer.zero_grad()

    with autocast():
        output = model(data)
        loss = criterion(output, target)

    scaler.scale(loss).backward()

    scaler.step(optimizer)
    scaler.update()
""",
    lambda ns: ns["optimizer"].state[ns["model"].weight]["step"] == 2,
)

snippet(
    "advanced_clip_grad",
    SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.SGD(model.parameters(), lr=0.1)
loss = nn.MSELoss()(model(_x), _y)
""",
    """
import minigenesis.nn.utils as nn_utils

loss.backward()

nn_utils.clip_grad_norm_(model.parameters(), max_norm=1.0)

optimizer.step()
""",
)

ADVANCED_STEPLR = """
from minigenesis.optim.lr_scheduler import StepLR

optimizer = optim.Adam(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=30, gamma=0.1)

for epoch in range(100):
    train(...)
    scheduler.step()
"""
snippet(
    "advanced_steplr",
    TINY_DATA + SIMPLE_TRAIN + "import minigenesis.optim as optim\n",
    ADVANCED_STEPLR,
    lambda ns: math.isclose(ns["scheduler"].get_last_lr()[0], 0.1 * 0.1**3),
)

snippet(
    "advanced_exponentiallr",
    TINY_DATA
    + SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.Adam(model.parameters(), lr=0.1)
""",
    """
from minigenesis.optim.lr_scheduler import ExponentialLR

scheduler = ExponentialLR(optimizer, gamma=0.95)

for epoch in range(100):
    train(...)
    scheduler.step()
""",
    lambda ns: math.isclose(ns["scheduler"].get_last_lr()[0], 0.1 * 0.95**100),
)

snippet(
    "advanced_cosineannealinglr",
    TINY_DATA
    + SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.Adam(model.parameters(), lr=0.1)
""",
    """
from minigenesis.optim.lr_scheduler import CosineAnnealingLR

scheduler = CosineAnnealingLR(optimizer, T_max=100, eta_min=1e-6)

for epoch in range(100):
    train(...)
    scheduler.step()
""",
    lambda ns: math.isclose(ns["scheduler"].get_last_lr()[0], 1e-6),
)

snippet(
    "advanced_custom_lambda",
    TINY_DATA
    + SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
from minigenesis.optim.lr_scheduler import LambdaLR
optimizer = optim.Adam(model.parameters(), lr=0.1)
""",
    """
def custom_lr_lambda(epoch):
    if epoch < 10:
        return epoch / 10
    else:
        return 0.95 ** (epoch - 10)

scheduler = LambdaLR(optimizer, lr_lambda=custom_lr_lambda)
""",
    lambda ns: ns["optimizer"].param_groups[0]["lr"] == 0.0,
)

snippet(
    "advanced_checkpoint",
    TINY_DATA
    + SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.Adam(model.parameters(), lr=0.01)
for _ in range(3):
    loss = train()
epoch, best_acc = 10, 0.5
""",
    """
import minigenesis

minigenesis.save_checkpoint({
    'epoch': epoch,
    'model_state_dict': model.state_dict(),
    'optimizer_state_dict': optimizer.state_dict(),
    'loss': loss,
    'best_accuracy': best_acc
}, 'checkpoint_epoch_10.pth')

checkpoint = minigenesis.load_checkpoint('checkpoint_epoch_10.pth')

model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
epoch = checkpoint['epoch']
loss = checkpoint['loss']
""",
    lambda ns: ns["optimizer"].state[ns["model"].weight]["step"] == 3,
)

snippet(
    "advanced_complete_example",
    TINY_DATA
    + """
import minigenesis.nn as nn
def YourModel():
    return nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
train_loader = _loader(6, 3, classes=True)
criterion = nn.CrossEntropyLoss()
num_epochs = 3
""",
    """
import minigenesis
import minigenesis.nn as nn
import minigenesis.optim as optim
from minigenesis.amp import autocast, GradScaler
from minigenesis.optim.lr_scheduler import CosineAnnealingLR
import minigenesis.nn.utils as nn_utils

model = YourModel()
optimizer = optim.Adam(model.parameters(), lr=0.001)
scheduler = CosineAnnealingLR(optimizer, T_max=100)
scaler = GradScaler()

max_grad_norm = 1.0
checkpoint_interval = 10

for epoch in range(num_epochs):
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()

        with autocast():
            output = model(data)
            loss = criterion(output, target)

        scaler.scale(loss).backward()

        scaler.unscale_(optimizer)
        nn_utils.clip_grad_norm_(model.parameters(), max_grad_norm)

        scaler.step(optimizer)
        scaler.update()

    scheduler.step()

    if epoch % checkpoint_interval == 0:
        minigenesis.save_checkpoint({
            'epoch': epoch,
            'model_state_dict': model.state_dict(),
            'optimizer_state_dict': optimizer.state_dict(),
            'scheduler_state_dict': scheduler.state_dict(),
            'scaler_state_dict': scaler.state_dict(),
        }, f'checkpoint_epoch_{epoch}.pth')
""",
    lambda ns: (
        ns["scheduler"].last_epoch == 3
        and minigenesis_load("checkpoint_epoch_0.pth")["scheduler_state_dict"]["last_epoch"] == 1
    ),
)


def minigenesis_load(path):
    return mg.load_checkpoint(path)


# ================================================================== learning-rate schedulers
snippet(
    "schedulers_lambdalr",
    TINY_DATA
    + """
def train_one_epoch(model, dataloader, optimizer):
    optimizer.zero_grad()
    loss = ((model(_x) - _y) ** 2).mean()
    loss.backward()
    optimizer.step()
    return loss.item()
_x, _y = minigenesis.randn(4, 10), minigenesis.randn(4, 1)
dataloader = None
""",
    """
import minigenesis
import minigenesis.nn as nn
import minigenesis.optim as optim

model = nn.Linear(10, 1)
optimizer = optim.Adam(model.parameters(), lr=0.001)

def lr_lambda(epoch):
    return 0.95 ** (epoch // 10)

scheduler = optim.LambdaLR(optimizer, lr_lambda=lr_lambda)

for epoch in range(100):
    loss = train_one_epoch(model, dataloader, optimizer)

    scheduler.step()
    print(f"轮次 {epoch}: lr={scheduler.get_last_lr()}")
""",
    lambda ns: math.isclose(ns["scheduler"].get_last_lr()[0], 0.001 * 0.95**10),
)

snippet(
    "schedulers_cosine_warmup",
    TINY_DATA
    + """
import minigenesis.nn as nn
class _LossModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 1)
    def forward(self, batch):
        x, y = batch
        return ((self.lin(x) - y) ** 2).mean()
model = _LossModel()
dataloader = _loader(4, 1, n=8, batch_size=2)  # 4 batches per epoch
""",
    """
import minigenesis.optim as optim

num_epochs = 100
steps_per_epoch = 4
total_steps = num_epochs * steps_per_epoch
warmup_steps = total_steps // 10

optimizer = optim.AdamW(model.parameters(), lr=5e-4)
scheduler = optim.get_cosine_schedule_with_warmup(
    optimizer,
    num_warmup_steps=warmup_steps,
    num_training_steps=total_steps
)

step = 0
for epoch in range(num_epochs):
    for batch in dataloader:
        loss = model(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        scheduler.step()
        step += 1

        if step % 100 == 0:
            print(f"步骤 {step}: lr={scheduler.get_last_lr():.6f}")
""",
    lambda ns: ns["step"] == 400 and ns["scheduler"].get_last_lr()[0] == 0.0,
)

snippet(
    "schedulers_common_patterns",
    SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.SGD(model.parameters(), lr=0.1)
""",
    """
scheduler = optim.LambdaLR(optimizer, lr_lambda=lambda epoch: 0.95 ** epoch)

def step_decay(epoch):
    return 0.5 ** (epoch // 30)

scheduler = optim.LambdaLR(optimizer, lr_lambda=step_decay)

def poly_decay(epoch, total_epochs=100, power=0.9):
    return (1 - epoch / total_epochs) ** power

scheduler = optim.LambdaLR(optimizer, lr_lambda=lambda epoch: poly_decay(epoch))

import math

def cosine_restart(epoch, restart_period=50):
    epoch_in_cycle = epoch % restart_period
    return 0.5 * (1 + math.cos(math.pi * epoch_in_cycle / restart_period))

scheduler = optim.LambdaLR(optimizer, lr_lambda=cosine_restart)
for _ in range(60):
    optimizer.step()
    scheduler.step()
""",
    lambda ns: math.isclose(
        ns["scheduler"].get_last_lr()[0], 0.1 * 0.5 * (1 + math.cos(math.pi * 10 / 50))
    ),
)

snippet(
    "schedulers_basic_training_loop",
    TINY_DATA
    + """
train_loader = _loader(784, 10, n=6, batch_size=2, classes=True)
num_epochs = 2
""",
    """
import minigenesis
import minigenesis.nn as nn
import minigenesis.optim as optim

model = nn.Sequential(
    nn.Linear(784, 256),
    nn.ReLU(),
    nn.Linear(256, 10)
)

optimizer = optim.Adam(model.parameters(), lr=0.001)
scheduler = optim.get_cosine_schedule_with_warmup(
    optimizer, num_warmup_steps=1000, num_training_steps=10000
)

for epoch in range(num_epochs):
    model.train()
    for batch_idx, (data, targets) in enumerate(train_loader):
        outputs = model(data)
        loss = nn.CrossEntropyLoss()(outputs, targets)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()

        if batch_idx % 100 == 0:
            current_lr = scheduler.get_last_lr()
"""
    # the guide's print line, split in two literals only to fit the line-length limit
    "            print(f'轮次: {epoch}, 批次: {batch_idx}, LR: {current_lr:.6f}, "
    "损失: {loss.item():.4f}')\n",
    lambda ns: math.isclose(ns["scheduler"].get_last_lr()[0], 0.001 * 6 / 1000),
)

snippet(
    "schedulers_checkpoint",
    TINY_DATA
    + SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.Adam(model.parameters(), lr=0.01)
scheduler = optim.get_cosine_schedule_with_warmup(optimizer, 5, 50)
for _ in range(7):
    loss = train()
    scheduler.step()
epoch = 7
""",
    """
import minigenesis

checkpoint = {
    'model_state_dict': model.state_dict(),
    'optimizer_state_dict': optimizer.state_dict(),
    'scheduler_state_dict': scheduler.state_dict(),
    'epoch': epoch,
    'loss': loss
}
minigenesis.save_checkpoint(checkpoint, 'checkpoint.pth')

checkpoint = minigenesis.load_checkpoint('checkpoint.pth')
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
scheduler.load_state_dict(checkpoint['scheduler_state_dict'])
""",
    lambda ns: ns["scheduler"].last_epoch == 7,
)

snippet(
    "schedulers_transformer_schedule",
    SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.Adam(model.parameters(), lr=1.0)
""",
    """
def get_transformer_schedule(optimizer, d_model=512, warmup_steps=4000):
    def lr_lambda(step):
        if step == 0:
            return 0
        return min(step ** -0.5, step * warmup_steps ** -1.5) * (d_model ** -0.5)

    return optim.LambdaLR(optimizer, lr_lambda=lr_lambda)

scheduler = get_transformer_schedule(optimizer, d_model=512, warmup_steps=4000)
for _ in range(5):
    optimizer.step()
    scheduler.step()
""",
    lambda ns: math.isclose(ns["scheduler"].get_last_lr()[0], 5 * 4000**-1.5 * 512**-0.5),
)

snippet(
    "schedulers_lr_range_test",
    TINY_DATA
    + SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.SGD(model.parameters(), lr=1.0)
batch = (_x, _y)
def train_step(model, batch):
    return train()
""",
    """
def lr_range_test(model, optimizer, start_lr=1e-7, end_lr=10, num_it=100):
    lrs = []
    losses = []

    lr_lambda = lambda step: (end_lr / start_lr) ** (step / num_it)
    scheduler = optim.LambdaLR(optimizer, lr_lambda=lr_lambda)

    for i in range(num_it):
        loss = train_step(model, batch)
        losses.append(loss)
        lrs.append(scheduler.get_last_lr())

        scheduler.step()

        if loss > 4 * min(losses):
            break

    return lrs, losses

lrs, losses = lr_range_test(model, optimizer)
""",
    lambda ns: 1 < len(ns["lrs"]) <= 100 and len(ns["lrs"]) == len(ns["losses"]),
)

snippet(
    "schedulers_migration",
    SIMPLE_TRAIN
    + """
optimizer = minigenesis.optim.SGD(model.parameters(), lr=0.1)
""",
    """
import minigenesis.optim as optim
scheduler = optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=100)

import minigenesis.optim as optim
scheduler = optim.LambdaLR(
    optimizer,
    lr_lambda=lambda epoch: 0.5 * (1 + math.cos(math.pi * epoch / 100))
)
""",
)

# ================================================================== training tricks
snippet(
    "tricks_schedulers",
    "",
    """
import minigenesis
import minigenesis.optim as optim
from minigenesis.optim import lr_scheduler
import matplotlib.pyplot as plt

model = minigenesis.nn.Linear(10, 2)
optimizer = optim.Adam(model.parameters(), lr=0.001)

scheduler = lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.1)

scheduler = lr_scheduler.MultiStepLR(optimizer, milestones=[30, 80], gamma=0.1)

scheduler = lr_scheduler.ExponentialLR(optimizer, gamma=0.95)

scheduler = lr_scheduler.CosineAnnealingLR(optimizer, T_max=100, eta_min=0)

scheduler = lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=10, T_mult=2)

scheduler = lr_scheduler.ReduceLROnPlateau(
    optimizer, mode='min', factor=0.1, patience=10, verbose=True
)
""",
)

TRICKS_WARMUP = """
import math

def get_cosine_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    \"\"\"Warmup + Cosine Decay\"\"\"

    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        progress = float(current_step - num_warmup_steps) / \\
                   float(max(1, num_training_steps - num_warmup_steps))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))

    return lr_scheduler.LambdaLR(optimizer, lr_lambda)

total_steps = 1000
warmup_steps = 100

scheduler = get_cosine_schedule_with_warmup(optimizer, warmup_steps, total_steps)

lrs = []
for step in range(total_steps):
    lrs.append(optimizer.param_groups[0]['lr'])
    optimizer.step()
    scheduler.step()

plt.plot(lrs)
plt.xlabel('Step')
plt.ylabel('Learning Rate')
plt.title('Warmup + Cosine Schedule')
plt.show()
"""
snippet(
    "tricks_warmup_cosine",
    """
import minigenesis
import minigenesis.optim as optim
from minigenesis.optim import lr_scheduler
import matplotlib.pyplot as plt
model = minigenesis.nn.Linear(10, 2)
optimizer = optim.Adam(model.parameters(), lr=0.001)
""",
    TRICKS_WARMUP,
    lambda ns: (
        ns["lrs"][100] == 0.001
        and ns["lrs"] == [pytest.approx(0.001 * v) for v in _hf_cosine(100, 1000)]
    ),
)


def _hf_cosine(warmup, total):
    return [
        t / warmup
        if t < warmup
        else 0.5 * (1 + math.cos(math.pi * (t - warmup) / (total - warmup)))
        for t in range(total)
    ]


snippet(
    "tricks_training_loop",
    TINY_DATA
    + SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
from minigenesis.optim import lr_scheduler
optimizer = optim.SGD(model.parameters(), lr=0.1)
num_epochs = 3
train_one_epoch = train
train_step = train
validate = lambda: 1.0
train_loader = [0, 1]
""",
    """
scheduler = lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
for epoch in range(num_epochs):
    train_one_epoch()
    scheduler.step()

scheduler = lr_scheduler.ReduceLROnPlateau(optimizer, patience=0)
for epoch in range(num_epochs):
    train_one_epoch()
    val_loss = validate()
    scheduler.step(val_loss)

scheduler = optim.get_cosine_schedule_with_warmup(optimizer, 2, 10)
for epoch in range(num_epochs):
    for batch in train_loader:
        train_step()
        scheduler.step()
""",
    lambda ns: ns["scheduler"].last_epoch == 6,
)

snippet(
    "tricks_grad_clipping",
    TINY_DATA
    + SIMPLE_TRAIN
    + """
import minigenesis.optim as optim
optimizer = optim.SGD(model.parameters(), lr=0.1)
loss = nn.MSELoss()(model(_x), _y)
""",
    """
import minigenesis.nn.utils as utils

loss.backward()
grad_norm = utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
optimizer.step()

print(f"Gradient norm: {grad_norm:.4f}")

loss = nn.MSELoss()(model(_x), _y)
loss.backward()
utils.clip_grad_value_(model.parameters(), clip_value=0.5)
optimizer.step()
""",
)

snippet(
    "tricks_grad_accumulation",
    TINY_DATA
    + """
import minigenesis.nn as nn
import minigenesis.optim as optim
train_loader = _loader(5, 2, n=10, batch_size=2)
model = nn.Linear(5, 2)
criterion = nn.MSELoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)
""",
    """
accumulation_steps = 4
optimizer.zero_grad()

for i, (data, target) in enumerate(train_loader):
    output = model(data)
    loss = criterion(output, target)
    loss = loss / accumulation_steps
    loss.backward()

    if (i + 1) % accumulation_steps == 0:
        optimizer.step()
        optimizer.zero_grad()

if (i + 1) % accumulation_steps != 0:
    optimizer.step()
    optimizer.zero_grad()
""",
    lambda ns: ns["model"].weight.grad is None,
)

snippet(
    "tricks_exercise_warmup_cosine",
    "import minigenesis\n",
    """
import math
import matplotlib.pyplot as plt

def warmup_cosine_schedule(optimizer, warmup_epochs, total_epochs):
    def lr_lambda(epoch):
        if epoch < warmup_epochs:
            return epoch / warmup_epochs
        progress = (epoch - warmup_epochs) / (total_epochs - warmup_epochs)
        return 0.5 * (1 + math.cos(math.pi * progress))
    return minigenesis.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

model = minigenesis.nn.Linear(10, 2)
optimizer = minigenesis.optim.Adam(model.parameters(), lr=0.001)
scheduler = warmup_cosine_schedule(optimizer, warmup_epochs=10, total_epochs=100)

lrs = []
for epoch in range(100):
    lrs.append(optimizer.param_groups[0]['lr'])
    scheduler.step()

plt.plot(lrs)
plt.xlabel('Epoch')
plt.ylabel('Learning Rate')
plt.title('Warmup + Cosine Schedule')
plt.axvline(x=10, color='r', linestyle='--', label='Warmup End')
plt.legend()
plt.show()
""",
    lambda ns: ns["lrs"] == [pytest.approx(0.001 * v) for v in _hf_cosine(10, 100)],
)


@pytest.mark.parametrize("name, setup, code, check", SNIPPETS, ids=[s[0] for s in SNIPPETS])
def test_guide_example_runs(name, setup, code, check, tmp_path, monkeypatch, capsys):
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)  # checkpoints the examples write land in a temporary folder
    ns: dict = {"__name__": "guide_example"}
    exec(compile(setup, f"<{name} setup>", "exec"), ns)
    with _no_scheduler_order_warning():
        exec(compile(code, f"<{name}>", "exec"), ns)
    plt.close("all")
    if check is not None:
        assert check(ns)


class _no_scheduler_order_warning:  # noqa: N801
    """Guide examples that step the scheduler without the optimizer may warn, as PyTorch does;
    any other warning (deprecations, numerics) is an error."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message="Detected call of `lr_scheduler.step")
        warnings.filterwarnings("ignore", message=".*non-interactive.*")  # plt.show() with Agg
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)
