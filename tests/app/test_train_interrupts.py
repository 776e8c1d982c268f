"""Ctrl-C and crashes at the worst moments of ``python -m minigenesis train``: whatever the moment,
the saved checkpoints are consistent and resuming them matches an uninterrupted run bit for bit."""

from __future__ import annotations

import math
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import minigenesis as mg
from minigenesis.app import TrainConfig, Trainer
from minigenesis.app import state as st
from minigenesis.app.cli import main
from minigenesis.app.signals import sigint_deferred

REPO = Path(__file__).resolve().parents[2]
# 192 train points / 16 = 12 micro-batches = 6 optimizer steps per epoch; at lr 0.05 the second
# epoch beats the first on validation, so best_model.pth changes at the end of epoch 2.
TINY = ["--samples", "240", "--hidden", "16", "--batch-size", "16", "--accum-steps", "2",
        "--lr", "0.05", "--epochs", "2", "--quiet"]  # fmt: skip
CONFIG = TrainConfig(samples=240, hidden=16, batch_size=16, accum_steps=2, lr=0.05, epochs=2)

# Runs the CLI in a child process that presses Ctrl-C (SIGINT to itself) at exact moments:
# `sched` inside scheduler.step of optimizer step N, after the scheduler moved and before the
# trainer counted the step (the moment an unprotected step is split); `save` inside the
# writing of a checkpoint file.
_CHILD = """
import os, signal, sys
import minigenesis.serialization as ser
from minigenesis.app.cli import main
from minigenesis.app import trainer as T

where, at, times, argv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]

if where == "kill":  # SIGKILL inside the write of last.pth at the end of epoch `at`
    write, save, target = ser.write_checkpoint, T.state.save_training_checkpoint, [None]
    def save_noting_the_name(state, path):
        target[0] = path.name
        save(state, path)
    T.state.save_training_checkpoint = save_noting_the_name
    def write_or_die(out, obj, *a, **k):
        if target[0] == "last.pth" and obj["epoch"] == at and obj["batch_in_epoch"] == 0:
            out.write(b"half")
            out.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        return write(out, obj, *a, **k)
    ser.write_checkpoint = write_or_die

def ctrl_c():  # (`term`: SIGTERM, as a job scheduler or `kill` sends, instead of Ctrl-C;
    # `hup`: SIGHUP, as a closing terminal sends; `nohup`: the same, ignored as nohup does)
    sig = {"term": signal.SIGTERM, "hup": signal.SIGHUP, "nohup": signal.SIGHUP}
    for _ in range(times):
        os.kill(os.getpid(), sig.get(where, signal.SIGINT))

if where in ("hup", "nohup"):  # (not inherited: the test may itself run under nohup)
    signal.signal(signal.SIGHUP, signal.SIG_IGN if where == "nohup" else signal.SIG_DFL)

init = T.Trainer.__init__
def patched_init(self, *args, **kwargs):
    init(self, *args, **kwargs)
    cls = type(self.scheduler)  # patched on the class: the instance's state must stay picklable
    step = cls.step
    def scheduler_step(*a, **k):
        step(*a, **k)
        if self.step + 1 == at:
            ctrl_c()
            if where == "save":  # the save that follows this Ctrl-C gets a second one
                write = ser.write_checkpoint
                def write_then_ctrl_c(*a, **k):
                    os.kill(os.getpid(), signal.SIGINT)
                    return write(*a, **k)
                ser.write_checkpoint = write_then_ctrl_c
    cls.step = scheduler_step
T.Trainer.__init__ = patched_init
sys.exit(main(argv))
"""


def _child(out: Path, where: str, at: int, times: int) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _CHILD, where, str(at), str(times), "train", "--out", str(out),
         *TINY],
        cwd=REPO, capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip


def same(a, b) -> bool:
    """Bit-exact structural equality (tensors by dtype, shape and bytes; NaN equals NaN)."""
    if isinstance(a, mg.Tensor):
        return (
            isinstance(b, mg.Tensor)
            and a.dtype is b.dtype
            and a.shape == b.shape
            and a.detach().numpy().tobytes() == b.detach().numpy().tobytes()
        )
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def _training_state(ckpt: dict) -> dict:
    """What must match between two runs (wall-clock seconds aside)."""
    keep = ["model_state_dict", "optimizer_state_dict", "scheduler_state_dict",
            "scaler_state_dict", "epoch", "step", "batch_in_epoch", "rng_state", "lrs", "grad_norm",
            "best"]  # fmt: skip
    history = {k: v for k, v in ckpt["history"].items() if k != "seconds"}
    return {**{k: ckpt[k] for k in keep}, "history": history}


def _load(run: Path, name: str = st.LAST) -> dict:
    return st.load_training_checkpoint(run / st.CHECKPOINT_DIR / name)


