"""The command line's contract: a user mistake is one line on stderr and exit code 2, before any
work is done and without touching any file; a diverging run stops with exit code 1."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigenesis as mg
from minigenesis.app import trainer as trainer_module
from minigenesis.app.cli import main

REPO = Path(__file__).resolve().parents[2]
TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--accum-steps", "2",
        "--quiet"]  # fmt: skip


def _snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "run"
    assert main(["train", "--out", str(out), "--epochs", "2", *TINY]) == 0
    return out


@pytest.mark.parametrize(
    "options, expected",
    [
        (["--seed", "-1"], "--seed must lie in [0, 18446744073709551615], got -1"),
        (["--samples", str(10**12)], "--samples must lie in [1, 1000000]"),
        (["--hidden", "100000"], "--hidden must lie in [1, 4096]"),
        (["--epochs", "0"], "--epochs must lie in [1, 1000000], got 0"),
        (["--batch-size", "-3"], "--batch-size must lie in [1, 1000000]"),
        (["--ckpt-every", "-1"], "--ckpt-every must lie in [0, 1000000]"),
        (["--lr", "inf"], "--lr must be a finite number, got inf"),
        (["--lr", "nan"], "--lr must be a finite number, got nan"),
        (["--lr", "0"], "--lr must be positive, got 0.0"),
        (["--lr", "1e300"], "--lr must lie in [0, 1000000]"),
        (["--clip", "nan"], "--clip must be a finite number, got nan"),
        (["--clip", "-1"], "--clip must lie in [0, 1000000], got -1.0"),
        (["--samples", "4"], "--samples 4 is too small for 3 classes"),
    ],
)
def test_bad_train_options_are_one_line_and_exit_2(tmp_path, capsys, options, expected):
    out = tmp_path / "run"
    assert main(["train", "--out", str(out), *TINY, *options]) == 2
    assert expected in _one_error_line(capsys)
    assert not out.exists()


def test_bad_out_resume_and_device_are_one_line_and_exit_2(tmp_path, capsys):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("keep me")
    for out, expected in [
        (a_file, f"--out {a_file} is a file; name a directory"),
        (a_file / "run", f"--out {a_file / 'run'}: {a_file} is a file, not a directory"),
        ("", "--out is empty"),
    ]:
        assert main(["train", "--out", str(out), *TINY]) == 2
        assert expected in _one_error_line(capsys)
    for options, expected in [
        (["--resume", "", "--out", str(tmp_path / "run")], "--resume is empty"),
        (["--device", "cuda:abc", "--out", str(tmp_path / "run")], "--device"),
    ]:
        assert main(["train", *TINY, *options]) == 2
        assert expected in _one_error_line(capsys)
    assert a_file.read_text() == "keep me" and sorted(os.listdir(tmp_path)) == ["notes.txt"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="needs POSIX permissions that bind (not root)")  # fmt: skip
def test_an_unwritable_out_folder_is_one_line_and_exit_2(tmp_path, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert main(["train", "--out", str(locked / "run"), *TINY]) == 2
        assert "cannot write in" in _one_error_line(capsys)
        assert os.listdir(locked) == []
    finally:
        locked.chmod(0o755)


def _edit(ckpt: dict, change: str) -> None:
    """One way of damaging a training checkpoint's fields (the file itself stays valid)."""
    if change == "epoch as text":
        ckpt["epoch"] = "2"
    elif change == "negative step":
        ckpt["step"] = -1
    elif change == "history as a list":
        ckpt["history"] = [1, 2]
    elif change == "history row missing":
        ckpt["history"]["val_acc"] = ckpt["history"]["val_acc"][:1]
    elif change == "config lr as text":
        ckpt["config"]["lr"] = "fast"
    elif change == "config seed negative":
        ckpt["config"]["seed"] = -5
    elif change == "best is None":
        ckpt["best"] = None
    elif change == "lrs of text":
        ckpt["lrs"] = ["a"]
    elif change == "weight of another shape":
        ckpt["model_state_dict"]["0.weight"] = mg.zeros(3, 3)
    elif change == "adam moment of another shape":
        ckpt["optimizer_state_dict"]["state"][0]["exp_avg"] = mg.zeros(5)
    elif change == "adam betas as text":
        ckpt["optimizer_state_dict"]["param_groups"][0]["betas"] = "0.9"
    elif change == "scheduler position as text":
        ckpt["scheduler_state_dict"]["last_epoch"] = "12"
    elif change == "scaler scale as text":
        ckpt["scaler_state_dict"]["scale"] = "big"
    elif change == "batch beyond the epoch":
        ckpt["batch_in_epoch"] = 10**6
    elif change == "rng state garbage":
        ckpt["rng_state"] = mg.zeros(4)
    else:
        raise AssertionError(change)


@pytest.mark.parametrize(
    "change",
    ["epoch as text", "negative step", "history as a list", "history row missing",
     "config lr as text", "config seed negative", "best is None", "lrs of text",
     "weight of another shape", "adam moment of another shape", "adam betas as text",
     "scheduler position as text", "scaler scale as text", "batch beyond the epoch",
     "rng state garbage"],
)  # fmt: skip
def test_a_checkpoint_with_wrong_fields_is_refused_in_one_line(
    finished_run, tmp_path, capsys, change
):
    ckpt = mg.load(finished_run / "checkpoints" / "last.pth")
    _edit(ckpt, change)
    edited = tmp_path / "edited.pth"
    mg.save(ckpt, edited)
    before = _snapshot(finished_run)
    code = main(["train", "--resume", str(edited), "--epochs", "3", "--quiet"])
    assert code == 2
    assert "cannot resume" in _one_error_line(capsys)
    assert _snapshot(finished_run) == before
    assert sorted(os.listdir(tmp_path)) == ["edited.pth"]  # no run directory was made


