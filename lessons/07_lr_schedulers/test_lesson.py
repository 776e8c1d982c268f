"""Checks for chapter 7. Oracles: minigenesis.optim.lr_scheduler's schedulers (driven step by
step, as in training) and the closed forms of the schedules."""

from __future__ import annotations

from pathlib import Path

import pytest
from _checks import watch_calls
from _quiz import answers_of, check_answer

import minigenesis as mg
from minigenesis.optim import lr_scheduler as sched

# Shortcuts tried against these checks; each fails the check named after the arrow.
# 7.1  warmup (step + 1) / warmup, one step ahead                  -> vs the scheduler, landmarks
#      get_cosine_schedule_with_warmup(...).lr_lambdas[0] (the oracle) -> by-hand watch
#      progress clamped to 1 (0 after num_training_steps)          -> vs the scheduler, and past


def _optimizer(lr: float = 0.1) -> mg.optim.Optimizer:
    return mg.optim.SGD([mg.nn.Parameter(mg.zeros(2))], lr=lr)


def _assert_same_lrs(ours, ref, hint) -> None:
    """ours == ref to the checks' tolerance, else name the first step that differs and why.

    ``hint(step)`` says what the lr of that step is made of."""
    for step, (got, want) in enumerate(zip(ours, ref)):
        if got != pytest.approx(want, rel=1e-9, abs=1e-12):
            pytest.fail(f"step {step}: yours {got!r}, the scheduler's {want!r}: {hint(step)}")
    assert len(ours) == len(ref), f"{len(ours)} values, the scheduler gives {len(ref)}"


def _trajectory(scheduler, steps: int, metrics=None) -> list[float]:
    """The lr in force at each step 0..steps-1, stepping the scheduler as a training loop does."""
    lrs = []
    for t in range(steps):
        lrs.append(scheduler.optimizer.param_groups[0]["lr"])
        scheduler.optimizer.step()
        scheduler.step() if metrics is None else scheduler.step(metrics[t])
    return lrs


# ----------------------------------------------------------------------------- 7.1
@pytest.mark.exercise("7.1")
@pytest.mark.parametrize(("warmup", "total"), [(10, 100), (0, 50), (30, 31), (5, 5)])
def test_7_1_lambda_matches_get_cosine_schedule_with_warmup(impl, warmup, total) -> None:
    """The whole run, and 10 steps past ``num_training_steps`` (a loop that trains longer than
    it told the schedule): the formula holds there too, its progress past 1."""
    lr_lambda = impl.warmup_cosine_lambda(warmup, total)
    steps = total + 11
    ours = _trajectory(sched.LambdaLR(_optimizer(), lr_lambda), steps)
    ref = _trajectory(sched.get_cosine_schedule_with_warmup(_optimizer(), warmup, total), steps)

    def hint(t: int) -> str:
        if t < warmup:
            return f"in warmup ({warmup} steps) the multiplier is step / {warmup}, 0 at step 0"
        cosine = f"0.5 * (1 + cos(pi * (step - {warmup}) / {max(1, total - warmup)}))"
        if t > total:
            return f"past num_training_steps = {total} the same {cosine} holds (progress > 1)"
        return f"after warmup, {cosine}"

    _assert_same_lrs(ours, ref, hint)


@pytest.mark.exercise("7.1")
def test_7_1_closed_form_landmarks(impl) -> None:
    f = impl.warmup_cosine_lambda(100, 1100)
    assert f(0) == 0.0
    assert f(50) == pytest.approx(0.5)
    assert f(100) == pytest.approx(1.0)  # the end of warmup: the full learning rate
    assert f(600) == pytest.approx(0.5)  # half way through the cosine
    assert f(1100) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.exercise("7.1")
def test_7_1_is_written_by_hand(impl) -> None:
    """The schedulers are the oracle: none of their code may run to build or evaluate the
    multiplier (it is a closed form of the step)."""
    with watch_calls() as seen:
        f = impl.warmup_cosine_lambda(10, 100)
        [f(step) for step in range(101)]
    used = [Path(u).name for u in seen.used(sched)]
    assert not used, (
        f"warmup_cosine_lambda ran minigenesis's schedulers ({', '.join(used)}), what the checks "
        "compare it with: write the multiplier as a closed form of the step"
    )


