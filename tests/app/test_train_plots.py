"""What the main job draws and says for a learner: loss.png on a log axis with accuracy in
percent and the best epoch marked, grad_flow.png covering the whole run after --resume (its
summary travels in the checkpoint), and a --resume of a finished run that says what to do.
The figures are read through their objects, caught as the trainer draws them."""

from __future__ import annotations

import csv
import hashlib
from pathlib import Path

import pytest

import minigenesis as mg
import minigenesis.viz.curves as curves
import minigenesis.viz.grad_flow as grad_flow
from minigenesis.app.cli import main

TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--accum-steps", "2",
        "--quiet"]  # fmt: skip
# 192 train points / 16 = 12 micro-batches = 6 optimizer steps per epoch


def _snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


@pytest.fixture
def drawn(monkeypatch) -> dict[str, list]:
    """The figures the trainer draws, by function, as it draws them."""
    figures: dict[str, list] = {"curves": [], "grad_flow": []}

    def catch(module, name, key):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            fig = original(*args, **kwargs)
            figures[key].append(fig)
            return fig

        monkeypatch.setattr(module, name, wrapper)

    catch(curves, "plot_training_curves", "curves")
    catch(grad_flow, "plot_grad_flow", "grad_flow")
    return figures


def _metrics(out: Path) -> dict[str, list[float]]:
    with (out / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    return {k: [float(r[k]) for r in rows] for k in rows[0]}


def test_loss_png_has_a_log_loss_axis_percent_accuracy_and_the_best_epoch(tmp_path, drawn):
    out = tmp_path / "run"
    assert main(["train", "--out", str(out), "--epochs", "4", *TINY]) == 0
    (fig,) = drawn["curves"]
    loss_ax, acc_ax = fig.axes
    assert loss_ax.get_yscale() == "log" and acc_ax.get_ylabel() == "Accuracy (%)"
    m = _metrics(out)
    val = acc_ax.get_lines()[1].get_ydata()
    assert list(val) == pytest.approx([100 * a for a in m["val_acc"]], abs=1e-3)  # csv: 6 digits
    best = mg.load_checkpoint(out / "checkpoints" / "last.pth")["best"]
    assert best["epoch"] == 1 + m["val_acc"].index(max(m["val_acc"]))
    (star,) = [a for a in acc_ax.get_lines() if a.get_gid() == "best" and a.get_marker() == "*"]
    assert list(star.get_xdata()) == [best["epoch"]]
    assert star.get_label() == f"best {100 * best['val_acc']:.2f}% at epoch {best['epoch']}"
    assert (out / "loss.png").read_bytes()[:4] == b"\x89PNG"


def test_grad_flow_png_after_resume_covers_the_whole_run(tmp_path, drawn):
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    assert main(["train", "--out", str(straight), "--epochs", "2", *TINY]) == 0
    assert main(["train", "--out", str(stopped), "--epochs", "2", *TINY,
                 "--interrupt-at-step", "4"]) == 130  # fmt: skip
    saved = mg.load_checkpoint(stopped / "checkpoints" / "last.pth")["grad_flow"]
    assert saved["steps"] == 4  # the steps so far travel in the checkpoint
    assert main(["train", "--resume", str(stopped), "--quiet"]) == 0
    whole, resumed = (mg.load_checkpoint(run / "checkpoints" / "last.pth")["grad_flow"]
                      for run in (straight, stopped))  # fmt: skip
    assert resumed == whole and whole["steps"] == 12  # a resume is exact: the same sums
    a, b = (fig.axes[0] for fig in drawn["grad_flow"])
    # the norms are taken before clip_grad_norm_ (default --clip 1.0), and the title says so
    assert a.get_title() == b.get_title() == "Gradient flow over 12 steps, before clipping"
    bars = [sorted(p.get_height() for p in ax.patches if p.get_gid() in ("max", "mean"))
            for ax in (a, b)]  # fmt: skip
    assert bars[0] == bars[1]


def test_the_grad_flow_summary_does_not_grow_with_the_run(tmp_path):
    sizes = []
    for epochs in (1, 3):
        out = tmp_path / f"run{epochs}"
        assert main(["train", "--out", str(out), "--epochs", str(epochs), *TINY]) == 0
        state = mg.load_checkpoint(out / "checkpoints" / "last.pth")["grad_flow"]
        assert state["steps"] == 6 * epochs
        sizes.append(sum(len(v) for v in state["layers"].values()))
    assert sizes[0] == sizes[1] == 3 * 6  # 3 numbers for each of the MLP's 6 parameters


def test_resume_of_a_finished_run_says_to_add_epochs_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["train", "--out", str(out), "--epochs", "2", *TINY]) == 0
    capsys.readouterr()
    before = _snapshot(out)
    assert main(["train", "--resume", str(out)]) == 0
    said = capsys.readouterr()
    (line,) = said.out.strip().splitlines()
    assert line.startswith("nothing left to train") and "all 2 of its epochs" in line
    assert f"--resume {out} --epochs 4" in line and said.err == ""
    assert _snapshot(out) == before
    # naming the epochs it already has is the same request
    assert main(["train", "--resume", str(out), "--epochs", "2", "--quiet"]) == 0
    assert "nothing left to train" in capsys.readouterr().out and _snapshot(out) == before