def test_resume_with_fewer_epochs_than_done_is_refused(finished_run, capsys):
    assert main(["train", "--resume", str(finished_run), "--epochs", "1", "--quiet"]) == 2
    assert "--epochs 1 is fewer than the 2 epochs" in _one_error_line(capsys)


def test_a_diverging_run_stops_with_exit_1_and_saves_nothing(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.run(
        [sys.executable, "-m", "minigenesis", "train", "--out", str(out), "--epochs", "3",
         "--lr", "1e6", "--dtype", "float16", *TINY],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "training diverged" in lines[0], proc.stderr
    assert "loss became nan" in lines[0] or "loss became inf" in lines[0]
    assert "nothing was saved" in lines[0] and "done" not in proc.stdout
    assert not (out / "checkpoints" / "last.pth").exists()


def test_divergence_keeps_the_last_good_checkpoint(finished_run, tmp_path, capsys, monkeypatch):
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    before = _snapshot(run)
    forward, calls = trainer_module.Trainer._forward, [0]

    def forward_that_blows_up(self, xb, yb):  # the 3rd epoch's 5th micro-batch gives NaN
        logits, loss = forward(self, xb, yb)
        calls[0] += 1
        return logits, loss * float("nan") if calls[0] == 5 else loss

    monkeypatch.setattr(trainer_module.Trainer, "_forward", forward_that_blows_up)
    assert main(["train", "--resume", str(run), "--epochs", "3", "--quiet"]) == 1
    line = _one_error_line(capsys)
    assert "the training loss became nan at step 15 (epoch 3)" in line
    assert f"{run / 'checkpoints' / 'last.pth'} is the last good checkpoint" in line
    after = _snapshot(run)
    # The checkpoints and metrics are untouched (only TensorBoard's event log grew).
    assert {k: v for k, v in after.items() if "tensorboard" not in k} == {
        k: v for k, v in before.items() if "tensorboard" not in k
    }
    ckpt = mg.load(run / "checkpoints" / "last.pth")
    assert ckpt["step"] == 12
    assert all(np.isfinite(t.numpy()).all() for t in ckpt["model_state_dict"].values())


@pytest.mark.parametrize(
    "options, expected",
    [
        (["--steps", "1000000000"], "--steps must lie in [1, 1000000], got 1000000000"),
        (["--steps", "0"], "--steps must lie in [1, 1000000], got 0"),
        (["--lr", "inf"], "--lr must be a positive finite number at most 1e6, got inf"),
        (["--lr", "-1"], "--lr must be a positive finite number at most 1e6, got -1.0"),
        (["--warmup", "50"], "--warmup must lie in [0, steps), got 50 for 10 steps"),
        (["--out", ""], "--out is empty"),
        (["--out", "{tmp}"], "is a directory"),
        (["--out", "{tmp}/no/lr.png"], "the folder {tmp}/no does not exist"),
        (["--out", "{tmp}/lr.xyz"], "Format 'xyz' is not supported"),
    ],
)
def test_bad_plot_lr_options_are_one_line_and_exit_2(tmp_path, capsys, options, expected):
    options = [o.format(tmp=tmp_path) for o in options]
    code = main(["plot-lr", "--scheduler", "cosine_warmup", "--steps", "10",
                 "--out", str(tmp_path / "lr.png"), *options])  # fmt: skip
    assert code == 2
    assert expected.format(tmp=tmp_path) in _one_error_line(capsys)
    assert os.listdir(tmp_path) == []


def test_plot_lr_out_under_a_file_names_the_file(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("x")
    out = tmp_path / "notes.txt" / "lr.png"
    assert main(["plot-lr", "--scheduler", "cosine", "--steps", "10", "--out", str(out)]) == 2
    assert f"--out {out}: {tmp_path / 'notes.txt'} is a file, not a folder" in _one_error_line(
        capsys
    )


def test_plot_lr_out_without_an_extension_is_a_png_of_exactly_that_name(tmp_path, capsys):
    out = tmp_path / "schedule"
    assert main(["plot-lr", "--scheduler", "cosine", "--steps", "10", "--out", str(out)]) == 0
    assert os.listdir(tmp_path) == ["schedule"]  # not "schedule.png" behind a "wrote schedule"
    assert out.read_bytes()[:4] == b"\x89PNG"
    assert capsys.readouterr().out.startswith(f"wrote {out} ")


def test_plot_lr_draws_a_single_step(tmp_path):
    png = tmp_path / "lr.png"
    assert main(["plot-lr", "--scheduler", "cosine_warmup", "--steps", "1", "--out", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_a_read_only_checkpoint_in_the_run_is_refused_before_training(finished_run, tmp_path,
                                                                       capsys):  # fmt: skip
    run = tmp_path / "run"
    shutil.copytree(finished_run, run)
    last = run / "checkpoints" / "last.pth"
    last.chmod(0o444)  # no write bit for anyone: refused even for root
    try:
        before = _snapshot(run)
        assert main(["train", "--resume", str(run), "--epochs", "3", "--quiet"]) == 2
        assert f"{last} is read-only" in _one_error_line(capsys)
        assert _snapshot(run) == before
    finally:
        last.chmod(0o644)


def test_a_failing_write_during_the_run_is_one_line_and_exit_1(tmp_path, capsys, monkeypatch):
    from minigenesis.app import state as st

    def disk_full(state, path):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(st, "save_training_checkpoint", disk_full)
    assert main(["train", "--out", str(tmp_path / "run"), "--epochs", "1", *TINY]) == 1
    line = _one_error_line(capsys)
    assert "cannot write the run's files" in line and "No space left on device" in line
