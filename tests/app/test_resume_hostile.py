"""``train --resume`` on a checkpoint that loads safely but holds hostile or damaged values:
every one is refused in one line with exit code 2 before anything is used or written.

Each file is a real checkpoint of a finished run, edited in one place and saved with mg.save.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pytest

import minigenesis as mg
from minigenesis.app.cli import main
from minigenesis.app.resume_schema import Count, Real, Record

TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--accum-steps", "2",
        "--quiet"]  # fmt: skip
HUGE = 10**400  # an int no float can hold
GIANT = 10**5000  # an int Python cannot even print by default (4300 digits)


def _snapshot(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}  # fmt: skip


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "run"
    assert main(["train", "--out", str(out), "--epochs", "2", *TINY]) == 0
    return out


def _group(c: dict) -> dict:
    return c["optimizer_state_dict"]["param_groups"][0]


def _set(path: tuple, value) -> Callable[[dict], None]:
    def edit(c: dict) -> None:
        target = c
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return edit


EDITS: dict[str, tuple[Callable[[dict], None], str]] = {
    # name: (the edit, a piece of the expected message)
    "epoch of 5000 digits": (_set(("epoch",), GIANT), "epoch should be an integer"),
    "history value 10**400": (_set(("history", "val_loss", 0), HUGE), "history['val_loss'][0]"),
    "best 10**400": (_set(("best", "val_acc"), HUGE), "best['val_acc']"),
    "grad_norm 10**400": (_set(("grad_norm",), HUGE), "grad_norm"),
    "lrs 10**400": (_set(("lrs", 0), HUGE), "lrs[0]"),
    "epoch_sums 10**400": (_set(("epoch_sums", 0), HUGE), "epoch_sums[0]"),
    "config seed of 5000 digits": (_set(("config", "seed"), GIANT), "config['seed']"),
    "unknown config key": (_set(("config", "evil"), 1), "unexpected key 'evil'"),
    "unknown top-level key": (_set(("evil",), 1), "unexpected key 'evil'"),
    "scheduler extra key": (_set(("scheduler_state_dict", "optimizer"), 5),
                            "scheduler_state_dict has an unexpected key 'optimizer'"),
    "scheduler last_epoch nan": (_set(("scheduler_state_dict", "last_epoch"), float("nan")),
                                 "last_epoch"),
    "optimizer state extra key": (_set(("optimizer_state_dict", "state", 0, "evil"), 1),
                                  "unexpected key 'evil'"),
    "optimizer group extra key": (lambda c: _group(c).update(evil=1), "unexpected key 'evil'"),
    "adam betas (5, 7)": (lambda c: _group(c).update(betas=(5, 7)), "['betas'][0]"),
    "adam lr inf": (lambda c: _group(c).update(lr=float("inf")), "['lr']"),
    "adam eps nan": (lambda c: _group(c).update(eps=float("nan")), "['eps']"),
    "adam weight_decay 10**400": (lambda c: _group(c).update(weight_decay=HUGE), "weight_decay"),
    "adam maximize": (lambda c: _group(c).update(maximize=True), "['maximize']"),
    "params repeated": (lambda c: _group(c).update(params=[0] * 6), "['params']"),
    "params too short": (lambda c: _group(c).update(params=[0, 1]), "['params']"),
    "adam moment nan": (
        lambda c: c["optimizer_state_dict"]["state"][0]["exp_avg"].fill_(float("nan")),
        "exp_avg'] holds inf or NaN"),
    "adam second moment negative": (
        lambda c: c["optimizer_state_dict"]["state"][1]["exp_avg_sq"].fill_(-1.0),
        "holds values below 0"),
    "adam step 10**400": (_set(("optimizer_state_dict", "state", 0, "step"), HUGE), "['step']"),
    "state of a parameter not there": (
        _set(("optimizer_state_dict", "state", 99), {}), "belongs to no parameter"),
    "weight nan": (lambda c: c["model_state_dict"]["0.bias"].fill_(float("nan")),
                   "model_state_dict['0.bias'] holds inf or NaN"),
    "weight float64": (lambda c: c["model_state_dict"].update(
        {"0.bias": c["model_state_dict"]["0.bias"].double()}), "float32 tensor"),
    "scaler scale nan": (_set(("scaler_state_dict", "scale"), float("nan")), "['scale']"),
    "scaler scale inf": (_set(("scaler_state_dict", "scale"), float("inf")), "['scale']"),
    "scaler scale 0": (_set(("scaler_state_dict", "scale"), 0.0), "['scale']"),
    "scaler scale -1": (_set(("scaler_state_dict", "scale"), -1.0), "['scale']"),
    "scaler growth 0.5": (_set(("scaler_state_dict", "growth_factor"), 0.5), "growth_factor"),
    "scaler interval 0": (_set(("scaler_state_dict", "growth_interval"), 0), "growth_interval"),
    "scaler extra key": (_set(("scaler_state_dict", "evil"), 1), "unexpected key 'evil'"),
    "grad_flow not a dict": (_set(("grad_flow",), [1, 2]), "grad_flow should be a dict"),
    "grad_flow steps 10**400": (_set(("grad_flow", "steps"), HUGE), "grad_flow['steps']"),
    "grad_flow extra key": (_set(("grad_flow", "evil"), 1), "unexpected key 'evil'"),
    "grad_flow layer not in the model": (_set(("grad_flow", "layers", "9.weight"), [1, 0.5, 0.5]),
                                         "unexpected key '9.weight'"),
    "grad_flow norm negative": (_set(("grad_flow", "layers", "0.weight", 1), -1.0),
                                "grad_flow['layers']['0.weight'][1]"),
    "grad_flow norm 10**400": (_set(("grad_flow", "layers", "0.weight", 2), HUGE),
                               "grad_flow['layers']['0.weight'][2]"),
    "grad_flow layer of 2 entries": (_set(("grad_flow", "layers", "0.weight"), [1, 0.5]),
                                     "should be a list of 3 entries"),
    "grad_flow layer counted 0 times": (_set(("grad_flow", "layers", "0.weight", 0), 0),
                                        "grad_flow['layers']['0.weight'][0]"),
    "grad_flow layer counted beyond its steps": (
        _set(("grad_flow", "layers", "0.weight", 0), 13), "counts 13 steps of the 12"),
    "grad_flow beyond the run's steps": (
        lambda c: c["grad_flow"].update(steps=99), "seen 99 steps, more than the run's 12"),
    # these two resumed, then ended in a traceback (the plot's best epoch, a 0-step schedule)
    "best epoch beyond the run": (
        _set(("best", "epoch"), 99), "best['epoch'] should be an epoch of the run (1 to 2)"),
    "val_fraction leaving no training point": (
        _set(("config", "val_fraction"), 0.999), "leaves no training point"),
}  # fmt: skip


@pytest.mark.parametrize("name", list(EDITS))
def test_a_hostile_checkpoint_is_refused_in_one_line_and_nothing_is_written(
    finished_run, tmp_path, capsys, name
):
    edit, expected = EDITS[name]
    ckpt = mg.load(finished_run / "checkpoints" / "last.pth")
    edit(ckpt)
    edited = tmp_path / "edited.pth"
    mg.save(ckpt, edited)
    before = _snapshot(finished_run)
    code = main(["train", "--resume", str(edited), "--epochs", "3", "--quiet"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("error: cannot resume") and expected in lines[0], lines[0]
    assert len(lines[0]) < 300  # never the repr of a huge value
    assert _snapshot(finished_run) == before
    assert sorted(os.listdir(tmp_path)) == ["edited.pth"]  # no run directory was made


def test_the_unedited_checkpoint_still_resumes(finished_run, tmp_path):
    out = tmp_path / "more"
    code = main(["train", "--resume", str(finished_run), "--epochs", "3", "--out", str(out),
                 "--quiet"])  # fmt: skip
    assert code == 0 and (out / "checkpoints" / "last.pth").is_file()


def test_schema_checks_name_the_place_and_never_print_a_huge_value():
    schema = Record({"a": Count(high=10), "b": Real(above=0, below=1)})
    assert schema({"a": 3, "b": 0.5}, "") is None
    assert schema({"a": True, "b": 0.5}, "") == "a should be an integer in [0, 10], got True"
    assert "got an integer of 16610 bits" in schema({"a": GIANT, "b": 0.5}, "")
    assert schema({"a": 1, "b": float("nan")}, "x") == (
        "x['b'] should be a finite number > 0 < 1, got nan"
    )
    assert schema({"a": 1}, "") == "it lacks the key 'b'"
