"""Checks for chapter 10. Oracles: the pickle module, hashlib, minigenesis.load's refusals, and an
uninterrupted minigenesis training run."""

from __future__ import annotations

import collections
import hashlib
import math
import os
import pickle
from pathlib import Path

import numpy as np
import pytest
from _quiz import answers_of, check_answer

import minigenesis as mg

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 10.1 allowed by name alone, or by module alone                   -> module and name checked
# 10.2 open(path, "wb") and pickle.dump into it                    -> failed save keeps the old file
#      pickle.dumps first, then a direct write to path             -> fsynced in the same directory
#      a temporary file from tempfile.mkstemp() (in /tmp)          -> fsynced in the same directory
#      os.rename instead of os.replace, or no fsync                -> fsynced in the same directory
#      (a right answer that also fsyncs the folder after the replace passes)
# 10.4 the RNG state, the scheduler or the optimizer not loaded     -> resume is exact


class _RunsPrint:
    """Unpickling this calls print(): harmless, but visible, proof that loading ran code."""

    def __reduce__(self):
        return (print, ("pickle ran code",))


class _RunsEval:
    def __reduce__(self):
        return (eval, ("1 + 1",))


BENIGN = [
    {"step": 3, "lr": 1e-3, "name": "run", "flags": (True, None), "ids": [1, 2, 3]},
    collections.OrderedDict(weight=np.arange(6, dtype=np.float32).reshape(2, 3), n=np.int64(4)),
    {"nested": {"a": [np.zeros(3), {"b": b"bytes"}]}, "c": complex(1, 2), "s": {1, 2}},
]


# ----------------------------------------------------------------------------- 10.1
@pytest.mark.exercise("10.1")
@pytest.mark.parametrize("obj", BENIGN, ids=["builtins", "ordereddict-numpy", "nested"])
def test_10_1_loads_plain_data(impl, obj) -> None:
    loaded = impl.safe_loads(pickle.dumps(obj))
    assert pickle.dumps(loaded) == pickle.dumps(obj)
    assert type(loaded) is type(obj)


@pytest.mark.exercise("10.1")
@pytest.mark.parametrize("trap", [_RunsPrint(), _RunsEval()], ids=["print", "eval"])
def test_10_1_refuses_code_and_runs_nothing(impl, trap, capsys) -> None:
    data = pickle.dumps({"weights": [1.0, 2.0], "trap": trap})
    with pytest.raises(pickle.UnpicklingError) as err:
        impl.safe_loads(data)
    assert "builtins" in str(err.value), "name the refused global in the message"
    assert "pickle ran code" not in capsys.readouterr().out


@pytest.mark.exercise("10.1")
@pytest.mark.parametrize("module", ["typing", "os"])
def test_10_1_checks_the_module_and_the_name(impl, module: str) -> None:
    """A pickle naming ``OrderedDict`` (an allowed name) from another module than collections:
    allowed is a (module, name) pair, not a name alone nor a module alone."""
    data = f"c{module}\nOrderedDict\n.".encode()  # protocol 0: GLOBAL module name, STOP
    with pytest.raises(pickle.UnpicklingError) as err:
        impl.safe_loads(data)
    assert module in str(err.value), (
        f"refused, but the message does not name the global {module}.OrderedDict"
    )


@pytest.mark.exercise("10.1")
@pytest.mark.parametrize("index", range(len(BENIGN) + 1))
def test_10_1_agrees_with_minigenesis_load(impl, index: int, tmp_path: Path, capsys) -> None:
    obj = BENIGN[index] if index < len(BENIGN) else {"trap": _RunsPrint()}
    data = pickle.dumps(obj)
    try:
        impl.safe_loads(data)
        ours = "accepted"
    except pickle.UnpicklingError:
        ours = "refused"
    mg.save(obj, tmp_path / "obj.mgck")
    try:
        mg.load(tmp_path / "obj.mgck")
        theirs = "accepted"
    except pickle.UnpicklingError:
        theirs = "refused"
    assert ours == theirs
    assert "pickle ran code" not in capsys.readouterr().out