@pytest.fixture(scope="module")
def straight(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("straight") / "run"
    assert main(["train", "--out", str(out), *TINY]) == 0
    assert _load(out)["best"]["epoch"] == 2  # the premise of the best_model.pth tests
    return out


@pytest.mark.parametrize(
    "where, at, times, stopped_at",
    [
        ("sched", 4, 1, 4),  # Ctrl-C: finish step 4, save, stop
        ("sched", 4, 2, 4),  # Ctrl-C twice in the step: still step 4 whole, then stop at once
        ("sched", 6, 2, 6),  # ... in the epoch's last step: stop before validation
        ("save", 3, 1, 3),  # a second Ctrl-C while the final checkpoint is being written
    ],
    ids=[
        "once-in-scheduler-step",
        "twice-in-scheduler-step",
        "twice-at-epoch-end",
        "again-during-final-save",
    ],  # fmt: skip
)
def test_ctrl_c_at_any_moment_resumes_bit_identical(straight, tmp_path, where, at, times,
                                                    stopped_at):  # fmt: skip
    out = tmp_path / "run"
    proc = _child(out, where, at, times)
    assert proc.returncode == 130, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.strip() == "", proc.stderr
    assert f"interrupted at step {stopped_at} " in proc.stdout
    ckpt = _load(out)
    assert ckpt["step"] == stopped_at and len(ckpt["lrs"]) == stopped_at
    assert ckpt["scheduler_state_dict"]["last_epoch"] == stopped_at  # moved with the step
    assert main(["train", "--resume", str(out), "--quiet"]) == 0
    assert same(_training_state(_load(out)), _training_state(_load(straight)))
    for name in (st.BEST, st.LAST):
        assert same(_load(out, name)["model_state_dict"], _load(straight, name)["model_state_dict"])


@pytest.mark.parametrize("at, times", [(4, 1), (4, 3), (6, 2)])
def test_sigterm_saves_at_the_step_boundary_and_resumes_bit_identical(straight, tmp_path, at,
                                                                      times):  # fmt: skip
    """SIGTERM inside optimizer step ``at`` (once or several times, as a scheduler may send it):
    the step completes, last.pth is saved there, exit 143; resuming matches a straight run."""
    out = tmp_path / "run"
    proc = _child(out, "term", at, times)
    assert proc.returncode == 128 + signal.SIGTERM, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.strip() == "", proc.stderr
    assert f"terminated at step {at} " in proc.stdout
    ckpt = _load(out)
    assert ckpt["step"] == at and ckpt["scheduler_state_dict"]["last_epoch"] == at
    assert main(["train", "--resume", str(out), "--quiet"]) == 0
    assert same(_training_state(_load(out)), _training_state(_load(straight)))


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="needs SIGHUP")
def test_sighup_saves_like_sigterm_and_resumes_bit_identical(straight, tmp_path):
    """SIGHUP (the terminal closed) inside optimizer step 4: as SIGTERM, the step completes,
    last.pth is saved there, exit 129 (its default ended the run without a save)."""
    out = tmp_path / "run"
    proc = _child(out, "hup", 4, 1)
    assert proc.returncode == 128 + signal.SIGHUP, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.strip() == "", proc.stderr
    assert "hung up at step 4 " in proc.stdout
    assert _load(out)["step"] == 4
    assert main(["train", "--resume", str(out), "--quiet"]) == 0
    assert same(_training_state(_load(out)), _training_state(_load(straight)))


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="needs SIGHUP")
def test_an_ignored_sighup_stays_ignored(tmp_path):
    """Under ``nohup`` (SIGHUP ignored) a hang-up changes nothing: the run trains to the end."""
    proc = _child(tmp_path / "run", "nohup", 4, 1)
    assert proc.returncode == 0, proc.stderr
    assert "hung up" not in proc.stdout and _load(tmp_path / "run")["epoch"] == 2


def test_crash_while_writing_last_keeps_best_consistent(straight, tmp_path, monkeypatch):
    """A crash between the end-of-epoch saves: best_model.pth is written before last.pth, so the
    resumed run (from the previous last.pth) redoes the epoch and ends where a straight run does."""
    out = tmp_path / "run"
    real_save = st.save_training_checkpoint

    def crash_on_last_of_epoch_2(state, path):
        if path.name == st.LAST and state["epoch"] == 2 and state["batch_in_epoch"] == 0:
            raise SystemExit("power cut")
        real_save(state, path)

    monkeypatch.setattr(st, "save_training_checkpoint", crash_on_last_of_epoch_2)
    with pytest.raises(SystemExit):
        Trainer(CONFIG, out, quiet=True).fit()
    monkeypatch.undo()
    assert _load(out)["epoch"] == 1  # last.pth: the end of epoch 1
    best = _load(out, st.BEST)
    assert best["epoch"] == 2 and same(best["model_state_dict"],
                                       _load(straight, st.BEST)["model_state_dict"])  # fmt: skip
    assert main(["train", "--resume", str(out), "--quiet"]) == 0
    for name in (st.BEST, st.LAST):
        assert same(_training_state(_load(out, name)), _training_state(_load(straight, name)))


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_while_writing_last_resumes_bit_identical(straight, tmp_path):
    """A kill in the middle of last.pth at the end of epoch 2: best_model.pth (written first)
    already holds epoch 2, last.pth still the end of epoch 1, a temp file is left behind; the
    resume redoes epoch 2, sweeps the temp file and ends exactly where a straight run does."""
    out = tmp_path / "run"
    proc = _child(out, "kill", 2, 0)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    folder = out / st.CHECKPOINT_DIR
    assert _load(out)["epoch"] == 1 and _load(out, st.BEST)["epoch"] == 2
    assert [n for n in os.listdir(folder) if n.endswith(".mgtmp")]
    assert main(["train", "--resume", str(out), "--quiet"]) == 0
    for name in (st.BEST, st.LAST):
        assert same(_training_state(_load(out, name)), _training_state(_load(straight, name)))
    assert sorted(os.listdir(folder)) == sorted([st.BEST, st.LAST])