# ----------------------------------------------------------------------------- 7.2
@pytest.mark.exercise("7.2")
@pytest.mark.parametrize(("T_max", "eta_min"), [(50, 0.0), (30, 0.01), (1, 0.0)])
def test_7_2_closed_form_matches_cosine_annealing(impl, T_max, eta_min) -> None:  # noqa: N803
    ref = _trajectory(
        sched.CosineAnnealingLR(_optimizer(0.1), T_max=T_max, eta_min=eta_min), T_max + 1
    )
    ours = [impl.cosine_annealing_lr(e, 0.1, T_max, eta_min) for e in range(T_max + 1)]
    _assert_same_lrs(
        ours,
        ref,
        lambda t: f"eta_min + (base_lr - eta_min) * (1 + cos(pi * {t} / {T_max})) / 2",
    )


# ----------------------------------------------------------------------------- 7.3
@pytest.mark.exercise("7.3")
@pytest.mark.parametrize(("T_0", "T_mult", "eta_min"), [(10, 1, 0.0), (10, 2, 0.001), (3, 3, 0.0)])
def test_7_3_closed_form_matches_warm_restarts(impl, T_0, T_mult, eta_min) -> None:  # noqa: N803
    scheduler = sched.CosineAnnealingWarmRestarts(
        _optimizer(0.1), T_0=T_0, T_mult=T_mult, eta_min=eta_min
    )
    ref = _trajectory(scheduler, 120)
    ours = [impl.warm_restarts_lr(e, 0.1, T_0, T_mult, eta_min) for e in range(120)]

    def cycle(step: int) -> str:
        length, start = T_0, 0
        while step >= start + length:
            start, length = start + length, length * T_mult
        return (
            f"cycles of {T_0}, then each {T_mult} times longer: step {step} is T_cur = "
            f"{step - start} in a cycle of T_i = {length} steps"
        )

    _assert_same_lrs(ours, ref, cycle)


@pytest.mark.exercise("7.3")
def test_7_3_restarts_jump_back_to_base_lr(impl) -> None:
    # cycles of 10, 20, 40: restarts at steps 10, 30 and 70
    for restart in (0, 10, 30, 70):
        assert impl.warm_restarts_lr(restart, 0.1, 10, 2) == pytest.approx(0.1)
    assert impl.warm_restarts_lr(20, 0.1, 10, 2) == pytest.approx(0.05)  # half way through #2


# ----------------------------------------------------------------------------- 7.4
METRICS = [10, 9, 8, 8, 8, 8, 8, 7.9999, 8, 8, 8, 8, 5, 5, 5, 5, 5, 5, 4, 6, 6, 6, 6, 6, 6, 6]


@pytest.mark.exercise("7.4")
@pytest.mark.parametrize(
    ("factor", "patience", "threshold"), [(0.5, 3, 1e-4), (0.1, 0, 1e-4), (0.5, 2, 0.2)]
)
def test_7_4_matches_reduce_lr_on_plateau(impl, factor, patience, threshold) -> None:
    ours = impl.plateau_lrs(METRICS, 1.0, factor=factor, patience=patience, threshold=threshold)
    optimizer = _optimizer(1.0)
    scheduler = sched.ReduceLROnPlateau(
        optimizer, mode="min", factor=factor, patience=patience, threshold=threshold
    )
    ref = []
    for metric in METRICS:
        optimizer.step()
        scheduler.step(metric)
        ref.append(optimizer.param_groups[0]["lr"])
    improving = impl.plateau_lrs([8.0, 4.0, 2.0, 1.0], 1.0, factor=factor, patience=patience)
    assert improving == [1.0] * 4, (
        f"metrics 8, 4, 2, 1 (each an improvement) gave the lrs {improving}: a metric improves "
        "when metric < best * (1 - threshold), with best starting at +inf (careful: "
        "inf - inf * threshold is nan, and every comparison with nan is False); an "
        "improvement sets the count of bad epochs to 0"
    )
    _assert_same_lrs(
        ours,
        ref,
        lambda t: (
            f"after metric {METRICS[t]} (patience {patience}): the lr is cut when the count of "
            "bad epochs EXCEEDS patience, and the count goes back to 0 after a cut; a cut that "
            "would change the lr by less than 1e-8 (eps) is skipped"
        ),
    )
    assert len(set(ref)) > 2, "the metrics must trigger several reductions"


