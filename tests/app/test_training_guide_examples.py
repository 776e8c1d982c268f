"""The training, logging and diagnostics code of the Genesis training-tricks and
advanced-features guides, as a learner types it, with ``torch``/``genesis`` renamed to
``minigenesis`` (sizes shrunk so each runs in a moment).

Renames used: ``torch.utils.tensorboard`` -> ``minigenesis.utils.tensorboard``;
``torch.utils.data`` -> ``minigenesis.utils.data``; ``torch.cuda.amp`` -> ``minigenesis.amp``;
``.cuda()`` calls dropped (CPU). Everything else is the guide's code.
"""

from __future__ import annotations

import math
from datetime import datetime

import pytest

import minigenesis
import minigenesis as torch  # the guides say torch.*; the API is ours
import minigenesis.nn as nn
import minigenesis.nn.utils as utils
import minigenesis.optim as optim
from minigenesis.amp import GradScaler, autocast
from minigenesis.utils.data import DataLoader, TensorDataset
from minigenesis.utils.tensorboard import SummaryWriter


def test_complete_amp_example_trains(capsys):
    """TensorDataset + DataLoader + autocast + GradScaler + clipping."""
    torch.manual_seed(0)
    X = torch.randn(512, 100)
    y = torch.randint(0, 10, (512,))
    dataset = TensorDataset(X, y)
    loader = DataLoader(dataset, batch_size=256, shuffle=True)

    model = nn.Sequential(
        nn.Linear(100, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)
    )
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.001)
    scaler = GradScaler()

    losses = []
    for epoch in range(3):
        total_loss = 0
        for data, target in loader:
            optimizer.zero_grad()
            with autocast():
                output = model(data)
                loss = criterion(output, target)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            total_loss += loss.item()
        print(f"Epoch {epoch + 1}: Loss = {total_loss / len(loader):.4f}")
        losses.append(total_loss / len(loader))
    assert len(loader) == 2 and losses[-1] < losses[0]
    assert "Epoch 3: Loss =" in capsys.readouterr().out


def test_gradient_accumulation_with_amp():
    """Gradient accumulation with GradScaler."""
    torch.manual_seed(1)
    train_loader = DataLoader(TensorDataset(torch.randn(64, 8), torch.randint(0, 3, (64,))),
                              batch_size=8)  # fmt: skip
    model = nn.Linear(8, 3)
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(model.parameters(), lr=0.1)
    accumulation_steps = 4
    scaler = GradScaler()
    before = model.weight.detach().clone()
    for _ in range(2):
        optimizer.zero_grad()
        for i, (data, target) in enumerate(train_loader):
            with autocast():
                output = model(data)
                loss = criterion(output, target)
                loss = loss / accumulation_steps
            scaler.scale(loss).backward()
            if (i + 1) % accumulation_steps == 0:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
    assert not torch.allclose(before, model.weight.detach())


def test_tensorboard_logging_example(tmp_path, monkeypatch):
    """Scalars, histograms, graph and embedding logged to TensorBoard (add_embedding's features
    come from a plain tensor here)."""
    monkeypatch.chdir(tmp_path)
    writer = SummaryWriter("runs/experiment_1")
    for epoch in range(3):
        train_loss, val_loss, train_acc, val_acc = 1 / (epoch + 1), 1.2 / (epoch + 1), 0.5, 0.4
        writer.add_scalar("Loss/train", train_loss, epoch)
        writer.add_scalar("Loss/val", val_loss, epoch)
        writer.add_scalar("Accuracy/train", train_acc, epoch)
        writer.add_scalar("Accuracy/val", val_acc, epoch)
    writer.add_scalars("Loss", {"train": train_loss, "val": val_loss}, epoch)

    images = torch.rand(4, 3, 8, 8)  # [N, C, H, W]
    writer.add_images("Sample Images", images, epoch)
    writer.add_image("Sample", images[0], epoch)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    dummy_input = torch.randn(1, 4)
    writer.add_graph(model, dummy_input)
    loss = model(torch.randn(5, 4)).sum()
    loss.backward()
    for name, param in model.named_parameters():
        writer.add_histogram(f"Parameters/{name}", param, epoch)
        if param.grad is not None:
            writer.add_histogram(f"Gradients/{name}", param.grad, epoch)
    features = torch.randn(6, 5)  # [N, D]
    labels = [0, 1, 2, 0, 1, 2]
    metadata = [str(label) for label in labels]
    writer.add_embedding(features, metadata=metadata, global_step=epoch)
    writer.add_text("Description", "Experiment 1: baseline model", 0)
    hparams = {"lr": 0.001, "batch_size": 32, "hidden_dim": 128}
    metrics = {"best_accuracy": 0.95, "best_loss": 0.1}
    writer.add_hparams(hparams, metrics)
    writer.close()

    # 5.4: the timestamped run directory
    timestamp = datetime.now().strftime("%Y%m%d_%H%M%S")
    writer = SummaryWriter(f"runs/experiment_{timestamp}")
    hparams = {"lr": 0.001, "batch_size": 32, "epochs": 2}
    writer.add_text("Hyperparameters", str(hparams), 0)
    writer.add_scalar("Learning_rate", 0.001, 0)
    writer.close()

    run = tmp_path / "runs" / "experiment_1"
    assert list(run.glob("events.out.tfevents.*")) and (run / "Loss_train").is_dir()
    assert (run / "00002" / "default" / "tensors.tsv").read_text().count("\n") == 6
    assert "metadata.tsv" in (run / "projector_config.pbtxt").read_text()
    assert len(list((tmp_path / "runs").iterdir())) == 2


