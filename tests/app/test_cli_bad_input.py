"""Bad input to the command line: an option's bad value or an unknown option is one line naming
it, exit status 2, no usage dump; ``--resume`` of something that is not a regular file is
refused at once (a FIFO would block for ever); a MINIGENESIS_CUPY that names no stand-in does not
break ``import minigenesis``."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minigenesis.app.cli import main

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["train", "--lr", "abc"], "argument --lr: invalid float value: 'abc'"),
        (["train", "--dtype", "float8"], "argument --dtype: invalid choice: 'float8'"),
        (["train", "--epochs"], "argument --epochs: expected one argument"),
        (["train", "--device", "meta"], "--device meta: a meta tensor has a shape but no values"),
        (["train", "--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["plot-lr", "--steps", "x"], "argument --steps: invalid int value: 'x'"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
    ],
)
def test_a_bad_option_is_one_line_naming_it(tmp_path, capsys, monkeypatch, argv, expected):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], captured
    assert "usage:" not in captured.err + captured.out
    assert os.listdir(tmp_path) == []  # nothing was written


def test_an_unknown_train_option_points_at_train_help(capsys):
    assert main(["train", "--frobnicate"]) == 2
    assert "(see: python -m minigenesis train --help)" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_resume_from_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "last.pth"
    os.mkfifo(fifo)
    proc = subprocess.run(
        [sys.executable, "-m", "minigenesis", "train", "--resume", str(fifo), "--quiet"],
        cwd=REPO, capture_output=True, text=True, timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == f"error: cannot resume from '{fifo}': not a regular file"


def test_a_bad_cupy_standin_warns_and_the_package_still_imports():
    code = (
        "import minigenesis as mg\n"
        "print('cuda', mg.cuda.is_available())\n"
        "try:\n    mg.zeros(1, device='cuda')\n"
        "except RuntimeError as err:\n    print(err)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO), "MINIGENESIS_CUPY": "nope"},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "RuntimeWarning: MINIGENESIS_CUPY='nope' names no usable CuPy stand-in" in proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == "cuda False"
    assert out[1].startswith("CUDA was requested but MINIGENESIS_CUPY='nope' names no usable")


@pytest.mark.parametrize("option", ["--out", "--resume"])
@pytest.mark.parametrize("name, reason", [
    ("x" * 300, "File name too long"),  # one component over 255 bytes
    ("loop", "Too many levels of symbolic links"),  # a symlink to itself
])  # fmt: skip
def test_a_path_the_os_cannot_look_up_is_one_line_naming_the_option(
    tmp_path, capsys, monkeypatch, option, name, reason
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "loop").symlink_to("loop")
    assert main(["train", option, name, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {option} ") and err.count("\n") == 1, err
    assert reason in err and len(err) < 200  # a long name is shortened, not printed whole
    assert sorted(os.listdir(tmp_path)) == ["loop"]  # nothing was written


@pytest.mark.parametrize("out, reason", [
    ("lr.txt", "Format 'txt' is not supported"),  # a file type matplotlib cannot write
    ("x" * 300 + ".png", "File name too long"),  # a file the OS cannot create
])  # fmt: skip
def test_plot_lr_an_unwritable_out_is_one_line_naming_the_option(
    tmp_path, capsys, monkeypatch, out, reason
):
    monkeypatch.chdir(tmp_path)
    assert main(["plot-lr", "--scheduler", "cosine", "--steps", "10", "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --out {out}: {reason}") and err.count("\n") == 1, err
    assert os.listdir(tmp_path) == []  # nothing was written


def test_a_file_in_the_way_of_the_checkpoints_folder_is_named(tmp_path, capsys, monkeypatch):
    """--out exists, but a file (or a dangling link) named checkpoints sits in it: the error
    names that file; it said '--out runs/a: cannot create it (File exists)'."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "checkpoints").write_text("")
    assert main(["train", "--out", "a", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err == "error: --out a: cannot create the folder a/checkpoints (File exists)\n", err
    assert os.listdir(tmp_path / "a") == ["checkpoints"]  # nothing was written


A_FOLDER, A_FILE = (
    "is a folder; the run writes a file there",
    "is a file; the run makes a folder there",
)


@pytest.mark.parametrize("folder, name, what", [
    ("loss.png", "loss.png", A_FOLDER),
    ("checkpoints/best_model.pth", "checkpoints/best_model.pth", A_FOLDER),
    (None, "tensorboard", A_FILE),
])  # fmt: skip
def test_a_name_the_run_writes_taken_by_the_wrong_kind_is_refused_before_training(
    tmp_path, capsys, monkeypatch, folder, name, what
):
    """Found at the start (exit 2, nothing written) instead of after the whole run, when the
    plots were written (exit 1), or at TensorBoard's first event."""
    monkeypatch.chdir(tmp_path)
    if folder:
        (tmp_path / "a" / folder).mkdir(parents=True)
    else:
        (tmp_path / "a").mkdir()
        (tmp_path / "a" / name).write_text("")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert main(["train", "--out", "a", "--epochs", "1", "--samples", "30", "--quiet"]) == 2
    assert capsys.readouterr().err == f"error: --out a: a/{name} {what}\n"
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("quiet", [[], ["--quiet"]])
def test_an_output_that_cannot_be_written_is_one_line_not_a_traceback(tmp_path, quiet):
    """`train > log` on a full disk (/dev/full): print's OSError was a traceback; it is one line
    that blames the output, not the run's files (exit 1)."""
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "minigenesis", "train", "--out", str(tmp_path / "run"),
             "--epochs", "1", "--samples", "30", *quiet],
            cwd=REPO, stdout=full, stderr=subprocess.PIPE, text=True, timeout=120,
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == (
        "error: cannot write to standard output (No space left on device); the run's files "
        "hold what was done\n"
    )


def test_a_disk_full_before_last_pth_is_one_line_and_resume_names_the_periodic_checkpoint(
    tmp_path, capsys, monkeypatch
):
    """The disk fills while the first epoch's last.pth is written (it goes after the periodic
    checkpoint and best_model.pth): one line, exit 1, the earlier files intact, and --resume of
    the run directory names the checkpoint that holds the epoch instead of only 'no last.pth'."""
    from minigenesis.app import state

    real_save = state.save_training_checkpoint

    def save(ckpt, path):
        if Path(path).name == state.LAST:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_save(ckpt, path)

    monkeypatch.setattr(state, "save_training_checkpoint", save)
    run = tmp_path / "run"
    argv = ["train", "--out", str(run), "--epochs", "2", "--samples", "30", "--ckpt-every", "1"]
    assert main([*argv, "--quiet"]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: cannot write the run's files: [Errno 28] No space left on device"
    ]
    periodic = run / "checkpoints" / "checkpoint_epoch_001.pth"
    assert state.load_training_checkpoint(periodic)["epoch"] == 1
    assert not (run / "checkpoints" / "last.pth").exists()
    monkeypatch.setattr(state, "save_training_checkpoint", real_save)
    assert main(["train", "--resume", str(run), "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: cannot resume from '{run}': no checkpoints/last.pth or last.pth in that "
        f"directory; its newest periodic checkpoint is '{periodic}'"
    )
    assert main(["train", "--resume", str(periodic), "--quiet"]) == 0  # and it finishes the run


def test_a_run_that_wrote_no_last_pth_is_neither_called_resumable_nor_a_dead_end(
    tmp_path, capsys, monkeypatch
):
    """The disk fills at the first epoch's last.pth, with no periodic checkpoint: the folder
    holds metrics.csv and best_model.pth. A fresh start into it must not say "continue it with
    --resume" (that fails: no last.pth), and --resume of the folder names best_model.pth."""
    from minigenesis.app import state

    real_save = state.save_training_checkpoint

    def save(ckpt, path):
        if Path(path).name == state.LAST:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_save(ckpt, path)

    monkeypatch.setattr(state, "save_training_checkpoint", save)
    run = tmp_path / "run"
    argv = ["train", "--out", str(run), "--epochs", "2", "--samples", "30", "--quiet"]
    assert main([*argv, "--ckpt-every", "0"]) == 1
    capsys.readouterr()
    monkeypatch.setattr(state, "save_training_checkpoint", real_save)
    best = run / "checkpoints" / "best_model.pth"
    assert best.is_file() and not (run / "checkpoints" / "last.pth").exists()
    before = sorted(p.name for p in run.rglob("*"))

    assert main(argv) == 2
    error = capsys.readouterr().err.strip()
    assert "--resume" not in error and error == (
        f"error: --out {run} already holds a run's files but no checkpoints/last.pth to continue "
        f"it from; it holds the checkpoint of its best epoch, '{best}'; choose another --out, or "
        f"delete {run} to start the run over"
    )
    assert main(["train", "--resume", str(run), "--quiet"]) == 2
    hint = f"; it holds the checkpoint of its best epoch, '{best}'"
    assert capsys.readouterr().err.strip().endswith(hint)
    assert sorted(p.name for p in run.rglob("*")) == before  # nothing written by either


@pytest.mark.parametrize("below", ["", "run"], ids=["the folder", "a folder above it"])
def test_an_out_through_a_link_to_nothing_names_the_link(tmp_path, capsys, monkeypatch, below):
    monkeypatch.chdir(tmp_path)
    Path("gone").symlink_to(tmp_path / "no" / "such" / "place")
    out = str(Path("gone") / below) if below else "gone"
    assert main(["train", "--out", out, "--quiet"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: --out {out}: gone is a symbolic link to {tmp_path / 'no' / 'such' / 'place'}, "
        "which does not exist"
    )
    assert os.listdir(tmp_path) == [
        "gone"
    ]  # nothing created (was: "cannot create it (File exists)")