# ----------------------------------------------------------------------------- 7.5
@pytest.mark.exercise("7.5")
@pytest.mark.parametrize(
    ("warmup", "gamma", "start"), [(5, 0.9, 0.1), (1, 0.5, 0.25), (8, 1.0, 0.5)]
)
def test_7_5_matches_sequential_linear_then_exponential(impl, warmup, gamma, start) -> None:
    ours = _trajectory(
        _warmup_exponential(impl, _optimizer(), warmup, gamma, start_factor=start), 40
    )
    optimizer = _optimizer()
    ref = _trajectory(
        sched.SequentialLR(
            optimizer,
            [
                sched.LinearLR(optimizer, start_factor=start, end_factor=1.0, total_iters=warmup),
                sched.ExponentialLR(optimizer, gamma=gamma),
            ],
            milestones=[warmup],
        ),
        40,
    )
    _assert_same_lrs(
        ours,
        ref,
        lambda t: (
            f"epoch {t} of a {warmup}-step warmup: base_lr * ({start} + (1 - {start}) * {t} / "
            f"{warmup}), from self.base_lrs"
            if t < warmup
            else f"epoch {t}: base_lr * {gamma} ** ({t} - {warmup}), from self.base_lrs (not "
            "the lr in the optimizer now)"
        ),
    )


def _warmup_exponential(impl, *args, **kwargs):
    try:
        return impl.WarmupExponentialLR(*args, **kwargs)
    except AttributeError as e:
        pytest.fail(
            f"WarmupExponentialLR(...) raised AttributeError: {e}. The base constructor "
            "already calls get_lr (step 0): store your settings BEFORE super().__init__"
        )


@pytest.mark.exercise("7.5")
def test_7_5_is_a_real_scheduler(impl) -> None:
    optimizer = mg.optim.SGD(
        [
            {"params": [mg.nn.Parameter(mg.zeros(1))], "lr": 0.1},
            {"params": [mg.nn.Parameter(mg.zeros(1))], "lr": 0.02},
        ],
        lr=0.1,
    )
    scheduler = _warmup_exponential(impl, optimizer, warmup_steps=4, gamma=0.5)
    assert isinstance(scheduler, sched.LRScheduler)
    assert scheduler.get_last_lr() == pytest.approx([0.01, 0.002])  # step 0: start_factor 0.1
    for _ in range(6):
        optimizer.step()
        scheduler.step()
    assert scheduler.get_last_lr() == pytest.approx([0.1 * 0.25, 0.02 * 0.25])
    # state_dict / load_state_dict come from the base class and resume the schedule
    resumed = impl.WarmupExponentialLR(optimizer, warmup_steps=4, gamma=0.5)
    resumed.load_state_dict(scheduler.state_dict())
    assert resumed.last_epoch == 6
    optimizer.step()
    resumed.step()
    assert resumed.get_last_lr() == pytest.approx([0.1 * 0.125, 0.02 * 0.125])


# ----------------------------------------------------------------------------- 7.6
# The self-check questions. Their key is hashed (why: lessons/_quiz.py); the letters are in
# solutions.py. Shortcuts tried: the same letter for every question -> the questions whose answer
# differs; quiz() that reads QUIZ and hashes letters until one matches -> the ran-nothing watch.
QUIZ = {  # question -> (salt, sha256 of "salt:letter")
    "q1": ("6298983501f211da", "2289b2f7eacb33e20be16c9b7a3d23c26234624e0e4fa706602c096e8358745e"),
    "q2": ("a2752412d841bac0", "1034e0b4fb2e95630ad2b3edbd445e859894c89a29369b3dfe6ad571f6449bad"),
    "q3": ("42b3d4c8375a7b3d", "600e71aac5552fa56d4bb504fb949a8ef31df6210ed505c4b3a76ad99228f8e1"),
}
QUIZ_HINTS = {
    "q1": (
        "Re-read 'The protocol': which learning rate does optimizer.step() use, and when does "
        "scheduler.step() change it?"
    ),
    "q2": ("Put t = T/2 into the closed form of 'Chainable forms and closed forms'."),
    "q3": ("Re-read 'Warmup + cosine': what is unreliable in the first few hundred steps?"),
}


@pytest.mark.exercise("7.6")
@pytest.mark.parametrize("question", list(QUIZ))
def test_7_6_self_check(impl, question: str) -> None:
    check_answer(answers_of(impl.quiz), question, QUIZ, QUIZ_HINTS[question])