def test_learners_monitor_gradients(capsys):
    """The learner's own monitor_gradients."""

    def monitor_gradients(model):
        total_norm = 0
        for name, param in model.named_parameters():
            if param.grad is not None:
                param_norm = param.grad.data.norm(2)
                total_norm += param_norm.item() ** 2
                if torch.isnan(param.grad).any():
                    print(f"Warning: NaN gradient in {name}")
                if torch.isinf(param.grad).any():
                    print(f"Warning: Inf gradient in {name}")
        total_norm = total_norm**0.5
        return total_norm

    torch.manual_seed(0)
    model = nn.Linear(4, 2)
    model(torch.randn(3, 4)).sum().backward()
    grad_norm = monitor_gradients(model)
    assert grad_norm == pytest.approx(float(utils.clip_grad_norm_(model.parameters(), 1e9)))
    model.bias.grad.data[0] = float("nan")
    monitor_gradients(model)
    assert "NaN gradient in bias" in capsys.readouterr().out
    from minigenesis.diagnostics import monitor_gradients as ours

    ours(model)
    assert "bias: 1 NaN" in capsys.readouterr().out


def test_learners_diagnose_training_and_debug_nan_loss(capsys):
    """The learner's diagnose_training and debug_nan_loss."""

    def diagnose_training(train_losses, val_losses):
        if len(train_losses) < 10:
            print("训练轮数太少，无法诊断")
            return
        recent_train = train_losses[-10:]
        recent_val = val_losses[-10:]
        if recent_train[-1] < recent_train[0] and recent_val[-1] > recent_val[0]:
            print("⚠️ 可能过拟合：Train loss 下降但 Val loss 上升")

    train = [1.0 - 0.05 * i for i in range(12)]
    val = [0.9 - 0.05 * i for i in range(6)] + [0.7 + 0.05 * i for i in range(6)]
    diagnose_training(train, val)
    assert "过拟合" in capsys.readouterr().out
    from minigenesis.diagnostics import diagnose_training as ours

    assert "overfitting" in ours(train, val)

    def debug_nan_loss(model, data, target, criterion):
        if torch.isnan(data).any():
            print("问题：输入数据包含 NaN")
            return
        output = model(data)
        if torch.isnan(output).any():
            print("问题：模型输出包含 NaN")
            return
        loss = criterion(output, target)
        if torch.isnan(loss):
            print("问题：损失计算产生 NaN")
            return
        loss.backward()
        for name, param in model.named_parameters():
            if param.grad is not None and torch.isnan(param.grad).any():
                print(f"问题：{name} 的梯度包含 NaN")
                return
        print("未发现 NaN 问题")

    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    debug_nan_loss(model, torch.randn(4, 3), torch.randint(0, 2, (4,)), nn.CrossEntropyLoss())
    assert "未发现 NaN 问题" in capsys.readouterr().out


def test_plot_training_curves_titles():
    from minigenesis.viz import plot_training_curves

    fig = plot_training_curves([1.0, 0.5, 0.3], [1.1, 0.7, 0.6], [0.5, 0.7, 0.8], [0.4, 0.6, 0.7])
    assert [ax.get_title() for ax in fig.axes] == ["Loss Curves", "Accuracy Curves"]


def test_complete_example_with_best_model(tmp_path, monkeypatch):
    """The complete example (AMP, clipping, cosine, periodic checkpoints) and the
    best-model tracking, with ``genesis`` -> ``minigenesis``."""
    from minigenesis.optim.lr_scheduler import CosineAnnealingLR

    monkeypatch.chdir(tmp_path)
    minigenesis.manual_seed(0)
    X, y = minigenesis.randn(64, 6), minigenesis.randint(0, 3, (64,))
    train_loader = DataLoader(TensorDataset(X, y), batch_size=16, shuffle=True)
    val_loader = DataLoader(TensorDataset(X, y), batch_size=32)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
    criterion = nn.CrossEntropyLoss()
    optimizer = optim.Adam(model.parameters(), lr=0.01)
    scheduler = CosineAnnealingLR(optimizer, T_max=100)
    scaler = GradScaler()
    max_grad_norm = 1.0
    checkpoint_interval = 2
    num_epochs = 4

    def validate(model, loader):
        with minigenesis.no_grad():
            return sum(criterion(model(d), t).item() for d, t in loader) / len(loader)

    best_loss = float("inf")
    for epoch in range(num_epochs):
        for batch_idx, (data, target) in enumerate(train_loader):  # noqa: B007  (as the guide)
            optimizer.zero_grad()
            with autocast():
                output = model(data)
                loss = criterion(output, target)
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
        scheduler.step()
        if epoch % checkpoint_interval == 0:
            minigenesis.save_checkpoint({
                "epoch": epoch,
                "model_state_dict": model.state_dict(),
                "optimizer_state_dict": optimizer.state_dict(),
                "scheduler_state_dict": scheduler.state_dict(),
                "scaler_state_dict": scaler.state_dict(),
            }, f"checkpoint_epoch_{epoch}.pth")  # fmt: skip
        val_loss = validate(model, val_loader)
        if val_loss < best_loss:
            best_loss = val_loss
            minigenesis.save_checkpoint(
                {"epoch": epoch, "model_state_dict": model.state_dict(), "best_loss": best_loss},
                "best_model.pth",
            )
    checkpoint = minigenesis.load_checkpoint("best_model.pth")
    model.load_state_dict(checkpoint["model_state_dict"])
    assert checkpoint["best_loss"] == best_loss and math.isfinite(best_loss)
    assert sorted(p.name for p in tmp_path.glob("checkpoint_epoch_*.pth")) == [
        "checkpoint_epoch_0.pth", "checkpoint_epoch_2.pth"
    ]  # fmt: skip
