"""Checks for chapter 13. Oracles: closed-form parameter counts, the same training step composed
here from minigenesis's parts, NumPy cross-entropy on the model's logits, and an uninterrupted run
for the resumed one."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest
from _quiz import answers_of, check_answer

import minigenesis as mg

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 13.2  no zero_grad / zero_grad after backward / clip before unscale_ / no unscale_ / the
#       scheduler stepped first / lr read after it / the norm after clipping / no update()
#       / the scaled loss returned / no autocast              -> vs the step composed here
#       optimizer.step() in place of scaler.step(optimizer)   -> a step with inf gradients
# 13.3  mean of the batch means / no eval() / mode not restored / the last batch dropped
#                                                            -> vs NumPy cross-entropy
#       no mg.no_grad() (a graph kept for every batch)       -> evaluates without a graph
# 13.4  warmup from one epoch's steps, not the whole run's     -> trains, logs and checkpoints
#       stop_after counted from epoch 0, not from the resume  -> resumes exactly


# ----------------------------------------------------------------------------- 13.1
@pytest.mark.exercise("13.1")
@pytest.mark.parametrize(("classes", "channels", "size"), [(4, (8, 16), 12), (3, (4, 6), 16)])
def test_13_1_layers_shapes_and_parameter_count(impl, classes, channels, size) -> None:
    model = impl.build_cnn(classes, channels, size)
    assert isinstance(model, mg.nn.Sequential)
    kinds = [type(m).__name__ for m in model]
    assert kinds == ["Conv2d", "ReLU", "MaxPool2d", "Conv2d", "ReLU", "MaxPool2d", "Flatten",
                     "Linear"]  # fmt: skip
    c1, c2 = channels
    flat = c2 * (size // 4) ** 2
    expected = (c1 * 1 * 9 + c1) + (c2 * c1 * 9 + c2) + (flat * classes + classes)
    assert sum(p.numel() for p in model.parameters()) == expected
    assert tuple(model[0].weight.shape) == (c1, 1, 3, 3)
    assert tuple(model[3].weight.shape) == (c2, c1, 3, 3)
    assert tuple(model(mg.randn(5, 1, size, size)).shape) == (5, classes)


# ----------------------------------------------------------------------------- 13.2
def _setup(seed: int = 0):
    mg.manual_seed(seed)
    model = mg.nn.Sequential(
        mg.nn.Conv2d(1, 4, 3, padding=1), mg.nn.ReLU(), mg.nn.MaxPool2d(2), mg.nn.Flatten(),
        mg.nn.Linear(4 * 6 * 6, 4),
    )  # fmt: skip
    optimizer = mg.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = mg.optim.get_cosine_schedule_with_warmup(optimizer, 2, 6)
    scaler = mg.amp.GradScaler(init_scale=2.0**8)
    return model, optimizer, scheduler, scaler


def _reference_step(model, optimizer, scheduler, scaler, x, y, max_norm) -> dict:
    optimizer.zero_grad()
    with mg.autocast("cpu", dtype=mg.bfloat16):
        logits = model(x)
    loss = mg.nn.CrossEntropyLoss()(logits.float(), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = mg.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    lr = scheduler.get_last_lr()[0]
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()
    return {"loss": loss.item(), "grad_norm": float(norm), "lr": lr}


@pytest.mark.exercise("13.2")
def test_13_2_matches_the_step_composed_from_the_parts(impl) -> None:
    mg.manual_seed(5)
    batches = [(mg.randn(16, 1, 12, 12), mg.randint(0, 4, (16,))) for _ in range(5)]
    ours_parts, ref_parts = _setup(), _setup()
    for step, (x, y) in enumerate(batches):
        ours = impl.train_step(*ours_parts, x, y, 0.5)
        ref = _reference_step(*ref_parts, x, y, 0.5)
        assert set(ours) == {"loss", "grad_norm", "lr"}
        assert all(type(v) is float for v in ours.values()), "return Python floats"
        for key in ref:
            assert ours[key] == pytest.approx(ref[key], rel=1e-5, abs=1e-12), (
                f"step {step}: {key} differs from the step composed here (zero_grad, the forward "
                "under autocast, scaler.scale(loss).backward(), unscale_, clip, the lr, "
                "scaler.step, scaler.update, scheduler.step; a difference from step 1 on "
                "means the previous step left something behind, such as gradients)"
                + (
                    ": the lr to return is the one this step used, read before scheduler.step()"
                    if key == "lr"
                    else ""
                )
            )
    for p, q in zip(ours_parts[0].parameters(), ref_parts[0].parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-7)


@pytest.mark.exercise("13.2")
def test_13_2_clips_and_follows_the_schedule(impl) -> None:
    model, optimizer, scheduler, scaler = _setup()
    mg.manual_seed(6)
    x, y = mg.randn(16, 1, 12, 12) * 100, mg.randint(0, 4, (16,))  # large inputs, large grads
    lrs = []
    for _ in range(4):
        before = [p.detach().numpy().copy() for p in model.parameters()]
        stats = impl.train_step(model, optimizer, scheduler, scaler, x, y, max_norm=1e-3)
        lrs.append(stats["lr"])
        assert stats["grad_norm"] > 1e-3  # the norm before clipping
        grads = np.concatenate([p.grad.numpy().ravel() for p in model.parameters()])
        assert np.linalg.norm(grads) == pytest.approx(1e-3, rel=1e-3)  # clipped, unscaled
        moved = any(not np.array_equal(b, p.detach().numpy())
                    for b, p in zip(before, model.parameters()))  # fmt: skip
        assert moved == (stats["lr"] > 0), (
            f"the returned lr {stats['lr']} is not the lr this step used (the parameters "
            f"{'moved' if moved else 'did not move'}): read it before scheduler.step()"
        )
    assert lrs == pytest.approx([0.0, 0.005, 0.01, 0.01 * 0.5 * (1 + math.cos(math.pi / 4))])


@pytest.mark.exercise("13.2")
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step")  # the skipped step
def test_13_2_a_step_with_inf_gradients_is_skipped(impl) -> None:
    model, optimizer, scheduler, scaler = _setup()
    x, y = mg.randn(16, 1, 12, 12), mg.randint(0, 4, (16,))
    x[0, 0, 0, 0] = math.inf  # its loss and gradients are not finite
    before = [p.detach().numpy().copy() for p in model.parameters()]
    impl.train_step(model, optimizer, scheduler, scaler, x, y, max_norm=1.0)
    changed = [
        not np.array_equal(b, p.detach().numpy()) for b, p in zip(before, model.parameters())
    ]
    assert not any(changed), (
        "a step whose gradients hold inf/NaN changed the weights: step through the scaler, "
        "scaler.step(optimizer), which skips optimizer.step() when unscale_ found an inf"
    )
    assert scaler.get_scale() == 2.0**7, "call scaler.update() after the step: it halves the scale"


# ----------------------------------------------------------------------------- 13.3
@pytest.mark.exercise("13.3")
def test_13_3_evaluates_without_a_graph(impl) -> None:
    model = mg.nn.Sequential(mg.nn.Flatten(), mg.nn.Linear(144, 4))
    grad_modes = []
    model.register_forward_hook(
        lambda module, inputs, output: grad_modes.append(output.requires_grad)
    )
    impl.evaluate(model, mg.randn(10, 1, 12, 12), mg.randint(0, 4, (10,)), 4)
    assert grad_modes and not any(grad_modes), (
        "evaluate ran the model with gradients on, so every batch kept its graph: run it under "
        "`with mg.no_grad():`"
    )


@pytest.mark.exercise("13.3")
@pytest.mark.parametrize("batch_size", [7, 32, 1000])
@pytest.mark.parametrize("training", [True, False])
def test_13_3_matches_numpy_cross_entropy(impl, batch_size: int, training: bool) -> None:
    mg.manual_seed(0)
    model = mg.nn.Sequential(mg.nn.Flatten(), mg.nn.Dropout(0.5), mg.nn.Linear(144, 4))
    X, y = mg.randn(45, 1, 12, 12), mg.randint(0, 4, (45,))
    model.train(training)
    loss, accuracy = impl.evaluate(model, X, y, batch_size)
    assert model.training == training, "put the model back in its mode"

    w, b = model[2].weight.detach().numpy(), model[2].bias.detach().numpy()
    logits = X.numpy().reshape(45, -1).astype(np.float64) @ w.T + b  # eval mode: no dropout
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    labels = y.numpy()
    per_sample = -log_probs[np.arange(45), labels]
    batch_means = [per_sample[i : i + batch_size].mean() for i in range(0, 45, batch_size)]
    assert loss == pytest.approx(per_sample.mean(), rel=1e-5), (
        f"loss {loss}, the mean over the 45 samples is {per_sample.mean()}"
        + (
            ": you averaged the batch means, so the last, smaller batch counts as much as a "
            "full one; sum the per-sample losses (reduction='sum') and divide by the count"
            if loss == pytest.approx(np.mean(batch_means), rel=1e-5)
            else ""
        )
    )
    assert accuracy == pytest.approx((logits.argmax(axis=1) == labels).mean()), (
        "accuracy: count the hits over all batches and divide by the number of samples"
    )


# ----------------------------------------------------------------------------- 13.4
@pytest.fixture(scope="module")
def shapes():
    # make_shapes is ready-made in both files; take it from solutions.py so that the data never
    # depends on the state of the learner's exercises.py
    import _course  # lessons/conftest.py puts lessons/ on sys.path

    solutions = _course.load_file(Path(__file__).with_name("solutions.py"))
    X, y = solutions.make_shapes(512 + 256, noise=0.2, seed=1)
    return X[:512], y[:512], X[512:], y[512:]


@pytest.mark.exercise("13.4")
def test_13_4_trains_logs_and_checkpoints(impl, shapes, tmp_path: Path, monkeypatch) -> None:
    made = []  # the (num_warmup_steps, num_training_steps) of each schedule the run builds
    build = mg.optim.get_cosine_schedule_with_warmup

    def recording(optimizer, num_warmup_steps, num_training_steps, *args, **kwargs):
        made.append((num_warmup_steps, num_training_steps))
        return build(optimizer, num_warmup_steps, num_training_steps, *args, **kwargs)

    monkeypatch.setattr(mg.optim, "get_cosine_schedule_with_warmup", recording)
    history = impl.fit(shapes, tmp_path, epochs=4)
    total = 4 * math.ceil(len(shapes[1]) / 64)
    assert made in ([], [(total // 10, total)]), (  # [] when built by another name
        f"the schedule was built with (warmup, total) = {made[0]}: the total counts the steps of "
        "ALL epochs (ceil(n_train / batch_size) each), the warmup is 10 % of that total"
    )
    assert [len(history[k]) for k in ("train_loss", "val_loss", "val_acc")] == [4, 4, 4]
    assert history["val_acc"][-1] >= 0.8
    assert history["train_loss"][-1] < history["train_loss"][0]
    state = mg.load(tmp_path / "checkpoint.mgck")
    assert state["epoch"] == 4
    with open(tmp_path / "logs" / "scalars.csv", newline="") as f:
        tags = {row["tag"] for row in csv.DictReader(f)}
    assert {"Loss/train", "Loss/val", "Accuracy/val"} <= tags


@pytest.mark.exercise("13.4")
def test_13_4_interrupted_run_resumes_exactly(impl, shapes, tmp_path: Path) -> None:
    small = (shapes[0][:192], shapes[1][:192], shapes[2][:64], shapes[3][:64])
    straight = impl.fit(small, tmp_path / "straight", epochs=3)
    first = impl.fit(small, tmp_path / "resumed", epochs=3, stop_after=1)
    assert len(first["val_acc"]) == 1
    mg.manual_seed(999)  # whatever happens between the calls must not matter
    second = impl.fit(small, tmp_path / "resumed", epochs=3, stop_after=1)
    assert len(second["val_acc"]) == 2, (
        f"{len(second['val_acc'])} epochs done after a second call with stop_after=1: stop_after "
        "counts the epochs of THIS call, from the epoch the checkpoint reached"
    )
    mg.manual_seed(998)
    resumed = impl.fit(small, tmp_path / "resumed", epochs=3)
    assert resumed == straight


# ----------------------------------------------------------------------------- 13.5
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("99d07fdddeaf32e1", "ffc05a657747ddf43a99cce8a9d2b0ee1b1ba97b4c7c6e892c47ffba95572110"),
    "q2": ("2dd23a011edc65f5", "a9bd1eed7ce235741cb5c1007b518eb43f6c46b60885cdeba0eb13cab4ac2a15"),
    "q3": ("6e7a0a8dcd7ddb90", "540691f675f922e295358f473720bb0e50ba30dd794d681539455d5311e2928c"),
    "q4": ("9b72d1fc72922f47", "cbd910f75a119ddac16b73aa33b4d7b47f56c51fe77f87f77ab9f4cdc451a0b2"),
    "q5": ("b761885ffbcc0778", "33b0f681c553304ce38d38cc8ffcdca019843005d44d56ddb59934ce75cd9eb5"),
}
QUIZ_HINTS = {
    "q1": (
        "Where does a warmup schedule start, and what does a step of lr 0 change ('One "
        "training step', the note under the printed steps)?"
    ),
    "q2": (
        "Re-read 'Evaluation': an average over samples weighs each batch by its size; 56 of the "
        "256 samples are in the last one."
    ),
    "q3": (
        "Which call in each epoch draws random numbers, and what must the checkpoint hold for "
        "the resumed run to draw the same ones ('Interrupted, then resumed')?"
    ),
    "q4": (
        "What does mg.no_grad() change: the numbers computed, or what is kept to differentiate "
        "them ('Evaluation')?"
    ),
    "q5": (
        "Re-read 'Your engine': which pieces does the command replace with minigenesis's, and "
        "what shows a piece that runs but is wrong?"
    ),
}


@pytest.mark.exercise("13.5")
@pytest.mark.parametrize("question", list(QUIZ))
def test_13_5_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