# ----------------------------------------------------------------------------- 10.2
@pytest.mark.exercise("10.2")
def test_10_2_round_trip_and_overwrite(impl, tmp_path: Path) -> None:
    path = tmp_path / "ck.pkl"
    impl.atomic_save({"a": 1}, path)
    impl.atomic_save({"a": 2, "w": [0.5]}, path)
    with open(path, "rb") as f:
        assert pickle.load(f) == {"a": 2, "w": [0.5]}
    assert os.listdir(tmp_path) == ["ck.pkl"]


@pytest.mark.exercise("10.2")
def test_10_2_failed_save_keeps_the_old_file(impl, tmp_path: Path) -> None:
    path = tmp_path / "ck.pkl"
    impl.atomic_save({"a": 1}, path)
    # 1 MiB is pickled (and written) before the lambda makes pickle fail half-way
    broken = {"a": 2, "big": b"x" * 2**20, "bad": lambda: 0}
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        impl.atomic_save(broken, path)
    with open(path, "rb") as f:
        assert pickle.load(f) == {"a": 1}
    assert os.listdir(tmp_path) == ["ck.pkl"], "the temporary file must be removed"


@pytest.mark.exercise("10.2")
def test_10_2_temporary_file_is_fsynced_in_the_same_directory(impl, tmp_path, monkeypatch):
    calls = []
    real_replace, real_fsync = os.replace, os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])

    def replace(src, dst):
        calls.append(("replace", Path(src).parent, Path(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    impl.atomic_save([1, 2], tmp_path / "x.pkl")
    replaces = [c for c in calls if c != "fsync"]
    assert replaces, (
        "os.replace was never called: write the pickle to a temporary file and os.replace it "
        "onto path (a write straight into path leaves a half-written file after a crash; "
        "os.rename cannot overwrite a file on Windows)"
    )
    assert calls[0] == "fsync", "flush and os.fsync the temporary file before the os.replace"
    # an fsync of the folder after the replace (it makes the rename itself durable) is welcome
    _, folder, target = replaces[-1]
    assert target == tmp_path / "x.pkl", f"os.replace onto {target}, not onto the path given"
    assert folder == tmp_path, (
        f"the temporary file was in {folder}, not in the checkpoint's folder {tmp_path}: "
        "os.replace is atomic only within one file system (tempfile's dir= argument)"
    )


# ----------------------------------------------------------------------------- 10.3
PAYLOAD = pickle.dumps({"w": list(range(100))})


@pytest.mark.exercise("10.3")
def test_10_3_layout_and_round_trip(impl) -> None:
    blob = impl.add_checksum(PAYLOAD)
    assert blob[:4] == b"CKPT"
    assert int.from_bytes(blob[4:12], "little") == len(PAYLOAD)
    assert blob[12:44] == hashlib.sha256(PAYLOAD).digest()
    assert blob[44:] == PAYLOAD
    assert impl.check_checksum(blob) == PAYLOAD


def _flip(blob: bytes, index: int) -> bytes:
    return blob[:index] + bytes([blob[index] ^ 0x10]) + blob[index + 1 :]


@pytest.mark.exercise("10.3")
@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:0],
        lambda b: b[:1],
        lambda b: b[:10],
        lambda b: b[: len(b) // 2],
        lambda b: b[:-1],
        lambda b: b + b"\x00",
        lambda b: _flip(b, 0),
        lambda b: _flip(b, 20),
        lambda b: _flip(b, len(b) - 5),
    ],
    ids=["empty", "1-byte", "10-bytes", "half", "one-short", "one-long", "magic", "digest", "data"],
)
def test_10_3_damage_is_detected(impl, damage) -> None:
    blob = impl.add_checksum(PAYLOAD)
    with pytest.raises(ValueError):
        impl.check_checksum(damage(blob))


# ----------------------------------------------------------------------------- 10.4
def _build(seed: int):
    mg.manual_seed(seed)
    model = mg.nn.Sequential(
        mg.nn.Linear(4, 16), mg.nn.ReLU(), mg.nn.Dropout(0.25), mg.nn.Linear(16, 1)
    )
    optimizer = mg.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = mg.optim.get_cosine_schedule_with_warmup(optimizer, 2, 8)
    return model, optimizer, scheduler


def _train(model, optimizer, scheduler, steps: int) -> list[float]:
    losses = []
    for _ in range(steps):
        x = mg.randn(8, 4)  # data and dropout masks both draw from the minigenesis RNG
        y = x.sum(dim=1, keepdim=True)
        loss = ((model(x) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
    return losses


@pytest.mark.exercise("10.4")
def test_10_4_resume_is_exact(impl, tmp_path: Path) -> None:
    straight = _train(*_build(seed=0), steps=8)

    model, optimizer, scheduler = _build(seed=0)
    first = _train(model, optimizer, scheduler, steps=4)
    saved_weights = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    saved_rng = mg.get_rng_state().numpy().copy()
    impl.save_training_state(tmp_path / "run.ckpt", model, optimizer, scheduler, step=4)
    mg.manual_seed(12345)  # anything that happens after the save must not matter

    model, optimizer, scheduler = _build(seed=99)  # a fresh process would start elsewhere
    step = impl.load_training_state(tmp_path / "run.ckpt", model, optimizer, scheduler)
    assert step == 4, f"load_training_state returned {step!r}, the step saved was 4"
    for name, value in model.state_dict().items():
        assert np.array_equal(value.numpy(), saved_weights[name]), f"{name} was not restored"
    lr, scheduled = optimizer.param_groups[0]["lr"], scheduler.get_last_lr()[0]
    assert math.isclose(scheduled, lr), (
        f"after loading, the optimizer's lr is {lr} but the scheduler's last lr is {scheduled}: "
        "load both state_dicts (the lr lives in the optimizer's param groups, the count of "
        "steps in the scheduler)"
    )
    assert np.array_equal(mg.get_rng_state().numpy(), saved_rng), (
        "the random-number state is not the one saved: the batches and dropout masks after the "
        "resume would differ; save mg.get_rng_state() and restore it with mg.set_rng_state"
    )
    second = _train(model, optimizer, scheduler, steps=4)
    assert first + second == straight, (
        "the resumed run's losses differ from the uninterrupted run's: something the steps "
        "depend on (Adam's moments, the step count) was not saved or not loaded"
    )


# ----------------------------------------------------------------------------- 10.5
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("f81faa8bdecfbbe1", "57a775d0772b2734aecadc2d2f520c7eabbd7053e40c3e99fe926760c53604c1"),
    "q2": ("fc96a9062e5a04a8", "7589e44502e35bd1b8e239d431df4798d9884131e2c3686c41282b19d49e894e"),
    "q3": ("dc6092cb469518a8", "3b04ed44b4ac9d3b85dbb61d7276e9d211af3a3451f905efad753fdfbed00c49"),
    "q4": ("c41361438324685b", "0b5cb3d28ddc15670dfc501f49318883c61919778f6aa89203361fbaff21146a"),
}
QUIZ_HINTS = {
    "q1": (
        "Re-read 'Why unpickling is dangerous': what does find_class return, and who chooses it?"
    ),
    "q2": ("Re-read 'Atomic writes': what makes the replace a single step?"),
    "q3": ("Re-read 'Exact resume': which parts of a step use random numbers?"),
    "q4": ("Re-read 'Checksums: noticing damage': who can compute a SHA-256?"),
}


@pytest.mark.exercise("10.5")
@pytest.mark.parametrize("question", list(QUIZ))
def test_10_5_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