def test_resume_repairs_a_stale_best_model(straight, tmp_path):
    """last.pth says its own epoch is the best, best_model.pth holds an older one (a crash in a
    run that saved last.pth first): resuming rewrites best_model.pth from last.pth."""
    out = tmp_path / "run"
    shutil.copytree(straight, out)
    stale = _load(out, st.BEST)
    stale["model_state_dict"] = {k: v * 0 for k, v in stale["model_state_dict"].items()}
    stale["epoch"], stale["step"] = 1, 6
    st.save_training_checkpoint({k: v for k, v in stale.items() if k != "format"},
                                out / st.CHECKPOINT_DIR / st.BEST)  # fmt: skip
    assert main(["train", "--resume", str(out), "--quiet"]) == 0  # nothing left to train
    assert same(_training_state(_load(out, st.BEST)), _training_state(_load(straight, st.BEST)))


def test_sigint_deferred_delivers_each_ctrl_c_after_the_block():
    seen = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: seen.append("handler"))
    try:
        with sigint_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
            seen.append("block ends")
        assert seen == ["block ends", "handler", "handler"]
        assert signal.getsignal(signal.SIGINT) is not None
    finally:
        signal.signal(signal.SIGINT, previous)
    caught = []
    # Python's default handler, set here: a runner started in the background may have left
    # SIGINT ignored, and an ignored Ctrl-C is never delivered
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with sigint_deferred():
                os.kill(os.getpid(), signal.SIGINT)
                caught.append("block ends")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert caught == ["block ends"]


def test_sigint_deferred_outside_the_main_thread_changes_nothing():
    result = []

    def body():
        with sigint_deferred():
            result.append(signal.getsignal(signal.SIGINT))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    assert result == [signal.getsignal(signal.SIGINT)]


def test_ctrl_c_message_gets_a_line_of_its_own(tmp_path, monkeypatch):
    """The bar's line is ended (the bar closed) before the interruption is reported: on a
    terminal the message would otherwise be glued to the end of the progress bar."""
    from minigenesis.app import trainer as T

    events: list[str] = []

    class Bar:
        def update(self, n=1):
            pass

        def write(self, line):
            events.append("bar line")

        def set_postfix(self, *args, **kwargs):
            pass

        def close(self):
            events.append("close")

    monkeypatch.setattr(T, "progress", lambda *args, **kwargs: Bar())
    trainer = Trainer(CONFIG, tmp_path / "run", quiet=False, interrupt_at_step=3,
                      echo=lambda message: events.append(message))  # fmt: skip
    assert trainer.fit() is False
    said = [i for i, e in enumerate(events) if e.startswith("interrupted at step 3")]
    assert len(said) == 1 and "close" in events[: said[0]], events


def test_a_ctrl_c_during_the_end_of_epoch_agreement_is_kept_for_the_next_step(
    tmp_path, monkeypatch
):
    """Data parallel: a Ctrl-C that lands while this process waits in the end-of-epoch all-reduce
    (rank 0 validating or saving) is not in what it sent. It must stay requested and go into the
    next step's agreement; it was overwritten by the all-reduce's result, and the job trained on.
    The all-reduce is played by a stand-in: the other process sends 0, and SIGINT arrives during
    the wait."""
    from minigenesis.app import trainer as trainer_module

    trainer = Trainer(CONFIG, tmp_path / "run", quiet=True, echo=lambda line: None)
    trainer.world = 2
    sent = []

    def all_reduce(shared, *args, **kwargs):
        sent.append(shared.tolist())
        if len(sent) == 1:  # the end-of-epoch agreement: Ctrl-C comes while it waits
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(trainer_module.dist, "all_reduce", all_reduce)
    restore = trainer._install_sigint_handler()
    try:
        assert trainer._stop_after_epoch() is False  # nobody had asked when the values were sent
        trainer._share_step(0.0, [0.0, 0, 0], None)  # the next step's agreement
    finally:
        restore()
    assert sent[0] == [0.0]
    assert sent[1][-1] == 1.0  # this process's stop request went into the next agreement
