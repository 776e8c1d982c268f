"""The command line and the main job, end to end with tiny settings (a second or two per run)."""

from __future__ import annotations

import csv
import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from tfevents_reader import event_file, read_events, scalars, summary_values

import minigenesis as mg
from minigenesis.app import cli
from minigenesis.app.cli import main

REPO = Path(__file__).resolve().parents[2]
TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--accum-steps", "2",
        "--quiet"]  # fmt: skip
# 192 train points / 16 = 12 micro-batches = 6 optimizer steps per epoch


def _train(out: Path, *extra: str) -> int:
    return main(["train", "--out", str(out), *TINY, *extra])


def _snapshot(folder: Path) -> dict[str, str]:
    """Every file under folder -> hash of its bytes (and its mtime), to prove nothing changed."""
    files = [p for p in sorted(folder.rglob("*")) if p.is_file()]
    return {
        str(
            p.relative_to(folder)
        ): f"{hashlib.sha256(p.read_bytes()).hexdigest()} {p.stat().st_mtime_ns}"
        for p in files
    }


def _rows(out: Path) -> list[dict]:
    with (out / "metrics.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "run"
    assert _train(out, "--epochs", "2") == 0
    return out


def test_train_writes_its_files(finished_run, capsys):
    out = finished_run
    for name in ["metrics.csv", "loss.png", "lr.png", "grad_flow.png", "checkpoints/last.pth",
                 "checkpoints/best_model.pth"]:  # fmt: skip
        assert (out / name).is_file(), name
    assert list((out / "tensorboard").glob("events.out.tfevents.*"))
    assert (out / "tensorboard" / "scalars.csv").is_file()
    assert (out / "loss.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "grad_flow.png").read_bytes()[:4] == b"\x89PNG"
    rows = _rows(out)
    assert [r["epoch"] for r in rows] == ["1", "2"] and [r["step"] for r in rows] == ["6", "12"]
    assert all(0.0 <= float(r["val_acc"]) <= 1.0 for r in rows)
    ckpt = mg.load_checkpoint(out / "checkpoints" / "last.pth")
    assert ckpt["step"] == 12 and ckpt["epoch"] == 2 and len(ckpt["lrs"]) == 12
    assert {"model_state_dict", "optimizer_state_dict", "scheduler_state_dict",
            "scaler_state_dict"} <= set(ckpt)  # fmt: skip


def test_train_event_files_hold_the_metrics(finished_run):
    """TensorBoard's files of the main job, read back: per-epoch curves equal metrics.csv (which
    keeps 6 digits) at each epoch's last step; one loss/lr/grad-norm point per optimizer step, the
    lr the one the checkpoint recorded; the hyperparameters as text; the HPARAMS sub-run with the
    best validation accuracy."""
    logs = finished_run / "tensorboard"
    values = summary_values(read_events(event_file(logs)))
    by_tag: dict[str, list[tuple[int, float]]] = {}
    for step, v in values:
        by_tag.setdefault(v.tag, []).append((step, v.simple_value))
    rows = _rows(finished_run)
    for tag, column in [("Loss/train", "train_loss"), ("Loss/val", "val_loss"),
                        ("Accuracy/train", "train_acc"), ("Accuracy/val", "val_acc")]:  # fmt: skip
        assert [s for s, _ in by_tag[tag]] == [6, 12], tag
        expected = [float(r[column]) for r in rows]
        np.testing.assert_allclose([x for _, x in by_tag[tag]], expected, rtol=1e-5)
    for tag in ("Loss/train_step", "Learning_rate", "Grad_norm"):
        assert [s for s, _ in by_tag[tag]] == list(range(1, 13)), tag
    lrs = mg.load_checkpoint(finished_run / "checkpoints" / "last.pth")["lrs"]
    np.testing.assert_allclose([x for _, x in by_tag["Learning_rate"]], lrs, rtol=1e-6)
    (text,) = [v for _, v in values if v.tag == "Hyperparameters/text_summary"]
    assert b"'epochs': 2" in text.tensor.string_val[0]
    hp = [(tag, x) for _, tag, x in scalars(event_file(logs / "hparams"))]
    assert [tag for tag, _ in hp[:3]] == ["_hparams_/experiment", "_hparams_/session_start_info",
                                          "_hparams_/session_end_info"]  # fmt: skip
    best = max(float(r["val_acc"]) for r in rows)
    assert hp[3:] == [("hparam/best_val_acc", pytest.approx(best, rel=1e-5))]


def test_summary_is_printed(tmp_path, capsys):
    assert _train(tmp_path / "r", "--epochs", "1") == 0
    out = capsys.readouterr().out
    assert "minigenesis train ->" in out and "validation accuracy" in out and "tensorboard" in out
    assert len(out.splitlines()) <= 6  # --quiet: the short summary only


def test_resume_continues_the_step_count(finished_run, tmp_path):
    out = tmp_path / "more"
    assert main(["train", "--resume", str(finished_run), "--epochs", "3", "--out", str(out),
                 "--quiet"]) == 0  # fmt: skip
    rows = _rows(out)
    assert [r["step"] for r in rows] == ["6", "12", "18"]
    assert mg.load_checkpoint(out / "checkpoints" / "last.pth")["step"] == 18


def test_interrupt_then_resume_matches_an_uninterrupted_run(tmp_path, capsys):
    straight, stopped = tmp_path / "straight", tmp_path / "stopped"
    assert _train(straight, "--epochs", "2") == 0
    assert _train(stopped, "--epochs", "2", "--interrupt-at-step", "4") == 130  # mid-epoch
    assert "interrupted at step 4" in capsys.readouterr().out
    assert mg.load_checkpoint(stopped / "checkpoints" / "last.pth")["step"] == 4
    assert main(["train", "--resume", str(stopped / "checkpoints" / "last.pth"), "--quiet"]) == 0
    a = mg.load_checkpoint(straight / "checkpoints" / "last.pth")
    b = mg.load_checkpoint(stopped / "checkpoints" / "last.pth")
    assert a["step"] == b["step"] == 12
    for name, tensor in a["model_state_dict"].items():
        np.testing.assert_array_equal(tensor.numpy(), b["model_state_dict"][name].numpy())
    cut = ["epoch", "step", "train_loss", "train_acc", "val_loss", "val_acc", "lr"]
    assert [[r[k] for k in cut] for r in _rows(straight)] == [
        [r[k] for k in cut] for r in _rows(stopped)
    ]


@pytest.mark.parametrize("kind", ["garbage", "missing", "empty_dir", "foreign"])
def test_bad_resume_is_one_line_and_touches_nothing(finished_run, tmp_path, capsys, kind):
    before = _snapshot(finished_run)
    target = {
        "garbage": tmp_path / "garbage.pth",
        "missing": tmp_path / "nope.pth",
        "empty_dir": tmp_path / "emptydir",
        "foreign": tmp_path / "foreign.pth",
    }[kind]
    if kind == "garbage":
        target.write_bytes(os.urandom(300))
    elif kind == "empty_dir":
        target.mkdir()
    elif kind == "foreign":
        mg.save({"weights": mg.zeros(3)}, target)  # a checkpoint, but not of this job
    code = main(["train", "--resume", str(target), "--out", str(finished_run), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: cannot resume") and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err
    assert _snapshot(finished_run) == before


def test_garbage_resume_in_a_subprocess_has_no_traceback(finished_run, tmp_path):
    garbage = tmp_path / "last.pth"
    garbage.write_bytes(b"\x00garbage" * 40)
    before = _snapshot(finished_run)
    proc = subprocess.run(
        [sys.executable, "-m", "minigenesis", "train", "--resume", str(garbage),
         "--out", str(finished_run)],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert str(garbage) in proc.stderr
    assert _snapshot(finished_run) == before


def test_option_errors(finished_run, tmp_path, capsys):
    before = _snapshot(finished_run)
    assert _train(finished_run, "--epochs", "1") == 2  # a fresh run into an existing run
    assert "already holds a run" in capsys.readouterr().err
    assert main(["train", "--resume", str(finished_run), "--lr", "0.5", "--quiet"]) == 2
    assert "--lr 0.5 differs" in capsys.readouterr().err
    assert _snapshot(finished_run) == before
    assert _train(tmp_path / "x", "--epochs", "0") == 2
    assert "--epochs must lie in [1, 1000000], got 0" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    if not mg.cuda.is_available():
        assert _train(tmp_path / "y", "--device", "cuda") == 2
        assert "CUDA is not available" in capsys.readouterr().err
    assert main(["train", "--bogus"]) == 2  # argparse's usage error


def test_no_amp_runs(tmp_path):
    assert _train(tmp_path / "fp32", "--epochs", "1", "--no-amp", "--clip", "0") == 0
    assert (
        mg.load_checkpoint(tmp_path / "fp32" / "checkpoints" / "last.pth")["config"]["amp"] is False
    )


def test_help_and_lessons_dispatch(monkeypatch, capsys, tmp_path):
    assert main([]) == 0 and "train" in capsys.readouterr().out
    assert main(["train", "--help"]) == 0 and "--accum-steps" in capsys.readouterr().out
    course = tmp_path / "lessons"
    course.mkdir()
    (course / "_progress.py").write_text(
        "def main(argv, parser_class=None):\n    print('progress of', argv)\n    return 0\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(cli, "LESSONS_DIR", course)
    assert main(["lessons", "03", "--no-run"]) == 0
    assert "progress of ['03', '--no-run']" in capsys.readouterr().out
    monkeypatch.setattr(cli, "LESSONS_DIR", tmp_path / "nowhere")  # an installed package
    assert main(["lessons"]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "no lessons here" in out and "nowhere" in out


def test_lessons_command_finds_the_course_of_the_checkout(capsys):
    assert main(["lessons", "--no-run", "01"]) == 0
    assert "01_tensors_and_dtypes" in capsys.readouterr().out


def test_ctrl_c_saves_and_exits_cleanly(tmp_path):
    out = tmp_path / "sigint"
    proc = subprocess.Popen(
        [sys.executable, "-m", "minigenesis", "train", "--out", str(out), "--epochs", "1000",
         "--samples", "240", "--hidden", "16"],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    try:
        deadline = time.time() + 60
        for line in proc.stdout:  # wait until training has really started
            if line.startswith("epoch") or time.time() > deadline:
                break
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted at step" in stdout
    ckpt = mg.load_checkpoint(out / "checkpoints" / "last.pth")
    assert ckpt["step"] > 0


def test_progress_is_quiet_off_a_terminal(monkeypatch):
    from minigenesis.utils import progress as prog

    bar = prog.progress(range(3), desc="x")  # pytest's stderr is not a terminal
    assert list(bar) == [0, 1, 2] and type(bar).__name__ == "_NoBar"
    monkeypatch.setattr(prog, "is_interactive", lambda: True)
    assert type(prog.progress(range(3), quiet=True)).__name__ == "_NoBar"
    shown = prog.progress(range(3), file=open(os.devnull, "w"))  # noqa: SIM115
    assert list(shown) == [0, 1, 2] and type(shown).__name__ != "_NoBar"
    shown.close()


def test_plot_lr_writes_a_png_and_rejects_unknown_names(tmp_path, capsys):
    png = tmp_path / "lr.png"
    assert (
        main(["plot-lr", "--scheduler", "cosine_warmup", "--steps", "50", "--out", str(png)]) == 0
    )
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["plot-lr", "--scheduler", "nope", "--steps", "5", "--out", str(png)]) == 2
    err = capsys.readouterr().err
    assert "unknown scheduler 'nope'" in err and "onecycle" in err
    assert main(["plot-lr", "--list"]) == 0 and "cosine_restarts" in capsys.readouterr().out


def test_named_schedule_follows_the_closed_form():
    import math

    from minigenesis.app.schedules import schedule_factory
    from minigenesis.viz import lr_schedule_values

    lrs = [row[0] for row in lr_schedule_values(schedule_factory("cosine_warmup", 100, 10), 100,
                                                base_lr=0.5)]  # fmt: skip
    expected = [0.5 * t / 10 if t < 10 else 0.5 * 0.5 * (1 + math.cos(math.pi * (t - 10) / 90))
                for t in range(100)]  # fmt: skip
    np.testing.assert_allclose(lrs, expected, rtol=1e-9, atol=1e-12)


def test_keyboard_interrupt_mid_accumulation_resumes_exactly(tmp_path, capsys):
    """A KeyboardInterrupt between two micro-batches of one optimizer step (not at a boundary):
    the checkpoint describes the last completed step, and resuming matches a straight run."""
    from minigenesis.app import TrainConfig, Trainer
    from minigenesis.app.state import load_training_checkpoint

    cfg = TrainConfig(epochs=2, samples=240, hidden=16, batch_size=16, accum_steps=2)
    straight = Trainer(cfg, tmp_path / "a", quiet=True)
    assert straight.fit()
    broken = Trainer(cfg, tmp_path / "b", quiet=True)
    calls, forward = [0], broken._forward

    def forward_then_interrupt(xb, yb):
        calls[0] += 1
        if calls[0] == 8:  # the second micro-batch of step 4: step 3 is the last complete one
            raise KeyboardInterrupt
        return forward(xb, yb)

    broken._forward = forward_then_interrupt
    assert broken.fit() is False
    ckpt = load_training_checkpoint(tmp_path / "b" / "checkpoints" / "last.pth")
    assert (ckpt["step"], ckpt["batch_in_epoch"], ckpt["epoch_sums"][2]) == (3, 6, 6 * 16)
    resumed = Trainer(cfg, tmp_path / "b", checkpoint=ckpt, quiet=True)
    assert resumed.fit()
    assert resumed.history == {**straight.history, "seconds": resumed.history["seconds"]}
    for (name, p), q in zip(straight.model.named_parameters(), resumed.model.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy(), err_msg=name)
